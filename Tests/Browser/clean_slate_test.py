#!/usr/bin/env python3
"""The kiosk between respondents, in a real browser: headless Chromium takes N respondents
(100 by default) one after another through the pages of a kiosk at BASE_URL, each leaving by a
way chosen at random from a seed, and after each one, back on the welcome screen, checks that
nothing of theirs is left in the browser:

- the DOM: no field holds a value a respondent gave (every input but the form's hidden tokens is
  empty), and no text they typed is anywhere in the page;
- storage: sessionStorage and localStorage hold no key;
- the text size and the language are the kiosk's own again (`<html lang>` the default language,
  no root font size set, every text size button but the first unpressed);
- history: going Back (up to 3 entries) shows only pages without anything of theirs and never a
  question, the consent notice or an end screen of theirs;
- autofill: every text field a respondent typed into was `autocomplete="off"` (checked on each
  question page), so Chromium keeps no suggestion of their e-mail for the next person.

The ways out: the thanks screen (left with a tap, or by its countdown), screened out, "Are you
still there?" running out on a question or on the consent notice, and consent declined. A tap
that comes after the thanks screen's countdown (a starved machine) is counted as the countdown,
the way the respondent really left.

Before the respondents, "Continue gives the field back": a respondent types into a text field
(the on-screen keyboard open), lets "Are you still there?" come, and taps Continue: the field has
the focus again and the keyboard is shown.

The kiosk needs a consent notice (`--kiosk-consent-file-ko/-en`), short idle settings (given with
--idle-seconds and --countdown-seconds) and a short end screen (--end-seconds).

    .build-browser/venv/bin/python Tests/Browser/clean_slate_test.py http://127.0.0.1:PORT/ \
        --idle-seconds 5 --countdown-seconds 1 --end-seconds 1 [--respondents 100] [--seed 7] [--plant KIND]

--plant KIND leaves something behind on purpose after the respondent in the middle (storage: a
sessionStorage key; value: a field holding the respondent's e-mail; text: their name on the page;
size: the text size left large): the run then passes only when the checker reports exactly that
leftover ("planted leftover caught").

--screens DIR does something else: at 800x480 and 1280x800 it shows the consent notice and the
"No, thanks" screen in both languages, audits each with axe-core (any violation fails, whatever its
impact; and the checks of kiosk_test.py), checks that the notice's two buttons are on the screen
without scrolling the page (the notice scrolls in its box), and saves `consent-<size>-<screen>.png`
and consent-screens-summary.json in DIR.

Prints one line per respondent with a leftover, and "N respondents, M ways out, K leftovers";
exit status 0 only when there was no leftover (with --plant: when the planted one was caught).
"""
import argparse
import random
import sys
import time
from urllib.parse import urlparse

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import osk
from kiosk_test import Failure, Kiosk, make_driver

WAYS = ["thanks-tap", "thanks-countdown", "screened", "idle-question", "idle-consent", "declined"]
# The idle ways take the idle time and the countdown each: chosen a third as often as the others.
WEIGHTS = [3, 3, 3, 1, 1, 3]
# How a respondent types: on the on-screen keys, as key strokes, or (most, to keep a run of 100
# short) by setting the field's value with an input event, as the keyboard's script does.
TYPING = ["keys", "strokes", "value"]
TYPING_WEIGHTS = [1, 2, 7]
PLANTS = ["storage", "value", "text", "size"]

# What the checker reads of the page now.
SNAPSHOT = """
const fields = Array.prototype.map.call(document.querySelectorAll('input, textarea, select'), function (f) {
    return {type: f.type, name: f.name, id: f.id, value: f.type === 'checkbox' || f.type === 'radio' ? (f.checked ? f.value : '') : f.value};
});
const keys = function (storage) { try { return Object.keys(storage); } catch (e) { return ['(unreadable)']; } };
return {
    path: location.pathname,
    lang: document.documentElement.lang,
    fontSize: document.documentElement.style.fontSize,
    pressed: Array.prototype.map.call(document.querySelectorAll('.text-size-button[aria-pressed=true]'), function (b) { return b.getAttribute('data-step'); }),
    fields: fields,
    html: document.documentElement.outerHTML,
    session: keys(window.sessionStorage),
    local: keys(window.localStorage),
    bodyClass: document.body ? document.body.className : ''
};
"""


POLL = 0.02


def wait(driver, timeout, condition):
    """WebDriverWait polling every 20 ms: a run of 100 respondents waits on a thousand pages."""
    return WebDriverWait(driver, timeout, poll_frequency=POLL).until(condition)


class QuickKiosk(Kiosk):
    """The browser tests' Kiosk, with the waits for a page polling every 20 ms."""

    def wait_loaded(self):
        wait(self.driver, 10, lambda d: d.execute_script("return document.readyState") == "complete")

    def submit(self, button):
        self.driver.execute_script("window.__kioskPage = true")
        button.click()
        wait(self.driver, 10, lambda d: d.execute_script("return window.__kioskPage !== true"))
        self.wait_loaded()


class Respondent:
    def __init__(self, number, seed, rng):
        self.number = number
        tag = "%d%d" % (seed, number)
        self.name = "Rsp" + tag
        self.email = "rsp%s@example.org" % tag
        self.language = rng.choice(["ko", "en"])
        self.large_text = rng.random() < 0.3

    def traces(self):
        return [self.name, self.email]


class CleanSlate:
    def __init__(self, kiosk, default_language, idle, countdown, end_seconds):
        self.k = kiosk
        self.d = kiosk.driver
        self.default_language = default_language
        self.idle = idle
        self.countdown = countdown
        self.end_seconds = end_seconds

    # The respondent's walk

    def start(self, r):
        self.k.open("/?lang=" + r.language)
        self.k.submit(self.d.find_element(By.CSS_SELECTOR, "#start-form button"))
        if urlparse(self.d.current_url).path != "/consent":
            raise Failure("Start led to %s, not the consent notice" % self.d.current_url)
        if r.large_text:
            self.d.find_element(By.CSS_SELECTOR, ".text-size-button[data-step='2']").click()

    def agree(self):
        self.k.submit(self.d.find_element(By.CSS_SELECTOR, "#consent-form button[value=agree]"))

    def type(self, value, typing):
        """Types into the question's field: on the on-screen keys, as key strokes, or by value."""
        field = self.d.find_element(By.ID, "answer")
        if field.get_attribute("autocomplete") != "off":
            raise Failure("the field of %s is autocomplete=%r" % (self.k.question(), field.get_attribute("autocomplete")))
        form = self.d.find_element(By.ID, "answer-form")
        if form.get_attribute("autocomplete") != "off":
            raise Failure("the form of %s is autocomplete=%r" % (self.k.question(), form.get_attribute("autocomplete")))
        if typing == "keys":
            self.k.type(value)
        elif typing == "strokes":
            field.click()
            field.send_keys(value)
        else:
            field.click()
            self.d.execute_script(
                "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", field, value)

    def next(self):
        # At 800x480 the on-screen keyboard covers the lower half: Next is scrolled to the top first.
        button = self.d.find_element(By.CSS_SELECTOR, "button.next")
        self.d.execute_script("arguments[0].scrollIntoView({block: 'start'})", button)
        self.k.submit(button)

    def answer_common(self, r, rng, age, stop_at=None):
        typing = rng.choices(TYPING, TYPING_WEIGHTS)[0]
        for name, value in [("name", r.name), ("email", r.email), ("emailConfirm", r.email), ("age", str(age))]:
            self.k.expect_question(name)
            if name == stop_at:
                self.type(value[: max(1, len(value) // 2)], typing)
                return
            self.type(value, typing)
            self.next()

    def wait_question(self, name):
        wait(self.d, 15, lambda d: self.k.question() == name)
        self.k.wait_loaded()

    def wait_welcome(self, timeout):
        wait(self.d, timeout, lambda d: urlparse(d.current_url).path == "/" and d.execute_script(
            "return document.readyState === 'complete' && document.body.classList.contains('welcome-page')"))

    def leave(self, r, way, rng):
        if way == "declined":
            self.k.submit(self.d.find_element(By.CSS_SELECTOR, "#consent-form button[value=decline]"))
            if urlparse(self.d.current_url).path != "/declined":
                raise Failure("No, thanks led to %s" % self.d.current_url)
            self.wait_welcome(self.end_seconds + 10)
            return way
        if way == "idle-consent":
            self.wait_welcome(self.idle + self.countdown + 10)
            return way
        self.agree()
        if way == "idle-question":
            stop = rng.choice(["name", "email", "emailConfirm", "age"])
            self.answer_common(r, rng, 30, stop_at=stop)
            self.wait_welcome(self.idle + self.countdown + 10)
            return way
        if way == "screened":
            self.answer_common(r, rng, 15)
        else:
            self.answer_common(r, rng, 30)
            self.k.expect_question("like")
            self.k.choose("2")
            self.next()
            # "One moment" while the first stage is delivered, then the next stage.
            self.wait_question("tried")
            self.k.choose("yes")
            self.next()
            self.k.expect_question("reason")
            self.k.choose("taste")
            self.next()
            self.k.expect_question("recommend")
            self.next()
            self.k.expect_question("consent")
            self.k.choose("agree")
            self.next()
        wait(self.d, 15, lambda d: urlparse(d.current_url).path == "/end")
        if way == "thanks-tap" and not self.tap_return():
            # The end screen's countdown came first (a starved machine): that is the way taken.
            way = "thanks-countdown"
        self.wait_welcome(self.end_seconds + 10)
        return way

    def tap_return(self):
        """Taps "back to the start" on the end screen; False when its countdown had already
        taken the page back to the welcome screen (the tap then met no link, or a link of a page
        that was going)."""
        try:
            self.d.find_element(By.ID, "return-link").click()
            return True
        except WebDriverException:
            self.wait_welcome(self.end_seconds + 10)
            return False

    # The checker

    def leftovers(self, r):
        """What of respondent `r` is left on the welcome screen and in the browser."""
        found = []
        snap = self.d.execute_script(SNAPSHOT)
        if snap["path"] != "/":
            found.append("the browser is at %s, not the welcome screen" % snap["path"])
        for field in snap["fields"]:
            if field["type"] == "hidden" and field["name"] in ("csrf", "lang"):
                continue
            if field["value"]:
                found.append("field %s holds %r" % (field["id"] or field["name"], field["value"]))
        for trace in r.traces():
            if trace in snap["html"]:
                found.append("the page shows %r" % trace)
        if snap["session"]:
            found.append("sessionStorage keys %s" % snap["session"])
        if snap["local"]:
            found.append("localStorage keys %s" % snap["local"])
        if snap["lang"] != self.default_language:
            found.append("the page speaks %s, not %s" % (snap["lang"], self.default_language))
        if snap["fontSize"] not in ("", "24px", "20px", "28px") or [p for p in snap["pressed"] if p != "0"]:
            found.append("the text size is left at %r (pressed %s)" % (snap["fontSize"], snap["pressed"]))
        found += self.history(r)
        return found

    def history(self, r):
        """Back, up to 3 entries: nothing of theirs on any page reached, then forward again."""
        found = []
        steps = 0
        for _ in range(3):
            before = self.d.execute_script("return history.length")
            if before <= 1:
                break
            self.d.back()
            steps += 1
            self.k.wait_loaded()
            snap = self.d.execute_script(SNAPSHOT)
            for trace in r.traces():
                if trace in snap["html"]:
                    found.append("Back shows %r at %s" % (trace, snap["path"]))
            if snap["path"] in ("/question", "/consent", "/end", "/declined"):
                found.append("Back reaches %s" % snap["path"])
            if any(f["value"] for f in snap["fields"] if f["type"] != "hidden"):
                found.append("Back shows a filled field at %s" % snap["path"])
        # The next respondent starts from a fresh welcome screen (as a kiosk's would).
        if steps:
            self.k.open("/")
        return found

    # Planted leftovers: the checker must catch each

    def plant(self, kind, r):
        if kind == "storage":
            self.d.execute_script("sessionStorage.setItem('planted', '1')")
        elif kind == "value":
            self.d.execute_script(
                "var f = document.createElement('input'); f.id = 'planted'; f.value = arguments[0]; document.querySelector('main').appendChild(f)", r.email)
        elif kind == "text":
            self.d.execute_script(
                "var p = document.createElement('p'); p.textContent = arguments[0]; document.querySelector('main').appendChild(p)", r.name)
        elif kind == "size":
            self.d.execute_script("document.documentElement.style.fontSize = '31px'")


def continue_gives_the_field_back(slate, idle):
    """After "Are you still there?" and Continue, the field has the focus and the keyboard shows."""
    k, d = slate.k, slate.d
    k.open("/?lang=en")
    k.submit(d.find_element(By.CSS_SELECTOR, "#start-form button"))
    slate.agree()
    k.expect_question("name")
    field = d.find_element(By.ID, "answer")
    field.click()
    osk.type_text(d, field, "Ann")
    osk.keyboard(d)
    WebDriverWait(d, idle + 5).until(lambda dr: dr.find_element(By.ID, "idle-dialog").is_displayed())
    if d.execute_script("return document.activeElement && document.activeElement.id") == "answer":
        raise Failure("the field kept the focus under the overlay")
    d.find_element(By.ID, "idle-continue").click()
    WebDriverWait(d, 5).until(lambda dr: not dr.find_element(By.ID, "idle-dialog").is_displayed())
    focused = d.execute_script("return document.activeElement && document.activeElement.id")
    if focused != "answer":
        raise Failure("after Continue the focus is on %r, not the field" % focused)
    WebDriverWait(d, 5).until(lambda dr: osk.keyboard(dr) is not None)
    if field.get_attribute("value") != "Ann":
        raise Failure("after Continue the field holds %r" % field.get_attribute("value"))
    # Leave this one by the reset, as any respondent might.
    slate.wait_welcome(idle + slate.countdown + 10)
    print("Continue gave the field back: focus on #answer, keyboard shown")


def consent_screens(base, out):
    """The consent notice and the declined screen at two sizes: axe, buttons on screen, screenshots."""
    import json
    import os
    os.makedirs(out, exist_ok=True)
    records, failed = [], 0
    for size in ["800x480", "1280x800"]:
        width, height = (int(n) for n in size.split("x"))
        driver = make_driver(width, height)
        kiosk = Kiosk(driver, base, out)
        try:
            for language in ["ko", "en"]:
                kiosk.open("/?lang=" + language)
                kiosk.submit(driver.find_element(By.CSS_SELECTOR, "#start-form button"))
                problems = driver.execute_script("""
                    const out = [];
                    for (const b of document.querySelectorAll('#consent-form button')) {
                        const r = b.getBoundingClientRect();
                        if (r.top < 0 || r.bottom > window.innerHeight) out.push(b.value + ' is off the screen (' + Math.round(r.top) + '..' + Math.round(r.bottom) + ' of ' + window.innerHeight + ')');
                    }
                    if (document.documentElement.scrollHeight > window.innerHeight + 1) out.push('the page scrolls (' + document.documentElement.scrollHeight + ' px)');
                    const text = document.getElementById('consent-text');
                    if (getComputedStyle(text).overflowY !== 'auto') out.push('the notice does not scroll in its box');
                    return out;""")
                for name in ["consent-%s-%s" % (size, language), "declined-%s-%s" % (size, language)]:
                    kiosk.screen(name)
                    record = kiosk.screens[-1]
                    if record["axe_violations"]:
                        record["problems"].append("axe violations %s" % record["axe_violations"])
                    if name.startswith("consent"):
                        record["problems"] += problems
                        record["notice_scrolls"] = driver.execute_script(
                            "const t = document.getElementById('consent-text'); return t.scrollHeight > t.clientHeight")
                        kiosk.submit(driver.find_element(By.CSS_SELECTOR, "#consent-form button[value=decline]"))
                    record["size"] = size
                    records.append(record)
                    if record["problems"]:
                        failed += 1
                        print("    FAIL %s: %s" % (name, "; ".join(record["problems"])))
        finally:
            driver.quit()
    with open(os.path.join(out, "consent-screens-summary.json"), "w", encoding="utf8") as f:
        json.dump({"screens": records}, f, ensure_ascii=False, indent=2)
    print("%d screens, %d failed" % (len(records), failed))
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base_url")
    parser.add_argument("--respondents", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--idle-seconds", type=int, default=5)
    parser.add_argument("--countdown-seconds", type=int, default=1)
    parser.add_argument("--end-seconds", type=int, default=1)
    parser.add_argument("--screens", metavar="DIR")
    parser.add_argument("--default-language", default="ko")
    parser.add_argument("--plant", choices=PLANTS)
    args = parser.parse_args()
    if args.screens:
        return consent_screens(args.base_url, args.screens)
    rng = random.Random(args.seed)
    driver = make_driver(800, 480)
    kiosk = QuickKiosk(driver, args.base_url, None)
    slate = CleanSlate(kiosk, args.default_language, args.idle_seconds, args.countdown_seconds, args.end_seconds)
    started = time.monotonic()
    ways, leftovers, caught = {}, 0, False
    planted_at = args.respondents // 2 if args.plant else None
    try:
        if not args.plant:
            continue_gives_the_field_back(slate, args.idle_seconds)
            found = slate.leftovers(Respondent(0, args.seed, random.Random(0)))
            if found:
                leftovers += 1
                print("after Continue and the reset: LEFTOVER %s" % "; ".join(found))
        for number in range(1, args.respondents + 1):
            r = Respondent(number, args.seed, rng)
            way = rng.choices(WAYS, WEIGHTS)[0]
            slate.start(r)
            way = slate.leave(r, way, rng)
            ways[way] = ways.get(way, 0) + 1
            if number == planted_at:
                slate.plant(args.plant, r)
            found = slate.leftovers(r)
            if number == planted_at:
                if found:
                    caught = True
                    print("respondent %d (%s, %s): planted %s, caught: %s" % (number, r.language, way, args.plant, "; ".join(found)))
                else:
                    print("respondent %d (%s, %s): planted %s, NOT caught" % (number, r.language, way, args.plant))
                # The plant is gone with the next page (a new document), except in storage.
                driver.execute_script("sessionStorage.removeItem('planted')")
                kiosk.open("/")
            elif found:
                leftovers += 1
                print("respondent %d (%s, %s): LEFTOVER %s" % (number, r.language, way, "; ".join(found)))
    except (Failure, osk.KeyboardError, WebDriverException) as error:
        print("FAILED at %s: %s" % (driver.current_url, str(error).splitlines()[0]))
        driver.quit()
        return 1
    driver.quit()
    print("%d respondents, ways out %s, %d leftovers (%.0f s)" % (
        args.respondents, ", ".join("%s %d" % item for item in sorted(ways.items())), leftovers, time.monotonic() - started))
    if args.plant:
        print("planted leftover %s" % ("caught" if caught else "NOT caught"))
        return 0 if caught and leftovers == 0 else 1
    return 0 if leftovers == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
