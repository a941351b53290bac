"""`policy-run play` in a real browser: the page, the diagnostics on their lines, a token judged
with its trace, the policy's test cases, saving, and calls from elsewhere refused.

The playground runs the policy-run that POLICY_RUN names (and the policy-serve beside it) on a
copy of Policies/ on 127.0.0.1 with a free port; headless Chromium drives the page as a user
would, by typing.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

POLICY_RUN = os.environ.get("POLICY_RUN", os.path.join(browser.ROOT, ".build", "debug", "policy-run"))
SAMPLE_TOKEN = open(os.path.join(browser.ROOT, "Policies", "examples", "sample-id-token.jwt")).read().strip()


class PlaygroundInBrowser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="playground-browser-")
        cls.policies = os.path.join(cls.folder, "Policies")
        shutil.copytree(os.path.join(browser.ROOT, "Policies"), cls.policies)
        cls.server = subprocess.Popen([POLICY_RUN, "play", cls.policies, "--listen", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
        line = cls.server.stderr.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+/)\?token=([0-9a-f]{64})", line)
        if not match:
            cls.server.kill()
            raise RuntimeError("the playground did not start: " + line + cls.server.stderr.read())
        cls.url, cls.token = match.group(1), match.group(2)
        cls.driver = browser.chromium()

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.terminate()
        cls.server.wait(timeout=30)
        shutil.rmtree(cls.folder)

    def open(self, policy):
        self.driver.get(self.url + "?token=" + self.token + "&policy=" + policy)
        wait = WebDriverWait(self.driver, 30)
        wait.until(lambda driver: driver.find_element(By.ID, "yaml").get_attribute("value").startswith("#"))
        wait.until(lambda driver: "Compiles" in driver.find_element(By.ID, "compile-status").text)
        return wait

    def retype(self, text):
        """Replaces the editor's text by typing it."""
        editor = self.driver.find_element(By.ID, "yaml")
        editor.click()
        editor.send_keys(Keys.CONTROL, "a")
        editor.send_keys(Keys.DELETE)
        editor.send_keys(text)

    def policy_text(self, name):
        with open(os.path.join(self.policies, name + ".yaml")) as file:
            return file.read()

    def test_page_loads_without_console_errors(self):
        self.open("okta-id-token")
        names = [option.text for option in self.driver.find_elements(By.CSS_SELECTOR, "#policy option")]
        self.assertIn("okta-id-token", names)
        self.assertIn("(new policy)", names)
        self.assertEqual(browser.console_errors(self.driver), [])

    def test_misspelt_key_is_marked_on_its_line(self):
        wait = self.open("okta-id-token")
        text = self.policy_text("okta-id-token")
        line = text[:text.index("  issuer:")].count("\n") + 1
        self.retype(text.replace("  issuer:", "  isuer:"))
        marked = wait.until(lambda driver: driver.find_elements(By.CSS_SELECTOR, f'#gutter .line.error[data-line="{line}"]'))
        self.assertIn("unknown key 'isuer'", marked[0].get_attribute("title"))
        diagnostic = self.driver.find_element(By.CSS_SELECTOR, f'#diagnostics li.error[data-line="{line}"]')
        self.assertIn(f"line {line}, column 3", diagnostic.text)
        self.assertIn("did you mean 'issuer'?", diagnostic.text)
        # Only that line is marked, and the file on disk is untouched.
        self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, "#gutter .line.error")), 1)
        self.assertEqual(self.policy_text("okta-id-token"), text)
        print("screenshot:", browser.screenshot(self.driver, "playground-diagnostic", width=1500))
        self.assertEqual(browser.console_errors(self.driver), [])

    def test_sample_token_is_valid_with_its_trace(self):
        wait = self.open("okta-id-token")
        # The time and inputs come from the test file's first case.
        wait.until(lambda driver: driver.find_element(By.ID, "now").get_attribute("value") == "2026-11-21T09:30:00Z")
        self.driver.find_element(By.ID, "subject").send_keys(SAMPLE_TOKEN)
        status = wait.until(lambda driver: driver.find_elements(By.ID, "verdict-status"))
        wait.until(lambda driver: driver.find_element(By.ID, "verdict-status").text == "VALID")
        self.assertIn("verified with kid 'test-rs256'", self.driver.find_element(By.ID, "verdict").text)
        groups = [summary.text for summary in self.driver.find_elements(By.CSS_SELECTOR, "#trace details > summary")]
        self.assertTrue(any(group.startswith("token") for group in groups), groups)
        rules = self.driver.find_elements(By.CSS_SELECTOR, "#trace .rule")
        self.assertGreater(len(rules), 5)
        self.assertTrue(all(rule.get_attribute("textContent").startswith("pass") for rule in rules))
        self.assertIn("// 2026-11-21T10:00:00Z", self.driver.find_element(By.ID, "claims").text)
        print("screenshot:", browser.screenshot(self.driver, "playground-valid-token", width=1500))
        # A token signed by someone else: INVALID, the failing rule's group open.
        self.driver.find_element(By.ID, "subject").send_keys(Keys.BACKSPACE * 3 + "AAA")
        wait.until(lambda driver: driver.find_element(By.ID, "verdict-status").text == "INVALID")
        self.assertIn("signature_invalid", self.driver.find_element(By.ID, "verdict").text)
        self.assertEqual(browser.console_errors(self.driver), [])

    def test_switching_policies_takes_the_new_ones_time_and_inputs(self):
        # The page opens on a request policy; picking okta-id-token must not keep its inputs.
        wait = self.open("authhub-authenticate")
        wait.until(lambda driver: "server_nonce" in driver.find_element(By.ID, "inputs").get_attribute("value"))
        Select(self.driver.find_element(By.ID, "policy")).select_by_value("okta-id-token")
        wait.until(lambda driver: driver.find_element(By.ID, "inputs").get_attribute("value") == '{"nonce":"n-0S6_WzA2Mj"}')
        self.assertEqual(self.driver.find_element(By.ID, "kind").get_attribute("value"), "token")
        self.driver.find_element(By.ID, "subject").clear()
        self.driver.find_element(By.ID, "subject").send_keys(SAMPLE_TOKEN)
        wait.until(lambda driver: driver.find_elements(By.ID, "verdict-status") and driver.find_element(By.ID, "verdict-status").text == "VALID")
        self.assertEqual(browser.console_errors(self.driver), [])

    def test_failing_case_shows_fail(self):
        wait = self.open("okta-id-token")
        wait.until(lambda driver: "0 failed" in driver.find_element(By.ID, "test-summary").text)
        self.retype(self.policy_text("okta-id-token").replace("leeway: 300s", "leeway: 0s"))
        wait.until(lambda driver: re.search(r"[1-9]\d* failed", driver.find_element(By.ID, "test-summary").text))
        failing = [item for item in self.driver.find_elements(By.CSS_SELECTOR, '#cases li[data-outcome="fail"]')
                   if "leeway" in item.text]
        self.assertTrue(failing)
        failing[0].click()
        wait.until(lambda driver: driver.find_element(By.ID, "case-status").text == "FAIL")
        self.assertIn("valid: expected true, got false", self.driver.find_element(By.ID, "case-detail").text)
        print("screenshot:", browser.screenshot(self.driver, "playground-failing-case", width=1500))
        self.assertEqual(browser.console_errors(self.driver), [])

    def test_nothing_is_written_until_save(self):
        wait = self.open("pkce-s256")
        before = {name: os.stat(os.path.join(self.policies, name)).st_mtime_ns for name in os.listdir(self.policies)}
        text = self.policy_text("pkce-s256")
        self.retype(text + "# edited in the playground\n")
        wait.until(lambda driver: driver.find_element(By.ID, "dirty").text == "• unsaved")
        time.sleep(1)
        after = {name: os.stat(os.path.join(self.policies, name)).st_mtime_ns for name in os.listdir(self.policies)}
        self.assertEqual(before, after)
        self.driver.find_element(By.ID, "save").click()
        wait.until(lambda driver: driver.find_element(By.ID, "status").text.startswith("Saved to "))
        self.assertEqual(self.policy_text("pkce-s256"), text + "# edited in the playground\n")
        self.assertEqual(browser.console_errors(self.driver), [])

    def call(self, path, body=None, headers=None, method=None):
        """The status and JSON answer of a call to the playground."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, headers=headers or {}, method=method or ("GET" if body is None else "POST"))
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.load(response), response.headers
        except urllib.error.HTTPError as error:
            return error.code, json.load(error), error.headers

    def test_calls_from_elsewhere_are_refused(self):
        body = {"name": "okta-id-token", "text": "policy: x"}
        own = {"Content-Type": "application/json", "X-Playground-Token": self.token}
        self.assertEqual(self.call("api/compile", body, own)[0], 200)
        port = self.url.rsplit(":", 1)[1].strip("/")
        # Another user of the machine (no token, or a wrong one), or a page of another site: its
        # Origin, its form's content type, its own host name (DNS rebinding), another port.
        for headers, why in [({"Content-Type": "application/json"}, "token"),
                             ({**own, "X-Playground-Token": "0" * 64}, "token"),
                             ({**own, "Origin": "https://evil.example"}, "Origin"),
                             ({**own, "Content-Type": "text/plain"}, "sends JSON"),
                             ({**own, "Content-Type": "application/jsonx"}, "sends JSON"),
                             ({**own, "Sec-Fetch-Site": "cross-site"}, "Sec-Fetch-Site"),
                             ({**own, "Host": "evil.example:" + port}, "Host"),
                             ({**own, "Host": "127.0.0.1:1"}, "Host")]:
            status, answer, answered = self.call("api/compile", body, headers)
            self.assertEqual(status, 403, headers)
            self.assertIn(why, answer["error"]["message"])
            self.assertIn("default-src 'none'", answered["Content-Security-Policy"])
        self.assertEqual(self.call("api/policies", headers={"X-Playground-Token": "x"})[0], 403)
        # Any other path or method: 404, with the same headers.
        status, _, answered = self.call("no/such/page", headers={"X-Playground-Token": self.token})
        self.assertEqual(status, 404)
        self.assertEqual(answered["X-Content-Type-Options"], "nosniff")
        # A name that leaves the directory.
        status, _, _ = self.call("api/save", {"name": "../escape", "text": "x"}, own)
        self.assertEqual(status, 400)
        self.assertFalse(os.path.exists(os.path.join(self.folder, "escape.yaml")))

    def test_links_and_fifos_in_the_directory(self):
        own = {"X-Playground-Token": self.token}
        outside = os.path.join(self.folder, "outside.yaml")
        with open(outside, "w") as file:
            file.write("policy: outside\n")
        os.symlink(outside, os.path.join(self.policies, "linked.yaml"))
        os.mkfifo(os.path.join(self.policies, "fifo.yaml"))
        os.mkfifo(os.path.join(self.policies, "okta-id-token-copy.test.yaml"))
        shutil.copy(os.path.join(self.policies, "okta-id-token.yaml"), os.path.join(self.policies, "okta-id-token-copy.yaml"))
        try:
            # A link out of the directory and a FIFO are neither listed nor read, and nothing waits on the FIFO.
            status, listed, _ = self.call("api/policies", headers=own)
            names = [entry["name"] for entry in listed["policies"]]
            self.assertNotIn("linked", names)
            self.assertNotIn("fifo", names)
            self.assertIn({"name": "okta-id-token-copy", "tests": False}, listed["policies"])
            for name in ["linked", "fifo"]:
                status, answer, _ = self.call("api/policies/" + name, headers=own)
                self.assertEqual(status, 409, answer)
                self.assertNotIn("policy: outside", json.dumps(answer))
            status, answer, _ = self.call("api/tests", {"name": "okta-id-token-copy", "text": "policy: x"},
                                          {**own, "Content-Type": "application/json"})
            self.assertEqual((status, answer["file"]), (200, None))
            self.assertEqual(self.call("api/policies", headers=own)[0], 200)
        finally:
            for name in ["linked.yaml", "fifo.yaml", "okta-id-token-copy.test.yaml", "okta-id-token-copy.yaml"]:
                os.unlink(os.path.join(self.policies, name))


if __name__ == "__main__":
    unittest.main()
