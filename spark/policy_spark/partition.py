"""One partition of a token log through `policy-run batch`, on the executor that holds it.

The partition's lines are written to a file on the node exactly as they were in the file read
(the newline restored) and given to the binary as its standard input, so a record is judged
byte for byte as `policy-run batch FILE` judges it. The verdicts come back as an Arrow stream
(`--output-format arrow`): typed columns that reach Spark with no JSON parsed and no row
handled one at a time in Python. The binary numbers the lines of
its input; a partition may hold several files, or a block of one, so each verdict's number is
mapped back to the file and block its line came from.
"""

import json
import os
import shutil
import signal
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Iterable, Iterator, List, Optional, Tuple

import numpy
import pyarrow
import pyarrow.compute as compute
import pyarrow.ipc

# How much of the binary's standard error a failure quotes.
_STDERR_TAIL_BYTES = 4096
# A line that is not a record: only spaces, tabs and carriage returns (`policy-run batch` gives it no verdict).
_BLANK = r"^[ \t\r]*$"
# The columns of the binary's stream this package reads, and their types: a binary of another
# version that writes them otherwise is refused by name rather than misread.
_FINDING = pyarrow.struct([("rule", pyarrow.string()), ("code", pyarrow.string()), ("message", pyarrow.string()),
                           ("at", pyarrow.string())])
VERDICT_COLUMNS = pyarrow.schema([
    ("policy", pyarrow.string()), ("valid", pyarrow.bool_()), ("verified", pyarrow.bool_()),
    ("iss", pyarrow.string()), ("kid", pyarrow.string()), ("key_freshness", pyarrow.string()),
    ("key_snapshot", pyarrow.struct([("seen", pyarrow.string()), ("file", pyarrow.string())])),
    ("findings", pyarrow.list_(_FINDING)), ("outputs", pyarrow.string()),
])
# What a partition yields to Spark, and the DataFrame's columns as they are: where each record
# is, its verdict's columns, and the findings' codes, computed here so that the JVM only passes
# the columns on. A finding about the record itself (rule `batch.record`) names where the record
# is, which only Spark knows: the binary, reading standard input, can only say `input:N`.
_VERDICT_TYPES = {field.name: field.type for field in VERDICT_COLUMNS}
PARTITION_COLUMNS = pyarrow.schema(
    [("file", pyarrow.string()), ("block", pyarrow.int64()), ("line", pyarrow.int64())]
    + [(name, _VERDICT_TYPES[name]) for name in ("policy", "valid", "verified")]
    + [("codes", pyarrow.list_(pyarrow.string()))]
    + [(name, _VERDICT_TYPES[name]) for name in ("findings", "iss", "kid", "key_freshness", "key_snapshot", "outputs")])
# `policy-run batch --max-line-bytes` when not given.
DEFAULT_MAX_LINE_BYTES = 1 << 20
# Rows handed to Spark at once: the binary's record batches (a few hundred rows) are joined
# first, so the columns above are made a few thousand rows at a time.
_BATCH_ROWS = 4096


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
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES  # as in `arguments`: where the binary cuts a line

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
        """The command line; the verdicts go to standard output, the summary to `summary_path`.
        Spark has decompressed the lines, so the binary takes none for gzip, whatever its first
        line's first bytes."""
        return [binary, "batch", "--policy", self.policy, *self.arguments, "--jobs", str(self.jobs),
                "--summary-json", summary_path, "--output-format", "arrow", "--output", "-", "--no-decompress", "-"]


def records_in(lines: pyarrow.Array, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> int:
    """How many of `lines` are records: not blank (only spaces, tabs and carriage returns), or
    longer than `max_line_bytes`, which the binary cuts and reports without reading past the cut."""
    if not len(lines):
        return 0
    blank = compute.and_(compute.match_substring_regex(lines, _BLANK),
                         compute.less_equal(compute.binary_length(lines), max_line_bytes))
    return len(lines) - compute.sum(blank).as_py()


@dataclass
class _Spool:
    """Where a partition's lines were written, and where each file or block starts among them."""

    starts: List[int]  # the binary's line number of each segment's first line
    segments: List[Tuple[str, int]]  # (file, block) of each segment
    records: int
    lines: int  # all lines written, blank ones included


class _ScratchWriteFailed(Exception):
    """Writing the spool failed (a full or missing scratch disk), as opposed to reading Spark's
    input, whose errors are Spark's own."""

    def __init__(self, error: OSError):
        super().__init__(error.strerror or str(error))


def spool(chunks: Iterable[Tuple[str, int, pyarrow.Array]], output, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> _Spool:
    """Writes a partition's lines, each with its newline, to `output` (a binary file), counting
    its records as the binary given `max_line_bytes` does.

    The whole partition is written before the binary starts, rather than fed to it by a thread
    while its verdicts are read: a thread writing the binary's input while Spark's worker reads
    its output can stall both once their pipes fill, and the spool costs one pass over bytes
    Spark has just read. It also means every line's place is known before any verdict arrives.
    """
    starts: List[int] = []
    segments: List[Tuple[str, int]] = []
    records = 0
    number = 0
    separator = pyarrow.scalar(b"\n", pyarrow.binary())
    nothing = pyarrow.scalar(b"", pyarrow.binary())
    for file, block, lines in chunks:
        if not segments or segments[-1] != (file, block):
            segments.append((file, block))
            starts.append(number + 1)
        number += len(lines)
        records += records_in(lines, max_line_bytes)
        # Each line and its newline, laid end to end in one buffer by Arrow.
        joined = compute.binary_join_element_wise(lines, nothing, separator)
        _, offsets, data = joined.buffers()
        bounds = numpy.frombuffer(offsets, numpy.int32, count=len(joined) + 1, offset=4 * joined.offset)
        pending = memoryview(data)[bounds[0]:bounds[-1]]
        try:
            while pending:
                pending = pending[output.write(pending):]
        except OSError as error:
            raise _ScratchWriteFailed(error) from error
    return _Spool(starts, segments, records, number)


def _spool_directory() -> Optional[str]:
    """Spark's scratch directory on this node (the first of `SPARK_LOCAL_DIRS`, which Spark sets
    for its Python workers), else the system's temporary directory."""
    directories = [entry for entry in os.environ.get("SPARK_LOCAL_DIRS", "").split(",") if entry]
    return directories[0] if directories and os.path.isdir(directories[0]) else None


def chunks(batches: Iterable) -> Iterator[Tuple[str, int, pyarrow.Array]]:
    """The lines of Arrow batches (columns: line bytes, file, block), as (file, block, lines)
    runs: a batch is cut where its file or block changes, which is rare (rows of one split are
    contiguous), so most batches are one run and cost no per-row comparison."""
    for batch in batches:
        if batch.num_rows == 0:
            continue
        lines, files, blocks = batch.column(0), batch.column(1), batch.column(2)
        first, last = (files[0].as_py(), blocks[0].as_py()), (files[-1].as_py(), blocks[-1].as_py())
        if first == last:
            yield first[0], first[1], lines
            continue
        places = list(zip(files.to_pylist(), blocks.to_pylist()))
        start = 0
        for row in range(1, len(places)):
            if places[row] != places[row - 1]:
                yield places[start][0], places[start][1], lines.slice(start, row - start)
                start = row
        yield places[start][0], places[start][1], lines.slice(start)


def record_location(file: str, block: int, line: int) -> str:
    """Where a record is, as a finding's `at` names it: `FILE:LINE`, or `FILE@BLOCK:LINE` for a
    line counted from the start of a Spark split other than the file's first."""
    return f"{file}:{line}" if block == 0 else f"{file}@{block}:{line}"


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


class _NotVerdicts(Exception):
    """The binary's output is not the stream of verdicts expected; reported once its exit
    status is known, which may say why better."""


def _shape(kind: pyarrow.DataType, kept: Optional[List[str]] = None) -> pyarrow.DataType:
    """A type as this package reads it: nested fields by name and type, whatever their nullability
    or a list's item name, and a struct reduced to the fields in `kept`, in that order."""
    if pyarrow.types.is_list(kind):
        return pyarrow.list_(_shape(kind.value_type, kept))
    if pyarrow.types.is_struct(kind):
        names = kept if kept is not None else [kind.field(index).name for index in range(kind.num_fields)]
        return pyarrow.struct([(name, _shape(kind.field(name).type)) for name in names
                               if kind.get_field_index(name) >= 0])
    return kind


def check_schema(schema: pyarrow.Schema) -> None:
    """Refuses a stream that lacks a column this package reads, or has it with another type.

    Raises:
        _NotVerdicts: naming the first such column.
    """
    if schema.get_field_index("line") < 0 or schema.field("line").type != pyarrow.int64():
        raise _NotVerdicts("its stream has no int64 column 'line'")
    for field in VERDICT_COLUMNS:
        index = schema.get_field_index(field.name)
        if index < 0:
            raise _NotVerdicts(f"its stream has no column '{field.name}'")
        found = schema.field(index).type
        kept = _FINDING.names if field.name == "findings" else None
        if _shape(found, kept) != _shape(field.type):
            raise _NotVerdicts(f"its column '{field.name}' is {found}, not {field.type}")


class _Places:
    """Maps the binary's line numbers to the file, block and line within the block of each."""

    def __init__(self, spooled: _Spool):
        self.lines = spooled.lines
        self.starts = numpy.array(spooled.starts, dtype=numpy.int64)
        self.files = pyarrow.array([segment[0] for segment in spooled.segments], pyarrow.string())
        self.blocks = pyarrow.array([segment[1] for segment in spooled.segments], pyarrow.int64())

    def columns(self, numbers: numpy.ndarray) -> List[pyarrow.Array]:
        segment = numpy.searchsorted(self.starts, numbers, side="right") - 1
        if segment[0] < 0:
            raise _NotVerdicts(f"a verdict for line {numbers[0]}, before the first line written")
        if numbers[-1] > self.lines:
            raise _NotVerdicts(f"a verdict for line {numbers[-1]}, after the last line written ({self.lines})")
        which = pyarrow.array(segment)
        return [self.files.take(which), self.blocks.take(which), pyarrow.array(numbers - self.starts[segment] + 1)]


def _partition_batch(batch: pyarrow.RecordBatch, places: _Places, last: int) -> Tuple[pyarrow.RecordBatch, int]:
    """The partition's columns of the binary's record batches joined as one, its line numbers
    checked to follow `last` in order; and the last of them."""
    numbers = batch.column("line").to_numpy()
    if numbers[0] <= last or (len(numbers) > 1 and not (numpy.diff(numbers) > 0).all()):
        raise _NotVerdicts(f"its verdicts are not in input order after line {last}")
    file, block, line = places.columns(numbers)
    findings = batch.column("findings")
    items = findings.values
    at = items.field("at")
    about_record = compute.equal(items.field("rule"), "batch.record")
    if compute.any(about_record).as_py():
        rows = numpy.searchsorted(findings.offsets.to_numpy(), numpy.flatnonzero(about_record), side="right") - 1
        places_of = [record_location(file[row].as_py(), block[row].as_py(), line[row].as_py()) for row in rows]
        at = compute.replace_with_mask(at, about_record, pyarrow.array(places_of, pyarrow.string()))
    kept = pyarrow.StructArray.from_arrays([at if name == "at" else items.field(name) for name in _FINDING.names],
                                           fields=list(_FINDING))
    columns = {"file": file, "block": block, "line": line,
               "codes": pyarrow.ListArray.from_arrays(findings.offsets, items.field("code")),
               "findings": pyarrow.ListArray.from_arrays(findings.offsets, kept)}
    return (pyarrow.RecordBatch.from_arrays([columns[name] if name in columns else batch.column(name) for name in PARTITION_COLUMNS.names],
                                            schema=PARTITION_COLUMNS), int(numbers[-1]))


def judge_partition(index: int, lines: Iterable[Tuple[str, int, pyarrow.Array]], command: BatchCommand,
                    summaries=None) -> Iterator[pyarrow.RecordBatch]:
    """Judges one partition's lines: yields its verdicts, in order, as record batches of
    `PARTITION_COLUMNS`.

    Parameters:
        index: the partition's number, named in failures.
        lines: (file, block start offset, lines as a binary Arrow array) runs, in file order.
        command: the binary and its arguments.
        summaries: an accumulator taking {index: the binary's summary JSON}, or None.

    Raises:
        PartitionFailed: the binary could not start, exited with an error (status 2 or a signal),
            wrote something that is not a stream of verdicts in input order, or a different number
            of verdicts than the partition holds records.
    """
    try:
        workdir = tempfile.mkdtemp(prefix="policy-spark-", dir=_spool_directory())
    except OSError as error:
        raise PartitionFailed(index, f"cannot make a scratch directory: {error.strerror or error}") from None
    process = None
    try:
        summary_path = os.path.join(workdir, "summary.json")
        stderr_path = os.path.join(workdir, "stderr")
        lines_path = os.path.join(workdir, "lines")
        # Unbuffered: every write's failure is the spool's, none is left for a flush on close.
        # An OSError from anything else is Spark's input failing, which Spark words itself.
        try:
            with open(lines_path, "wb", buffering=0) as output:
                spooled = spool(lines, output, command.max_line_bytes)
        except _ScratchWriteFailed as error:
            raise PartitionFailed(index, f"cannot write the partition's lines to {workdir}: {error}") from None
        binary, root = command.resolved()
        argv = command.argv(binary, summary_path)
        with open(stderr_path, "wb") as stderr, open(lines_path, "rb") as stdin:
            try:
                process = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=stderr, cwd=root)
            except OSError as error:
                raise PartitionFailed(index, f"cannot run {argv[0]}: {error.strerror or error}") from None
        verdicts = 0
        unreadable = None
        try:
            stream = pyarrow.ipc.open_stream(process.stdout)
            check_schema(stream.schema)
            places = _Places(spooled)
            last = 0
            pending = []
            rows = 0
            for batch in stream:
                if batch.num_rows == 0:
                    continue
                pending.append(batch)
                rows += batch.num_rows
                if rows >= _BATCH_ROWS:
                    judged, last = _partition_batch(pyarrow.concat_batches(pending), places, last)
                    verdicts += rows
                    yield judged
                    pending, rows = [], 0
            if pending:
                judged, last = _partition_batch(pyarrow.concat_batches(pending), places, last)
                verdicts += rows
                yield judged
            if process.stdout.read(1):
                raise _NotVerdicts("it wrote more after the end of its stream")
        except (_NotVerdicts, pyarrow.ArrowException) as error:
            unreadable = error
        stopped = False
        if unreadable is not None:
            # A binary that died ends its stream early: its status says why. One still running
            # after writing what is not a stream is stopped.
            try:
                process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                process.kill()
                stopped = True
        status = process.wait()
        if status not in (0, 1) and not stopped:
            raise PartitionFailed(index, f"{_exit_description(status)}: {_stderr_message(stderr_path)}")
        if unreadable is not None:
            raise PartitionFailed(index, f"policy-run batch wrote something that is not its stream of verdicts: {unreadable}")
        if verdicts != spooled.records:
            raise PartitionFailed(index, f"{spooled.records} records in, {verdicts} verdicts out")
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


def judge_arrow_partition(batches: Iterable, command: BatchCommand, summaries=None) -> Iterator[pyarrow.RecordBatch]:
    """`judge_partition` for `DataFrame.mapInArrow`: lines in and verdicts out as Arrow batches,
    so that no row is pickled, parsed or handled alone on its way between the JVM and the binary."""
    from pyspark import TaskContext

    return judge_partition(TaskContext.get().partitionId(), chunks(batches), command, summaries)
