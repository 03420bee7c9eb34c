"""The `summarize` strategy's summaries: what to summarize and the prompt (`_jobs`), one request
(`_request`), the model choice, the early requests and the fallback to the session model
(`_summarizer`, `_fallback`), recording them in the session (`_recorder`).
"""

from pith.ext.prune.summaries._jobs import SUMMARY_HEADER, SUMMARY_SYSTEM_PROMPT
from pith.ext.prune.summaries._recorder import SummaryRecorder
from pith.ext.prune.summaries._summarizer import Summaries

__all__ = [
    "SUMMARY_HEADER",
    "SUMMARY_SYSTEM_PROMPT",
    "Summaries",
    "SummaryRecorder",
]
