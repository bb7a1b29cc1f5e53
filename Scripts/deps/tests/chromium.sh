#!/usr/bin/env bash
# The report tests load the page in a real browser: Debian's Chromium, driven headless over the
# DevTools protocol by Tests/Browser/inspect_page.py (Python standard library only).
set -euo pipefail
. "$(dirname "$0")/../common.sh"
apt_install chromium
