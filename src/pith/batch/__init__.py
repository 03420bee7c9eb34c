"""`pith batch`: many agent runs from a tasks file, each in its own workspace (docs/batch.md).

Parsing and checking the tasks file, preparing workspaces, running each task as a `pith -p`
process (here on worker threads, or as Ray tasks on a cluster), and the results file.
"""

from __future__ import annotations

from pith.batch._batch import RESULTS, BatchConfig, BatchOutcome, run_batch
from pith.batch._progress import format_summary, summary_json
from pith.batch._results import STATUSES, append_row, latest_rows
from pith.batch._task_run import RunSpec, task_status
from pith.batch._tasks import Task, parse_tasks, read_tasks

__all__ = [
    "RESULTS",
    "STATUSES",
    "BatchConfig",
    "BatchOutcome",
    "RunSpec",
    "Task",
    "append_row",
    "format_summary",
    "latest_rows",
    "parse_tasks",
    "read_tasks",
    "run_batch",
    "summary_json",
    "task_status",
]
