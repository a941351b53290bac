"""Spark's time per log in one warm session: what `Benchmarks spark` takes its per-record ratio from.

Usage: python3 Benchmarks/spark-warm.py POLICY POLICY_RUN OUTPUT RESULT ROUNDS LOG:RECORDS...
(PYTHONPATH holding spark/). Starts one local[2] session, judges the first log once to warm it
(the JVM's compilers, the session, the shipped binary), then judges every log ROUNDS times in
turn, each writing every verdict as JSON lines to OUTPUT as `python -m policy_spark` does, and
checks each run judged the log's RECORDS. Writes {"LOG": [seconds, ...]} to RESULT as JSON: a whole-process
run's fixed start varies by seconds from run to run (JIT and GC threads competing for the same
two cores), which the difference of two runs does not cancel; inside one session it does.
"""
import json
import sys
import time

from pyspark.sql import SparkSession

from policy_spark import judge_logs


def main() -> int:
    policy, binary, output, result, rounds, *logs = sys.argv[1:]
    sized = [(log.rsplit(":", 1)[0], int(log.rsplit(":", 1)[1])) for log in logs]
    spark = (SparkSession.builder.master("local[2]").appName("spark-warm")
             .config("spark.sql.files.maxPartitionBytes", "32m").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    seconds = {log: [] for log, _ in sized}
    try:
        for round in range(int(rounds) + 1):
            for log, records in sized[:1] if round == 0 else sized:
                started = time.monotonic()
                job = judge_logs(spark, policy, [log], binary=binary)
                job.verdicts.write.mode("overwrite").json(output)
                elapsed = time.monotonic() - started
                judged = job.summary()["records"]
                if judged != records:
                    print(f"spark-warm: {log}: {judged} records judged, {records} expected", file=sys.stderr)
                    return 1
                if round > 0:
                    seconds[log].append(elapsed)
    finally:
        spark.stop()
    with open(result, "w", encoding="utf-8") as stream:
        json.dump(seconds, stream)
    return 0


if __name__ == "__main__":
    sys.exit(main())
