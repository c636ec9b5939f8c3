# Sourced by scripts/test: make Debian's chromium available for the browser tests
# (tests/e2e/test_jam_browser.py). Installs the `chromium` package when missing
# (root + apt-get; a browser is never downloaded any other way) and exports
# BANDSTAND_CHROMIUM, the executable Playwright launches.
# (apt_install comes from scripts/lib.sh, which scripts/test sources first.)
if ! command -v chromium >/dev/null 2>&1; then
    apt_install chromium fonts-noto-color-emoji || true
fi
if command -v chromium >/dev/null 2>&1; then
    BANDSTAND_CHROMIUM="$(command -v chromium)"
    export BANDSTAND_CHROMIUM
fi
