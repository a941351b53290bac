"""Token logs judged on Apache Spark by `policy-run batch`, one process per partition.

`judge_logs` returns the verdicts as a DataFrame and their summary; `python -m policy_spark`
writes them as JSON lines. See docs/scale.md.
"""

from .batch_job import BatchJob, BatchJobError, judge_logs
from .options import RecordOptions
from .partition import PartitionFailed

__all__ = ["BatchJob", "BatchJobError", "PartitionFailed", "RecordOptions", "judge_logs"]
__version__ = "0.16.0"
