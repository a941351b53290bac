"""Token logs judged on Spark: every partition through `policy-run batch`, verdicts as a DataFrame.

The design is shuffle-free: a partition's lines are piped to the binary on the executor that
read them and its verdicts come back in the same partition, so the work scales with executor
cores and nothing but the per-partition summaries reaches the driver.
"""

import atexit
import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass
from typing import List, Optional, Sequence

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (ArrayType, BooleanType, LongType, StringType, StructField, StructType)

from .options import RecordOptions
from .partition import BUNDLED_BINARY, DEFAULT_MAX_LINE_BYTES, BatchCommand, judge_arrow_partition
from .summary import PartitionSummaries, merge

# The partition's columns as Spark types (`partition.PARTITION_COLUMNS`): where each record is,
# then its verdict's members as `policy-run batch --output-format arrow` writes them, and the codes.
_FINDING = StructType([StructField("rule", StringType()), StructField("code", StringType()),
                       StructField("message", StringType()), StructField("at", StringType())])
PARTITION_SCHEMA = StructType([
    StructField("file", StringType(), False), StructField("block", LongType(), False), StructField("line", LongType(), False),
    StructField("policy", StringType()),
    StructField("valid", BooleanType()),
    StructField("verified", BooleanType()),
    StructField("codes", ArrayType(StringType())),
    StructField("findings", ArrayType(_FINDING)),
    StructField("iss", StringType()),
    StructField("kid", StringType()),
    StructField("key_freshness", StringType()),
    StructField("key_snapshot", StructType([StructField("seen", StringType()), StructField("file", StringType())])),
    StructField("outputs", StringType()),  # the policy's outputs, as JSON text
])
# The most a policy's directory may hold to be shipped to every executor.
MAX_SHIPPED_BYTES = 64 << 20


class BatchJobError(Exception):
    """A run that cannot start: no binary, a policy the binary refuses, options it rejects."""


@dataclass
class BatchJob:
    """A judged log: the verdicts (lazy, like any DataFrame) and the summary of what ran.

    `verdicts` has one row per record: `file`, `block` (the byte offset where the Spark split
    holding the line starts; 0 for a whole file, so `line` is then the file's line number),
    `line` (within the block, from 1), `policy`, `valid`, `verified`, `codes`, `findings`, `iss`,
    `kid` (as the token states them, unverified), `key_freshness`, `key_snapshot` and `outputs`
    (the policy's outputs as JSON text).
    """

    verdicts: DataFrame
    partitions: int
    _summaries: object

    def summary(self, seconds: Optional[float] = None) -> dict:
        """The partitions' summaries merged; call it after an action over all verdicts.

        Raises:
            BatchJobError: not every partition has been judged yet.
        """
        parts = self._summaries.value
        if len(parts) != self.partitions:
            raise BatchJobError(f"{len(parts)} of {self.partitions} partitions judged so far: "
                                "run an action over all verdicts (write them, or count them) first")
        return merge([parts[index] for index in sorted(parts)], seconds=seconds)


def find_binary(binary: Optional[str]) -> str:
    """The `policy-run` to use: the path given, else the one on PATH, as an absolute path."""
    candidate = binary or "policy-run"
    found = shutil.which(candidate)
    if found is None:
        where = f"'{binary}' is not an executable file" if binary else "no policy-run on PATH"
        raise BatchJobError(f"{where}: build it (swift build -c release) and pass --policy-run PATH, or put it on PATH")
    return os.path.abspath(found)


def preflight(binary: str, root: str, policy: str, arguments: Sequence[str]) -> None:
    """Runs the binary once on the driver over no records, so that a policy or option it refuses
    stops the run before any executor starts, with the binary's own message."""
    try:
        result = subprocess.run([binary, "batch", "--policy", policy, *arguments, "--jobs", "1", "-"],
                                input=b"", capture_output=True, timeout=120, cwd=root)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise BatchJobError(f"cannot run {binary}: {error}") from None
    if result.returncode != 0:
        message = [line for line in result.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        raise BatchJobError("; ".join(message) or f"{binary} batch exited with status {result.returncode}")


def bundle(binary: str, directory: str) -> str:
    """A copy of the binary and the policy's directory, for `SparkContext.addFile`, named by the
    digest of what it holds.

    Spark keeps the first file added under a name for the whole session: a bundle named by its
    content is the same bundle whenever its name is, so a second run with another policy or
    binary ships its own, and a repeated run ships nothing new.

    Raises:
        BatchJobError: the directory holds more than `MAX_SHIPPED_BYTES`: every executor would
            get a copy.
    """
    digest = hashlib.sha256()
    files = []
    total = 0
    for folder, subfolders, names in os.walk(directory):
        subfolders.sort()
        for name in sorted(names):
            path = os.path.join(folder, name)
            total += os.path.getsize(path)
            if total > MAX_SHIPPED_BYTES:
                raise BatchJobError(f"the policy's directory {directory} holds more than {MAX_SHIPPED_BYTES >> 20} MiB, "
                                    "and each executor would get a copy: keep the policy, its bases, keys and "
                                    "key history in a directory of their own, or run with --installed")
            files.append(os.path.relpath(path, directory))
    for relative in files:
        digest.update(relative.encode() + b"\0")
        with open(os.path.join(directory, relative), "rb") as stream:
            digest.update(hashlib.sha256(stream.read()).digest())
    with open(binary, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    staging = tempfile.mkdtemp(prefix="policy-spark-bundle-")
    atexit.register(shutil.rmtree, staging, True)
    name = f"policy-spark-{digest.hexdigest()[:24]}"
    shutil.copytree(directory, os.path.join(staging, name, os.path.basename(directory)))
    shutil.copy2(binary, os.path.join(staging, name, BUNDLED_BINARY))
    return os.path.join(staging, name)


def package_archive() -> str:
    """This package as a zip for `SparkContext.addPyFile`, named by its content: executors
    import it to run a partition, and need not have it installed."""
    package = os.path.dirname(os.path.abspath(__file__))
    sources = sorted(name for name in os.listdir(package) if name.endswith(".py"))
    digest = hashlib.sha256()
    for name in sources:
        with open(os.path.join(package, name), "rb") as stream:
            digest.update(name.encode() + b"\0" + hashlib.sha256(stream.read()).digest())
    staging = tempfile.mkdtemp(prefix="policy-spark-package-")
    atexit.register(shutil.rmtree, staging, True)
    archive = os.path.join(staging, f"policy_spark-{digest.hexdigest()[:24]}.zip")
    with zipfile.ZipFile(archive, "w") as output:
        for name in sources:
            output.write(os.path.join(package, name), f"policy_spark/{name}")
    return archive


def read_lines(spark: SparkSession, inputs: List[str]) -> DataFrame:
    """The inputs' lines as bytes, each with its file and Spark split.

    Lines end at `\\n` only, as `policy-run batch` reads them, and stay bytes: text that is not
    UTF-8 reaches the binary unchanged, to be refused there as it would be in a file. Compressed
    inputs are recognised by their extension (`.gz`, `.bz2`, …), as Hadoop does.
    """
    lines = spark.read.option("lineSep", "\n").text(inputs)
    return lines.select(F.col("value").cast("binary").alias("value"),
                        F.col("_metadata.file_path").alias("file"),
                        F.col("_metadata.file_block_start").alias("block"))


def judge_logs(spark: SparkSession, policy: str, inputs: List[str], options: RecordOptions = RecordOptions(),
               binary: Optional[str] = None, ship: bool = True) -> BatchJob:
    """Judges token logs on Spark with `policy-run batch`, one process per partition.

    Parameters:
        spark: the session; its master decides where partitions run.
        policy: the policy file, on the driver.
        inputs: files, directories or globs Spark can read (local, HDFS, S3, …).
        options: the record options, passed to the binary as written.
        binary: `policy-run`'s path on the driver; None finds it on PATH.
        ship: send the binary, the policy's directory and this package to the executors
            (`SparkContext.addFile` and `addPyFile`, named by their content);
            False runs both at the same paths on every node (installed there, or a shared disk).

    Returns:
        The verdicts, not computed yet, and their summary once they are.

    Raises:
        BatchJobError: no binary, or the binary refuses the policy or the options.
    """
    binary = find_binary(binary)
    policy = os.path.abspath(policy)
    directory = os.path.dirname(policy)
    # The binary runs beside the policy's directory, named as DIRECTORY/FILE on every node.
    relative = os.path.join(os.path.basename(directory), os.path.basename(policy))
    arguments = tuple(options.arguments())
    preflight(binary, os.path.dirname(directory), relative, arguments)
    context = spark.sparkContext
    cut = options.max_line_bytes or DEFAULT_MAX_LINE_BYTES
    jobs = int(context.getConf().get("spark.task.cpus", "1"))
    if ship:
        shipped = bundle(binary, directory)
        context.addFile(shipped, recursive=True)
        context.addPyFile(package_archive())
        command = BatchCommand(os.path.basename(shipped), relative, arguments, jobs, shipped=True, max_line_bytes=cut)
    else:
        command = BatchCommand(binary, relative, arguments, jobs, root=os.path.dirname(directory), max_line_bytes=cut)
    summaries = context.accumulator({}, PartitionSummaries())
    lines = read_lines(spark, inputs)
    verdicts = lines.mapInArrow(lambda batches: judge_arrow_partition(batches, command, summaries), PARTITION_SCHEMA)
    return BatchJob(verdicts, lines.rdd.getNumPartitions(), summaries)
