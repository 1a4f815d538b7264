// The on-screen keyboard of the kiosk pages: a touch screen has no keyboard, and the kiosk's
// browser (cage + Chromium) can show none of its own. This file is the page wiring only; the
// layouts are in keyboard-layouts.js and the Hangul composer in hangul.js.
//
// With `data-keyboard="onscreen"` on <html>, a question's text, number and e-mail fields (and the
// "Other" text) get the keyboard docked at the bottom while they have the focus: #osk, a labelled
// region of <button type=button> keys. A key puts its character into the field's value at the
// caret and fires `input`, as typing would; Enter taps Next. The page gets a bottom padding the
// keyboard's height, and the field (and Next, when they fit) is scrolled above the keyboard. A
// physical keyboard keeps working: its keys end the Hangul composition and type as usual.
//
// The layouts' data decides: 한/영 goes to the layout its key names (`to`), and a layout's `lang`
// is the language of its character keys (their `lang`) and, for "ko", composes jamo into
// syllables; the other keys speak the page's language. The syllable being
// composed is the composer's (`preedit()`): the field shows it before the caret, and nothing here
// keeps a copy of it.
(function () {
    "use strict";

    var Layouts = window.KioskKeyboardLayouts;
    var Hangul = window.KioskHangul;
    var SHIFT_LOCK_MS = 400;
    var REPEAT_DELAY_MS = 500;
    var REPEAT_EVERY_MS = 80;

    function Keyboard(form, fields) {
        this.form = form;
        this.fields = fields;
        this.pageLanguage = document.documentElement.lang === "ko" ? "ko" : "en";
        this.textLayout = this.pageLanguage === "ko" ? "korean" : "english";
        this.field = null;
        this.layout = null;
        this.shift = "off";          // "off", "once" or "locked"
        this.lastShiftTap = 0;
        this.composer = Hangul.composer();
        this.root = document.createElement("div");
        this.root.id = "osk";
        this.root.className = "osk";
        this.root.setAttribute("role", "region");
        this.root.setAttribute("aria-label", Layouts.names[this.pageLanguage].keyboard);
        this.root.hidden = true;
        document.body.appendChild(this.root);
    }

    Keyboard.prototype.show = function (field) {
        if (this.field !== field) { this.endComposition(); }
        this.field = field;
        var wanted = field.getAttribute("data-osk-layout");
        if (wanted !== "number" && wanted !== "email") { wanted = this.textLayout; }
        if (wanted !== this.layout || this.root.hidden) { this.render(wanted); }
        this.root.hidden = false;
        document.body.classList.add("osk-open");
        document.documentElement.style.setProperty("--osk-height", this.root.offsetHeight + "px");
        this.reveal(field);
    };

    Keyboard.prototype.hide = function () {
        this.endComposition();
        this.root.hidden = true;
        this.field = null;
        document.body.classList.remove("osk-open");
    };

    // Scrolls so that the field is above the keyboard, with its question and Next where they fit.
    Keyboard.prototype.reveal = function (field) {
        var room = window.innerHeight - this.root.offsetHeight;
        var box = field.getBoundingClientRect();
        var top = box.top;
        var bottom = box.bottom;
        var block = field.closest(".field");
        if (block && box.bottom - block.getBoundingClientRect().top + 32 <= room) { top = block.getBoundingClientRect().top; }
        var next = this.form.querySelector("button.next");
        if (next && next.getBoundingClientRect().bottom - top + 32 <= room) { bottom = Math.max(bottom, next.getBoundingClientRect().bottom); }
        if (top < 16) {
            window.scrollBy(0, top - 16);
        } else if (bottom + 16 > room) {
            window.scrollBy(0, Math.min(bottom + 16 - room, top - 16));
        }
    };

    Keyboard.prototype.render = function (name) {
        var layout = Layouts.layouts[name];
        var names = Layouts.names[this.pageLanguage];
        var keyboard = this;
        this.layout = name;
        this.root.setAttribute("data-layout", name);
        this.root.textContent = "";
        layout.rows.forEach(function (keys) {
            var row = document.createElement("div");
            row.className = "osk-row";
            keys.forEach(function (key) { row.appendChild(keyboard.makeKey(layout, key, names)); });
            keyboard.root.appendChild(row);
        });
        this.paintShift();
    };

    Keyboard.prototype.makeKey = function (layout, key, names) {
        var button = document.createElement("button");
        button.type = "button";
        button.tabIndex = -1;
        button.className = "osk-key";
        var action = typeof key === "string" ? "char" : key.action;
        button.setAttribute("data-action", action);
        button.style.flexGrow = String((typeof key === "string" ? 1 : key.wide || 1));
        if (action === "char") {
            button.setAttribute("lang", layout.lang);
            button.setAttribute("data-key", key);
            button.textContent = key;
            if (Hangul.isJamo(key)) { button.classList.add("osk-jamo"); }
        } else if (action === "text") {
            button.setAttribute("data-key", key.text);
            button.textContent = key.text;
        } else {
            if (action === "switch") { button.setAttribute("data-to", key.to); }
            button.setAttribute("data-key", action);
            button.classList.add("osk-" + action);
            if (action === "switch") { button.textContent = "한/영"; }
            if (action === "enter") { button.textContent = this.nextLabel(); }
            if (action === "shift") { button.textContent = "⇧"; button.setAttribute("aria-label", names.shift); }
            if (action === "backspace") { button.textContent = "⌫"; button.setAttribute("aria-label", names.backspace); }
            if (action === "space") { button.setAttribute("aria-label", names.space); }
        }
        return button;
    };

    Keyboard.prototype.nextLabel = function () {
        var next = this.form.querySelector("button.next");
        return next ? next.textContent.trim() : "⏎";
    };

    // Shows Shift's state, and the characters the keys type now.
    Keyboard.prototype.paintShift = function () {
        var layout = Layouts.layouts[this.layout];
        var shifted = this.shift !== "off";
        var shiftKey = this.root.querySelector("[data-action=shift]");
        if (shiftKey) {
            shiftKey.setAttribute("aria-pressed", shifted ? "true" : "false");
            shiftKey.classList.toggle("osk-locked", this.shift === "locked");
        }
        Array.prototype.forEach.call(this.root.querySelectorAll("[data-action=char]"), function (button) {
            button.textContent = Layouts.character(layout, button.getAttribute("data-key"), shifted);
        });
    };

    Keyboard.prototype.press = function (button) {
        if (!this.field) { return; }
        var action = button.getAttribute("data-action");
        if (action === "char") {
            var layout = Layouts.layouts[this.layout];
            this.typeCharacter(Layouts.character(layout, button.getAttribute("data-key"), this.shift !== "off"));
            if (this.shift === "once") { this.shift = "off"; this.paintShift(); }
        } else if (action === "text") {
            this.typeCharacter(button.getAttribute("data-key"));
        } else if (action === "space") {
            this.typeCharacter(" ");
        } else if (action === "backspace") {
            this.backspace();
        } else if (action === "shift") {
            this.tapShift();
        } else if (action === "switch") {
            this.endComposition();
            this.textLayout = button.getAttribute("data-to");
            this.shift = "off";
            this.render(this.textLayout);
        } else if (action === "enter") {
            this.endComposition();
            var next = this.form.querySelector("button.next");
            if (next) { next.click(); }
        }
    };

    // One tap: Shift for the next key; a second tap soon after locks it; a tap then releases.
    Keyboard.prototype.tapShift = function () {
        var now = window.performance.now();
        if (this.shift === "off") {
            this.shift = "once";
        } else if (this.shift === "once" && now - this.lastShiftTap <= SHIFT_LOCK_MS) {
            this.shift = "locked";
        } else {
            this.shift = "off";
        }
        this.lastShiftTap = now;
        this.paintShift();
    };

    Keyboard.prototype.composes = function () {
        return Layouts.layouts[this.layout].lang === "ko";
    };

    Keyboard.prototype.typeCharacter = function (text) {
        var composer = this.composer;
        if (this.composes() && Hangul.isJamo(text)) {
            this.compose(function () { return composer.type(text); });
        } else {
            this.compose(function () { return composer.end() + text; });
        }
    };

    Keyboard.prototype.backspace = function () {
        var composer = this.composer;
        if (this.composer.preedit()) {
            this.compose(function () { composer.backspace(); return ""; });
            return;
        }
        var field = this.field;
        var start = field.selectionStart;
        var end = field.selectionEnd;
        if (start === null) { return; }
        if (start === end && start > 0) { start -= 1; }
        this.edit(start, end, "");
    };

    // Ends the composition: the syllable as it stands is already in the field.
    Keyboard.prototype.endComposition = function () {
        this.composer.end();
    };

    // Runs `step` on the composer (it returns the text it finished) and puts that text and the
    // composer's new preedit in place of the preedit before the caret.
    Keyboard.prototype.compose = function (step) {
        var field = this.field;
        var start = field.selectionStart;
        if (start === null) { return; }
        var from = Math.max(0, start - this.composer.preedit().length);
        var commit = step();
        this.edit(from, field.selectionEnd, commit + this.composer.preedit());
    };

    Keyboard.prototype.edit = function (from, to, text) {
        var field = this.field;
        field.value = field.value.slice(0, from) + text + field.value.slice(to);
        var caret = from + text.length;
        field.setSelectionRange(caret, caret);
        field.dispatchEvent(new Event("input", { bubbles: true }));
    };

    // Backspace held down repeats.
    Keyboard.prototype.holdRepeats = function () {
        var keyboard = this;
        var delay = null;
        var every = null;
        var repeated = false;
        function stop() { window.clearTimeout(delay); window.clearInterval(every); delay = every = null; }
        this.root.addEventListener("pointerdown", function (event) {
            var key = event.target.closest("[data-action=backspace]");
            if (!key) { return; }
            stop();
            repeated = false;
            delay = window.setTimeout(function () {
                repeated = true;
                keyboard.backspace();
                every = window.setInterval(function () { keyboard.backspace(); }, REPEAT_EVERY_MS);
            }, REPEAT_DELAY_MS);
        });
        ["pointerup", "pointercancel", "pointerleave"].forEach(function (type) {
            keyboard.root.addEventListener(type, stop);
        });
        return function consumeRepeat() {
            var was = repeated;
            repeated = false;
            return was;
        };
    };

    Keyboard.prototype.listen = function () {
        var keyboard = this;
        var consumeRepeat = this.holdRepeats();
        // Keys never take the focus from the field.
        this.root.addEventListener("mousedown", function (event) { event.preventDefault(); });
        this.root.addEventListener("click", function (event) {
            var key = event.target.closest("button.osk-key");
            if (!key) { return; }
            if (key.getAttribute("data-action") === "backspace" && consumeRepeat()) { return; }
            keyboard.press(key);
        });
        // The keyboard hides when its field loses the focus; while a finger (or the mouse) is
        // still down, only once it is lifted, so that the page does not shrink under a tap on
        // Next between its press and its release (the tap would then miss the button).
        var pressed = false;
        var pendingHide = null;
        document.addEventListener("pointerdown", function () { pressed = true; }, true);
        function released() {
            pressed = false;
            if (pendingHide) { window.setTimeout(pendingHide, 0); pendingHide = null; }
        }
        document.addEventListener("pointerup", released, true);
        document.addEventListener("pointercancel", released, true);
        this.fields.forEach(function (field) {
            field.addEventListener("focus", function () { keyboard.show(field); });
            field.addEventListener("blur", function () {
                var hideUnlessRefocused = function () {
                    if (document.activeElement !== field && keyboard.field === field) { keyboard.hide(); }
                };
                if (pressed) { pendingHide = hideUnlessRefocused; } else { window.setTimeout(hideUnlessRefocused, 0); }
            });
            // A tap in the field or a physical key ends the composition (the caret may move).
            field.addEventListener("pointerdown", function () { keyboard.endComposition(); });
            field.addEventListener("keydown", function () { keyboard.endComposition(); });
        });
        // "Other" disabled again (another option chosen) while its text had the focus.
        this.form.addEventListener("change", function () {
            if (keyboard.field && keyboard.field.disabled) { keyboard.hide(); }
        });
        window.addEventListener("resize", function () {
            if (keyboard.field) { keyboard.show(keyboard.field); }
        });
    };

    document.addEventListener("DOMContentLoaded", function () {
        if (document.documentElement.getAttribute("data-keyboard") !== "onscreen" || !Layouts || !Hangul) { return; }
        var form = document.getElementById("answer-form");
        if (!form) { return; }
        var fields = Array.prototype.slice.call(form.querySelectorAll("input.text-input"));
        fields.forEach(function (field) {
            field.setAttribute("data-osk-layout", Layouts.forField(field.getAttribute("inputmode"), document.documentElement.lang));
            // The page's keyboard replaces the system's, where a system has one.
            field.setAttribute("inputmode", "none");
        });
        var keyboard = new Keyboard(form, fields);
        keyboard.listen();
        if (fields.indexOf(document.activeElement) >= 0) { keyboard.show(document.activeElement); }
    });
}());
