// The kiosk pages work without this script; it only adds:
// - on question pages, "Are you still there?" after a time without any touch or key, with a
//   countdown that abandons the session (POST /reset), and a keep-alive while the respondent
//   is active, so that the server does not expire a session someone is still answering;
// - on end screens, the countdown back to the welcome screen and "tap anywhere to finish";
// - the free-text field of "Other" enabled only when that option is chosen (without the
//   script it is always enabled, and its text counts only when "Other" is chosen);
// - one submission per page (a double tap does not post twice);
// - the timed reload of a page that asks for one ("one moment"), which browsers without
//   scripts do through a <meta http-equiv=refresh> in <noscript>;
// - on the welcome screen, its held request for the kiosk's state, and its attract loop;
// - a reload when the browser shows a page from its back/forward cache.
(function () {
    "use strict";

    window.addEventListener("pageshow", function (event) {
        if (event.persisted) { window.location.reload(); }
    });

    function seconds(name) {
        var value = parseInt(document.body.getAttribute(name), 10);
        return isNaN(value) || value < 0 ? null : value;
    }

    function postForm(form) {
        if (form) { HTMLFormElement.prototype.submit.call(form); }
    }

    // One submission per page.
    var submitted = false;
    document.addEventListener("submit", function (event) {
        if (submitted) { event.preventDefault(); return; }
        submitted = true;
    }, true);

    // "Other": its text field is enabled only when its option is chosen, and choosing the
    // option moves the focus to the field.
    function setUpExtraFields() {
        var fields = document.querySelectorAll("input[data-extra-for]");
        Array.prototype.forEach.call(fields, function (field) {
            var option = document.getElementById(field.getAttribute("data-extra-for"));
            if (!option) { return; }
            var group = document.getElementsByName(option.name);
            function sync() {
                field.disabled = !option.checked;
                if (option.checked && document.activeElement === option) { field.focus(); }
            }
            Array.prototype.forEach.call(group, function (radio) { radio.addEventListener("change", sync); });
            field.disabled = !option.checked;
        });
    }

    function setUpIdleReset(idleSeconds, countdownSeconds) {
        var dialog = document.getElementById("idle-dialog");
        var count = document.getElementById("idle-count");
        var resume = document.getElementById("idle-continue");
        var resetForm = document.getElementById("reset-form");
        if (!dialog || !resetForm || typeof dialog.showModal !== "function") { return; }
        var csrfField = resetForm.querySelector("input[name=csrf]");
        var idleTimer = null;
        var countdownTimer = null;
        var remaining = countdownSeconds;
        // Measured on the page's monotonic clock: a step of the wall clock back must not stop
        // the keep-alives (the server would detach a respondent who is answering).
        var monotonicNow = (window.performance && typeof window.performance.now === "function")
            ? function () { return window.performance.now(); } : Date.now;
        var lastAlive = monotonicNow();
        var aliveEvery = Math.max(5, Math.floor(idleSeconds / 2)) * 1000;

        function keepAlive() {
            if (!csrfField || monotonicNow() - lastAlive < aliveEvery || !window.fetch) { return; }
            lastAlive = monotonicNow();
            window.fetch("/alive", {
                method: "POST",
                credentials: "same-origin",
                headers: { "Content-Type": "application/x-www-form-urlencoded" },
                body: "csrf=" + encodeURIComponent(csrfField.value)
            }).catch(function () {});
        }

        function startIdleTimer() {
            window.clearTimeout(idleTimer);
            idleTimer = window.setTimeout(showOverlay, idleSeconds * 1000);
        }

        // The field that had the focus when the overlay came: Continue gives it back (and with
        // it the on-screen keyboard, which shows when a text field takes the focus).
        var focusedBefore = null;

        function showOverlay() {
            focusedBefore = document.activeElement;
            remaining = countdownSeconds;
            count.textContent = String(remaining);
            dialog.showModal();
            resume.focus();
            countdownTimer = window.setInterval(function () {
                remaining -= 1;
                count.textContent = String(Math.max(remaining, 0));
                if (remaining <= 0) {
                    window.clearInterval(countdownTimer);
                    postForm(resetForm);
                }
            }, 1000);
        }

        function stillHere() {
            window.clearInterval(countdownTimer);
            if (dialog.open) { dialog.close(); }
            if (focusedBefore && focusedBefore !== document.body && document.contains(focusedBefore)
                && document.activeElement !== focusedBefore && typeof focusedBefore.focus === "function") {
                focusedBefore.focus();
            }
            focusedBefore = null;
            lastAlive = -Infinity;
            keepAlive();
            startIdleTimer();
        }

        resume.addEventListener("click", stillHere);
        dialog.addEventListener("cancel", function (event) { event.preventDefault(); stillHere(); });
        ["pointerdown", "keydown", "input", "touchstart", "wheel"].forEach(function (type) {
            document.addEventListener(type, function () {
                if (dialog.open) { return; }
                keepAlive();
                startIdleTimer();
            }, { passive: true, capture: true });
        });
        startIdleTimer();
    }

    function setUpReturn(returnSeconds) {
        var count = document.getElementById("return-count");
        var link = document.getElementById("return-link");
        var target = link ? link.getAttribute("href") : "/";
        var remaining = returnSeconds;
        function leave() { window.location.replace(target); }
        window.setInterval(function () {
            remaining -= 1;
            if (count) { count.textContent = String(Math.max(remaining, 0)); }
            if (remaining <= 0) { leave(); }
        }, 1000);
        document.addEventListener("click", function (event) {
            event.preventDefault();
            leave();
        });
    }

    document.addEventListener("DOMContentLoaded", function () {
        setUpExtraFields();
        var idle = seconds("data-idle-seconds");
        var countdown = seconds("data-countdown-seconds");
        if (idle !== null && countdown !== null) { setUpIdleReset(idle, countdown); }
        var back = seconds("data-return-seconds");
        if (back !== null) { setUpReturn(back); }
        var reload = seconds("data-reload-seconds");
        if (reload !== null) {
            var url = document.body.getAttribute("data-reload-url") || "/";
            var timer = window.setTimeout(function () { window.location.replace(url); }, reload * 1000);
            // The staff screen ends after its time untouched: each touch starts the time again.
            if (document.body.classList.contains("staff-page")) {
                ["pointerdown", "keydown", "input"].forEach(function (type) {
                    document.addEventListener(type, function () {
                        window.clearTimeout(timer);
                        timer = window.setTimeout(function () { window.location.replace(url); }, reload * 1000);
                    }, true);
                });
            }
        }
        setUpTextSize();
        setUpStaffHold(document.body.getAttribute("data-staff-hold"));
        setUpStateWatch(document.body.getAttribute("data-state"));
    });

    // The respondent's text size: three steps of the root font size, kept in sessionStorage
    // while one respondent goes from page to page, forgotten on the welcome screen (the next one).
    function setUpTextSize() {
        var control = document.getElementById("text-size");
        if (!control) { return; }
        var KEY = "kiosk-text-size";
        var FACTORS = [1, 1.15, 1.3];
        var root = document.documentElement;
        var base = parseFloat(window.getComputedStyle(root).fontSize) || 24;
        var buttons = Array.prototype.slice.call(control.querySelectorAll("button[data-step]"));
        function store(step) { try { window.sessionStorage.setItem(KEY, String(step)); } catch (e) {} }
        function apply(step) {
            root.style.fontSize = (base * FACTORS[step]) + "px";
            root.setAttribute("data-text-size", String(step));
            buttons.forEach(function (button) {
                button.setAttribute("aria-pressed", button.getAttribute("data-step") === String(step) ? "true" : "false");
            });
        }
        var step = 0;
        if (!document.body.classList.contains("welcome-page")) {
            try { step = parseInt(window.sessionStorage.getItem(KEY) || "0", 10) || 0; } catch (e) { step = 0; }
        }
        // Past the respondent's last page (the welcome screen, an end screen) nothing of their
        // choice is kept in the browser: the end screen still shows it, the key goes.
        if (document.body.classList.contains("welcome-page") || document.body.classList.contains("end-page")) {
            try { window.sessionStorage.removeItem(KEY); } catch (e) {}
        }
        step = Math.max(0, Math.min(FACTORS.length - 1, step));
        buttons.forEach(function (button) {
            button.addEventListener("click", function () {
                var chosen = parseInt(button.getAttribute("data-step"), 10) || 0;
                store(chosen);
                apply(chosen);
            });
        });
        apply(step);
        control.hidden = false;
    }

    // The staff screen's way in: a press of 3 seconds on the page's heading (or logo).
    function setUpStaffHold(target) {
        if (!target) { return; }
        var held = null;
        function cancel() { if (held !== null) { window.clearTimeout(held); held = null; } }
        Array.prototype.forEach.call(document.querySelectorAll("h1, .logo"), function (element) {
            element.addEventListener("pointerdown", function () {
                cancel();
                held = window.setTimeout(function () { window.location.assign(target); }, 3000);
            });
            ["pointerup", "pointerleave", "pointercancel"].forEach(function (type) { element.addEventListener(type, cancel); });
            element.addEventListener("contextmenu", function (event) { event.preventDefault(); });
        });
    }

    // The welcome screen follows the kiosk's state (out of service, another survey, opening
    // hours, the staff PIN, the brand): one request to /state?shown=… is held by the daemon until
    // what it answers differs from what the page shows (or for at most 4 minutes), and the page
    // reloads when it does. After an error it asks again after 1 s, doubling up to a minute.
    // The held request is given up when the page goes (pagehide): a browser keeps at most six
    // connections to the kiosk, and held requests of pages left behind would take them all, so
    // that the next page could not load. A page shown again from the back/forward cache asks anew.
    function setUpStateWatch(shown) {
        if (shown === null || !window.fetch) { return; }
        var delay = 1000;
        var asking = null;
        function retry() {
            window.setTimeout(ask, delay);
            delay = Math.min(delay * 2, 60000);
        }
        function ask() {
            asking = window.AbortController ? new AbortController() : null;
            var options = { cache: "no-store", credentials: "same-origin" };
            if (asking) { options.signal = asking.signal; }
            fetch("/state?shown=" + encodeURIComponent(shown), options).then(function (response) {
                if (!response.ok) { throw new Error("state " + response.status); }
                return response.text();
            }).then(function (now) {
                delay = 1000;
                if (now !== shown) { window.location.reload(); } else { ask(); }
            }).catch(function (error) {
                if (error && error.name === "AbortError") { return; }
                retry();
            });
        }
        window.addEventListener("pagehide", function () { if (asking) { asking.abort(); } });
        window.addEventListener("pageshow", function (event) { if (event.persisted) { ask(); } });
        ask();
    }
}());
