// The welcome screen's attract loop, served with kiosk.js as one script (KioskAssets).
(function () {
    "use strict";

    // The welcome screen's attract loop (with the operator's images): after its time untouched
    // the images take the screen in turn, with the survey's title and "Touch to start"; a touch
    // brings the welcome screen back and starts nothing. All of it runs here, in the browser.
    // With prefers-reduced-motion nothing slides: the images change in place, every 20 s.
    function setUpAttract() {
        var loop = document.getElementById("attract");
        if (!loop) { return; }
        var after = parseInt(loop.getAttribute("data-attract-seconds"), 10);
        if (isNaN(after) || after < 1) { return; }
        var images = Array.prototype.slice.call(loop.querySelectorAll(".attract-image"));
        var still = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
        var every = still ? 20000 : 6000;
        var idle = null;
        var turn = null;
        var index = 0;
        function showImage(next) {
            images.forEach(function (image, at) {
                image.classList.toggle("is-shown", at === next);
                image.classList.toggle("is-gone", at !== next && at === index);
            });
            index = next;
        }
        function start() {
            loop.hidden = false;
            document.body.classList.add("attract-on");
            index = 0;
            showImage(0);
            if (images.length > 1) {
                turn = window.setInterval(function () { showImage((index + 1) % images.length); }, every);
            }
        }
        function wait() {
            window.clearTimeout(idle);
            idle = window.setTimeout(start, after * 1000);
        }
        function stop(event) {
            event.preventDefault();
            event.stopPropagation();
            window.clearInterval(turn);
            loop.hidden = true;
            document.body.classList.remove("attract-on");
            wait();
        }
        loop.addEventListener("click", stop);
        document.addEventListener("keydown", function (event) { if (!loop.hidden) { stop(event); } }, true);
        ["pointerdown", "keydown", "input", "touchstart", "wheel"].forEach(function (type) {
            document.addEventListener(type, function () { if (loop.hidden) { wait(); } }, { passive: true, capture: true });
        });
        wait();
    }
    document.addEventListener("DOMContentLoaded", setUpAttract);
}());
