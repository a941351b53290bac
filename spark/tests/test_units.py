"""The parts of policy_spark that need no Spark: options, record places, summaries."""

import io
import json
import os
import tempfile
import unittest

from policy_spark.options import RecordOptions
from policy_spark.output_file import OutputFile, OutputFileError
import pyarrow
import pyarrow.ipc

from policy_spark.batch_job import PARTITION_SCHEMA
from policy_spark.partition import (PARTITION_COLUMNS, _NotVerdicts, _partition_batch, _Places, _Spool, check_schema,
                                    chunks, record_location, records_in, spool)
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
        def records(*lines):
            return records_in(pyarrow.array(list(lines), pyarrow.binary()))

        self.assertEqual(records(b" \t\r", b""), 0)
        self.assertEqual(records(b" x ", b"\x00"), 2)
        lines = [b" \t\r", b"", b" x ", b"\x00", b"\xff\xfe", b"\t\t", b"\n", b"{}"]
        # Blank as `policy-run batch` says: nothing but spaces, tabs and carriage returns.
        self.assertEqual(records(*lines), sum(bool(line.strip(b" \t\r")) for line in lines))
        self.assertEqual(records_in(pyarrow.array([], pyarrow.binary())), 0)
        # A line past the binary's cut is a record, however blank its first bytes: the binary
        # reports it without reading past the cut.
        self.assertEqual(records_in(pyarrow.array([b" " * 6, b"\t" * 5, b" " * 4 + b"x"], pyarrow.binary()), max_line_bytes=5), 2)
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
        runs = [(file, block, lines.to_pylist()) for file, block, lines in chunks(batches)]
        self.assertEqual(runs, [("a", 0, [b"a1", b"a2"]), ("a", 0, [b"a3"]), ("b", 0, [b"b1", b"b2"]),
                                ("b", 4096, [b"c1"]), ("b", 4096, [b"c2"])])

    def test_spool_writes_every_line_and_where_each_segment_starts(self):
        lines = pyarrow.array([b"a1", b"", b"a2 \t", b"b1", b"b2", b"c1"], pyarrow.binary())
        runs = [("a", 0, lines.slice(0, 2)), ("a", 0, lines.slice(2, 1)), ("b", 0, lines.slice(3, 2)),
                ("b", 4096, lines.slice(5))]
        output = io.BytesIO()
        spooled = spool(runs, output)
        self.assertEqual(output.getvalue(), b"a1\n\na2 \t\nb1\nb2\nc1\n")
        self.assertEqual((spooled.starts, spooled.segments, spooled.records, spooled.lines),
                         ([1, 4, 6], [("a", 0), ("b", 0), ("b", 4096)], 5, 6))
        empty = spool([], io.BytesIO())
        self.assertEqual((empty.starts, empty.segments, empty.records), ([], [], 0))

    # Verdict lines as policy-run batch writes them, byte for byte, and the same verdicts as its
    # Arrow stream: the Swift tests write both and compare (VerdictSerializationTests), so a
    # change of member order, name or type in the binary fails both suites, not Spark, silently.
    GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Golden")

    def golden_lines(self):
        with open(os.path.join(self.GOLDEN, "verdict-lines.jsonl"), "rb") as stream:
            output = stream.read()
        self.assertTrue(output.endswith(b"\n"))
        return [json.loads(line) for line in output.split(b"\n")[:-1]]

    def golden_batches(self):
        with pyarrow.ipc.open_stream(os.path.join(self.GOLDEN, "verdict-batches.arrows")) as stream:
            return stream.schema, list(stream)

    def test_the_golden_stream_holds_the_golden_lines(self):
        schema, batches = self.golden_batches()
        self.assertEqual([batch.num_rows for batch in batches], [1, 2])
        for batch in batches:
            batch.validate(full=True)
        rows = pyarrow.Table.from_batches(batches, schema).to_pylist()
        lines = self.golden_lines()
        self.assertEqual(len(rows), len(lines))
        for row, line in zip(rows, lines):
            # The stream has every member of the line, null where the line leaves one out; the
            # members that are open JSON objects in the line are their compact JSON text.
            self.assertEqual(set(line) - set(row), set())
            for name, value in row.items():
                if name in ("outputs", "trace", "claims"):
                    value = None if value is None else json.loads(value)
                if name == "findings":
                    value = [{key: json.loads(item) if key == "findings" else item for key, item in finding.items()
                              if not (key == "findings" and item is None)} for finding in value]
                self.assertEqual(value, line.get(name), name)

    def test_the_golden_stream_has_what_a_partition_reads(self):
        schema, batches = self.golden_batches()
        check_schema(schema)
        self.assertEqual(PARTITION_COLUMNS.names, [field.name for field in PARTITION_SCHEMA.fields])
        for bad in (schema.remove(schema.get_field_index("valid")),
                    schema.set(schema.get_field_index("line"), pyarrow.field("line", pyarrow.string())),
                    schema.set(schema.get_field_index("kid"), pyarrow.field("kid", pyarrow.int64()))):
            with self.assertRaises(_NotVerdicts):
                check_schema(bad)

    def test_verdicts_are_placed_in_their_files(self):
        _, batches = self.golden_batches()

        places = _Places(_Spool(starts=[1, 3], segments=[("file:/logs/a.gz", 0), ("file:/logs/b", 4096)], records=3, lines=3))
        first, last = _partition_batch(batches[0], places, 0)
        second, last = _partition_batch(batches[1], places, last)
        self.assertEqual(last, 3)
        rows = first.to_pylist() + second.to_pylist()
        self.assertEqual([(row["file"], row["block"], row["line"]) for row in rows],
                         [("file:/logs/a.gz", 0, 1), ("file:/logs/a.gz", 0, 2), ("file:/logs/b", 4096, 1)])
        self.assertEqual([finding["code"] for finding in rows[1]["findings"]], ["bearer_invalid"])
        self.assertEqual([row["codes"] for row in rows], [[], ["bearer_invalid"], ["record_malformed"]])
        # A finding about the record names where Spark read it; others keep their policy place.
        self.assertEqual([[finding["at"] for finding in row["findings"]] for row in rows],
                         [[], ["gateway.yaml:7:3"], ["file:/logs/b@4096:1"]])
        joined, _ = _partition_batch(pyarrow.concat_batches(batches), places, 0)
        self.assertEqual(joined.to_pylist(), rows)
        self.assertEqual(set(rows[1]["findings"][0]), {"rule", "code", "message", "at"})
        self.assertEqual(first.schema, PARTITION_COLUMNS)
        # A verdict for a line past the partition's last is refused.
        short = _Places(_Spool(starts=[1], segments=[("file:/logs/a.gz", 0)], records=2, lines=2))
        with self.assertRaises(_NotVerdicts):
            _partition_batch(batches[1], short, 1)
        # Verdicts out of order, or again, are refused.
        for earlier in (2, 3):
            with self.assertRaises(_NotVerdicts):
                _partition_batch(batches[1], places, earlier)

    def test_partition_summaries_count_each_partition_once(self):
        param = PartitionSummaries()
        value = param.zero({})
        value = param.addInPlace(value, {0: {"records": 2}})
        value = param.addInPlace(value, {1: {"records": 3}})
        value = param.addInPlace(value, {0: {"records": 2}})  # partition 0 judged again
        self.assertEqual(value, {0: {"records": 2}, 1: {"records": 3}})

    def test_merge_adds_totals_and_keeps_tables_bounded(self):
        first = {"records": 5, "valid": 3, "invalid": 2, "codes": {"token_expired": 2},
                 "issuers": {"https://a": 4, "-": 1}, "kids": {"k1": 4, "-": 1}, "signature_cache": {"hits": 1, "misses": 3, "first_sightings": 5},
                 "verdicts_reused": 2, "max_rss_bytes": 100, "limits": {"max_line_bytes": 1048576}}
        second = {"records": 4, "valid": 1, "invalid": 3, "codes": {"token_expired": 1, "kid_unknown": 2},
                  "issuers": {"https://a": 2, "https://b": 2}, "kids": {"k2": 4}, "signature_cache": {"hits": 0, "misses": 4, "first_sightings": 1200},
                  "verdicts_reused": 1, "max_rss_bytes": 300}
        summary = merge([first, second], seconds=2.0)
        self.assertEqual((summary["records"], summary["valid"], summary["invalid"], summary["partitions"]), (9, 4, 5, 2))
        self.assertEqual(summary["codes"], {"token_expired": 3, "kid_unknown": 2})
        self.assertEqual(list(summary["issuers"].items()), [("https://a", 6), ("https://b", 2), ("-", 1)])
        self.assertEqual((summary["issuers_not_listed"], summary["kids_not_listed"]), (0, 0))
        self.assertEqual(summary["signature_cache"], {"hits": 1, "misses": 7, "first_sightings": 1205})
        self.assertIn("signature cache: 1 repeated tokens answered, 7 verified; 1,205 first sightings verified without it", render(summary))
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


    def test_the_summary_file_never_destroys_what_is_at_its_path(self):
        def read(path):
            with open(path) as stream:
                return stream.read()

        with tempfile.TemporaryDirectory() as folder:
            regular = os.path.join(folder, "summary.json")
            with open(regular, "w") as stream:
                stream.write("old")
            os.chmod(regular, 0o640)
            with open(regular) as held:  # a reader of the old file keeps it whole
                output = OutputFile(regular)
                self.assertEqual(read(regular), "old")  # nothing changes before the commit
                output.commit("new")
                self.assertEqual((read(regular), held.read(), os.stat(regular).st_mode & 0o777), ("new", "old", 0o640))
            link = os.path.join(folder, "link.json")
            os.symlink("summary.json", link)
            OutputFile(link).commit("through the link")
            self.assertTrue(os.path.islink(link))
            self.assertEqual(read(regular), "through the link")
            OutputFile("/dev/null").commit("discarded")
            self.assertFalse(os.path.isfile("/dev/null"))
            # A pipe, as `--summary-json /dev/stdout` or `>(jq .)` names one: a link to no file.
            reading, writing = os.pipe()
            try:
                OutputFile(f"/dev/fd/{writing}").commit("into the pipe")
                self.assertEqual(os.read(reading, 100), b"into the pipe")
            finally:
                os.close(reading)
                os.close(writing)
            abandoned = OutputFile(os.path.join(folder, "never.json"))
            abandoned.discard()
            self.assertEqual(sorted(os.listdir(folder)), ["link.json", "summary.json"])
            for path, reason in ((folder, "Is a directory"), (os.path.join(folder, "missing", "s.json"), "No such file")):
                with self.assertRaisesRegex(OutputFileError, reason):
                    OutputFile(path)


if __name__ == "__main__":
    unittest.main()
