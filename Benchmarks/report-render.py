"""How long headless Chromium takes to render an HTML report: `Benchmarks report` runs it.

    python3 Benchmarks/report-render.py PAGE.html [LOADS]

Loads the page LOADS times (default 5) in a fresh tab each, and prints JSON: the median and the
slowest of the time from navigation start to the load event (the SVG laid out and painted
included: the page has no script to wait for) and to the first contentful paint, in ms, and the
console's errors.
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests", "Browser"))
import browser  # noqa: E402

page, loads = os.path.abspath(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 5
driver = browser.chromium()
try:
    load, paint, errors = [], [], []
    for _ in range(loads):
        driver.get("about:blank")
        driver.get("file://" + page)
        # The paint entry may be recorded after the load event: it is observed, buffered.
        timing = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const navigation = performance.getEntriesByType('navigation')[0];
            new PerformanceObserver(list => {
                const paint = list.getEntriesByName('first-contentful-paint')[0];
                if (paint) done([navigation.loadEventEnd, paint.startTime]);
            }).observe({type: 'paint', buffered: true});
            setTimeout(() => done([navigation.loadEventEnd, null]), 5000);""")
        load.append(timing[0])
        paint.append(timing[1])
        errors += browser.console_errors(driver)
    print(json.dumps({"load_ms": statistics.median(load), "load_ms_max": max(load),
                      "paint_ms": statistics.median(p for p in paint if p is not None) if any(paint) else None,
                      "errors": [entry["message"] for entry in errors]}))
finally:
    driver.quit()
