#!/usr/bin/env python3
"""The kiosk in a real browser: headless Chromium driven through chromium-driver walks the
project's survey (mock/questions) on a kiosk at BASE_URL, typing every text and number answer by
tapping the page's on-screen keys (by keystrokes when scripts are off), audits every screen with axe-core 4
(selenium-axe-python; fails on any violation of impact serious or critical), checks touch-target sizes, focus and
that nothing is loaded from another host, and saves a screenshot of each screen.

    Tests/Browser/install.sh
    .build-browser/venv/bin/python Tests/Browser/kiosk_test.py http://127.0.0.1:PORT/ \
        --out doc/kiosk [--offline-url URL2] [--idle-url URL3 --idle-seconds 5 --countdown-seconds 5]

--offline-url is a kiosk whose survey server is unreachable (its walk ends as "saved");
--idle-url is a kiosk with short idle settings (given by --idle-seconds/--countdown-seconds),
to see the "Are you still there?" overlay and the reset. Prints one line per screen and a summary; writes
axe-summary.json beside the screenshots (screens of an earlier run in the same folder are kept unless
this run saw them again, so that walks run one after another add up). Exit status 0 only when every
step and audit passed.
"""
import argparse
import json
import os
import sys
import time
from urllib.parse import urlparse

from selenium_axe_python import Axe
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

import osk

BLOCKING = ("serious", "critical")
MIN_TARGET = 48


class Failure(Exception):
    pass


class Kiosk:
    def __init__(self, driver, base, out, scripts=True):
        self.driver = driver
        # With scripts, text is typed by tapping the page's on-screen keys; without, by keystrokes.
        self.scripts = scripts
        self.base = base.rstrip("/")
        self.out = out
        self.screens = []
        self.failures = []

    # Navigation

    def open(self, path):
        self.driver.get(self.base + path)
        self.wait_loaded()

    def wait_loaded(self):
        WebDriverWait(self.driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")

    def submit(self, button):
        """Clicks a submit button and waits for the next page."""
        self.driver.execute_script("window.__kioskPage = true")
        button.click()
        WebDriverWait(self.driver, 10).until(lambda d: d.execute_script("return window.__kioskPage !== true"))
        self.wait_loaded()

    def button(self, text):
        for element in self.driver.find_elements(By.CSS_SELECTOR, "button, a.button"):
            if element.text.strip() == text and element.is_displayed():
                return element
        raise Failure("no button %r on %s" % (text, self.driver.current_url))

    def next(self, label="Next"):
        self.submit(self.button(label))

    def question(self):
        fields = self.driver.find_elements(By.CSS_SELECTOR, "#answer-form input[name=question]")
        return fields[0].get_attribute("value") if fields else None

    def expect_question(self, name):
        if self.question() != name:
            raise Failure("expected question %r, got %r at %s" % (name, self.question(), self.driver.current_url))

    def type(self, text, field="answer", layout=None):
        element = self.driver.find_element(By.ID, field)
        if not self.scripts:
            element.clear()
            element.send_keys(text)
            return
        element.click()
        if layout and osk.layout(self.driver) != layout:
            raise Failure("the keyboard shows the %s layout, not %s" % (osk.layout(self.driver), layout))
        osk.type_text(self.driver, element, text)

    def choose(self, value):
        element = self.driver.find_element(By.CSS_SELECTOR, "input[name=value][value='%s']" % value)
        label = self.driver.find_element(By.CSS_SELECTOR, "label[for='%s']" % element.get_attribute("id"))
        label.click()
        if not element.is_selected():
            raise Failure("tapping the label of %r did not select it" % value)

    def error(self):
        errors = self.driver.find_elements(By.ID, "answer-error")
        return errors[0].text.strip() if errors else None

    # Checks

    def screen(self, name, note=""):
        """Audits the screen with axe, checks targets and origins, saves a screenshot."""
        # The screen slides in (a CSS animation of 160 ms): audit and photograph it once it is still,
        # not half transparent on its way in.
        WebDriverWait(self.driver, 5).until(lambda d: d.execute_script(
            "return document.getAnimations().every(function (a) { return a.playState !== 'running'; })"))
        scrolled = self.driver.execute_script("return window.scrollY")
        axe = Axe(self.driver)
        axe.inject()
        results = axe.run()
        # The audit scrolls the page; put it back where the respondent had it.
        self.driver.execute_script("window.scrollTo(0, arguments[0])", scrolled)
        counts = {}
        for violation in results["violations"]:
            counts[violation["impact"]] = counts.get(violation["impact"], 0) + 1
        blocking = [v for v in results["violations"] if v["impact"] in BLOCKING]
        problems = []
        for violation in blocking:
            targets = ", ".join(t for node in violation["nodes"] for t in node["target"])
            problems.append("axe %s (%s): %s at %s" % (violation["id"], violation["impact"], violation["help"], targets))
        problems += self.small_targets()
        problems += self.foreign_resources()
        problems += self.text_size_over_headings()
        lang = self.driver.execute_script("return document.documentElement.lang")
        if lang not in ("ko", "en"):
            problems.append("<html lang> is %r" % lang)
        path = os.path.join(self.out, name + ".png")
        self.driver.save_screenshot(path)
        record = {
            "screen": name,
            "url": urlparse(self.driver.current_url).path,
            "lang": lang,
            "axe_version": results.get("testEngine", {}).get("version"),
            "axe_passes": len(results["passes"]),
            "axe_violations": counts,
            "axe_incomplete": [item["id"] for item in results["incomplete"]],
            "problems": problems,
            "note": note,
        }
        self.screens.append(record)
        status = "ok" if not problems else "FAIL"
        print("%-28s %-4s axe: %d passed, violations %s%s" % (name, status, record["axe_passes"], counts or "none", "; " + "; ".join(problems) if problems else ""))
        if problems:
            self.failures.append(name)

    def text_size_over_headings(self):
        """The text size buttons (top right of a respondent screen) cover no h1 or h2 of the page."""
        overlaps = self.driver.execute_script("""
            const control = document.getElementById('text-size');
            if (!control || control.hidden) return [];
            const c = control.getBoundingClientRect();
            return Array.from(document.querySelectorAll('h1, h2')).filter(h => !h.closest('dialog')).map(h => {
                const r = h.getBoundingClientRect();
                const x = Math.min(r.right, c.right) - Math.max(r.left, c.left);
                const y = Math.min(r.bottom, c.bottom) - Math.max(r.top, c.top);
                return x > 0 && y > 0 ? h.tagName.toLowerCase() + ' "' + h.textContent.trim().slice(0, 40) + '" (' + Math.round(x) + 'x' + Math.round(y) + ' px)' : null;
            }).filter(Boolean);""")
        return ["the text size buttons cover %s" % overlap for overlap in overlaps]

    def small_targets(self):
        script = """
            const small = [];
            for (const el of document.querySelectorAll('button, a, label.choice, label.score, input[type=text]')) {
                const r = el.getBoundingClientRect();
                if (r.width === 0 && r.height === 0) continue;  // not shown (e.g. the closed dialog)
                if (r.width < arguments[0] || r.height < arguments[0]) small.push((el.id || el.className || el.tagName) + ' ' + Math.round(r.width) + 'x' + Math.round(r.height));
            }
            return small;"""
        return ["touch target under %d px: %s" % (MIN_TARGET, s) for s in self.driver.execute_script(script, MIN_TARGET)]

    def foreign_resources(self):
        origin = "{0.scheme}://{0.netloc}".format(urlparse(self.base))
        names = self.driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        return ["loaded from another host: %s" % n for n in names if not n.startswith(origin)]

    def expect_focus(self, element_id):
        active = self.driver.switch_to.active_element.get_attribute("id")
        if active != element_id:
            raise Failure("focus is on %r, not %r" % (active, element_id))

    def expect_no_text(self, *texts):
        body = self.driver.find_element(By.TAG_NAME, "body").get_attribute("outerHTML")
        for text in texts:
            if text in body:
                raise Failure("%r is still on the page %s" % (text, self.driver.current_url))


def walk_english_to_thanks(k):
    k.open("/")
    k.screen("welcome-ko")
    k.submit(k.driver.find_element(By.CSS_SELECTOR, "a.language[lang=en]"))
    k.screen("welcome-en")
    k.next("Start")
    k.expect_question("name")
    k.expect_focus("answer")
    k.screen("text", "text: a labelled input, placeholder from the questionnaire")
    k.type("")
    k.next()
    if k.error() != "Please enter your name.":
        raise Failure("empty name: error %r" % k.error())
    k.expect_focus("answer")
    k.screen("text-rejected", "a rule's validateText next to the field, focus on it")
    k.type("K")
    k.next()
    if k.error() != "Your name must be 2 to 20 characters long.":
        raise Failure("short name: error %r" % k.error())
    if k.driver.find_element(By.ID, "answer").get_attribute("value") != "K":
        raise Failure("the rejected input was not kept")
    k.type("Kim Minji")
    k.next()
    k.expect_question("email")
    k.type("minji@example.com")
    k.next()
    k.type("minji@example.com")
    k.next()
    k.expect_question("age")
    k.screen("number", "number: inputmode=decimal")
    k.type("1-2")
    k.next()
    if k.error() != "Please enter a number.":
        raise Failure("age 1-2: error %r" % k.error())
    k.type("30")
    k.next()
    k.expect_question("like")
    k.screen("score", "radioNumber: a 1 to 7 scale of large buttons")
    k.choose("5")
    k.next()
    k.expect_question("type")
    extra = k.driver.find_element(By.ID, "extra-text")
    if extra.is_enabled():
        raise Failure("the free-text field is enabled before Other is chosen")
    k.screen("radio-with-input", "radioWithInput: the free-text field waits for Other")
    k.choose("extra")
    if not extra.is_enabled():
        raise Failure("the free-text field stays disabled after Other is chosen")
    k.type("Cider", field="extra-text")
    k.screen("radio-with-input-other", "Other chosen, its text typed")
    k.next()
    k.expect_question("occasions")
    k.screen("checkbox", "checkbox: the default option pre-checked")
    k.choose("home")
    k.next()
    k.expect_question("glassesPerWeek")
    k.screen("number-optional", "an optional question: Skip")
    k.next("Skip")
    k.expect_question("pairing")
    k.next("Back")
    k.expect_question("glassesPerWeek")
    k.type("4")
    k.next()
    k.type("Wine and cheese")
    k.next()
    k.expect_question("coupon")
    k.next("Back")
    k.expect_question("pairing")
    if k.driver.find_element(By.ID, "answer").get_attribute("value") != "Wine and cheese":
        raise Failure("Back did not show the earlier answer")
    k.screen("back", "Back shows the earlier answer")
    k.next()
    k.type("ABC-12")
    k.next()
    k.screen("end-thanks", "thanks, back to the start in 10 s or on a tap")
    k.driver.find_element(By.TAG_NAME, "h1").click()
    WebDriverWait(k.driver, 10).until(lambda d: urlparse(d.current_url).path == "/")
    k.wait_loaded()
    k.expect_no_text("Kim Minji", "Wine and cheese", "Cider")
    k.driver.back()
    k.wait_loaded()
    k.expect_no_text("Kim Minji", "Wine and cheese", "Cider")


def walk_korean_stage_two(k):
    k.open("/?lang=ko")
    k.next("시작하기")
    for value, layout in [("김민지", "korean"), ("minji@example.com", "email"), ("minji@example.com", "email"), ("30", "number")]:
        k.type(value, layout=layout)
        k.next("다음")
    k.screen("score-ko", "radioNumber in Korean")
    k.choose("2")
    k.next("다음")
    k.expect_question("tried")
    k.screen("radio-ko", "radio: buttons with labels, first question of a follow-up stage (no Back)")
    body = k.driver.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.TAB)
    if k.driver.switch_to.active_element.get_attribute("name") != "value":
        raise Failure("Tab does not reach the options first")
    k.choose("yes")
    k.next("다음")
    k.choose("taste")
    k.next("다음")
    k.expect_question("recommend")
    k.screen("score-default-ko", "radioNumber with the default selected, optional")
    k.next("다음")
    k.choose("disagree")
    k.next("다음")
    if not k.error():
        raise Failure("disagreeing was not rejected")
    k.screen("radio-rejected-ko", "sameAS a literal: the consent is needed")
    k.choose("agree")
    k.next("다음")
    k.screen("end-thanks-ko")


def walk_screened_out(k):
    k.open("/?lang=en")
    k.next("Start")
    for value in ["Lee Jun", "jun@example.com", "jun@example.com", "15"]:
        k.type(value)
        k.next()
    k.screen("end-no-target", "screened out: a neutral ending")


def walk_offline(k):
    k.open("/?lang=en")
    k.next("Start")
    for value in ["Park Hana", "hana@example.com", "hana@example.com", "41"]:
        k.type(value)
        k.next()
    k.choose("6")
    k.next()
    k.screen("end-saved", "the survey server is unreachable: the answers are saved")


def walk_idle(k, idle, countdown):
    k.open("/?lang=en")
    k.next("Start")
    k.type("Idle Person")
    k.next()
    k.next("Back")
    k.expect_question("name")
    WebDriverWait(k.driver, idle + 5).until(lambda d: d.find_element(By.ID, "idle-dialog").is_displayed())
    k.screen("idle-overlay", "Are you still there? with its countdown")
    k.button("Continue").click()
    time.sleep(0.5)
    if k.driver.find_element(By.ID, "idle-dialog").is_displayed():
        raise Failure("Continue did not close the overlay")
    WebDriverWait(k.driver, idle + 5).until(lambda d: d.find_element(By.ID, "idle-dialog").is_displayed())
    WebDriverWait(k.driver, countdown + 10).until(lambda d: urlparse(d.current_url).path == "/")
    k.wait_loaded()
    k.expect_no_text("Idle Person")
    k.screen("welcome-after-reset", "the session was abandoned; nothing of it is left")


def walk_without_script(k):
    """The pages are plain forms: with scripts off, a respondent gets through all the same."""
    k.open("/?lang=en")
    if k.driver.execute_script("return 1") != 1:
        raise Failure("the driver cannot run its own scripts")
    k.next("Start")
    for value in ["No Script", "noscript@example.com", "noscript@example.com", "44"]:
        k.type(value)
        k.next()
    k.choose("4")
    k.next()
    k.expect_question("type")
    extra = k.driver.find_element(By.ID, "extra-text")
    if not extra.is_enabled():
        raise Failure("without scripts the free-text field must stay usable")
    k.choose("extra")
    k.type("Mead", field="extra-text")
    k.next()
    k.expect_question("occasions")
    k.next("Back")
    if k.driver.find_element(By.ID, "extra-text").get_attribute("value") != "Mead":
        raise Failure("Back without scripts lost the free text")
    k.driver.save_screenshot(os.path.join(k.out, "no-script-back.png"))
    print("%-28s ok   (scripts off: forms, Back and Other's free text work)" % "no-script-back")


def make_driver(width, height, scripts=True):
    options = webdriver.ChromeOptions()
    if not scripts:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=%d,%d" % (width, height), "--force-device-scale-factor=1",
                     "--lang=en-US", "--no-first-run", "--disable-extensions"]:
        options.add_argument(argument)
    service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    # Make the page's viewport (not the window around it) WIDTHxHEIGHT.
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])
    driver.set_page_load_timeout(20)
    driver.set_script_timeout(30)
    return driver


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base_url")
    parser.add_argument("--out", default="Tests/Browser/out")
    parser.add_argument("--offline-url")
    parser.add_argument("--idle-url")
    parser.add_argument("--idle-seconds", type=int, default=120)
    parser.add_argument("--countdown-seconds", type=int, default=20)
    parser.add_argument("--size", default="1280x1024", help="the page's viewport, WIDTHxHEIGHT")
    parser.add_argument("--walks", default="english,korean,screened,noscript,offline,idle",
                        help="which walks to run, comma-separated (offline and idle also need their URL)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    width, height = (int(n) for n in args.size.split("x"))

    chosen = set(args.walks.split(","))
    unknown = chosen - {"english", "korean", "screened", "noscript", "offline", "idle"}
    if unknown:
        parser.error("unknown walks: %s" % ", ".join(sorted(unknown)))
    walks = []
    if "english" in chosen:
        walks.append(("English, every form type, to thanks", args.base_url, walk_english_to_thanks))
    if "korean" in chosen:
        walks.append(("Korean, stage 2, to thanks", args.base_url, walk_korean_stage_two))
    if "screened" in chosen:
        walks.append(("screened out", args.base_url, walk_screened_out))
    if "noscript" in chosen:
        walks.append(("scripts off", args.base_url, walk_without_script))
    if args.offline_url and "offline" in chosen:
        walks.append(("offline: saved", args.offline_url, walk_offline))
    if args.idle_url and "idle" in chosen:
        walks.append(("idle reset", args.idle_url, lambda k: walk_idle(k, args.idle_seconds, args.countdown_seconds)))
    if not walks:
        parser.error("no walk to run: name one with --walks (offline and idle need --offline-url and --idle-url)")

    screens, failures = [], []
    for title, base, walk in walks:
        print("== " + title)
        driver = make_driver(width, height, scripts=walk is not walk_without_script)
        kiosk = Kiosk(driver, base, args.out, scripts=walk is not walk_without_script)
        try:
            walk(kiosk)
        except (Failure, osk.KeyboardError, WebDriverException) as error:
            failures.append("%s: %s" % (title, error))
            print("FAIL %s: %s" % (title, error))
            driver.save_screenshot(os.path.join(args.out, "failure-%d.png" % len(failures)))
        finally:
            driver.quit()
        screens += kiosk.screens
        failures += ["%s: screen %s" % (title, name) for name in kiosk.failures]

    summary_path = os.path.join(args.out, "axe-summary.json")
    seen = {screen["screen"] for screen in screens}
    try:
        with open(summary_path, encoding="utf8") as f:
            earlier = [screen for screen in json.load(f).get("screens", []) if screen.get("screen") not in seen]
    except (OSError, ValueError):
        earlier = []
    with open(summary_path, "w", encoding="utf8") as f:
        json.dump({"screens": earlier + screens, "failures": failures}, f, ensure_ascii=False, indent=2)
    passed = len(walks) - len({f.split(":")[0] for f in failures})
    print("%d passed, %d failed" % (passed, len(walks) - passed))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
