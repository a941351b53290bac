"""policy_spark on a real local[2] Spark: verdicts and summary equal to `policy-run batch` on
the same logs, a replay across a key rotation, and partitions that fail."""

import os
import unittest

from pyspark.sql import SparkSession

from policy_spark import BatchJobError, RecordOptions, judge_logs
from policy_spark.partition import PartitionFailed

from fixtures import (DAY, PolicyFolder, batch, file_line, policy_run, record, stand_in_binary, temporary_folder,
                      token, write_log)

_spark = None


def setUpModule():
    global _spark
    _spark = (SparkSession.builder.master("local[2]").appName("policy-spark-tests")
              .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate())
    _spark.sparkContext.setLogLevel("OFF")


def tearDownModule():
    _spark.stop()


def _comparable(verdict: dict) -> dict:
    """What both sides state of a record, with the record findings' `at` left out: the binary
    names the file as it was given, Spark as a URI."""
    findings = [{key: value for key, value in finding.items() if not (finding["rule"] == "batch.record" and key == "at")}
                for finding in verdict.get("findings") or []]
    return {"valid": verdict["valid"], "verified": verdict["verified"], "iss": verdict.get("iss"),
            "kid": verdict.get("kid"), "findings": findings, "key_snapshot": verdict.get("key_snapshot"),
            "codes": [finding["code"] for finding in findings]}


class SparkBatchTests(unittest.TestCase):
    def setUp(self):
        self.folder = temporary_folder(self)
        _spark.conf.unset("spark.sql.files.maxPartitionBytes")

    def judge(self, policy, inputs, options=RecordOptions(), **keywords):
        job = judge_logs(_spark, policy, inputs, options, binary=policy_run(), **keywords)
        rows = [row.asDict(recursive=True) for row in job.verdicts.collect()]
        return rows, job.summary()

    def spark_by_file_line(self, rows):
        judged = {}
        contents = {}
        for row in rows:
            path = row["file"].removeprefix("file:")
            if path not in contents:
                with open(path, "rb") as stream:
                    contents[path] = stream.read()
            judged[(path, file_line(contents[path], row["block"], row["line"]))] = row
        return judged

    def mixed_logs(self):
        """Three logs, two gzip, one plain and large enough to be split: valid records, expired,
        wrong audience, unknown key, and lines that are not records."""
        start = DAY + 3600
        good = [record(token("test-rs256", start + i), start + i + 5) for i in range(40)]
        expired = [record(token("test-rs256", start), start + 4000)]
        audience = [record(token("test-rs256", start, audience="other"), start + 1)]
        unknown = [record(token("test-es256", start), start + 1)]
        malformed = ["garbage", b'{"token": "\xff\xfe"}', "{}", '{"token": "a.b.c", "ts": "yesterday"}', "", "  \t"]
        first = write_log(os.path.join(self.folder, "a.jsonl.gz"), good[:10] + expired + malformed[:3] + good[10:15], compress=True)
        second = write_log(os.path.join(self.folder, "b.jsonl.gz"), audience + malformed[3:] + unknown + good[15:20], compress=True)
        third = write_log(os.path.join(self.folder, "c.jsonl"), good[20:] * 6 + malformed + expired)
        return [first, second, third]

    def test_parity_with_batch(self):
        policies = PolicyFolder(self.folder)
        policy = policies.policy("mixed", "{jwks_file: " + policies.key_file("rs.jwks.json", ["test-rs256"]) + "}")
        inputs = self.mixed_logs()
        # Splits of 8 KiB: the plain log is read as several blocks, in several partitions.
        _spark.conf.set("spark.sql.files.maxPartitionBytes", "8192")
        rows, summary = self.judge(policy, [os.path.join(self.folder, "*.jsonl*")])
        expected, expected_summary = batch(policy, inputs)

        self.assertGreater(len({(row["file"], row["block"]) for row in rows if row["file"].endswith("c.jsonl")}), 1,
                           "the plain log was not split: the test would not cover blocks")
        judged = self.spark_by_file_line(rows)
        self.assertEqual(len(rows), len(judged), "two verdicts for one line")
        self.assertEqual(sorted(judged), sorted(expected))
        for place, verdict in expected.items():
            self.assertEqual(_comparable(judged[place]), _comparable(verdict), place)
        # A record finding names the record's own place in its file.
        for place, row in judged.items():
            for finding in row["findings"]:
                if finding["rule"] == "batch.record":
                    block = row["block"]
                    self.assertEqual(finding["at"], f"file:{place[0]}" + (f"@{block}" if block else "") + f":{row['line']}")
        for name in ("records", "valid", "invalid", "codes", "issuers", "kids", "issuers_not_listed", "kids_not_listed"):
            self.assertEqual(summary[name], expected_summary[name], name)
        self.assertGreaterEqual(summary["partitions"], 3)
        codes = summary["codes"]
        for code in ("record_malformed", "record_field_missing", "record_time_invalid", "token_expired", "audience_mismatch", "kid_unknown"):
            self.assertIn(code, codes)

    def test_record_options_pass_through(self):
        policies = PolicyFolder(self.folder)
        policy = policies.policy("bare", "{jwks_file: " + policies.key_file("rs.jwks.json", ["test-rs256"]) + "}")
        issued = DAY + 7200
        # Line 5 is past the cut, its token after blanks: a record the binary reports, not a blank line.
        lines = [token("test-rs256", issued), "", token("test-rs256", issued - 4000), "not-a-token",
                 " " * 2048 + token("test-rs256", issued)]
        log = write_log(os.path.join(self.folder, "tokens.txt"), lines)
        now = "2026-11-01T02:05:00Z"
        options = RecordOptions(input_format="lines", now=now, no_cache=True, max_line_bytes=2048)
        rows, summary = self.judge(policy, [log], options)
        expected, _ = batch(policy, [log], ["--input-format", "lines", "--now", now, "--no-cache", "--max-line-bytes", "2048"])
        judged = {row["line"]: row for row in rows}
        self.assertEqual(sorted(judged), [1, 3, 4, 5])
        for (_, line), verdict in expected.items():
            self.assertEqual(_comparable(judged[line]), _comparable(verdict))
        self.assertEqual([judged[line]["valid"] for line in (1, 3, 4, 5)], [True, False, False, False])
        self.assertEqual(judged[5]["codes"], ["record_malformed"])
        self.assertNotIn("signature_cache", summary)  # --no-cache reached the binary: it kept no cache

    def test_replay_across_a_key_rotation(self):
        # The provider published rs256 from 1 Nov, both keys from 10 Nov 12:00, es256 alone from
        # 20 Nov 12:00; the history has the three snapshots, and a daily one that changed nothing.
        policies = PolicyFolder(self.folder)
        policies.snapshot(["test-rs256"], "2026-11-01T00:00:00Z")
        policies.snapshot(["test-rs256"], "2026-11-02T00:00:00Z")
        policies.snapshot(["test-rs256", "test-es256"], "2026-11-10T12:00:00Z")
        policies.snapshot(["test-es256"], "2026-11-20T12:00:00Z")
        history = policies.policy("replay", "{jwks_uri: " + PolicyFolder.SOURCE + ", require_kid: true, history: history}")
        live = policies.policy("today", "{jwks_file: " + policies.key_file("today.jwks.json", ["test-es256"]) + ", require_kid: true}")
        hour = 3600
        times = {"rs256 on 5 Nov": DAY + 4 * 86400, "rs256 on 15 Nov": DAY + 14 * 86400,
                 "es256 on 15 Nov": DAY + 14 * 86400 + hour, "rs256 on 21 Nov": DAY + 20 * 86400,
                 "es256 on 5 Nov": DAY + 4 * 86400 + hour, "rs256 on 20 Oct": DAY - 12 * 86400}
        kids = ["test-rs256", "test-rs256", "test-es256", "test-rs256", "test-es256", "test-rs256"]
        lines = [record(token(kid, at), at + 30) for kid, at in zip(kids, times.values())]
        log = write_log(os.path.join(self.folder, "rotation.jsonl.gz"), lines, compress=True)

        rows, summary = self.judge(history, [log])
        by_line = {row["line"]: row for row in rows}
        self.assertEqual([by_line[line]["valid"] for line in range(1, 7)], [True, True, True, False, False, False])
        self.assertEqual([by_line[line]["codes"] for line in (4, 5)], [["kid_unknown"], ["key_published_later"]])
        self.assertIn("keys_before_history", by_line[6]["codes"])
        self.assertEqual([by_line[line]["key_snapshot"]["seen"] for line in (1, 2, 3)],
                         ["2026-11-02T00:00:00Z", "2026-11-10T12:00:00Z", "2026-11-10T12:00:00Z"])
        self.assertTrue(by_line[1]["key_snapshot"]["file"].startswith("sha256-"))
        expected, _ = batch(history, [log])
        for (_, line), verdict in expected.items():
            self.assertEqual(_comparable(by_line[line]), _comparable(verdict))
        self.assertEqual(summary["codes"]["kid_unknown"], 1)

        # Today's keys alone: every rs256 record is kid_unknown, however valid it was.
        rows, _ = self.judge(live, [log])
        by_line = {row["line"]: row for row in rows}
        self.assertEqual([by_line[line]["codes"] for line in (1, 2, 4, 6)], [["kid_unknown"]] * 4)
        self.assertTrue(by_line[3]["valid"])
        self.assertIsNone(by_line[3]["key_snapshot"])

    def test_a_binary_error_fails_the_job_with_its_partition_and_message(self):
        policies = PolicyFolder(self.folder)
        policy = policies.policy("p", "{jwks_file: " + policies.key_file("rs.jwks.json", ["test-rs256"]) + "}")
        log = write_log(os.path.join(self.folder, "log.jsonl"), [record(token("test-rs256", DAY), DAY + 5)])
        job = judge_logs(_spark, policy, [log], binary=stand_in_binary(self.folder, "echo 'error: the disk is full' >&2; exit 2"))
        with self.assertRaises(Exception) as raised:
            job.verdicts.write.json(os.path.join(self.folder, "out"))
        self.assertRegex(str(raised.exception), PartitionFailed.MARKER + r"partition 0: policy-run batch exited with status 2: error: the disk is full")
        with self.assertRaisesRegex(BatchJobError, "0 of 1 partitions judged"):
            job.summary()

    def test_a_line_that_starts_as_gzip_does_is_a_record_not_a_compressed_input(self):
        policies = PolicyFolder(self.folder)
        policy = policies.policy("p", "{jwks_file: " + policies.key_file("rs.jwks.json", ["test-rs256"]) + "}")
        # A file not named .gz whose first line holds gzip's magic bytes: Spark reads it as text
        # lines, and the binary, told they were decompressed, judges each line as a record.
        broken = os.path.join(self.folder, "broken.jsonl")
        with open(broken, "wb") as stream:
            stream.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03K\n" + record(token("test-rs256", DAY), DAY + 5).encode() + b"\n")
        rows, summary = self.judge(policy, [broken])
        by_line = {row["line"]: row for row in rows}
        self.assertEqual(by_line[1]["codes"], ["record_malformed"])
        self.assertTrue(by_line[2]["valid"])
        self.assertEqual((summary["records"], summary["invalid"]), (2, 1))

    def test_a_binary_that_loses_records_or_dies_fails_the_job(self):
        policies = PolicyFolder(self.folder)
        policy = policies.policy("p", "{jwks_file: " + policies.key_file("rs.jwks.json", ["test-rs256"]) + "}")
        lines = [record(token("test-rs256", DAY + i), DAY + i) for i in range(5)]
        log = write_log(os.path.join(self.folder, "log.jsonl"), lines)
        cases = {
            # The first record only given to the real binary, which answers it and exits cleanly.
            f"head -n 1 | {policy_run()} \"$@\"; exit 0": r"5 records in, 1 verdicts out",
            # The real binary's stream cut short.
            f"{policy_run()} \"$@\" | head -c 600; exit 0": r"not its stream of verdicts",
            "kill -9 $$": r"policy-run batch was killed by SIGKILL",
            "echo 'error: the disk is full' >&2; exit 2": r"exited with status 2: error: the disk is full",
            "echo 'Segmentation fault'; cat >/dev/null; exit 0": r"not its stream of verdicts",
        }
        for body, expected in cases.items():
            with self.subTest(body=body):
                job = judge_logs(_spark, policy, [log], binary=stand_in_binary(self.folder, body))
                with self.assertRaisesRegex(Exception, PartitionFailed.MARKER + "partition 0: .*" + expected):
                    job.verdicts.collect()

    def test_refusals_before_any_partition_runs(self):
        policies = PolicyFolder(self.folder)
        policy = policies.policy("p", "{jwks_file: keys/missing.jwks.json}")
        with self.assertRaisesRegex(BatchJobError, "missing.jwks.json"):
            judge_logs(_spark, policy, [self.folder], binary=policy_run())
        good = policies.policy("q", "{jwks_file: " + policies.key_file("rs.jwks.json", ["test-rs256"]) + "}")
        with self.assertRaisesRegex(BatchJobError, "var-field"):
            judge_logs(_spark, good, [self.folder], RecordOptions(var_fields=["nonce"]), binary=policy_run())
        with self.assertRaisesRegex(BatchJobError, "'/nonexistent/policy-run' is not an executable file"):
            judge_logs(_spark, good, [self.folder], binary="/nonexistent/policy-run")

    def test_installed_binary_and_policy(self):
        policies = PolicyFolder(self.folder)
        policy = policies.policy("p", "{jwks_file: " + policies.key_file("rs.jwks.json", ["test-rs256"]) + "}")
        log = write_log(os.path.join(self.folder, "log.jsonl"), [record(token("test-rs256", DAY), DAY + 1), "junk"])
        rows, summary = self.judge(policy, [log], ship=False)
        self.assertEqual(sorted((row["line"], row["valid"]) for row in rows), [(1, True), (2, False)])
        self.assertEqual((summary["records"], summary["valid"]), (2, 1))


if __name__ == "__main__":
    unittest.main()
