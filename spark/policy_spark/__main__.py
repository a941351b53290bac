"""`python -m policy_spark`: token logs judged on Spark, verdicts written as JSON lines.

Exit status as `policy-run batch`: 0 every record valid, 1 any invalid, 2 a usage, policy, input
or partition error (its message on standard error).
"""

import argparse
import json
import re
import sys
import time
from typing import List, Optional

# Absolute imports: spark-submit runs this file as a script (the package installed, or on PYTHONPATH).
from policy_spark.batch_job import BatchJobError, find_binary, judge_logs
from policy_spark.options import RecordOptions
from policy_spark.output_file import OutputFile, OutputFileError
from policy_spark.partition import PartitionFailed
from policy_spark.summary import render


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m policy_spark",
        description="Judge token logs on Spark: every partition through `policy-run batch`, "
                    "verdicts written as JSON lines (Spark's write.json), a summary on standard error.")
    parser.add_argument("--policy", required=True, help="the policy file (its directory is shipped with it)")
    parser.add_argument("--input", required=True, action="append", metavar="PATH",
                        help="token logs: a file, directory or glob Spark reads, e.g. 'logs/*.gz' (repeatable)")
    parser.add_argument("--output", required=True, metavar="DIR", help="the directory the verdicts are written to")
    records = parser.add_argument_group("records (passed to policy-run batch as written)")
    records.add_argument("--input-format", choices=["jsonl", "lines"])
    records.add_argument("--token-field", metavar="NAME")
    records.add_argument("--time-field", metavar="NAME")
    records.add_argument("--var-field", action="append", default=[], metavar="NAME=FIELD")
    records.add_argument("--var", action="append", default=[], metavar="NAME=VALUE")
    records.add_argument("--now", metavar="TIME", help="the time of records without one (default: the clock)")
    records.add_argument("--no-cache", action="store_true", help="verify every signature, even of tokens seen before")
    records.add_argument("--max-line-bytes", type=int, metavar="BYTES")
    run = parser.add_argument_group("run")
    run.add_argument("--policy-run", metavar="PATH", help="the policy-run binary (default: the one on PATH)")
    run.add_argument("--installed", action="store_true",
                     help="the binary and policy are at these paths on every node: ship nothing")
    run.add_argument("--master", help="Spark's master (default: spark-submit's, else local[*])")
    run.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                     help="a Spark setting, as spark-submit's --conf (repeatable)")
    run.add_argument("--only-invalid", action="store_true", help="write only invalid verdicts; the summary counts all")
    run.add_argument("--overwrite", action="store_true", help="replace the output directory if it exists")
    run.add_argument("--summary-json", metavar="FILE", help="also write the summary as JSON ('-': standard output)")
    run.add_argument("--log-level", default="ERROR", help="Spark's log level (default ERROR)")
    return parser


def _partition_message(error: BaseException) -> Optional[str]:
    """The partition failure inside Spark's wrapped executor error, if that is what it is."""
    found = re.search(re.escape(PartitionFailed.MARKER) + r"(.*)", str(error))
    return found.group(1).strip() if found else None


def _spark_message(error: BaseException) -> str:
    """Spark's own error in a line: the JVM's message and its root cause, else the first line."""
    cause = getattr(error, "java_exception", None)
    if cause is not None:
        first = cause.getMessage() or cause.toString()
        while cause.getCause() is not None:
            cause = cause.getCause()
        message = first if cause.getMessage() == first else f"{first} ({cause.toString()})"
    else:
        message = str(error)
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    text = lines[0] if lines else type(error).__name__
    return re.sub(r"\s*SQLSTATE: \w+\.?", "", text)


def main(argv: Optional[List[str]] = None) -> int:
    arguments = _parser().parse_args(argv)
    try:
        binary = find_binary(arguments.policy_run)
        summary_file = OutputFile(arguments.summary_json) if arguments.summary_json not in (None, "-") else None
    except (BatchJobError, OutputFileError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        return _run(arguments, binary, summary_file)
    finally:
        if summary_file is not None:
            summary_file.discard()


def _run(arguments: argparse.Namespace, binary: str, summary_file: Optional[OutputFile]) -> int:
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("policy-spark")
    if arguments.master:
        builder = builder.master(arguments.master)
    elif not SparkConf().contains("spark.master"):
        builder = builder.master("local[*]")
    for setting in arguments.conf:
        key, equals, value = setting.partition("=")
        if not equals or not key:
            print(f"error: --conf expects KEY=VALUE, got '{setting}'", file=sys.stderr)
            return 2
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(arguments.log_level)
    options = RecordOptions(input_format=arguments.input_format, token_field=arguments.token_field,
                            time_field=arguments.time_field, var_fields=arguments.var_field,
                            variables=arguments.var, now=arguments.now, no_cache=arguments.no_cache,
                            max_line_bytes=arguments.max_line_bytes)
    started = time.monotonic()
    failure = None
    try:
        job = judge_logs(spark, arguments.policy, arguments.input, options, binary=binary,
                         ship=not arguments.installed)
        verdicts = job.verdicts.where(~job.verdicts.valid) if arguments.only_invalid else job.verdicts
        verdicts.write.mode("overwrite" if arguments.overwrite else "errorifexists").json(arguments.output)
        summary = job.summary(seconds=time.monotonic() - started)
    except BatchJobError as error:
        failure = str(error)
    except Exception as error:  # Spark's errors arrive wrapped (Py4J, captured analysis errors)
        failure = _partition_message(error) or _spark_message(error)
    finally:
        spark.stop()
    if failure is not None:
        print(f"error: {failure}", file=sys.stderr)
        return 2
    sys.stderr.write(render(summary))
    text = json.dumps(summary, indent=2) + "\n"
    if arguments.summary_json == "-":
        sys.stdout.write(text)
    elif summary_file is not None:
        try:
            summary_file.commit(text)
        except OutputFileError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    return 0 if summary["invalid"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
