#!/usr/bin/env python3
"""The kiosk at the screen sizes kiosks have: 800x480 (the Raspberry Pi 7-inch touch display),
1280x800, 1920x1080 and 1080x1920 (portrait). At each size headless Chromium opens the welcome
screen, starts a Korean session, shows the first text question with the on-screen keyboard open
in its Korean layout, then answers its way to a choice question. On each of these screens it
checks:

- no horizontal scrolling (the page is no wider than the viewport);
- every visible text at least 18 CSS px;
- the question, its field and Next on screen, or reachable by scrolling the page only (each one,
  scrolled to, is the element at its own centre: not covered by the keyboard or anything else);
- an axe-core 4 audit with no violation of impact serious or critical, touch targets, no other
  host (the checks of kiosk_test.py);

and saves a screenshot `screen-<size>-<screen>.png`.

The on-screen keyboard is the element `#osk` (a labelled region, shown while a text field has
focus, switched to Korean by the key named "한/영"); a page without one is checked without it.

    .build-browser/venv/bin/python Tests/Browser/screens_test.py http://127.0.0.1:PORT/ --out DIR

Prints one line per screen and "N passed, M failed" (one per size); writes screens-summary.json
beside the screenshots. Exit status 0 only when every size passed.
"""
import argparse
import json
import os
import sys
import time

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from kiosk_test import Failure, Kiosk, make_driver

SIZES = ["800x480", "1280x800", "1920x1080", "1080x1920"]
MIN_TEXT_PX = 18

# The first stage in Korean up to its choice question: name, e-mail twice, age, then a score
# below 4, which leads to stage 2 and its radio question.
ANSWERS = [("name", "김민수"), ("email", "minsu@example.com"), ("emailConfirm", "minsu@example.com"), ("age", "30")]


class Screens:
    def __init__(self, kiosk, size):
        self.kiosk = kiosk
        self.driver = kiosk.driver
        self.size = size
        self.records = []

    def check(self, screen, essentials=()):
        """The checks of one screen; the essentials must each be reachable by scrolling."""
        name = "screen-%s-%s" % (self.size, screen)
        # The screen slides in (160 ms): its layout is judged once it is still.
        WebDriverWait(self.driver, 5).until(lambda d: d.execute_script(
            "return document.getAnimations().every(function (a) { return a.playState !== 'running'; })"))
        problems = self.horizontal_scroll() + self.small_text() + self.unreachable(essentials)
        failures_before = len(self.kiosk.failures)
        self.kiosk.screen(name)
        axe = self.kiosk.screens[-1]
        record = {"screen": name, "size": self.size, "axe_version": axe.get("axe_version"), "axe_passes": axe["axe_passes"],
                  "axe_violations": axe["axe_violations"], "axe_incomplete": axe["axe_incomplete"],
                  "keyboard": self.keyboard_state(), "problems": axe["problems"] + problems}
        self.records.append(record)
        for problem in problems:
            print("    FAIL %s: %s" % (name, problem))
        if problems and len(self.kiosk.failures) == failures_before:
            self.kiosk.failures.append(name)

    def horizontal_scroll(self):
        widths = self.driver.execute_script(
            "return [document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth]")
        if max(widths[0], widths[1]) > widths[2]:
            return ["scrolls horizontally: the page is %d px wide in a %d px viewport" % (max(widths[0], widths[1]), widths[2])]
        return []

    def small_text(self):
        script = """
            const small = [];
            const seen = new Set();
            const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const el = node.parentElement;
                if (!node.textContent.trim() || !el || seen.has(el)) continue;
                seen.add(el);
                if (!el.getClientRects().length || el.closest('[hidden], dialog:not([open]), noscript, script, style')) continue;
                const size = parseFloat(getComputedStyle(el).fontSize);
                if (size < arguments[0]) small.push((el.id || el.className || el.tagName) + ' "' + node.textContent.trim().slice(0, 20) + '" ' + size + 'px');
            }
            for (const el of document.querySelectorAll('input[type=text], input:not([type]), button')) {
                if (!el.getClientRects().length || seen.has(el)) continue;
                const size = parseFloat(getComputedStyle(el).fontSize);
                if (size < arguments[0]) small.push((el.id || el.className || el.tagName) + ' ' + size + 'px');
            }
            return small;"""
        return ["text under %d px: %s" % (MIN_TEXT_PX, s) for s in self.driver.execute_script(script, MIN_TEXT_PX)]

    def unreachable(self, selectors):
        """Each element, scrolled to by the page, is the element at its own centre."""
        script = """
            const el = document.querySelector(arguments[0]);
            if (!el) return 'missing';
            for (const block of ['center', 'start', 'end']) {
                el.scrollIntoView({block: block, inline: 'nearest'});
                const r = el.getBoundingClientRect();
                const x = r.left + r.width / 2, y = r.top + Math.min(r.height / 2, 24);
                if (x < 0 || y < 0 || x > window.innerWidth || y > window.innerHeight) continue;
                const hit = document.elementFromPoint(x, y);
                if (hit && (hit === el || el.contains(hit) || hit.contains(el) && hit.tagName === 'LABEL')) return null;
            }
            const r = el.getBoundingClientRect();
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height / 2, 24));
            return 'covered by ' + (hit ? (hit.id || hit.className || hit.tagName) : 'nothing (off screen)');"""
        problems = []
        for selector in selectors:
            result = self.driver.execute_script(script, selector)
            if result:
                problems.append("%s is not reachable by scrolling the page: %s" % (selector, result))
        self.driver.execute_script("window.scrollTo(0, 0)")
        return problems

    def keyboard_state(self):
        return self.driver.execute_script("""
            const osk = document.getElementById('osk');
            if (!osk) return 'none on the page';
            const korean = [...osk.querySelectorAll('button')].some(b =>
                (b.textContent.trim() === 'ㅂ' || (b.getAttribute('aria-label') || '').trim() === 'ㅂ') && b.getClientRects().length);
            return (osk.hidden ? 'hidden' : 'shown') + (korean ? ', Korean layout' : '');""")

    def open_korean_keyboard(self):
        """Focuses the field; with an on-screen keyboard, waits for it and switches it to Korean."""
        field = self.driver.find_element(By.ID, "answer")
        # The field has autofocus; focused anew, so that a keyboard waiting for the focus sees it.
        self.driver.execute_script("arguments[0].blur(); arguments[0].focus()", field)
        if not self.driver.find_elements(By.ID, "osk"):
            return
        WebDriverWait(self.driver, 5).until(lambda d: d.execute_script(
            "const o = document.getElementById('osk'); return !o.hidden && o.getClientRects().length > 0"))
        for _ in range(4):
            if "Korean" in self.keyboard_state():
                return
            switch = [b for b in self.driver.find_elements(By.CSS_SELECTOR, "#osk button")
                      if (b.get_attribute("aria-label") or b.text).strip() == "한/영" and b.is_displayed()]
            if not switch:
                raise Failure("the on-screen keyboard has no key named 한/영")
            switch[0].click()
            time.sleep(0.2)
            # A key keeps the field's focus; should it not, the field is focused again (the
            # keyboard is shown while a text field has focus).
            if self.driver.switch_to.active_element.get_attribute("id") != "answer":
                self.driver.execute_script("arguments[0].focus()", field)
                time.sleep(0.2)
        raise Failure("the on-screen keyboard shows no Korean layout (no key ㅂ) after tapping 한/영")


def next_button(driver):
    """Next, scrolled to the top of the screen as a person would scroll it out from under the
    on-screen keyboard (a click's own scrolling puts it at the bottom, under the keyboard)."""
    button = driver.find_element(By.CSS_SELECTOR, "button.next")
    driver.execute_script("arguments[0].scrollIntoView({block: 'start', inline: 'nearest'})", button)
    return button


def walk(screens):
    k = screens.kiosk
    k.open("/")
    screens.check("welcome", ["#start-form button"])
    k.submit(k.driver.find_element(By.CSS_SELECTOR, "#start-form button"))
    k.expect_question("name")
    screens.open_korean_keyboard()
    screens.check("text-keyboard-ko", [".question-text", "#answer", "button.next"])
    for name, value in ANSWERS:
        k.expect_question(name)
        k.type(value)
        k.submit(next_button(k.driver))
    k.expect_question("like")
    k.choose("2")
    k.submit(next_button(k.driver))
    k.expect_question("tried")
    screens.check("choice", [".question-text", "label.choice", "button.next"])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base_url")
    parser.add_argument("--out", default="Tests/Browser/out")
    parser.add_argument("--sizes", default=",".join(SIZES), help="WIDTHxHEIGHT, comma-separated")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    records, failed = [], []
    sizes = args.sizes.split(",")
    for size in sizes:
        print("== " + size)
        width, height = (int(n) for n in size.split("x"))
        driver = make_driver(width, height)
        kiosk = Kiosk(driver, args.base_url, args.out)
        screens = Screens(kiosk, size)
        try:
            walk(screens)
        except (Failure, WebDriverException) as error:
            kiosk.failures.append(str(error).strip().split("\n")[0])
            print("FAIL %s: %s" % (size, error))
            driver.save_screenshot(os.path.join(args.out, "failure-%s.png" % size))
        finally:
            driver.quit()
        records += screens.records
        if kiosk.failures:
            failed.append("%s: %s" % (size, ", ".join(kiosk.failures)))

    with open(os.path.join(args.out, "screens-summary.json"), "w", encoding="utf8") as f:
        json.dump({"screens": records, "failures": failed}, f, ensure_ascii=False, indent=2)
    print("%d passed, %d failed" % (len(sizes) - len(failed), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
