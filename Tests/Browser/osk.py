"""Typing on the kiosk's on-screen keyboard (#osk) by clicking its keys, as a finger would.

A text to type is a string of keys: a character is its key (with Shift first when it is the
shifted face of a key: ㄲ is Shift then ㄱ, K is Shift then k), and these stand for the other keys:

    ⌫ Backspace    ⇄ 한/영 (switch between Korean and English)    ⇧ Shift    ⇪ Shift twice (caps lock)
    ⏎ Enter (Next)  «.com» the .com key of the e-mail layout
"""
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

SHIFTED_JAMO = {"ㄲ": "ㄱ", "ㄸ": "ㄷ", "ㅃ": "ㅂ", "ㅆ": "ㅅ", "ㅉ": "ㅈ", "ㅒ": "ㅐ", "ㅖ": "ㅔ"}
SHIFTED_SIGNS = {"\"": "'", "?": ",", "!": ".", "_": "-"}
NAMED = {"⌫": "backspace", "⇄": "switch", "⇧": "shift", " ": "space", "⏎": "enter"}


class KeyboardError(Exception):
    pass


def keyboard(driver):
    found = driver.find_elements(By.ID, "osk")
    if not found or not found[0].is_displayed():
        raise KeyboardError("the on-screen keyboard is not shown on %s" % driver.current_url)
    return found[0]


def layout(driver):
    return keyboard(driver).get_attribute("data-layout")


def find(driver, data_key):
    return driver.find_elements(By.CSS_SELECTOR, "#osk button[data-key='%s']" % data_key.replace("'", "\\'"))


def key(driver, data_key):
    keys = find(driver, data_key)
    if not keys:
        raise KeyboardError("no key %r on the %s layout" % (data_key, layout(driver)))
    return keys[0]


def shift_pressed(driver):
    keys = find(driver, "shift")
    return bool(keys) and keys[0].get_attribute("aria-pressed") == "true"


def tokens(text):
    """Splits a key string into keys, keeping «...» together."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "«":
            end = text.index("»", i)
            out.append(text[i + 1:end])
            i = end + 1
        else:
            out.append(text[i])
            i += 1
    return out


def shifted(driver, base):
    if not shift_pressed(driver):
        key(driver, "shift").click()
    key(driver, base).click()


def tap(driver, text):
    """Clicks the keys that type `text` (see the module's documentation)."""
    keyboard(driver)
    for token in tokens(text):
        if token == "⇪":
            shift = key(driver, "shift")
            ActionChains(driver).click(shift).click(shift).perform()
            continue
        if token in NAMED:
            key(driver, NAMED[token]).click()
            continue
        direct = find(driver, token) if token == token.lower() else []
        if direct:
            direct[0].click()
        elif token in SHIFTED_JAMO:
            shifted(driver, SHIFTED_JAMO[token])
        elif token in SHIFTED_SIGNS:
            shifted(driver, SHIFTED_SIGNS[token])
        elif token != token.lower():
            shifted(driver, token.lower())
        else:
            raise KeyboardError("no key types %r on the %s layout" % (token, layout(driver)))


INITIALS = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
MEDIALS = "ㅏㅐㅑㅒㅓㅔㅕㅖㅗㅘㅙㅚㅛㅜㅝㅞㅟㅠㅡㅢㅣ"
FINALS = ["", "ㄱ", "ㄲ", "ㄱㅅ", "ㄴ", "ㄴㅈ", "ㄴㅎ", "ㄷ", "ㄹ", "ㄹㄱ", "ㄹㅁ", "ㄹㅂ", "ㄹㅅ", "ㄹㅌ", "ㄹㅍ", "ㄹㅎ",
          "ㅁ", "ㅂ", "ㅂㅅ", "ㅅ", "ㅆ", "ㅇ", "ㅈ", "ㅊ", "ㅋ", "ㅌ", "ㅍ", "ㅎ"]
VOWEL_KEYS = {"ㅘ": "ㅗㅏ", "ㅙ": "ㅗㅐ", "ㅚ": "ㅗㅣ", "ㅝ": "ㅜㅓ", "ㅞ": "ㅜㅔ", "ㅟ": "ㅜㅣ", "ㅢ": "ㅡㅣ"}


def is_syllable(char):
    return 0xAC00 <= ord(char) <= 0xD7A3


def jamo_keys(syllable):
    """The 2-set keys of a precomposed syllable: 닭 is ㄷㅏㄹㄱ, 와 is ㅇㅗㅏ."""
    code = ord(syllable) - 0xAC00
    vowel = MEDIALS[(code % 588) // 28]
    return INITIALS[code // 588] + VOWEL_KEYS.get(vowel, vowel) + FINALS[code % 28]


def keys_for(text, start_layout):
    """The keys that type `text` starting on `start_layout`: Hangul as jamo, with a 한/영 switch
    wherever Korean and Latin letters meet (the e-mail layout and the pad never switch)."""
    keys, current = [], start_layout
    for char in text:
        wanted = "korean" if is_syllable(char) else "english" if char.isascii() and char.isalpha() else current
        if current in ("korean", "english") and wanted != current:
            keys.append("⇄")
            current = wanted
        keys.append(jamo_keys(char) if is_syllable(char) else char)
    return "".join(keys)


def type_text(driver, field, text):
    """Empties `field` with Backspace and types `text` on the keys, tapping the field first."""
    field.click()
    keyboard(driver)
    tap(driver, "⌫" * len(field.get_attribute("value")) + keys_for(text, layout(driver)))
    if field.get_attribute("value") != text:
        raise KeyboardError("tapping %r gave %r" % (text, field.get_attribute("value")))
