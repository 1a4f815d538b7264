#!/usr/bin/env python3
"""The kiosk's staff screen in a real browser, tapped as a person would: headless Chromium at
BASE_URL, a kiosk with a staff PIN (2468) and two surveys in kioskSurveys (`common`, then the
second one, titled "Second survey" in English).

At the first size it goes through the lockout: five wrong PINs tapped on the on-screen number
keypad lock the staff screen, `surveyctl staff-pin unlock` opens it again. At every size:

- a short press on the welcome screen's title does nothing; a 3-second press leads to the PIN pad;
- a wrong PIN says how many are left; the right one shows the staff screen;
- Send now says what it sent;
- Take out of service (with a message): a second browser showing the welcome screen follows to
  "out of service" within seconds; Put back in service: it follows back;
- Switch survey: the second browser's welcome screen follows to the new title, and its next
  respondent starts the chosen survey (not the first stage's first question, `name`);
- Done goes back to the welcome screen; staff who leave without Done leave the next person at
  that browser the PIN pad (the welcome screen ends the staff login); at the first size, the
  staff screen ends by itself after 60 s untouched;
- the respondent's text sizes (three steps): at the largest, on a text question with the on-screen
  keyboard open, the question, its field and Next stay reachable; the choice is kept to the next
  page and forgotten on the welcome screen.

Each staff screen is audited with axe-core (no serious or critical violation) and saved as
`staff-<size>-<screen>.png` in --out; staff-summary.json beside them holds the audits.

    .build-browser/venv/bin/python Tests/Browser/staff_test.py http://127.0.0.1:PORT/ --out DIR \
        --surveyctl .build/debug/surveyctl --socket PATH [--sizes 800x480,1280x800]

Prints one line per screen and "N passed, M failed" (one per size). Exit 0 only when all passed.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import osk
from kiosk_test import Failure, Kiosk, make_driver

PIN = "2468"
WRONG = "1111"


class Staff:
    def __init__(self, kiosk, second, size, args):
        self.k = kiosk
        self.d = kiosk.driver
        self.second = second
        self.size = size
        self.args = args

    def shot(self, screen):
        self.k.screen("staff-%s-%s" % (self.size, screen))

    def text(self, driver=None):
        # A page that reloads itself (the welcome screen following the kiosk's state) may go
        # away while it is read: read it again.
        for _ in range(10):
            try:
                return (driver or self.d).find_element(By.TAG_NAME, "body").text
            except WebDriverException:
                time.sleep(0.3)
        return ""

    def expect_text(self, fragment, driver=None, timeout=0):
        driver = driver or self.d
        end = time.time() + timeout
        while True:
            if fragment in self.text(driver):
                return
            if time.time() >= end:
                raise Failure("expected %r on %s, the page says: %s" % (fragment, driver.current_url, " | ".join(self.text(driver).split("\n"))[:400]))
            time.sleep(0.3)

    def press_title(self, seconds):
        title = self.d.find_element(By.CSS_SELECTOR, "h1")
        ActionChains(self.d).click_and_hold(title).pause(seconds).release().perform()

    def way_in(self):
        self.k.open("/?lang=en")
        self.press_title(1.0)
        time.sleep(0.5)
        if "/staff" in self.d.current_url:
            raise Failure("a 1-second press on the title opened the staff screen")
        self.press_title(3.4)
        WebDriverWait(self.d, 10).until(lambda d: "/staff" in d.current_url)
        self.k.wait_loaded()
        if not self.d.find_elements(By.ID, "pin"):
            raise Failure("no PIN pad after the 3-second press: %s" % self.text()[:300])

    def type_pin(self, pin):
        self.k.type(pin, field="pin")
        self.k.submit(self.d.find_element(By.CSS_SELECTOR, "#answer-form button.next"))

    def unlock(self):
        result = subprocess.run([self.args.surveyctl, "staff-pin", "unlock", "--socket", self.args.socket],
                                capture_output=True, text=True, timeout=30)
        if result.returncode != 0 or "staff PIN unlocked" not in result.stdout:
            raise Failure("surveyctl staff-pin unlock: %s %s" % (result.stdout, result.stderr))

    def tap(self, label):
        self.k.submit(self.k.button(label))

    def run(self, first):
        self.way_in()
        self.shot("pin")
        self.type_pin(WRONG)
        self.expect_text("Wrong PIN. 4 more wrong PINs will lock the staff screen.")
        self.shot("wrong-pin")
        if first:
            for _ in range(4):
                self.type_pin(WRONG)
            self.expect_text("the staff screen is locked for 5 more minutes")
            self.shot("locked")
            # Locked: even the right PIN does not open it.
            self.type_pin(PIN)
            self.expect_text("locked for")
            self.unlock()
        self.type_pin(PIN)
        self.expect_text("Send now")
        for absent in ("Zebulon", "@example"):
            if absent in self.text():
                raise Failure("the staff screen shows %r" % absent)
        self.shot("glance")

        self.tap("Send now")
        self.expect_text("Sent ")
        self.shot("sent")

        self.second.get(self.k.base + "/?lang=en")
        self.expect_text("Start", driver=self.second)
        message = self.d.find_element(By.ID, "staff-message")
        message.click()
        message.send_keys("Back at 14:00")
        self.tap("Take out of service")
        self.expect_text("The kiosk is out of service.")
        self.shot("out-of-service")
        self.expect_text("This kiosk is out of service", driver=self.second, timeout=10)
        self.expect_text("Back at 14:00", driver=self.second)
        self.audit_second("respondent-out-of-service")
        self.tap("Put back in service")
        self.expect_text("The kiosk is back in service.")
        self.expect_text("Drinks survey", driver=self.second, timeout=10)

        select = self.d.find_element(By.ID, "staff-survey")
        select.click()
        for option in select.find_elements(By.TAG_NAME, "option"):
            if option.text.strip() == "Second survey":
                option.click()
        self.tap("Switch survey")
        self.expect_text("The next respondent starts Second survey.")
        self.shot("switched")
        self.expect_text("Second survey", driver=self.second, timeout=10)
        start = [b for b in self.second.find_elements(By.CSS_SELECTOR, "#start-form button") if b.is_displayed()]
        if not start:
            raise Failure("no Start on the second browser's welcome screen")
        start[0].click()
        WebDriverWait(self.second, 10).until(lambda d: "/question" in d.current_url)
        asked = self.second.find_elements(By.CSS_SELECTOR, "#answer-form input[name=question]")
        if not asked or asked[0].get_attribute("value") == "name":
            raise Failure("the next respondent did not start the chosen survey (question %r)" % (asked[0].get_attribute("value") if asked else None))
        # A respondent at work in another browser ended the staff screen: the PIN is asked again.
        self.tap("Switch survey")
        if not self.d.find_elements(By.ID, "pin"):
            raise Failure("the staff screen stayed open while a respondent started in another browser")
        self.type_pin(PIN)
        self.expect_text("Send now")
        # Back to the first survey for the next size.
        select = self.d.find_element(By.ID, "staff-survey")
        for option in select.find_elements(By.TAG_NAME, "option"):
            if option.text.strip() == "Drinks survey":
                option.click()
        self.tap("Switch survey")
        self.tap("Done")
        if self.d.find_elements(By.ID, "pin") or "/staff" in self.d.current_url:
            raise Failure("Done did not leave the staff screen")

        # Staff who walk away without Done: the next person at this browser, on the welcome
        # screen, finds the PIN pad behind the title, not the staff screen.
        self.way_in()
        self.type_pin(PIN)
        self.expect_text("Send now")
        self.way_in()

        if first:
            self.way_in()
            self.type_pin(PIN)
            self.expect_text("Send now")
            time.sleep(62)
            WebDriverWait(self.d, 10).until(lambda d: "/staff" not in d.current_url)
            self.k.wait_loaded()
            self.k.open("/staff")
            if not self.d.find_elements(By.ID, "pin"):
                raise Failure("the staff screen did not end after 60 s untouched")

    def audit_second(self, screen):
        saved = self.k.driver
        self.k.driver = self.second
        try:
            self.k.screen("staff-%s-%s" % (self.size, screen))
        finally:
            self.k.driver = saved


def text_sizes(k, size):
    """The largest text size on a text question with the keyboard open: question, field and Next reachable."""
    d = k.driver
    # The welcome screen forgets a size chosen before (the next respondent starts at the normal size).
    k.open("/?lang=en")
    d.execute_script("window.sessionStorage.setItem('kiosk-text-size', '2')")
    k.open("/?lang=en")
    if d.execute_script("return document.documentElement.getAttribute('data-text-size')") != "0":
        raise Failure("the welcome screen kept the previous respondent's text size")
    k.submit(d.find_element(By.CSS_SELECTOR, "#start-form button"))
    k.expect_question("name")
    buttons = d.find_elements(By.CSS_SELECTOR, "#text-size button")
    if len(buttons) != 3 or not buttons[0].is_displayed():
        raise Failure("no three text size buttons on the question")
    base = d.execute_script("return parseFloat(getComputedStyle(document.documentElement).fontSize)")
    buttons[2].click()
    largest = d.execute_script("return parseFloat(getComputedStyle(document.documentElement).fontSize)")
    if not largest > base * 1.25:
        raise Failure("the largest text size did not enlarge the text (%s px to %s px)" % (base, largest))
    field = d.find_element(By.ID, "answer")
    field.click()
    WebDriverWait(d, 5).until(lambda dr: dr.execute_script(
        "const o = document.getElementById('osk'); return o && !o.hidden && o.getClientRects().length > 0"))
    problems = []
    for selector in (".question-text", "#answer", "button.next"):
        result = d.execute_script("""
            const el = document.querySelector(arguments[0]);
            if (!el) return 'missing';
            for (const block of ['center', 'start', 'end']) {
                el.scrollIntoView({block: block, inline: 'nearest'});
                const r = el.getBoundingClientRect();
                const x = r.left + r.width / 2, y = r.top + Math.min(r.height / 2, 24);
                if (x < 0 || y < 0 || x > window.innerWidth || y > window.innerHeight) continue;
                const hit = document.elementFromPoint(x, y);
                if (hit && (hit === el || el.contains(hit) || hit.contains(el))) return null;
            }
            return 'covered or off screen';""", selector)
        if result:
            problems.append("%s at the largest text size: %s" % (selector, result))
    # All at once, as the respondent needs them: the question at the top, its field above the
    # keyboard, and the keyboard's own Next key.
    together = d.execute_script("""
        document.querySelector('.question-text').scrollIntoView({block: 'start'});
        const q = document.querySelector('.question-text').getBoundingClientRect();
        const f = document.getElementById('answer').getBoundingClientRect();
        const osk = document.getElementById('osk').getBoundingClientRect();
        const next = [...document.querySelectorAll('#osk button')].find(b => ['Next', '다음'].includes(b.textContent.trim()));
        const n = next ? next.getBoundingClientRect() : null;
        if (q.top < -1) return 'the question starts ' + Math.round(-q.top) + ' px above the screen (scrollY ' + window.scrollY + ')';
        if (f.bottom > osk.top + 1) return 'the field ends ' + Math.round(f.bottom - osk.top) + ' px under the keyboard';
        if (!n || n.bottom > window.innerHeight || n.height === 0) return 'the keyboard has no Next key on screen';
        return null;""")
    if together:
        problems.append("at the largest text size: " + together)
    k.screen("text-size-%s-largest" % size)
    if problems:
        raise Failure("; ".join(problems))
    # The field has the focus and the keyboard is open: tap the keys.
    d.execute_script("arguments[0].scrollIntoView({block: 'start'})", field)
    osk.tap(d, osk.keys_for("Kim", osk.layout(d)))
    if field.get_attribute("value") != "Kim":
        raise Failure("tapping Kim at the largest text size gave %r" % field.get_attribute("value"))
    next_button = d.find_element(By.CSS_SELECTOR, "button.next")
    d.execute_script("arguments[0].scrollIntoView({block: 'start'})", next_button)
    k.submit(next_button)
    kept = d.execute_script("return document.documentElement.getAttribute('data-text-size')")
    if kept != "2":
        raise Failure("the text size was not kept to the next question (%r)" % kept)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base_url")
    parser.add_argument("--out", default="Tests/Browser/out")
    parser.add_argument("--surveyctl", required=True)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--sizes", default="800x480,1280x800")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    passed, failed, records = 0, 0, []
    for index, size in enumerate(args.sizes.split(",")):
        width, height = (int(part) for part in size.split("x"))
        driver = make_driver(width, height)
        second = make_driver(width, height)
        kiosk = Kiosk(driver, args.base_url, args.out)
        try:
            Staff(kiosk, second, size, args).run(first=index == 0)
            text_sizes(kiosk, size)
            if kiosk.failures:
                raise Failure("audits failed: %s" % ", ".join(kiosk.failures))
            passed += 1
            print("%s: passed" % size)
        except (Failure, WebDriverException) as error:
            failed += 1
            print("%s: FAILED: %s" % (size, error))
            try:
                driver.save_screenshot(os.path.join(args.out, "staff-%s-failure.png" % size))
            except WebDriverException:
                pass
        finally:
            records += kiosk.screens
            driver.quit()
            second.quit()
    with open(os.path.join(args.out, "staff-summary.json"), "w") as summary:
        json.dump(records, summary, indent=2, sort_keys=True)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(0 if failed == 0 else 1)


if __name__ == "__main__":
    main()
