"""Debian's headless Chromium through selenium, as the browser tests open it (tools/view/browser-test.py,
tools/docs/site-browser-test.py): no sandbox (CI runs as root), the browser console kept for the checks."""
import os

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service


def browser(window_size="1400,1420"):
    """A new headless Chromium session of `window_size` pixels ("WIDTH,HEIGHT")."""
    options = Options()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={window_size}",
                     "--hide-scrollbars", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    for candidate in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if os.path.exists(candidate):
            options.binary_location = candidate
            break
    driver_path = next((p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver") if os.path.exists(p)), None)
    service = Service(executable_path=driver_path) if driver_path else Service()
    return webdriver.Chrome(service=service, options=options)
