#!/usr/bin/env python3
"""The kiosk pages on a slow processor: headless Chromium at 800x480 with its CPU throttled 6x
(DevTools Emulation.setCPUThrottlingRate, roughly a Raspberry Pi 4 against a desktop core), on a
kiosk at BASE_URL serving the project's survey (mock/questions), in Korean:

- the welcome screen (the browser's first page, with nothing cached and its renderer starting,
  then again as the next respondent meets it), a text question with the on-screen keyboard open
  and a choice question, each reached as a respondent reaches it (Start, Next): the time from
  navigation start to the `load` event and, on the text question, to the keyboard's first paint
  (the frame after the keyboard is shown); limit 500 ms;
- a key tap on the keyboard (ㄱ and ㅏ in turn, composing syllables), 100 taps: the time from the
  tap's release (`pointerup`, the event the key acts on: a finger's tap is a click) to the frame
  after the field's value changed; limit 50 ms at the 95th percentile;
- a tap on Next, on each question of the first stage: the time from the tap (its `click`) to the
  next page's first paint (the Paint Timing API's `first-paint`, on the shared clock of
  `performance.timeOrigin`), the screens' view transition included;
- the bytes each page uses (HTML, CSS, JS, fonts, images: the Resource Timing API's
  decodedBodySize, i.e. before compression, whether or not they came from the browser's cache);
  limit 100 KB per page.

The timings are benchmarks: printed beside their limits, never a failure. The bytes are
deterministic and fail the run when a page exceeds its limit.

    .build-browser/venv/bin/python Tests/Browser/slow_cpu_test.py http://127.0.0.1:PORT/ [--runs 2] [--reduced-motion]

`--reduced-motion` asks the pages for less motion (`prefers-reduced-motion: reduce`), which turns
the screens' view transitions off: the same walk, for a comparison.

Prints a table per run and "N passed, M failed"; exit status 0 only when every page's bytes are
within the limit and every walk finished.
"""
import argparse
import math
import sys
import time

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import osk
from kiosk_test import Failure, Kiosk, make_driver

THROTTLE = 6
SIZE = (800, 480)
INTERACTIVE_MS = 500
TAP_MS = 50
BYTES = 100 * 1024
TAPS = 100
# The first stage in Korean up to its first choice question (as in screens_test.py).
ANSWERS = [("name", "김민수"), ("email", "minsu@example.com"), ("emailConfirm", "minsu@example.com"), ("age", "30")]

# Before any page script: the time of the frame after the on-screen keyboard is first shown, and
# a recorder for key taps (armed by the test).
MARKERS = """
(function () {
    function afterNextFrame(done) {
        requestAnimationFrame(function () {
            var channel = new MessageChannel();
            channel.port1.onmessage = function () { done(performance.now()); };
            channel.port2.postMessage(0);
        });
    }
    window.__oskPaint = null;
    new MutationObserver(function (changes, observer) {
        var osk = document.getElementById('osk');
        if (osk && !osk.hidden && window.__oskPaint === null) {
            window.__oskPaint = -1;
            observer.disconnect();
            afterNextFrame(function (t) { window.__oskPaint = t; });
        }
    }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['hidden'] });
    // A tap on Next: its time on the shared clock, kept in the tab's name across the navigation
    // it starts, for the next page's first paint.
    document.addEventListener('click', function (e) {
        if (e.target.closest && e.target.closest('button.next')) {
            window.name = 'next-tap:' + (performance.timeOrigin + e.timeStamp);
        }
    }, true);
    window.__taps = [];
    window.__armTaps = function (field) {
        var released = null;
        document.addEventListener('pointerup', function (e) {
            if (e.target.closest && e.target.closest('#osk')) { released = e.timeStamp; }
        }, true);
        field.addEventListener('input', function () {
            var start = released;
            released = null;
            if (start === null) { return; }
            afterNextFrame(function (t) { window.__taps.push(t - start); });
        });
    };
}());
"""

PAGE_BYTES = """
const nav = performance.getEntriesByType('navigation')[0];
const out = {html: nav.decodedBodySize, css: 0, js: 0, fonts: 0, images: 0, other: 0, transferred: nav.transferSize, requests: 1};
for (const r of performance.getEntriesByType('resource')) {
    const path = new URL(r.name).pathname;
    const kind = /\\.css$/.test(path) ? 'css' : /\\.js$/.test(path) ? 'js' : /\\.(woff2?|ttf|otf)$/.test(path) ? 'fonts'
        : /\\.(svg|png|jpe?g|webp|gif)$/.test(path) || r.initiatorType === 'img' ? 'images' : 'other';
    out[kind] += r.decodedBodySize;
    out.transferred += r.transferSize;
    out.requests += 1;
}
out.load = nav.loadEventEnd;
out.domContentLoaded = nav.domContentLoadedEventEnd;
return out;
"""


NEXT_PAINT = """
const paint = performance.getEntriesByType('paint').find(function (e) { return e.name === 'first-paint'; });
if (!paint) { return null; }
const tapped = window.name.indexOf('next-tap:') === 0 ? parseFloat(window.name.slice(9)) : NaN;
window.name = '';
return isNaN(tapped) ? -1 : performance.timeOrigin + paint.startTime - tapped;
"""


def percentile(values, p):
    """The nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100.0 * len(ordered)) - 1)]


class SlowRun:
    def __init__(self, base, reduced_motion=False):
        self.driver = make_driver(*SIZE)
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": MARKERS})
        if reduced_motion:
            self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
        self.kiosk = Kiosk(self.driver, base, None)
        self.pages = []
        self.next_paints = []

    def next_to_paint(self, button):
        """Taps Next with the CPU throttled: the time from the tap to the next page's first paint."""
        self.throttle(THROTTLE)
        try:
            self.kiosk.submit(button)
            WebDriverWait(self.driver, 10).until(lambda d: d.execute_script(
                "return performance.getEntriesByType('paint').some(function (e) { return e.name === 'first-paint'; })"))
        finally:
            self.throttle(1)
        elapsed = self.driver.execute_script(NEXT_PAINT)
        if elapsed is None or elapsed < 0:
            raise Failure("no tap on Next was seen before %s" % self.driver.current_url)
        self.next_paints.append(elapsed)

    def throttle(self, rate):
        self.driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": rate})

    def measured(self, name, navigate, keyboard=False):
        """Navigates with the CPU throttled and records the page's timings and bytes."""
        self.throttle(THROTTLE)
        try:
            navigate()
            WebDriverWait(self.driver, 10).until(lambda d: d.execute_script(
                "const n = performance.getEntriesByType('navigation')[0]; return n && n.loadEventEnd > 0"))
            if keyboard:
                WebDriverWait(self.driver, 10).until(lambda d: (d.execute_script("return window.__oskPaint") or -1) > 0)
            page = self.driver.execute_script(PAGE_BYTES)
        finally:
            self.throttle(1)
        page["name"] = name
        page["keyboard"] = self.driver.execute_script("return window.__oskPaint") if keyboard else None
        page["interactive"] = max(page["load"], page["keyboard"] or 0)
        page["bytes"] = sum(page[kind] for kind in ("html", "css", "js", "fonts", "images", "other"))
        self.pages.append(page)
        return page

    def taps(self):
        """100 taps on the keyboard, throttled: each tap's time to the frame showing it."""
        field = self.driver.find_element(By.ID, "answer")
        self.driver.execute_script("arguments[0].value = ''; window.__armTaps(arguments[0])", field)
        keys = [osk.key(self.driver, "ㄱ"), osk.key(self.driver, "ㅏ")]
        self.throttle(THROTTLE)
        try:
            for i in range(TAPS):
                ActionChains(self.driver).click(keys[i % 2]).perform()
            WebDriverWait(self.driver, 10).until(lambda d: d.execute_script("return window.__taps.length") >= TAPS)
        finally:
            self.throttle(1)
        taps = self.driver.execute_script("return window.__taps")
        typed = field.get_attribute("value")
        if typed != "가" * (TAPS // 2):
            raise Failure("%d taps of ㄱ and ㅏ gave %r" % (TAPS, typed[:40]))
        return taps

    def walk(self):
        k = self.kiosk
        self.measured("welcome, browser just started", lambda: k.open("/?lang=ko"))
        self.measured("welcome, next respondent", lambda: k.open("/?lang=ko"))
        start = self.driver.find_element(By.CSS_SELECTOR, "#start-form button")
        self.measured("text question, keyboard open", lambda: k.submit(start), keyboard=True)
        k.expect_question("name")
        taps = self.taps()
        self.driver.execute_script("document.getElementById('answer').value = ''")
        for name, value in ANSWERS:
            k.expect_question(name)
            k.type(value)
            button = self.driver.find_element(By.CSS_SELECTOR, "button.next")
            self.driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", button)
            self.next_to_paint(button)
        k.expect_question("like")
        k.choose("2")
        button = self.driver.find_element(By.CSS_SELECTOR, "button.next")
        self.measured("choice question", lambda: k.submit(button))
        paint = self.driver.execute_script(NEXT_PAINT)
        if paint is not None and paint >= 0:
            self.next_paints.append(paint)
        k.expect_question("tried")
        return taps

    def quit(self):
        self.driver.quit()


def report_next(paints):
    print("  Next tap to the next page's first paint: %d taps, median %.0f ms, max %.0f ms (%s)" % (
        len(paints), percentile(paints, 50), max(paints), ", ".join("%.0f" % p for p in paints)))


def report(run_number, pages, taps):
    print("run %d: 800x480, CPU throttled %dx" % (run_number, THROTTLE))
    print("  %-30s %12s %12s %12s   %s" % ("page", "load ms", "keyboard ms", "limit ms", "bytes: html + css + js + fonts + images + other = total (limit 100 KB); transferred"))
    for page in pages:
        print("  %-30s %12.0f %12s %12d   %d + %d + %d + %d + %d + %d = %d (%.1f KB); %d" % (
            page["name"], page["load"], "%.0f" % page["keyboard"] if page["keyboard"] else "-", INTERACTIVE_MS,
            page["html"], page["css"], page["js"], page["fonts"], page["images"], page["other"], page["bytes"], page["bytes"] / 1024.0,
            page["transferred"]))
    print("  key tap to frame: %d taps, median %.1f ms, p95 %.1f ms, max %.1f ms (limit p95 %d ms)" % (
        len(taps), percentile(taps, 50), percentile(taps, 95), max(taps), TAP_MS))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base_url")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--reduced-motion", action="store_true", help="prefers-reduced-motion: reduce (no view transitions)")
    args = parser.parse_args()
    passed, failed = 0, 0
    started = time.monotonic()
    for number in range(1, args.runs + 1):
        run = SlowRun(args.base_url, reduced_motion=args.reduced_motion)
        try:
            taps = run.walk()
            report(number, run.pages, taps)
            report_next(run.next_paints)
            heavy = [p for p in run.pages if p["bytes"] > BYTES]
            for page in heavy:
                print("  FAIL %s uses %d bytes, over %d" % (page["name"], page["bytes"], BYTES))
            if heavy:
                failed += 1
            else:
                passed += 1
        except (Failure, osk.KeyboardError, WebDriverException) as error:
            failed += 1
            print("run %d: FAILED: %s" % (number, str(error).splitlines()[0]))
        finally:
            run.quit()
    print("%d passed, %d failed (%.0f s)" % (passed, failed, time.monotonic() - started))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
