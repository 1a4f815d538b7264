#!/usr/bin/env bash
# Installs what the kiosk's browser test needs: headless Chromium, its WebDriver, Selenium
# (Debian packages), fonts for Korean pages, cage, grim and Xwayland for the kiosk set-up's test, and selenium-axe-python 2.2.0 (PyPI; it bundles
# axe-core 4.9.1) in a virtual
# environment that also sees Debian's Selenium, in `.build-browser/venv` at the repository's root
# (ignored by git, like the Swift build directories, and kept out of the source tree).
#
# Prints a line starting with "SKIPPED:" and exits 0 when nothing can be installed here (not
# root, no apt-get, no package index reachable), so that a caller can skip the browser test.
# Usage: Tests/Browser/install.sh        then: .build-browser/venv/bin/python Tests/Browser/kiosk_test.py URL
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$(cd "$here/../.." && pwd)/.build-browser/venv"

skip() { echo "SKIPPED: $*"; exit 0; }

if ! command -v apt-get >/dev/null 2>&1; then skip "apt-get is not available"; fi
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=sudo; else skip "installing Debian packages needs root"; fi
else
    SUDO=""
fi

packages=(chromium chromium-driver python3-selenium python3-venv python3-pip fonts-noto-cjk)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "== apt-get update"
    if ! $SUDO apt-get update -qq; then skip "apt-get update failed (no package index reachable)"; fi
    echo "== apt-get install ${missing[*]}"
    if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
        skip "apt-get install ${missing[*]} failed"
    fi
fi

# The recommended kiosk set-up's own test (Tests/Browser/cage_test.py): cage, the Wayland kiosk
# compositor, with Xwayland (Debian's cage does not start without it), and grim for screenshots of
# cage's output. Without them that test alone is skipped (under CI=true it fails), so a failure
# here says so and goes on.
cage_packages=(cage grim xwayland)
cage_missing=()
for package in "${cage_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || cage_missing+=("$package")
done
if [ "${#cage_missing[@]}" -gt 0 ]; then
    echo "== apt-get update"
    if ! $SUDO apt-get update -qq; then
        echo "SKIPPED: ${cage_missing[*]}: apt-get update failed (no package index reachable); the cage test will be skipped"
    else
        echo "== apt-get install ${cage_missing[*]}"
        if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${cage_missing[@]}" >/dev/null; then
            echo "SKIPPED: apt-get install ${cage_missing[*]} failed; the cage test will be skipped"
        fi
    fi
fi

# Debian's python3 (where python3-selenium lives) in a venv that sees it, plus axe from PyPI.
axe="selenium-axe-python==2.2.0"
if [ ! -x "$venv/bin/python" ]; then
    echo "== python venv $venv"
    /usr/bin/python3 -m venv --system-site-packages "$venv" || skip "cannot make a Python virtual environment"
fi
if [ "$("$venv/bin/python" -m pip show selenium-axe-python 2>/dev/null | sed -n 's/^Version: //p')" != "2.2.0" ]; then
    echo "== pip install $axe"
    "$venv/bin/python" -m pip install -q "$axe" || skip "pip install $axe failed"
fi

"$venv/bin/python" -c "import selenium, selenium_axe_python; print('selenium', selenium.__version__)" || skip "selenium or selenium-axe-python cannot be imported"
chromium --version 2>/dev/null || true
chromedriver --version 2>/dev/null || true
echo "READY: $venv/bin/python $here/kiosk_test.py URL"
