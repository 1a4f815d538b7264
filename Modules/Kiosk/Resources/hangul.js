// The Hangul composer of the on-screen keyboard: 2-set (두벌식) jamo in, text out. Pure: no page,
// no field. The composer alone knows the syllable being composed (the "preedit", `preedit()`);
// each call returns the text it finished (the "commit", "" when none), which goes before it.
//
//   var c = KioskHangul.composer();
//   c.type("ㄷ"); c.type("ㅏ"); c.type("ㄹ"); c.type("ㄱ")   // "", preedit() 닭
//   c.type("ㅏ")                                          // "달", preedit() 가
//   c.backspace()                                         // true, preedit() ㄱ (one jamo back)
//   c.end()                                               // "ㄱ", preedit() "" (nothing composing)
//
// A syllable is initial + medial (+ final), precomposed as U+AC00 + (L×21+V)×28+T. Compound
// vowels (ㅘ ㅙ ㅚ ㅝ ㅞ ㅟ ㅢ) and finals (ㄳ ㄵ ㄶ ㄺ ㄻ ㄼ ㄽ ㄾ ㄿ ㅀ ㅄ) are made from two
// keys; a final moves to the next syllable when a vowel follows (각+ㅏ → 가가, 닭+ㅏ → 달가);
// backspace takes back the last jamo typed into the syllable.
(function (global) {
    "use strict";

    var INITIALS = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ";
    var MEDIALS = "ㅏㅐㅑㅒㅓㅔㅕㅖㅗㅘㅙㅚㅛㅜㅝㅞㅟㅠㅡㅢㅣ";
    var FINALS = "\u0000ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ";
    var COMPOUND_VOWELS = { "ㅗㅏ": "ㅘ", "ㅗㅐ": "ㅙ", "ㅗㅣ": "ㅚ", "ㅜㅓ": "ㅝ", "ㅜㅔ": "ㅞ", "ㅜㅣ": "ㅟ", "ㅡㅣ": "ㅢ" };
    var COMPOUND_FINALS = {
        "ㄱㅅ": "ㄳ", "ㄴㅈ": "ㄵ", "ㄴㅎ": "ㄶ", "ㄹㄱ": "ㄺ", "ㄹㅁ": "ㄻ", "ㄹㅂ": "ㄼ",
        "ㄹㅅ": "ㄽ", "ㄹㅌ": "ㄾ", "ㄹㅍ": "ㄿ", "ㄹㅎ": "ㅀ", "ㅂㅅ": "ㅄ"
    };

    function isConsonant(key) { return key.length === 1 && INITIALS.indexOf(key) >= 0; }
    function isVowel(key) { return key.length === 1 && MEDIALS.indexOf(key) >= 0; }
    function canEndSyllable(consonant) { return FINALS.indexOf(consonant) > 0; }

    // The syllable being composed, as the jamo typed into it, in order, split by role.
    function Syllable() {
        this.initial = "";
        this.vowels = [];   // one, or two making a compound vowel
        this.finals = [];   // none, one, or two making a compound final
        this.typed = [];    // "initial", "vowel" or "final", one per key, for backspace
    }

    Syllable.prototype.isEmpty = function () { return this.typed.length === 0; };

    Syllable.prototype.vowel = function () {
        return this.vowels.length === 2 ? COMPOUND_VOWELS[this.vowels.join("")] : (this.vowels[0] || "");
    };

    Syllable.prototype.final = function () {
        return this.finals.length === 2 ? COMPOUND_FINALS[this.finals.join("")] : (this.finals[0] || "");
    };

    // The text of the syllable: precomposed when it has an initial and a vowel, else the jamo.
    Syllable.prototype.text = function () {
        var vowel = this.vowel();
        if (this.initial && vowel) {
            var l = INITIALS.indexOf(this.initial);
            var v = MEDIALS.indexOf(vowel);
            var t = this.finals.length ? FINALS.indexOf(this.final()) : 0;
            return String.fromCharCode(0xAC00 + (l * 21 + v) * 28 + t);
        }
        return this.initial + vowel;
    };

    Syllable.prototype.push = function (role, jamo) {
        if (role === "initial") { this.initial = jamo; }
        if (role === "vowel") { this.vowels.push(jamo); }
        if (role === "final") { this.finals.push(jamo); }
        this.typed.push(role);
    };

    Syllable.prototype.pop = function () {
        var role = this.typed.pop();
        if (role === "initial") { this.initial = ""; }
        if (role === "vowel") { this.vowels.pop(); }
        if (role === "final") { this.finals.pop(); }
    };

    function started(role, jamo) {
        var syllable = new Syllable();
        syllable.push(role, jamo);
        return syllable;
    }

    function Composer() { this.current = new Syllable(); }

    // Takes one key. A jamo composes; anything else (a letter, a digit, a space, punctuation)
    // ends the composition and is committed after it.
    Composer.prototype.type = function (key) {
        var s = this.current;
        if (isConsonant(key)) { return this.consonant(key); }
        if (isVowel(key)) { return this.vowel(key); }
        var done = s.text();
        this.current = new Syllable();
        return done + key;
    };

    Composer.prototype.consonant = function (key) {
        var s = this.current;
        var hasVowel = s.vowels.length > 0;
        if (s.initial && hasVowel && s.finals.length === 0 && canEndSyllable(key)) {
            s.push("final", key);
            return "";
        }
        if (s.initial && hasVowel && s.finals.length === 1 && COMPOUND_FINALS[s.finals[0] + key]) {
            s.push("final", key);
            return "";
        }
        return this.startAgain("initial", key);
    };

    Composer.prototype.vowel = function (key) {
        var s = this.current;
        if (s.finals.length > 0) {
            // The last final becomes the initial of the next syllable.
            var moved = s.finals.pop();
            s.typed.pop();
            var done = s.text();
            this.current = started("initial", moved);
            this.current.push("vowel", key);
            return done;
        }
        if (s.vowels.length === 0 && s.initial) {
            s.push("vowel", key);
            return "";
        }
        if (s.vowels.length === 1 && COMPOUND_VOWELS[s.vowels[0] + key]) {
            s.push("vowel", key);
            return "";
        }
        return this.startAgain("vowel", key);
    };

    Composer.prototype.startAgain = function (role, key) {
        var done = this.current.text();
        this.current = started(role, key);
        return done;
    };

    // Takes back the last jamo of the syllable being composed: true; false when nothing is being
    // composed (then backspace deletes the character before the caret as usual).
    Composer.prototype.backspace = function () {
        if (this.current.isEmpty()) { return false; }
        this.current.pop();
        return true;
    };

    // Ends the composition: the syllable as it stands is committed.
    Composer.prototype.end = function () {
        var done = this.current.text();
        this.current = new Syllable();
        return done;
    };

    // The text being composed, "" when none.
    Composer.prototype.preedit = function () { return this.current.text(); };

    // The text a sequence of keys gives ("⌫" is backspace), for checks outside a page.
    function compose(keys) {
        var composer = new Composer();
        var text = "";
        Array.prototype.forEach.call(keys, function (key) {
            if (key === "⌫") {
                if (!composer.backspace()) { text = text.slice(0, -1); }
                return;
            }
            text += composer.type(key);
        });
        return text + composer.preedit();
    }

    global.KioskHangul = {
        composer: function () { return new Composer(); },
        compose: compose,
        isJamo: function (key) { return isConsonant(key) || isVowel(key); }
    };
}(window));
