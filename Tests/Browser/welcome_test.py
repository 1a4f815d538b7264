#!/usr/bin/env python3
"""The welcome screen between respondents, in headless Chromium at BASE_URL: a kiosk with attract
images (kioskAttractFolder), kioskAttractSeconds ATTRACT, opening hours that close it at CLOSES
(seconds since the epoch), and its control socket for surveyctl.

- out of service through surveyctl: the welcome screen shows it within 2 s, and back in service
  within 2 s (the held /state request, no poll);
- after ATTRACT seconds untouched, the attract loop (the images, the title, "Touch to start");
  a touch brings the welcome screen back and starts no session (surveyctl status: 0 open);
- with prefers-reduced-motion the images do not slide (no transition);
- at 800x480 and 1280x800 the attract screen is audited with axe-core (no violation of any
  impact) and saved as welcome-attract-<size>.png in --out;
- at CLOSES the welcome screen turns to the closed screen within 2 s, and no attract loop
  comes over it (saved as welcome-closed.png).

    .build-browser/venv/bin/python Tests/Browser/welcome_test.py http://127.0.0.1:PORT/ --out DIR \
        --surveyctl .build/debug/surveyctl --socket PATH --attract 5 --closes EPOCH

Prints one line per check with the delays measured, and "N passed, M failed". Exit 0 only when
all passed.
"""
import argparse
import os
import subprocess
import sys
import time

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium_axe_python import Axe

from kiosk_test import Failure, make_driver

FOLLOW_SECONDS = 2.0


class Welcome:
    def __init__(self, driver, args):
        self.d = driver
        self.args = args
        self.base = args.base_url.rstrip("/")

    def text(self):
        for _ in range(20):
            try:
                return self.d.find_element(By.TAG_NAME, "body").text
            except WebDriverException:
                time.sleep(0.05)
        return ""

    def wait_for(self, predicate, seconds, what):
        """Seconds until `predicate` held, polling every 50 ms; a Failure after `seconds`."""
        start = time.time()
        while True:
            try:
                if predicate():
                    return time.time() - start
            except WebDriverException:
                pass
            if time.time() - start > seconds:
                raise Failure("%s: not within %.1f s; the page says: %s" % (what, seconds, " | ".join(self.text().split("\n"))[:300]))
            time.sleep(0.05)

    def surveyctl(self, *arguments):
        result = subprocess.run([self.args.surveyctl] + list(arguments) + ["--socket", self.args.socket],
                                capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            raise Failure("surveyctl %s: %s %s" % (" ".join(arguments), result.stdout, result.stderr))
        return result.stdout

    def open(self):
        self.d.get(self.base + "/?lang=en")
        self.wait_for(lambda: self.d.execute_script("return document.readyState") == "complete", 10, "the welcome screen loads")

    def attract_shown(self):
        return self.d.execute_script("var a = document.getElementById('attract'); return !!a && !a.hidden && a.offsetWidth > 0")

    def audit(self, name):
        axe = Axe(self.d)
        axe.inject()
        results = axe.run()
        violations = ["%s (%s): %s" % (v["id"], v["impact"], v["help"]) for v in results["violations"]]
        self.d.save_screenshot(os.path.join(self.args.out, name + ".png"))
        print("%-28s axe %s: %d passed, violations: %s" % (name, results.get("testEngine", {}).get("version"), len(results["passes"]), "; ".join(violations) or "none"))
        if violations:
            raise Failure("axe on %s: %s" % (name, "; ".join(violations)))

    def out_of_service(self):
        self.open()
        self.surveyctl("kiosk", "out-of-service", "--message", "Back at two")
        delay = self.wait_for(lambda: "out of service" in self.text(), FOLLOW_SECONDS, "out of service reaches the welcome screen")
        print("out of service shown after %.2f s" % delay)
        self.surveyctl("kiosk", "in-service")
        delay = self.wait_for(lambda: self.d.find_elements(By.ID, "start-form"), FOLLOW_SECONDS, "in service reaches the screen")
        print("in service shown after %.2f s" % delay)

    def attract(self, size):
        # From before the page is asked for: its script starts the time once the page is parsed.
        asked = time.time()
        self.open()
        self.wait_for(self.attract_shown, self.args.attract + 5, "the attract loop")
        delay = time.time() - asked
        print("%s: attract loop %.1f s after the page was asked for (kioskAttractSeconds %d)" % (size, delay, self.args.attract))
        if delay < self.args.attract - 0.5:
            raise Failure("the attract loop came after %.1f s, before its %d s" % (delay, self.args.attract))
        images = self.d.find_elements(By.CSS_SELECTOR, "#attract .attract-image")
        if len(images) < 2:
            raise Failure("the attract loop has %d images, expected the folder's 2" % len(images))
        caption = self.d.find_element(By.ID, "attract").text
        if "Touch to start" not in caption or "Drinks survey" not in caption:
            raise Failure("the attract loop says %r, without the title and Touch to start" % caption)
        self.wait_for(lambda: self.d.execute_script(
            "var i = document.querySelector('#attract .attract-image.is-shown'); return !!i && i.complete && i.naturalWidth > 0 && getComputedStyle(i).transform === 'none'"),
            5, "the first attract image shown")
        self.audit("welcome-attract-%s" % size)
        self.d.find_element(By.ID, "attract").click()
        self.wait_for(lambda: not self.attract_shown(), 2, "a touch ends the attract loop")
        if not self.d.current_url.rstrip("/").endswith("/?lang=en") or not self.d.find_elements(By.ID, "start-form"):
            raise Failure("after the touch the browser is at %s, not the welcome screen" % self.d.current_url)
        status = self.surveyctl("status")
        if "sessions: 0 open" not in status:
            raise Failure("a touch on the attract loop started a session: %s" % status)

    def reduced_motion(self):
        self.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
        try:
            self.open()
            self.wait_for(self.attract_shown, self.args.attract + 5, "the attract loop (reduced motion)")
            duration = self.d.execute_script("return getComputedStyle(document.querySelector('#attract .attract-image')).transitionDuration")
            if duration not in ("0s", ""):
                raise Failure("with prefers-reduced-motion the attract images still move (transition %s)" % duration)
            print("reduced motion: attract images without transition (%s)" % duration)
            self.d.find_element(By.ID, "attract").click()
        finally:
            self.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})

    def closing(self):
        self.open()
        wait = self.args.closes - time.time()
        if wait < 0:
            raise Failure("the kiosk closed %.0f s before this step; give a later --closes" % -wait)
        if not self.d.find_elements(By.ID, "start-form"):
            raise Failure("before closing time the welcome screen is not shown: %s" % self.text()[:200])
        time.sleep(max(0, wait - 0.5))
        self.wait_for(lambda: "closed" in self.text(), 0.5 + FOLLOW_SECONDS, "the closing time reaches the screen")
        print("closed shown %.2f s after the closing time" % (time.time() - self.args.closes))
        time.sleep(self.args.attract + 2)
        if self.d.execute_script("return !!document.getElementById('attract')"):
            raise Failure("the closed screen carries the attract loop")
        if "closed" not in self.text():
            raise Failure("outside opening hours the screen says: %s" % self.text()[:200])
        self.d.save_screenshot(os.path.join(self.args.out, "welcome-closed.png"))


def resize(driver, width, height):
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    outer = driver.get_window_size()
    driver.set_window_size(outer["width"] + width - inner[0], outer["height"] + height - inner[1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base_url")
    parser.add_argument("--out", default="Tests/Browser/out")
    parser.add_argument("--surveyctl", required=True)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--attract", type=int, required=True)
    parser.add_argument("--closes", type=float, required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    driver = make_driver(800, 480)
    welcome = Welcome(driver, args)
    steps = [
        ("out of service and back, within 2 s", welcome.out_of_service),
        ("attract loop at 800x480", lambda: welcome.attract("800x480")),
        ("attract loop without motion", welcome.reduced_motion),
        ("attract loop at 1280x800", lambda: (resize(driver, 1280, 800), welcome.attract("1280x800"))),
        ("closing time, within 2 s", welcome.closing),
    ]
    passed, failed = 0, 0
    try:
        for name, step in steps:
            try:
                step()
                passed += 1
                print("%s: passed" % name)
            except (Failure, WebDriverException, subprocess.TimeoutExpired) as error:
                failed += 1
                print("%s: FAILED: %s" % (name, error))
                try:
                    driver.save_screenshot(os.path.join(args.out, "welcome-failure.png"))
                except WebDriverException:
                    pass
    finally:
        driver.quit()
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(0 if failed == 0 else 1)


if __name__ == "__main__":
    main()
