"""The HTML reports of `policy-run batch --report` and `policy-run diff --report`, in a real browser.

A generated log of two days with a key rotation at midnight and an hour of bad signatures
(make_rotation_log.py) is judged by the policy-run that POLICY_RUN names; its page is loaded in
headless Chromium, which must report no console error (the page's Content-Security-Policy
refuses any script or resource), show both kids, and put every bad signature in the hour it
happened.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402
import make_rotation_log  # noqa: E402

POLICY_RUN = os.environ.get("POLICY_RUN", os.path.join(browser.ROOT, ".build", "debug", "policy-run"))


class ReportInBrowser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="report-browser-")
        subprocess.run([sys.executable, make_rotation_log.__file__, cls.folder, "20000"], check=True)
        cls.driver = browser.chromium()

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        subprocess.run(["rm", "-rf", cls.folder], check=True)

    def run_tool(self, *arguments):
        run = subprocess.run([POLICY_RUN, *arguments], cwd=self.folder, capture_output=True, text=True, timeout=300)
        self.assertEqual(run.returncode, 1, run.stderr)  # some records are invalid
        return run

    def columns(self, chart_index):
        """The tooltips of a chart's columns, in time order."""
        charts = self.driver.find_elements("css selector", "figure svg")
        return [title.get_attribute("textContent") for title in charts[chart_index].find_elements("css selector", "rect.column title")]

    def legend(self, chart_index):
        return [item.text for item in self.driver.find_elements("css selector", "figure")[chart_index].find_elements("css selector", "ul.legend li")]

    def test_batch_report(self):
        self.run_tool("batch", "--policy", "policy.yaml", "--output", "/dev/null", "--report", "report.html", "log.jsonl")
        self.driver.get("file://" + os.path.join(self.folder, "report.html"))
        self.assertEqual(browser.console_errors(self.driver), [])
        self.assertEqual(self.driver.title, "policy-run batch: rotation-report")
        self.assertEqual(len(self.driver.find_elements("css selector", "figure svg")), 3)
        # Verdicts: every bad signature in the spike's hour, all of them.
        bad = sum(1 for _, _, _, secret in make_rotation_log.records(20000) if secret == make_rotation_log.NOBODY)
        verdicts = self.columns(0)
        spiked = [title for title in verdicts if "signature_invalid" in title]
        self.assertTrue(spiked)
        self.assertTrue(all(title.startswith("2026-11-20 18:") for title in spiked), spiked)
        counts = [int(line.split()[-1].replace(",", "")) for title in spiked for line in title.splitlines() if line.startswith("signature_invalid ")]
        self.assertEqual(sum(counts), bad)
        # The charted valid records: the generated ones (the 1970 stray is left out of the chart).
        valid = sum(1 for ts, _, claims, secret in make_rotation_log.records(20000)
                    if secret != make_rotation_log.NOBODY and claims["exp"] > ts and claims["iss"] == make_rotation_log.ISSUER)
        self.assertIn(f"valid {valid:,}", self.legend(0))
        # Kids: both in the legend, 2026-a only before midnight, 2026-b only after.
        kids = [kid for _, kid, _, _ in make_rotation_log.records(20000)]
        self.assertEqual(sorted(self.legend(2)), [f"2026-a {kids.count('2026-a'):,}", f"2026-b {kids.count('2026-b'):,}"])
        for title in self.columns(2):
            before_rotation = title.startswith("2026-11-20")
            self.assertEqual("2026-a" in title, before_rotation, title)
            self.assertEqual("2026-b" in title, not before_rotation, title)
        self.assertIn("Left out, stamped long before this range: 1 record.", self.driver.find_element("tag name", "body").text)
        print("screenshot:", browser.screenshot(self.driver, "batch-report"))

    def test_diff_report(self):
        with open(os.path.join(self.folder, "keys.jwks.json")) as file:
            keys = json.load(file)
        # The change retires kid 2026-a: every earlier token flips.
        with open(os.path.join(self.folder, "keys-b.jwks.json"), "w") as file:
            json.dump({"keys": [key for key in keys["keys"] if key["kid"] != "2026-a"]}, file)
        with open(os.path.join(self.folder, "policy.yaml")) as file:
            policy = file.read()
        with open(os.path.join(self.folder, "policy-next.yaml"), "w") as file:
            file.write(policy.replace("keys.jwks.json", "keys-b.jwks.json"))
        run = self.run_tool("diff", "policy.yaml", "policy-next.yaml", "log.jsonl", "--report", "diff.html")
        self.assertIn("valid → invalid", run.stdout)
        self.driver.get("file://" + os.path.join(self.folder, "diff.html"))
        self.assertEqual(browser.console_errors(self.driver), [])
        flips = self.columns(0)
        self.assertTrue(flips)
        self.assertTrue(all(title.startswith("2026-11-20") for title in flips), flips[-3:])
        self.assertTrue(any(name.startswith("valid → invalid: kid_unknown") for name in self.legend(0)), self.legend(0))
        print("screenshot:", browser.screenshot(self.driver, "diff-report"))


if __name__ == "__main__":
    unittest.main()
