#!/usr/bin/env python3
"""The recommended kiosk set-up, tried: doc/kiosk-browser.sh (the very script kiosk-browser@.service
starts, doc/kiosk.md) runs under cage's headless backend (no screen, no input devices, pixman
rendering) as an unprivileged user, pointed at BASE_URL, and grim takes screenshots of cage's
output each second until one shows the welcome screen: a region of the welcome page's background (#ffffff)
of at least MIN_PAGE_PIXELS pixels beside cage's black, and more than two colours (text drawn).

Under the headless backend the window is not full-screen, and its size varies from start to start
(23,000 or 68,628 pixels of 1280x720 were seen): a welcome page drawn in the smaller one shows
19,546 pixels of its background, so MIN_PAGE_PIXELS is 10,000. And in about half of the starts
the window stays grey while cage logs "Basic output test failed for HEADLESS-1" once a frame
(wlroots refusing the headless output's commits; a starter that drew logs it 3 or 4 times, one
that stays grey 36 or more): such a start does not recover, while a good one draws within 1 to 5
s. Beside the whole suite most starts stay grey (8 of 9 in one run). So after DEADLINE_SECONDS
without the welcome screen the script is stopped and started anew, up to ATTEMPTS times, and every
attempt is reported; the log of each is kept in --out.

    python3 Tests/Browser/cage_test.py http://127.0.0.1:PORT/ --script doc/kiosk-browser.sh --out DIR

Prints "cage: passed" or "cage: FAILED: why", and "1 passed, 0 failed" or "0 passed, 1 failed".
Every process it starts has a deadline; cage and its browser are stopped at the end by their
process group. As root it runs them as `nobody` (setpriv), as a kiosk user would.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MIN_PAGE_PIXELS = 10000
DEADLINE_SECONDS = 15
ATTEMPTS = 20


def read_ppm(path):
    """Width, height and the RGB bytes of a binary PPM (P6, maxval 255) as grim writes it."""
    with open(path, "rb") as handle:
        data = handle.read()
    fields, position = [], 0
    while len(fields) < 4:
        while data[position:position + 1].isspace():
            position += 1
        if data[position:position + 1] == b"#":
            position = data.index(b"\n", position) + 1
            continue
        end = position
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[position:end])
        position = end
    if fields[0] != b"P6" or fields[3] != b"255":
        raise ValueError("not an 8-bit binary PPM: %r" % fields)
    width, height = int(fields[1]), int(fields[2])
    return width, height, data[position + 1:position + 1 + width * height * 3]


def judge(path):
    """None when the screenshot shows the welcome page, else what it shows."""
    width, height, pixels = read_ppm(path)
    colours, page = {}, 0
    for offset in range(0, len(pixels), 3):
        colour = pixels[offset:offset + 3]
        colours[colour] = colours.get(colour, 0) + 1
    page = colours.get(b"\xff\xff\xff", 0)
    if len(colours) <= 2 or page < MIN_PAGE_PIXELS:
        top = sorted(colours.items(), key=lambda item: -item[1])[:3]
        return "%dx%d, %d colours, %d pixels of the page's background; most: %s" % (
            width, height, len(colours), page, ", ".join("#%s×%d" % (colour.hex(), count) for colour, count in top))
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base_url")
    parser.add_argument("--script", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    # Whether the test runs at all is the Swift test's decision (its RequiredTools trait skips it,
    # or fails it under CI=true); here a missing tool is a failure, never a pass.
    missing = [tool for tool in ("cage", "grim", "chromium", "Xwayland") if shutil.which(tool) is None]
    if missing:
        print("cage: FAILED: %s not installed (Tests/Browser/install.sh)" % ", ".join(missing))
        print("0 passed, 1 failed")
        sys.exit(1)
    home = tempfile.mkdtemp(prefix="kiosk-cage-")
    runtime = os.path.join(home, "run")
    os.mkdir(runtime, 0o700)
    as_user = []
    if os.geteuid() == 0:
        import pwd
        nobody = pwd.getpwnam("nobody")
        for path in (home, runtime):
            os.chown(path, nobody.pw_uid, nobody.pw_gid)
        os.chmod(home, 0o755)
        as_user = ["setpriv", "--reuid=%d" % nobody.pw_uid, "--regid=%d" % nobody.pw_gid, "--clear-groups", "--"]
    environment = {
        "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "XDG_RUNTIME_DIR": runtime,
        "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman", "LANG": "C.UTF-8",
    }
    attempts = []
    try:
        for attempt in range(1, ATTEMPTS + 1):
            passed, verdict, seconds = try_once(args, as_user, environment, runtime, attempt)
            attempts.append(verdict or "drawn after %.1f s" % seconds)
            if passed:
                break
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print("cage: attempts: %s" % "; ".join("%d: %s" % (index + 1, what) for index, what in enumerate(attempts)))
    if passed:
        print("cage: passed: the welcome screen drawn after %.1f s at attempt %d of %d" % (seconds, len(attempts), ATTEMPTS))
        print("1 passed, 0 failed")
        sys.exit(0)
    print("cage: FAILED: %s" % attempts[-1])
    print("0 passed, 1 failed")
    sys.exit(1)


def try_once(args, as_user, environment, runtime, attempt):
    """Starts the script under cage, screenshots each second up to DEADLINE_SECONDS; stops it."""
    for name in os.listdir(runtime):
        path = os.path.join(runtime, name)
        if os.path.isfile(path) or os.path.islink(path) or os.path.exists(path):
            try:
                os.remove(path)
            except OSError:
                shutil.rmtree(path, ignore_errors=True)
    log = open(os.path.join(args.out, "cage-%d.log" % attempt), "wb")
    shot = os.path.join(runtime, "screen.ppm")
    kept = os.path.join(args.out, "cage-welcome-%d.ppm" % attempt)
    started = time.time()
    cage = subprocess.Popen(as_user + ["/bin/sh", os.path.abspath(args.script), args.base_url],
                            env=environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    verdict = "no screenshot within %d s" % DEADLINE_SECONDS
    try:
        while time.time() - started < DEADLINE_SECONDS:
            time.sleep(1)
            if cage.poll() is not None:
                return False, "cage exited with %s (see %s)" % (cage.returncode, log.name), 0
            sockets = sorted(name for name in os.listdir(runtime) if name.startswith("wayland-") and not name.endswith(".lock"))
            if not sockets:
                continue
            grim = subprocess.run(as_user + ["grim", "-t", "ppm", shot], env=dict(environment, WAYLAND_DISPLAY=sockets[0]),
                                  capture_output=True, timeout=15)
            if grim.returncode != 0:
                verdict = "grim: %s" % grim.stderr.decode(errors="replace").strip()
                continue
            shutil.copyfile(shot, kept)
            verdict = judge(shot)
            if verdict is None:
                return True, None, time.time() - started
        return False, verdict, 0
    finally:
        try:
            os.killpg(cage.pid, signal.SIGTERM)
            cage.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(cage.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            cage.wait(timeout=10)
        log.close()


if __name__ == "__main__":
    main()
