#!/usr/bin/env bash
# Make sure a headless Chromium and its WebDriver are installed: the web UI tests
# (tests/ui/) drive Debian's chromium through chromedriver with Selenium, and never let
# Selenium download a browser or a driver of its own.
#
# Installs the chromium and chromium-driver packages with apt-get when either binary is
# missing and we are root; otherwise says what to install and exits 1. Safe to run
# repeatedly (a no-op when both are present).
set -euo pipefail

have() { [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; }

if have; then
  exit 0
fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: /usr/bin/chromium or /usr/bin/chromedriver not found; installing chromium and chromium-driver" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
  have && exit 0
  echo "ensure-chromium: installing chromium and chromium-driver did not provide /usr/bin/chromium" \
       "and /usr/bin/chromedriver" >&2
  exit 1
fi

echo "ensure-chromium: /usr/bin/chromium and /usr/bin/chromedriver are needed by tests/ui;" \
     "install them, e.g. 'sudo apt-get install chromium chromium-driver'" >&2
exit 1
