"""The parts of policy_spark that need no Spark: options, record places, summaries."""

import json
import os
import unittest

from policy_spark.options import RecordOptions
import pyarrow

from pyspark.sql.types import ArrayType, BooleanType, StringType, StructType

from policy_spark.batch_job import VERDICT_LINE_SCHEMA
from policy_spark.partition import _VERDICT_NUMBERS, _located, _verdict_number, chunks, is_blank, record_location
from policy_spark.summary import TABLE_CAPACITY, PartitionSummaries, merge, render


class UnitTests(unittest.TestCase):
    def test_record_options_become_batch_arguments(self):
        options = RecordOptions(input_format="lines", token_field="jwt", time_field="when", var_fields=["nonce=n", "a=b"],
                                variables=["client_id=c"], now="2026-11-01T00:00:00Z", no_cache=True, max_line_bytes=2048)
        self.assertEqual(options.arguments(), ["--input-format", "lines", "--token-field", "jwt", "--time-field", "when",
                                               "--now", "2026-11-01T00:00:00Z", "--max-line-bytes", "2048",
                                               "--var-field", "nonce=n", "--var-field", "a=b", "--var", "client_id=c",
                                               "--no-cache"])
        self.assertEqual(RecordOptions().arguments(), [])

    def test_blank_lines_and_places(self):
        self.assertTrue(is_blank(b" \t\r") and is_blank(b""))
        self.assertFalse(is_blank(b" x ") or is_blank(b"\x00"))
        self.assertEqual(record_location("file:/logs/a.gz", 0, 7), "file:/logs/a.gz:7")
        self.assertEqual(record_location("file:/logs/b", 134217728, 2), "file:/logs/b@134217728:2")

    def test_arrow_batches_become_runs_of_one_file_and_block(self):
        def batch(rows):
            return pyarrow.RecordBatch.from_arrays([pyarrow.array([row[0] for row in rows], pyarrow.binary()),
                                                    pyarrow.array([row[1] for row in rows], pyarrow.string()),
                                                    pyarrow.array([row[2] for row in rows], pyarrow.int64())],
                                                   names=["value", "file", "block"])
        batches = [batch([(b"a1", "a", 0), (b"a2", "a", 0)]), batch([]),
                   batch([(b"a3", "a", 0), (b"b1", "b", 0), (b"b2", "b", 0), (b"c1", "b", 4096)]),
                   batch([(b"c2", "b", 4096)])]
        self.assertEqual(list(chunks(batches)), [("a", 0, [b"a1", b"a2"]), ("a", 0, [b"a3"]), ("b", 0, [b"b1", b"b2"]),
                                                 ("b", 4096, [b"c1"]), ("b", 4096, [b"c2"])])

    def test_verdict_numbers(self):
        self.assertEqual(_verdict_number(b'{"line":42,"policy":"p"}\n'), 42)
        for line in (b'{"line":"42",', b'{"policy":"p","line":4,', b"Segmentation fault\n", b'{"line":4'):
            self.assertIsNone(_verdict_number(line), line)

    # Verdict lines as policy-run batch writes them, byte for byte: the Swift tests write the
    # same three lines and compare (VerdictSerializationTests), so a change of member order,
    # spacing or name in the binary fails both suites rather than this package, silently.
    GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Golden", "verdict-lines.jsonl")

    def golden_lines(self):
        with open(self.GOLDEN, "rb") as stream:
            output = stream.read()
        self.assertTrue(output.endswith(b"\n"))
        return output, output.split(b"\n")[:-1]

    def test_golden_lines_are_found_by_their_numbers(self):
        output, lines = self.golden_lines()
        numbers = [json.loads(line)["line"] for line in lines]
        self.assertEqual(numbers, [1, 2, 3])
        self.assertEqual([_verdict_number(line) for line in lines], numbers)
        self.assertEqual([int(number) for number in _VERDICT_NUMBERS.findall(output)], numbers)

    def test_golden_lines_hold_what_the_dataframe_reads(self):
        _, lines = self.golden_lines()
        parsed = [json.loads(line) for line in lines]

        def check(field_type, value, where):
            if isinstance(field_type, StructType):
                self.assertIsInstance(value, dict, where)
                for field in field_type.fields:
                    self.assertIn(field.name, value, f"{where}.{field.name}")
                    check(field.dataType, value[field.name], f"{where}.{field.name}")
            elif isinstance(field_type, ArrayType):
                self.assertIsInstance(value, list, where)
                for index, item in enumerate(value):
                    check(field_type.elementType, item, f"{where}[{index}]")
            elif isinstance(field_type, BooleanType):
                self.assertIsInstance(value, bool, where)
            elif isinstance(field_type, StringType):
                # A string column takes a string, or an object's JSON text (outputs).
                self.assertIsInstance(value, (str, dict), where)
            else:
                self.fail(f"{where}: a column type this test does not know: {field_type}")

        for field in VERDICT_LINE_SCHEMA.fields:
            present = [line[field.name] for line in parsed if field.name in line]
            self.assertTrue(present, f"no golden line has '{field.name}'")
            for value in present:
                check(field.dataType, value, field.name)
        self.assertEqual([len(line["findings"]) for line in parsed], [0, 1, 1])

    def test_a_record_finding_is_located_in_its_file(self):
        _, lines = self.golden_lines()
        record = lines[2].decode("utf-8")
        located = json.loads(_located(record, "file:/logs/a.gz:9"))
        expected = json.loads(record)
        expected["findings"][0]["at"] = "file:/logs/a.gz:9"
        self.assertEqual(located, expected)
        self.assertEqual(json.loads(_located(lines[1].decode("utf-8"), "x:1")), json.loads(lines[1]))

    def test_partition_summaries_count_each_partition_once(self):
        param = PartitionSummaries()
        value = param.zero({})
        value = param.addInPlace(value, {0: {"records": 2}})
        value = param.addInPlace(value, {1: {"records": 3}})
        value = param.addInPlace(value, {0: {"records": 2}})  # partition 0 judged again
        self.assertEqual(value, {0: {"records": 2}, 1: {"records": 3}})

    def test_merge_adds_totals_and_keeps_tables_bounded(self):
        first = {"records": 5, "valid": 3, "invalid": 2, "codes": {"token_expired": 2},
                 "issuers": {"https://a": 4, "-": 1}, "kids": {"k1": 4, "-": 1}, "signature_cache": {"hits": 1, "misses": 3},
                 "verdicts_reused": 2, "max_rss_bytes": 100, "limits": {"max_line_bytes": 1048576}}
        second = {"records": 4, "valid": 1, "invalid": 3, "codes": {"token_expired": 1, "kid_unknown": 2},
                  "issuers": {"https://a": 2, "https://b": 2}, "kids": {"k2": 4}, "signature_cache": {"hits": 0, "misses": 4},
                  "verdicts_reused": 1, "max_rss_bytes": 300}
        summary = merge([first, second], seconds=2.0)
        self.assertEqual((summary["records"], summary["valid"], summary["invalid"], summary["partitions"]), (9, 4, 5, 2))
        self.assertEqual(summary["codes"], {"token_expired": 3, "kid_unknown": 2})
        self.assertEqual(list(summary["issuers"].items()), [("https://a", 6), ("https://b", 2), ("-", 1)])
        self.assertEqual((summary["issuers_not_listed"], summary["kids_not_listed"]), (0, 0))
        self.assertEqual(summary["signature_cache"], {"hits": 1, "misses": 7})
        self.assertEqual(summary["verdicts_reused"], 3)
        self.assertIn("verdicts reused: 3 records", render(summary))
        self.assertEqual((summary["max_rss_bytes_per_partition"], summary["records_per_second"]), (300, 4))
        self.assertEqual(summary["limits"], {"max_line_bytes": 1048576})

        # Two partitions of 1,000 distinct kids each, one of them shared: past the capacity every
        # count drops by the (capacity + 1)-th largest, and the rest is counted as not listed.
        left = {"records": 1001, "kids": {**{f"a{i}": 1 for i in range(1000)}, "shared": 1}}
        right = {"records": 1001, "kids": {**{f"b{i}": 1 for i in range(1000)}, "shared": 1}}
        bounded = merge([left, right])
        self.assertLessEqual(len(bounded["kids"]), TABLE_CAPACITY)
        self.assertEqual(bounded["kids"], {"shared": 1})
        self.assertEqual(bounded["kids_not_listed"], 2001)

    def test_render_lists_ten_rows_then_the_rest(self):
        kids = {f"kid-{i:02}": 20 - i for i in range(12)}
        summary = merge([{"records": sum(kids.values()), "valid": 100, "invalid": sum(kids.values()) - 100,
                          "codes": {"kid_unknown": 3}, "issuers": {"https://a\u001b[31m": sum(kids.values())}, "kids": kids}],
                        seconds=1.5)
        text = render(summary)
        self.assertTrue(text.startswith("174 records: 100 valid, 74 invalid (1.50 s, 116 records/s), 1 partitions\n"), text)
        self.assertIn("  kid-00  20\n", text)
        self.assertNotIn("kid-10  10", text)
        self.assertIn("  (2 more: 19)\n", text)
        self.assertIn("https://a\\u001b[31m", text)  # a terminal escape from a token is shown, not obeyed


if __name__ == "__main__":
    unittest.main()
