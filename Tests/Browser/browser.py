"""Headless Chromium driven by Selenium, for the tests of the pages policy-run makes and serves.

Debian's chromium and chromium-driver (installed by Scripts/install-dependencies.sh), never a
downloaded driver: the driver's path is given, so Selenium Manager does not look for one.
Screenshots go to SCREENSHOTS (artifacts/browser-screenshots in the checkout unless the
environment's BROWSER_SCREENSHOTS names another folder), kept for CI to collect.
"""
import os

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCREENSHOTS = os.environ.get("BROWSER_SCREENSHOTS", os.path.join(ROOT, "artifacts", "browser-screenshots"))


def chromium() -> webdriver.Chrome:
    """A headless Chromium whose console messages `console_errors` can read."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,1000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))


def console_errors(driver: webdriver.Chrome) -> list:
    """The console's errors since the last call (a blocked resource, a script error, a CSP refusal)."""
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def screenshot(driver: webdriver.Chrome, name: str, width: int = 1100) -> str:
    """The whole page, `width` pixels wide, as SCREENSHOTS/NAME.png; returns the path."""
    os.makedirs(SCREENSHOTS, exist_ok=True)
    driver.set_window_size(width, 1000)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, min(max(height, 600), 8000))
    path = os.path.join(SCREENSHOTS, name + ".png")
    driver.save_screenshot(path)
    return path
