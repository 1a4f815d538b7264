#!/usr/bin/env bash
# Installs what the fleet tests need (Tests/EndToEndTests/FleetPrometheusEndToEndTests.swift):
# Debian's prometheus package, which brings the server (run by the tests as the central
# Prometheus and, with --enable-feature=agent, as a kiosk's agent) and promtool (checks and
# unit-tests doc/prometheus/surveyd-alerts.yml).
#
# Prints a line starting with "SKIPPED:" and exits 0 when it cannot install (not root, no apt-get,
# no package index reachable): the tests that need the tools are then reported as skipped, except
# under CI=true, where they fail.
# Usage: Tests/Prometheus/install.sh
set -uo pipefail

skip() { echo "SKIPPED: $*"; exit 0; }

if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
    prometheus --version 2>&1 | head -n 1
    echo "READY: prometheus and promtool"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then skip "apt-get is not available"; fi
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=sudo; else skip "installing Debian packages needs root"; fi
else
    SUDO=""
fi
echo "== apt-get update"
$SUDO apt-get update -qq || skip "apt-get update failed (no package index reachable)"
echo "== apt-get install prometheus"
# The package enables and starts its own server where systemd runs; the tests start theirs on
# free loopback ports and need none, so policy-rc.d keeps it from starting during the install.
policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null && $SUDO chmod 0755 "$policy"
fi
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends prometheus >/dev/null
status=$?
[ -n "$policy" ] && $SUDO rm -f "$policy"
[ "$status" -eq 0 ] || skip "apt-get install prometheus failed"
prometheus --version 2>&1 | head -n 1
echo "READY: prometheus and promtool"
