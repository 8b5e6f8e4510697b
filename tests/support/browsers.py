"""The browser every browser test drives: Debian's chromium (``playwright install`` cannot
download one on the course's machines), headless, with nothing reaching out on its own."""

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
