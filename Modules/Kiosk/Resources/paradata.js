// Paradata for the data-quality flags (doc/data-quality.md). On a question page it counts the
// taps (pointer presses, the on-screen keyboard's keys included) and key presses, the time
// between the first and the last of them, and how often "Are you still there?" was shown, and
// posts them with the answer or the skip as one hidden field, `pd`: "taps.keys.spanMs.shown".
// Nothing typed is read. The daemon never rejects an answer for this field, nor for its absence.
(function () {
    "use strict";
    var taps = 0, keys = 0, first = null, last = null, shown = 0;
    var now = window.performance && window.performance.now
        ? function () { return window.performance.now(); } : Date.now;
    function note() {
        var time = now();
        if (first === null) { first = time; }
        last = time;
    }
    document.addEventListener("pointerdown", function () { taps += 1; note(); }, true);
    document.addEventListener("keydown", function () { keys += 1; note(); }, true);
    document.addEventListener("DOMContentLoaded", function () {
        var dialog = document.getElementById("idle-dialog");
        if (!dialog || typeof MutationObserver !== "function") { return; }
        new MutationObserver(function () { if (dialog.open) { shown += 1; } })
            .observe(dialog, { attributes: true, attributeFilter: ["open"] });
    });
    document.addEventListener("submit", function (event) {
        // Only an answer or a skip: the staff screen's PIN form shares the answer form's id.
        var form = event.target;
        var action = form && form.getAttribute ? form.getAttribute("action") : null;
        if (action !== "/answer" && action !== "/skip") { return; }
        var field = form.querySelector("input[name=pd]");
        if (!field) {
            field = document.createElement("input");
            field.type = "hidden";
            field.name = "pd";
            form.appendChild(field);
        }
        var span = first === null ? 0 : Math.round(last - first);
        field.value = [taps, keys, span, shown].join(".");
    }, true);
})();
