"""`python -m policy_spark` and `spark-submit` as a user runs them: written verdicts, summary,
exit status, and errors."""

import glob
import json
import os
import subprocess
import sys
import unittest

import pyspark

from fixtures import DAY, REPOSITORY, PolicyFolder, policy_run, record, stand_in_binary, temporary_folder, token, write_log

PACKAGE = os.path.join(REPOSITORY, "spark")
SPARK_SUBMIT = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-submit")


def written_lines(folder):
    """The lines of every part file Spark wrote to `folder`/verdicts, each file closed after reading."""
    lines = []
    for path in glob.glob(os.path.join(folder, "verdicts", "part-*.json")):
        with open(path, encoding="utf-8") as part:
            lines.extend(part)
    return lines


def run(command, cwd):
    environment = dict(os.environ, PYTHONPATH=PACKAGE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=environment, timeout=600)


class CommandTests(unittest.TestCase):
    def setUp(self):
        self.folder = temporary_folder(self)
        policies = PolicyFolder(self.folder)
        self.policy = policies.policy("cli", "{jwks_file: " + policies.key_file("rs.jwks.json", ["test-rs256"]) + "}")
        os.makedirs(os.path.join(self.folder, "logs"))
        for day in range(3):
            at = DAY + day * 86400
            lines = [record(token("test-rs256", at + i), at + i + 1) for i in range(20)] + ["not json"]
            write_log(os.path.join(self.folder, "logs", f"day-{day}.jsonl.gz"), lines, compress=True)
        self.arguments = ["--policy", self.policy, "--input", "logs/*.gz", "--policy-run", policy_run()]

    def test_spark_submit_writes_verdicts_and_summary(self):
        result = run([SPARK_SUBMIT, "--master", "local[2]", os.path.join(PACKAGE, "policy_spark", "__main__.py"),
                      *self.arguments, "--output", "verdicts", "--summary-json", "summary.json"], self.folder)
        # spark-submit runs the driver with its standard error joined to standard output.
        output = result.stdout + result.stderr
        self.assertEqual(result.returncode, 1, output)  # three lines are not records
        self.assertIn("63 records: 60 valid, 3 invalid", output)
        verdicts = [json.loads(line) for line in written_lines(self.folder)]
        self.assertEqual(len(verdicts), 63)
        self.assertEqual(sum(verdict["valid"] for verdict in verdicts), 60)
        invalid = sorted((os.path.basename(verdict["file"]), verdict["line"], verdict["codes"][0])
                         for verdict in verdicts if not verdict["valid"])
        self.assertEqual(invalid, [(f"day-{day}.jsonl.gz", 21, "record_malformed") for day in range(3)])
        with open(os.path.join(self.folder, "summary.json"), encoding="utf-8") as stream:
            summary = json.load(stream)
        self.assertEqual((summary["records"], summary["valid"], summary["kids"]), (63, 60, {"test-rs256": 60, "-": 3}))
        self.assertIn(summary["partitions"], (1, 2, 3))  # Spark packs small files together

        # The output is there now: a second run refuses to replace it unless told to.
        again = run([sys.executable, "-m", "policy_spark", *self.arguments, "--output", "verdicts", "--master", "local[1]"], self.folder)
        self.assertEqual(again.returncode, 2)
        self.assertRegex(again.stderr.splitlines()[-1], r"^error: .*already exists")
        only = run([sys.executable, "-m", "policy_spark", *self.arguments, "--output", "verdicts", "--overwrite",
                    "--only-invalid", "--master", "local[1]"], self.folder)
        self.assertEqual(only.returncode, 1, only.stderr)
        written = written_lines(self.folder)
        self.assertEqual(len(written), 3)

    def test_a_failing_partition_fails_the_command(self):
        wrapper = stand_in_binary(self.folder, "echo 'error: the disk is full' >&2; exit 2")
        result = run([sys.executable, "-m", "policy_spark", *self.arguments[:2], "--input", "logs/day-0.jsonl.gz",
                      "--policy-run", wrapper, "--output", "verdicts", "--master", "local[2]"], self.folder)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertRegex(result.stderr.splitlines()[-1],
                         r"^error: partition 0: policy-run batch exited with status 2: error: the disk is full")
        self.assertFalse(os.path.exists(os.path.join(self.folder, "verdicts", "_SUCCESS")))

    def test_a_corrupt_gzip_log_fails_the_command(self):
        with open(os.path.join(self.folder, "logs", "zz-broken.jsonl.gz"), "wb") as stream:
            stream.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03K\n")
        result = run([sys.executable, "-m", "policy_spark", *self.arguments, "--output", "verdicts", "--master", "local[2]"], self.folder)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertRegex(result.stderr.splitlines()[-1], r"^error: .*zz-broken.jsonl.gz")

    def test_no_binary_is_a_usage_error_before_spark_starts(self):
        result = run([sys.executable, "-m", "policy_spark", "--policy", self.policy, "--input", "logs",
                      "--output", "verdicts", "--policy-run", os.path.join(self.folder, "nothing-here")], self.folder)
        self.assertEqual(result.returncode, 2)
        self.assertIn("is not an executable file", result.stderr)
        self.assertNotIn("Spark", result.stderr)


    def test_a_summary_path_that_cannot_be_written_stops_the_command_before_spark_starts(self):
        result = run([sys.executable, "-m", "policy_spark", *self.arguments, "--output", "verdicts",
                      "--summary-json", "logs"], self.folder)
        self.assertEqual(result.returncode, 2)
        self.assertIn("error: cannot write to 'logs': Is a directory", result.stderr)
        self.assertNotIn("Spark", result.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.folder, "verdicts")))

if __name__ == "__main__":
    unittest.main()
