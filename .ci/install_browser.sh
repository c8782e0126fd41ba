#!/usr/bin/env bash
# What the report.html browser test (tests/cli/test_html_browser.py) needs:
# Debian's headless-capable Chromium, installed with apt-get when missing,
# and Playwright (PyPI) in the active virtualenv to drive it. Playwright's own
# browser download is not used: the test launches the system chromium.
# Run with the test virtualenv active (after the wheel is installed).
set -euo pipefail

if ! command -v chromium >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q chromium
fi
chromium --version 2>/dev/null

python -m pip install --quiet "playwright>=1.40"
python -c "import playwright.sync_api"
