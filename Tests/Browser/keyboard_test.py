#!/usr/bin/env python3
"""The kiosk's on-screen keyboard in a real browser: headless Chromium, on a question page the
kiosk at BASE_URL serves, types a table of key sequences by CLICKING the on-screen keys (never by
sending keystrokes) and checks the text each gives in the field: the Hangul composer (2-set,
compound vowels and finals, a final moving to the next syllable, jamo-wise backspace), Shift and
caps lock, 한/영 switches. Then: a tap in the field and a physical key end the composition, each
key fires `input`, Backspace held repeats, the keys' sizes and names, the field and Next above
the keyboard (also at 800x480), Enter = Next, the e-mail layout and the number pad; screenshots
of each layout. With --system-url (a kiosk with kioskKeyboard system): no page keyboard.

    .build-browser/venv/bin/python Tests/Browser/keyboard_test.py http://127.0.0.1:PORT/ \
        [--system-url URL2] [--out doc/kiosk]

Prints one line per check and "N passed, M failed"; exit status 0 only when all passed.
"""
import argparse
import os
import sys
import time

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import osk
from kiosk_test import make_driver

# Key sequences (see osk.py: ⌫ Backspace, ⇄ 한/영, ⇧ Shift, ⇪ caps lock) and the text each gives.
# Every sequence starts on the Korean layout in an empty field.
CASES = [
    ("ㄱㅣㅁㅁㅣㄴㅅㅜ", "김민수"),
    ("ㄷㅏㄹㄱ", "닭"),
    ("ㄱㅏㅂㅅㅇㅣ", "값이"),
    ("ㅇㅏㄴㅈㅇㅏ", "앉아"),
    ("ㅂㅜㅔㄹㄱ", "뷁"),
    ("ㅇㅡㅣㅅㅏ", "의사"),
    ("ㅇㅗㅐㅇㅛ", "왜요"),
    ("ㅇㅣㄹㄱㅇㅓ", "읽어"),
    ("ㅇㅓㅂㅅㄷㅏ", "없다"),
    ("ㄲㅗㅊㅇㅣㅍ", "꽃잎"),
    ("ㅎㅏㄴ⌫", "하"),
    ("ㅎㅏㄴ⌫⌫", "ㅎ"),
    ("ㅎㅏㄴ⌫⌫⌫", ""),
    ("⇄Kim ⇄ㄱㅣㅁ 2", "Kim 김 2"),
    ("ㄱㅏㄱㅏ", "가가"),
    ("ㄷㅏㄹㄱㅏ", "달가"),
    # Words
    ("ㅎㅏㄴㄱㅡㄹ", "한글"),
    ("ㅇㅏㄴㄴㅕㅇㅎㅏㅅㅔㅇㅛ", "안녕하세요"),
    ("ㄱㅏㅁㅅㅏㅎㅏㅂㄴㅣㄷㅏ", "감사합니다"),
    ("ㄷㅐㅎㅏㄴㅁㅣㄴㄱㅜㄱ", "대한민국"),
    ("ㅅㅓㅇㅜㄹ", "서울"),
    ("ㅂㅏㅂ", "밥"),
    ("ㄸㅓㄱㅂㅗㄲㅇㅣ", "떡볶이"),
    ("ㅊㅗㅣㄱㅗ", "최고"),
    ("ㄱㅗㅏㄴㄱㅗㅏㅇ", "관광"),
    # Compound vowels
    ("ㅇㅜㅓㄴ", "원"),
    ("ㅇㅜㅣ", "위"),
    ("ㄷㅗㅣ", "되"),
    ("ㅎㅜㅔ", "훼"),
    ("ㅇㅗㅏ", "와"),
    ("ㅗㅏ", "ㅘ"),
    ("ㅡㅣ", "ㅢ"),
    # Compound finals, and a final moving on
    ("ㄴㅓㄱㅅ", "넋"),
    ("ㄴㅓㄱㅅㅇㅣ", "넋이"),
    ("ㅇㅏㄴㅎ", "않"),
    ("ㅁㅏㄴㅎㅇㅣ", "많이"),
    ("ㅅㅏㄹㅁ", "삶"),
    ("ㅇㅕㄷㅓㄹㅂ", "여덟"),
    ("ㅎㅏㄹㅌㄷㅏ", "핥다"),
    ("ㅇㅡㄹㅍㄷㅏ", "읊다"),
    ("ㅅㅣㄹㅎㅇㅓ", "싫어"),
    ("ㅇㅗㄹㅁㄱㅕ", "옮겨"),
    ("ㅂㅏㄹㅂㄷㅏ", "밟다"),
    ("ㅂㅜㅔㄹㄱㅣ", "뷀기"),
    ("ㄱㅏㅂㅅㅏ", "갑사"),
    ("ㄴㅓㅎㅇㅓ", "넣어"),
    # Shift: ㄲㄸㅃㅆㅉ and ㅒㅖ
    ("ㅆㅏㄹ", "쌀"),
    ("ㄸㅏㄹㄱㅣ", "딸기"),
    ("ㅃㅏㅇ", "빵"),
    ("ㅉㅏㅁㅃㅗㅇ", "짬뽕"),
    ("ㅇㅒ", "얘"),
    ("ㅇㅖㅅㅡㄹ", "예슬"),
    ("ㄱㅏㅆㄷㅏ", "갔다"),
    ("ㅇㅣㅆㅇㅓ", "있어"),
    ("ㄲㅏㄱㄷㅜㄱㅣ", "깍두기"),
    ("ㄲㅏㄲㄷㅏ", "깎다"),
    # What cannot join
    ("ㄱㅏㄱㄱ", "각ㄱ"),
    ("ㄷㅏㄸ", "다ㄸ"),
    ("ㄷㅏㄸㅏ", "다따"),
    ("ㄱㄱ", "ㄱㄱ"),
    ("ㅏㅏ", "ㅏㅏ"),
    ("ㅋㅋㅋ", "ㅋㅋㅋ"),
    # Backspace
    ("ㄷㅏㄹㄱ⌫", "달"),
    ("ㄷㅏㄹㄱ⌫⌫", "다"),
    ("ㅇㅗㅏ⌫", "오"),
    ("ㄱㅏㄱㅏ⌫", "가ㄱ"),
    ("ㄱㅣㅁ ⌫", "김"),
    ("ㄴㅏ ㄱㅣㅁ⌫⌫⌫⌫", "나"),
    ("ㄱㅏ⌫⌫⌫", ""),
    # Space, punctuation and layout switches end the composition
    ("ㄱ ㅏ", "ㄱ ㅏ"),
    ("ㄱㅏ.ㄴㅏ", "가.나"),
    ("ㄱㅏ,ㄴㅏ", "가,나"),
    ("ㄱㅏ!", "가!"),
    ("ㅎㅏㄴ⇄a", "한a"),
    ("ㄱ⇄⇄ㅏ", "ㄱㅏ"),
    ("1ㄱㅏ2", "1가2"),
    # English: Shift once, caps lock
    ("⇄Hello", "Hello"),
    ("⇄⇧ab", "Ab"),
    ("⇄⇪ab⇧c", "ABc"),
    ("⇄Park Hana", "Park Hana"),
    ("⇄o'neil", "o'neil"),
]


class Run:
    def __init__(self):
        self.passed = 0
        self.failed = []

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed.append("%s: %s" % (name, detail))
        print("%-40s %s %s" % (name, "ok  " if ok else "FAIL", detail if not ok else ""))


def start_question(driver, base, lang="ko"):
    """Opens the welcome screen and starts a session: the first question asks for a name."""
    driver.get(base.rstrip("/") + "/?lang=" + lang)
    start = driver.find_element(By.CSS_SELECTOR, "form[action='/start'] button[type=submit]")
    driver.execute_script("window.__kioskPage = true")
    start.click()
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return window.__kioskPage !== true && document.readyState === 'complete'"))
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "osk").is_displayed())


def field_value(driver):
    return driver.find_element(By.ID, "answer").get_attribute("value")


def empty_field(driver):
    """Empties the field, taps it (ending any composition), and comes back to the Korean layout."""
    driver.execute_script("document.getElementById('answer').value = ''")
    driver.find_element(By.ID, "answer").click()
    if osk.shift_pressed(driver):
        osk.key(driver, "shift").click()
        if osk.shift_pressed(driver):
            osk.key(driver, "shift").click()
    if osk.layout(driver) != "korean":
        osk.key(driver, "switch").click()


def composer_table(driver, run):
    wrong = []
    for keys, expected in CASES:
        empty_field(driver)
        osk.tap(driver, keys)
        got = field_value(driver)
        if got != expected:
            wrong.append("%s gave %r, not %r" % (keys, got, expected))
    run.check("composer table (%d sequences)" % len(CASES), not wrong, "; ".join(wrong))
    return len(CASES) - len(wrong)


def composer_reports_the_preedit(driver, run):
    """hangul.js alone holds the syllable being composed: its calls return the text they finished,
    its preedit() the syllable still open, which the field shows before the caret."""
    got = driver.execute_script("""
        const c = KioskHangul.composer();
        const steps = [];
        for (const key of ['ㄷ', 'ㅏ', 'ㄹ', 'ㄱ']) { steps.push(c.type(key)); }
        steps.push(c.preedit(), c.type('ㅏ'), c.preedit(), c.backspace(), c.preedit(), c.end(), c.preedit(), c.backspace());
        return steps;""")
    expected = ["", "", "", "", "닭", "달", "가", True, "ㄱ", "ㄱ", "", False]
    run.check("hangul.js: commits returned, preedit() open", got == expected, "%r, not %r" % (got, expected))
    empty_field(driver)
    osk.tap(driver, "ㄷㅏㄹㄱ")
    shown = driver.execute_script("""
        const f = document.getElementById('answer');
        return [f.value, f.selectionStart];""")
    run.check("the field shows the preedit before the caret", shown == ["닭", 1], repr(shown))


def layouts_decide(driver, run):
    """한/영 goes where the layout's `to` says, and a layout's `lang` (not its name) decides
    whether jamo compose and is the language of its character keys."""
    empty_field(driver)
    driver.execute_script("""
        const L = KioskKeyboardLayouts.layouts;
        L.hangul = {lang: 'ko', rows: L.korean.rows, shifted: L.korean.shifted};
        L.english.rows.flat().find(k => k.action === 'switch').to = 'hangul';""")
    problems = []
    try:
        osk.key(driver, "switch").click()
        langs = driver.execute_script("return Array.from(document.querySelectorAll('#osk [data-action=char]'), k => k.lang)")
        if osk.layout(driver) != "english" or set(langs) != {"en"}:
            problems.append("after 한/영 on korean: %s, keys lang %s" % (osk.layout(driver), sorted(set(langs))))
        osk.key(driver, "switch").click()
        langs = driver.execute_script("return Array.from(document.querySelectorAll('#osk [data-action=char]'), k => k.lang)")
        if osk.layout(driver) != "hangul" or set(langs) != {"ko"}:
            problems.append("after 한/영 on english (to: hangul): %s, keys lang %s" % (osk.layout(driver), sorted(set(langs))))
        else:
            osk.tap(driver, "ㄷㅏㄹㄱ")
            if field_value(driver) != "닭":
                problems.append("ㄷㅏㄹㄱ on a layout with lang ko gave %r" % field_value(driver))
    finally:
        driver.execute_script("""
            const L = KioskKeyboardLayouts.layouts;
            L.english.rows.flat().find(k => k.action === 'switch').to = 'korean';""")
        if osk.layout(driver) == "hangul":
            osk.key(driver, "switch").click()
        driver.execute_script("delete KioskKeyboardLayouts.layouts.hangul")
    run.check("layouts' to and lang decide", not problems, "; ".join(problems))


def composition_ends(driver, run):
    empty_field(driver)
    osk.tap(driver, "ㄱ")
    driver.find_element(By.ID, "answer").click()
    osk.tap(driver, "ㅏ")
    run.check("a tap in the field ends composing", field_value(driver) == "ㄱㅏ", repr(field_value(driver)))
    empty_field(driver)
    osk.tap(driver, "ㄱㅏ")
    driver.find_element(By.ID, "answer").send_keys("x")
    osk.tap(driver, "ㅏ")
    run.check("a physical key types and ends composing", field_value(driver) == "가xㅏ", repr(field_value(driver)))
    empty_field(driver)
    driver.execute_script("window.__inputs = 0; document.getElementById('answer').addEventListener('input', function () { window.__inputs += 1; })")
    osk.tap(driver, "ㄱㅏㄴ⌫")
    inputs = driver.execute_script("return window.__inputs")
    run.check("each key fires input", inputs == 4, "%d input events for 4 keys" % inputs)


def backspace_repeats(driver, run):
    empty_field(driver)
    osk.tap(driver, "⇄abcdefghijklmnop")
    before = len(field_value(driver))
    ActionChains(driver).click_and_hold(osk.key(driver, "backspace")).pause(1.5).release().perform()
    after = len(field_value(driver))
    run.check("Backspace held repeats", before - after >= 3, "held 1.5 s: %d characters deleted" % (before - after))


def keys_and_names(driver, run):
    info = driver.execute_script("""
        const osk = document.getElementById('osk');
        const keys = Array.from(osk.querySelectorAll('button'));
        return {
            role: osk.getAttribute('role'), label: osk.getAttribute('aria-label'),
            keyboard: document.documentElement.getAttribute('data-keyboard'),
            notButtons: keys.filter(k => k.type !== 'button').length,
            small: keys.map(k => k.getBoundingClientRect()).filter(r => r.width < 48 || r.height < 48).length,
            smallest: Math.min(...keys.map(k => Math.min(k.getBoundingClientRect().width, k.getBoundingClientRect().height))),
            names: keys.filter(k => k.getAttribute('aria-label')).map(k => k.getAttribute('aria-label')),
            switchName: (osk.querySelector('[data-key=switch]') || {}).textContent,
            shiftPressed: (osk.querySelector('[data-key=shift]') || {getAttribute: () => null}).getAttribute('aria-pressed'),
        };""")
    run.check("keyboard is a labelled region", info["role"] == "region" and bool(info["label"]), str(info["role"]) + " " + str(info["label"]))
    run.check("data-keyboard=onscreen", info["keyboard"] == "onscreen", str(info["keyboard"]))
    run.check("keys are type=button, >= 48 px", info["notButtons"] == 0 and info["small"] == 0,
              "%d not type=button, %d under 48 px (smallest %.0f px)" % (info["notButtons"], info["small"], info["smallest"]))
    run.check("keys have names", {"Shift", "Backspace", "Space"} <= set(info["names"]) and info["switchName"] == "한/영", str(info["names"]) + " " + str(info["switchName"]))
    run.check("Shift has aria-pressed", info["shiftPressed"] == "false", str(info["shiftPressed"]))
    return info["smallest"]


def field_visible(driver):
    box = driver.execute_script("""
        const f = document.getElementById('answer').getBoundingClientRect();
        const k = document.getElementById('osk').getBoundingClientRect();
        return {fieldTop: f.top, fieldBottom: f.bottom, keyboardTop: k.top};""")
    return box["fieldTop"] >= 0 and box["fieldBottom"] <= box["keyboardTop"], str(box)


def field_above_keyboard(driver, run, size):
    box = driver.execute_script("""
        const f = document.getElementById('answer').getBoundingClientRect();
        const k = document.getElementById('osk').getBoundingClientRect();
        return {fieldTop: f.top, fieldBottom: f.bottom, keyboardTop: k.top};""")
    run.check("field above the keyboard at %s" % size, box["fieldTop"] >= 0 and box["fieldBottom"] <= box["keyboardTop"], str(box))
    driver.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
    box = driver.execute_script("""
        const n = document.querySelector('#answer-form button.next').getBoundingClientRect();
        const k = document.getElementById('osk').getBoundingClientRect();
        return {nextBottom: n.bottom, keyboardTop: k.top};""")
    run.check("Next reachable above it at %s" % size, box["nextBottom"] <= box["keyboardTop"], str(box))


def screenshot(driver, out, name):
    if out:
        driver.save_screenshot(os.path.join(out, name + ".png"))


def walk_layouts(driver, run, out, suffix=""):
    """Enter = Next; the e-mail layout on the e-mail question, the pad on the number question."""
    empty_field(driver)
    osk.tap(driver, "ㄱㅣㅁㅁㅣㄴㅅㅜ")
    screenshot(driver, out, "keyboard-korean" + suffix)
    osk.tap(driver, "⇄")
    screenshot(driver, out, "keyboard-english" + suffix)
    driver.execute_script("window.__kioskPage = true")
    osk.tap(driver, "⏎")
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return window.__kioskPage !== true && document.readyState === 'complete'"))
    question = driver.find_element(By.CSS_SELECTOR, "#answer-form input[name=question]").get_attribute("value")
    run.check("Enter is Next", question == "email", "now at %r" % question)
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "osk").is_displayed())
    run.check("e-mail question: e-mail layout", osk.layout(driver) == "email", str(osk.layout(driver)))
    osk.tap(driver, "kim_m-s@example«.com»")
    screenshot(driver, out, "keyboard-email" + suffix)
    run.check("e-mail typed on its layout", field_value(driver) == "kim_m-s@example.com", repr(field_value(driver)))
    for _ in range(2):
        if field_value(driver) != "kim_m-s@example.com":
            osk.tap(driver, "kim_m-s@example«.com»")
        driver.execute_script("window.__kioskPage = true")
        osk.tap(driver, "⏎")
        WebDriverWait(driver, 10).until(lambda d: d.execute_script("return window.__kioskPage !== true && document.readyState === 'complete'"))
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "osk").is_displayed())
    run.check("number question: the pad", osk.layout(driver) == "number", str(osk.layout(driver)))
    osk.tap(driver, "-12.5⌫⌫⌫")
    osk.tap(driver, "34")
    screenshot(driver, out, "keyboard-number" + suffix)
    run.check("a number typed on the pad", field_value(driver) == "-134", repr(field_value(driver)))


def system_keyboard(driver, run, base):
    start_plain = base.rstrip("/") + "/?lang=ko"
    driver.get(start_plain)
    driver.execute_script("window.__kioskPage = true")
    driver.find_element(By.CSS_SELECTOR, "form[action='/start'] button[type=submit]").click()
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return window.__kioskPage !== true && document.readyState === 'complete'"))
    info = driver.execute_script("""
        return {
            keyboard: document.documentElement.getAttribute('data-keyboard'),
            osk: document.getElementById('osk') !== null,
            focused: document.activeElement && document.activeElement.id,
            inputmode: document.getElementById('answer').getAttribute('inputmode'),
            scripts: Array.from(document.scripts).map(s => s.src.split('/').pop()),
        };""")
    run.check("system: no page keyboard", info["keyboard"] == "system" and not info["osk"] and info["focused"] == "answer"
              and info["inputmode"] == "text" and not any(s.startswith("keyboard") for s in info["scripts"]), str(info))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base_url")
    parser.add_argument("--system-url", help="a kiosk with kioskKeyboard system")
    parser.add_argument("--out", help="where to save the screenshots of the layouts")
    args = parser.parse_args()
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    run = Run()
    started = time.monotonic()
    for size in ["1280x800", "800x480"]:
        width, height = (int(n) for n in size.split("x"))
        driver = make_driver(width, height)
        try:
            start_question(driver, args.base_url)
            if size == "1280x800":
                composed = composer_table(driver, run)
                composer_reports_the_preedit(driver, run)
                layouts_decide(driver, run)
                composition_ends(driver, run)
                backspace_repeats(driver, run)
                smallest = keys_and_names(driver, run)
                empty_field(driver)
                field_above_keyboard(driver, run, size)
                walk_layouts(driver, run, args.out)
                print("composer: %d of %d sequences right; smallest key %.0f px" % (composed, len(CASES), smallest))
            else:
                print("smallest key at %s: %.0f px" % (size, keys_and_names(driver, run)))
                empty_field(driver)
                field_above_keyboard(driver, run, size)
                # As a respondent first sees it: the page scrolled by the keyboard, not by the test.
                driver.refresh()
                WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "osk").is_displayed())
                run.check("field shown when the keyboard opens at %s" % size, *field_visible(driver))
                walk_layouts(driver, run, args.out, "-800x480")
            if args.system_url and size == "1280x800":
                system_keyboard(driver, run, args.system_url)
        except (osk.KeyboardError, WebDriverException) as error:
            run.check("walk at %s" % size, False, str(error).splitlines()[0])
        finally:
            driver.quit()
    print("%d passed, %d failed (%.0f s)" % (run.passed, len(run.failed), time.monotonic() - started))
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main())
