// The layouts of the on-screen keyboard, as data: rows of keys. A key is
//   - a string: types itself; with Shift, its entry in the layout's `shifted` (or its upper case);
//   - an object with `action`: "shift", "backspace", "space", "enter" (Next), "switch" (한/영,
//     to the layout named by `to`), or "text" (types `text`, e.g. ".com");
//   `wide` makes a key take that many key widths.
// Accessible names of the keys without a readable face are in `names`, per page language.
(function (global) {
    "use strict";

    var digits = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"];
    var shift = { action: "shift", wide: 1.5 };
    var backspace = { action: "backspace", wide: 1.5 };
    var enter = { action: "enter", wide: 2 };

    var layouts = {
        english: {
            lang: "en",
            rows: [
                digits,
                ["q", "w", "e", "r", "t", "y", "u", "i", "o", "p"],
                ["a", "s", "d", "f", "g", "h", "j", "k", "l", "'"],
                [shift, "z", "x", "c", "v", "b", "n", "m", backspace],
                [{ action: "switch", to: "korean", wide: 1.5 }, ",", { action: "space", wide: 4.5 }, ".", "-", enter]
            ],
            shifted: { "'": "\"", ",": "?", ".": "!", "-": "_" }
        },
        korean: {
            lang: "ko",
            rows: [
                digits,
                ["ㅂ", "ㅈ", "ㄷ", "ㄱ", "ㅅ", "ㅛ", "ㅕ", "ㅑ", "ㅐ", "ㅔ"],
                ["ㅁ", "ㄴ", "ㅇ", "ㄹ", "ㅎ", "ㅗ", "ㅓ", "ㅏ", "ㅣ"],
                [shift, "ㅋ", "ㅌ", "ㅊ", "ㅍ", "ㅠ", "ㅜ", "ㅡ", backspace],
                [{ action: "switch", to: "english", wide: 1.5 }, ",", { action: "space", wide: 4.5 }, ".", "-", enter]
            ],
            shifted: { "ㅂ": "ㅃ", "ㅈ": "ㅉ", "ㄷ": "ㄸ", "ㄱ": "ㄲ", "ㅅ": "ㅆ", "ㅐ": "ㅒ", "ㅔ": "ㅖ", ",": "?", ".": "!", "-": "_" }
        },
        email: {
            lang: "en",
            rows: [
                digits,
                ["q", "w", "e", "r", "t", "y", "u", "i", "o", "p"],
                ["a", "s", "d", "f", "g", "h", "j", "k", "l", "_"],
                [shift, "z", "x", "c", "v", "b", "n", "m", backspace],
                ["@", ".", "-", { action: "text", text: ".com", wide: 2 }, { action: "text", text: ".kr", wide: 1.5 }, enter]
            ],
            shifted: {}
        },
        number: {
            lang: "en",
            rows: [
                ["1", "2", "3", { action: "backspace" }],
                ["4", "5", "6", "-"],
                ["7", "8", "9", "."],
                [{ action: "text", text: "0", wide: 2 }, enter]
            ],
            shifted: {}
        }
    };

    var names = {
        en: { shift: "Shift", backspace: "Backspace", space: "Space", keyboard: "On-screen keyboard" },
        ko: { shift: "Shift", backspace: "Backspace", space: "Space", keyboard: "화면 키보드" }
    };

    // What a character key types, with Shift or without.
    function character(layout, key, shifted) {
        if (!shifted) { return key; }
        if (Object.prototype.hasOwnProperty.call(layout.shifted, key)) { return layout.shifted[key]; }
        return key.toUpperCase();
    }

    // The first layout of a field: the pad for numbers, e-mail for e-mail addresses, else the
    // page's language.
    function forField(inputmode, pageLanguage) {
        if (inputmode === "decimal" || inputmode === "numeric") { return "number"; }
        if (inputmode === "email") { return "email"; }
        return pageLanguage === "ko" ? "korean" : "english";
    }

    global.KioskKeyboardLayouts = { layouts: layouts, names: names, character: character, forField: forField };
}(window));
