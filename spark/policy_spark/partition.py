"""One partition of a token log through `policy-run batch`, on the executor that holds it.

The partition's lines go to the binary's standard input exactly as they were in the file (the
newline restored), so a record is judged byte for byte as `policy-run batch FILE` judges it. The
binary numbers the lines of its input; a partition may hold several files, or a block of one, so
each verdict's number is mapped back to the file and block its line came from.
"""

import bisect
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from typing import Iterable, Iterator, List, NamedTuple, Optional, Tuple

# How much of the binary's standard error a failure quotes.
_STDERR_TAIL_BYTES = 4096
# What a verdict line starts with: `policy-run batch` writes the line number first.
_VERDICT_PREFIX = b'{"line":'
# A finding about the record itself (malformed, a field missing), located by the binary as `input:N`.
_RECORD_RULE = b'"rule":"batch.record"'


class PartitionFailed(RuntimeError):
    """A partition that could not be judged completely: the job fails with this message.

    The marker lets the driver find the message inside Spark's wrapped executor error.
    """

    MARKER = "policy_spark partition failure: "

    def __init__(self, partition: int, message: str):
        self.partition = partition
        super().__init__(f"{self.MARKER}partition {partition}: {message}")


# The binary's name inside a shipped bundle, beside the policy's directory.
BUNDLED_BINARY = "policy-run"


@dataclass(frozen=True)
class BatchCommand:
    """The `policy-run batch` command an executor runs, and where it finds the binary and policy.

    The binary runs in the directory holding the policy's directory and is given the policy as
    `DIRECTORY/FILE`: findings then name policy files the same way on every node and in every
    run. When `shipped`, `binary` is the name of the bundle the driver sent with
    `SparkContext.addFile` (the policy's directory and the binary, as `BUNDLED_BINARY`);
    otherwise `binary` and `root` are paths valid on every node.
    """

    binary: str
    policy: str
    arguments: Tuple[str, ...]
    jobs: int = 1
    shipped: bool = False
    root: str = ""

    def resolved(self) -> Tuple[str, str]:
        """The binary's path and the working directory, on this node."""
        if not self.shipped:
            return self.binary, self.root
        from pyspark import SparkFiles
        root = SparkFiles.get(self.binary)
        binary = os.path.join(root, BUNDLED_BINARY)
        if not os.access(binary, os.X_OK):  # files inside a shipped directory may lose the bit
            os.chmod(binary, os.stat(binary).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return binary, root

    def argv(self, binary: str, summary_path: str) -> List[str]:
        """The command line; the verdicts go to standard output, the summary to `summary_path`."""
        return [binary, "batch", "--policy", self.policy, *self.arguments, "--jobs", str(self.jobs),
                "--summary-json", summary_path, "--output", "-", "-"]


def is_blank(line: bytes) -> bool:
    """Whether a line holds only spaces, tabs and carriage returns: `policy-run batch` gives it no verdict."""
    return not line.strip(b" \t\r")


class _Feeder:
    """Writes a partition's lines to the binary, remembering where each file or block starts."""

    def __init__(self, chunks: Iterable[Tuple[str, int, List[bytes]]], stdin):
        self.chunks = chunks
        self.stdin = stdin
        self.starts: List[int] = []  # the binary's line number of each segment's first line
        self.segments: List[Tuple[str, int]] = []  # (file, block) of each segment
        self.records = 0
        self.error: Optional[BaseException] = None

    def run(self) -> None:
        number = 0
        current = None
        write = self.stdin.write
        try:
            for file, block, lines in self.chunks:
                if (file, block) != current:
                    current = (file, block)
                    self.segments.append(current)
                    self.starts.append(number + 1)
                number += len(lines)
                self.records += sum(1 for line in lines if not is_blank(line))
                write(b"\n".join(lines))
                write(b"\n")
        except BrokenPipeError:
            pass  # the binary stopped reading: its exit status says why
        except BaseException as error:  # reported by the reader, on the task's own thread
            self.error = error
        finally:
            try:
                self.stdin.close()
            except BrokenPipeError:
                pass

    def position(self, number: int) -> Tuple[str, int, int]:
        """The file, block and line within the block of the binary's input line `number`."""
        index = bisect.bisect_right(self.starts, number) - 1
        file, block = self.segments[index]
        return file, block, number - self.starts[index] + 1


def chunks(batches: Iterable) -> Iterator[Tuple[str, int, List[bytes]]]:
    """The lines of Arrow batches (columns: line bytes, file, block), as (file, block, lines)
    runs: a batch is cut where its file or block changes, which is rare (rows of one split are
    contiguous), so most batches are one run and cost no per-row comparison."""
    for batch in batches:
        if batch.num_rows == 0:
            continue
        lines = batch.column(0).to_pylist()
        files, blocks = batch.column(1), batch.column(2)
        first, last = (files[0].as_py(), blocks[0].as_py()), (files[-1].as_py(), blocks[-1].as_py())
        if first == last:
            yield first[0], first[1], lines
            continue
        places = list(zip(files.to_pylist(), blocks.to_pylist()))
        start = 0
        for row in range(1, len(places)):
            if places[row] != places[row - 1]:
                yield places[start][0], places[start][1], lines[start:row]
                start = row
        yield places[start][0], places[start][1], lines[start:]


def _verdict_number(line: bytes) -> Optional[int]:
    if not line.startswith(_VERDICT_PREFIX):
        return None
    end = line.find(b",", len(_VERDICT_PREFIX))
    digits = line[len(_VERDICT_PREFIX):end]
    return int(digits) if end > 0 and digits.isdigit() else None


def record_location(file: str, block: int, line: int) -> str:
    """Where a record is, as a finding's `at` names it: `FILE:LINE`, or `FILE@BLOCK:LINE` for a
    line counted from the start of a Spark split other than the file's first."""
    return f"{file}:{line}" if block == 0 else f"{file}@{block}:{line}"


def _located(verdict: str, location: str) -> str:
    """The verdict with its record findings' `at` set to the record's place in its file: the
    binary, reading standard input, can only say `input:N`, N counted across the partition."""
    parsed = json.loads(verdict)
    for finding in parsed.get("findings", []):
        if finding.get("rule") == "batch.record":
            finding["at"] = location
    return json.dumps(parsed, ensure_ascii=False, separators=(",", ":"))


def _stderr_message(path: str) -> str:
    with open(path, "rb") as stream:
        stream.seek(0, os.SEEK_END)
        size = stream.tell()
        stream.seek(max(0, size - _STDERR_TAIL_BYTES))
        tail = stream.read().decode("utf-8", errors="replace")
    lines = [line for line in tail.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    return " / ".join(errors or lines[-3:]) or "(nothing on standard error)"


def _exit_description(status: int) -> str:
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"policy-run batch was killed by {name}"
    return f"policy-run batch exited with status {status}"


# What the binary's output is read in, at most.
_READ_BYTES = 1 << 20
# Each verdict line's number, found in a whole chunk of output at once.
_VERDICT_NUMBERS = re.compile(rb'^\{"line":(\d+),', re.MULTILINE)


class Verdicts(NamedTuple):
    """A run of verdicts as columns: where each record is, and its verdict line."""

    files: List[str]
    blocks: List[int]
    lines: List[int]
    verdicts: List[bytes]


def _judged(index: int, output: bytes, last: int, feeder: _Feeder) -> Tuple[Verdicts, int]:
    """The verdicts of `output` (whole lines), checked to be the next ones after the binary's
    input line `last`, and the input line of the last of them."""
    lines = output.split(b"\n")
    lines.pop()
    numbers = [int(number) for number in _VERDICT_NUMBERS.findall(output)]
    ordered = len(numbers) == len(lines) and numbers[0] > last and all(a < b for a, b in zip(numbers, numbers[1:]))
    if not ordered:
        for line in lines:
            number = _verdict_number(line)
            if number is None or number <= last:
                raise PartitionFailed(index, f"policy-run batch wrote a line that is not the next verdict: {line[:120]!r}")
            last = number
    segment = bisect.bisect_right(feeder.starts, numbers[0]) - 1
    if segment + 1 == len(feeder.starts) or numbers[-1] < feeder.starts[segment + 1]:
        file, block = feeder.segments[segment]
        first = feeder.starts[segment] - 1
        judged = Verdicts([file] * len(numbers), [block] * len(numbers), [number - first for number in numbers], lines)
    else:
        places = [feeder.position(number) for number in numbers]
        judged = Verdicts([place[0] for place in places], [place[1] for place in places], [place[2] for place in places], lines)
    if _RECORD_RULE in output:
        for row, verdict in enumerate(lines):
            if _RECORD_RULE in verdict:
                location = record_location(judged.files[row], judged.blocks[row], judged.lines[row])
                lines[row] = _located(verdict.decode("utf-8"), location).encode("utf-8")
    return judged, numbers[-1]


def judge_partition(index: int, lines: Iterable[Tuple[str, int, List[bytes]]], command: BatchCommand,
                    summaries=None) -> Iterator[Verdicts]:
    """Judges one partition's lines: yields its verdicts, in order, a chunk of output at a time.

    Parameters:
        index: the partition's number, named in failures.
        lines: (file, block start offset, lines as bytes) runs, in file order.
        command: the binary and its arguments.
        summaries: an accumulator taking {index: the binary's summary JSON}, or None.

    Raises:
        PartitionFailed: the binary could not start, exited with an error (status 2 or a signal),
            wrote something that is not a verdict line, or wrote a different number of verdicts
            than the partition holds records.
    """
    workdir = tempfile.mkdtemp(prefix="policy-spark-")
    process = None
    try:
        summary_path = os.path.join(workdir, "summary.json")
        stderr_path = os.path.join(workdir, "stderr")
        binary, root = command.resolved()
        argv = command.argv(binary, summary_path)
        with open(stderr_path, "wb") as stderr:
            try:
                process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, cwd=root)
            except OSError as error:
                raise PartitionFailed(index, f"cannot run {argv[0]}: {error.strerror or error}") from None
        feeder = _Feeder(lines, process.stdin)
        thread = threading.Thread(target=feeder.run, name=f"policy-spark-feed-{index}", daemon=True)
        thread.start()
        verdicts = 0
        last = 0
        pending = b""
        while True:
            data = process.stdout.read1(_READ_BYTES)
            if not data:
                break
            data = pending + data
            cut = data.rfind(b"\n") + 1
            pending = data[cut:]
            if cut == 0:
                continue
            judged, last = _judged(index, data[:cut], last, feeder)
            verdicts += len(judged.verdicts)
            yield judged
        if pending:
            raise PartitionFailed(index, f"policy-run batch ended its output inside a line: {pending[:120]!r}")
        thread.join()
        status = process.wait()
        if feeder.error is not None:
            raise PartitionFailed(index, f"reading the partition's lines failed: {feeder.error!r}")
        if status not in (0, 1):
            raise PartitionFailed(index, f"{_exit_description(status)}: {_stderr_message(stderr_path)}")
        if verdicts != feeder.records:
            raise PartitionFailed(index, f"{feeder.records} records in, {verdicts} verdicts out")
        if summaries is not None:
            with open(summary_path, encoding="utf-8") as stream:
                summaries.add({index: json.load(stream)})
    finally:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
        if process is not None:
            process.stdout.close()
        shutil.rmtree(workdir, ignore_errors=True)


# Verdicts per Arrow batch handed back to Spark.
_BATCH_VERDICTS = 4096


def judge_arrow_partition(batches: Iterable, command: BatchCommand, summaries=None) -> Iterator:
    """`judge_partition` for `DataFrame.mapInArrow`: lines in and verdicts out as Arrow batches,
    so that no row is pickled on its way between the JVM and Python."""
    import pyarrow
    from pyspark import TaskContext

    index = TaskContext.get().partitionId()
    for judged in judge_partition(index, chunks(batches), command, summaries):
        for row in range(0, len(judged.verdicts), _BATCH_VERDICTS):
            rows = slice(row, row + _BATCH_VERDICTS)
            yield pyarrow.RecordBatch.from_arrays(
                [pyarrow.array(judged.files[rows], pyarrow.string()), pyarrow.array(judged.blocks[rows], pyarrow.int64()),
                 pyarrow.array(judged.lines[rows], pyarrow.int64()), pyarrow.array(judged.verdicts[rows], pyarrow.string())],
                names=["file", "block", "line", "verdict"])
