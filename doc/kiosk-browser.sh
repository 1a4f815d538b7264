#!/bin/sh
# The kiosk's browser: Debian's Chromium full-screen under cage (a Wayland kiosk compositor),
# drawing through Wayland itself (--ozone-platform=wayland). Without it Chromium picks X11
# through Xwayland under cage and, on a headless or pixman-rendered output, draws nothing.
# --incognito keeps no history, cache or form data on disk between restarts.
#
# Installed as /usr/local/bin/kiosk-browser and started by kiosk-browser@.service (doc/kiosk.md);
# Tests/Browser/cage_test.py starts this very file under cage's headless backend.
# Usage: kiosk-browser URL
set -eu
url="${1:?usage: kiosk-browser URL, e.g. kiosk-browser http://127.0.0.1:8080/}"
exec cage -d -- chromium --ozone-platform=wayland --kiosk --incognito --no-first-run \
    --noerrdialogs --disable-translate --disable-session-crashed-bubble \
    --overscroll-history-navigation=0 --disable-pinch "$url"
