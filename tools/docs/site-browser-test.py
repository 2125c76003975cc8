#!/usr/bin/env python3
"""The API reference site (tools/docs/build.sh's .build/docs-site) as a reader sees it: served over HTTP, opened
in headless Chromium (selenium, as tools/view/browser-test.py), each module's overview and one symbol page of
each must render their title and topics (DocC's pages are drawn by script from JSON: a wrong base path or a
missing file gives a blank page, not an error at build time), with no console error and no failed request.
Screenshots go to --out.

    python3 tools/docs/site-browser-test.py [--site .build/docs-site] [--out /tmp/coremotion-docs-screenshots]

Prints PASS/FAIL per page; exit status 1 on any failure.
"""
import argparse
import functools
import http.server
import os
import sys
import threading
import time

from selenium.webdriver.common.by import By

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "view"))
from headless_chromium import browser  # noqa: E402

# (module folder, page path under it, the title the page must show, a text its body must contain)
PAGES = [
    ("CoreMotion", "documentation/coremotion/", "CoreMotion", "CMMotionManager"),
    ("CoreMotion", "documentation/coremotion/cmmotionmanager", "CMMotionManager", "startAccelerometerUpdates"),
    ("CoreMotion", "documentation/coremotion/cmpedometer", "CMPedometer", "queryPedometerData"),
    ("CoreMotionTesting", "documentation/coremotiontesting/", "CoreMotionTesting", "MotionTestHarness"),
    ("MotionEngine", "documentation/motionengine/", "MotionEngine", "Topics"),
]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    failed = []

    def log_message(self, format, *args):
        pass

    def send_error(self, code, message=None, explain=None):
        QuietHandler.failed.append(f"{code} {self.path}")
        super().send_error(code, message, explain)


def rendered_title(driver):
    """The page's main title as DocC draws it (the h1 of its hero section), or ''."""
    for element in driver.find_elements(By.CSS_SELECTOR, "h1"):
        text = element.text.strip()
        if text:
            return text
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default=os.path.join(ROOT, ".build/docs-site"))
    parser.add_argument("--out", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "coremotion-docs-screenshots"))
    parser.add_argument("--timeout", type=float, default=20)
    args = parser.parse_args()
    if not os.path.isfile(os.path.join(args.site, "index.html")):
        print(f"FAIL: no site at {args.site} (run tools/docs/build.sh first)")
        return 1
    os.makedirs(args.out, exist_ok=True)
    handler = functools.partial(QuietHandler, directory=args.site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    failures = 0
    driver = browser("1400,1100")
    try:
        # The index page links every module.
        driver.get(base + "/")
        links = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "a")]
        modules = sorted({m for m, *_ in PAGES})
        missing = [m for m in modules if not any(f"/{m}/documentation/" in (h or "") for h in links)]
        if missing:
            failures += 1
            print(f"FAIL index: no link to {missing}")
        else:
            print(f"PASS index: links to {', '.join(modules)}")
        for module, path, title, body_text in PAGES:
            url = f"{base}/{module}/{path}"
            QuietHandler.failed.clear()
            driver.get_log("browser")  # drop what came before
            start = time.time()
            driver.get(url)
            shown = ""
            body = ""
            while time.time() - start < args.timeout:
                shown = rendered_title(driver)
                body = driver.find_element(By.TAG_NAME, "body").text
                if shown == title and body_text in body:
                    break
                time.sleep(0.2)
            seconds = time.time() - start
            name = f"{module}-{path.strip('/').replace('/', '-')}"
            driver.save_screenshot(os.path.join(args.out, name + ".png"))
            errors = [e["message"][:200] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
            problems = []
            if shown != title:
                problems.append(f"title {shown!r}, expected {title!r}")
            if body_text not in body:
                problems.append(f"no {body_text!r} on the page")
            if errors:
                problems.append(f"console errors {errors}")
            if QuietHandler.failed:
                problems.append(f"failed requests {QuietHandler.failed[:5]}")
            if problems:
                failures += 1
                print(f"FAIL {module}/{path}: " + "; ".join(problems))
            else:
                print(f"PASS {module}/{path}: '{title}' drawn in {seconds:.1f} s, {len(body.split())} words")
    finally:
        driver.quit()
        server.shutdown()
    print(f"screenshots: {args.out}")
    if failures:
        print(f"FAIL: {failures} page(s)")
        return 1
    print("the API reference site renders")
    return 0


if __name__ == "__main__":
    sys.exit(main())
