"""One partition through the real binary without Spark: its places, and a scratch directory left
as it was found whether the partition is read to its end or abandoned half way."""

import errno
import os
import unittest
from unittest import mock

import pyarrow

from policy_spark.partition import BatchCommand, PartitionFailed, judge_partition, spool

from fixtures import DAY, PolicyFolder, policy_run, record, temporary_folder, token


class PartitionProcessTests(unittest.TestCase):
    def setUp(self):
        self.folder = temporary_folder(self)
        self.scratch = os.path.join(self.folder, "scratch")
        os.mkdir(self.scratch)
        policies = PolicyFolder(self.folder)
        policy = policies.policy("p", "{jwks_file: " + policies.key_file("rs.jwks.json", ["test-rs256"]) + "}")
        self.command = BatchCommand(policy_run(), os.path.relpath(policy, self.folder), (), root=self.folder)
        self.line = record(token("test-rs256", DAY), DAY + 5).encode()

    def runs(self, counts):
        return [(f"file:/logs/{name}", 0, pyarrow.array([self.line] * count, pyarrow.binary())) for name, count in counts]

    def test_verdicts_are_placed_and_the_scratch_directory_emptied(self):
        with mock.patch.dict(os.environ, {"SPARK_LOCAL_DIRS": self.scratch}):
            batches = list(judge_partition(3, iter(self.runs([("a", 2), ("b", 5000)])), self.command))
        rows = pyarrow.Table.from_batches(batches).select(["file", "line", "valid"]).to_pylist()
        self.assertEqual(len(rows), 5002)
        self.assertEqual(rows[:3], [{"file": "file:/logs/a", "line": 1, "valid": True}, {"file": "file:/logs/a", "line": 2, "valid": True},
                                    {"file": "file:/logs/b", "line": 1, "valid": True}])
        self.assertEqual(rows[-1], {"file": "file:/logs/b", "line": 5000, "valid": True})
        self.assertEqual(os.listdir(self.scratch), [])

    def test_an_abandoned_partition_stops_its_binary_and_leaves_nothing(self):
        with mock.patch.dict(os.environ, {"SPARK_LOCAL_DIRS": self.scratch}):
            verdicts = judge_partition(0, iter(self.runs([("a", 20000)])), self.command)
            first = next(verdicts)
            self.assertGreater(first.num_rows, 0)
            self.assertEqual(len(os.listdir(self.scratch)), 1)  # the partition's lines, while judged
            verdicts.close()  # Spark stops reading: a failed task, or a limit() satisfied
        self.assertEqual(os.listdir(self.scratch), [])


    def test_a_full_scratch_disk_fails_the_partition_and_leaves_nothing(self):
        class Full:
            def write(self, data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def full(chunks, output, max_line_bytes):
            return spool(chunks, Full(), max_line_bytes)

        with mock.patch.dict(os.environ, {"SPARK_LOCAL_DIRS": self.scratch}), mock.patch("policy_spark.partition.spool", full):
            with self.assertRaisesRegex(PartitionFailed, r"partition 4: cannot write the partition's lines to .*: No space left on device"):
                list(judge_partition(4, iter(self.runs([("a", 2)])), self.command))
        self.assertEqual(os.listdir(self.scratch), [])

    def test_spark_input_that_fails_is_reported_as_itself(self):
        def broken():
            yield from self.runs([("a", 2)])
            raise ConnectionResetError(104, "Connection reset by peer")

        with mock.patch.dict(os.environ, {"SPARK_LOCAL_DIRS": self.scratch}):
            with self.assertRaises(ConnectionResetError):
                list(judge_partition(5, broken(), self.command))
        self.assertEqual(os.listdir(self.scratch), [])

if __name__ == "__main__":
    unittest.main()
