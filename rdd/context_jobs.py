"""ContextJobs: job tags (``addJobTag`` ... ``cancelJobsWithTag``) and ``statusTracker`` of ``SparkContext``.

What this module owns
---------------------
* Job tags, as Spark 3.5 has them: a set of tags per thread, kept in the thread's local
  property ``spark.job.tags`` (comma-separated, as Spark stores it), so every job the
  thread starts carries them; ``cancelJobsWithTag`` cancels the running and waiting jobs
  that carry a tag, as ``cancelJobGroup`` does for a group.
* :class:`StatusTracker`, PySpark's low-level view of jobs and stages, read from the
  context's status store. Like Spark's it is weakly consistent: a job shows up, and its
  stages progress, a few tens of milliseconds after the scheduler did the work (the
  listener thread delivers in batches). Without the web UI or the progress bar the store
  is fed from the first ``statusTracker()`` call on: jobs before it are not known.

Invariants
----------
* A tag is a non-empty string without ``,`` (the separator of the local property).
* The tracker returns copies (named tuples); it never holds the store's lock past a call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from .status.entities import JOB_TAGS_KEY, job_tags

if TYPE_CHECKING:
    from .env import Env

__all__ = ["ContextJobs", "SparkJobInfo", "SparkStageInfo", "StatusTracker"]


def _check_tag(tag: Any) -> str:
    if not isinstance(tag, str) or not tag:
        raise ValueError(f"a job tag must be a non-empty str, got {tag!r}")
    if "," in tag:
        raise ValueError(f"a job tag cannot contain ',' (it separates the tags of a job), got {tag!r}")
    return tag


class SparkJobInfo(NamedTuple):
    """A job's id, stage ids and status (``RUNNING``, ``SUCCEEDED``, ``FAILED`` or ``UNKNOWN``)."""

    jobId: int
    stageIds: list[int]
    status: str


class SparkStageInfo(NamedTuple):
    """A stage's latest attempt: its name and task counts."""

    stageId: int
    currentAttemptId: int
    name: str
    numTasks: int
    numActiveTasks: int
    numCompletedTasks: int
    numFailedTasks: int


class StatusTracker:
    """Job and stage progress of a context (PySpark's ``StatusTracker``; see the module doc).

    Get it with ``sc.statusTracker()``.
    """

    def __init__(self, store: Any) -> None:
        self._store = store

    def getJobIdsForGroup(self, jobGroup: str | None = None) -> list[int]:  # noqa: N802,N803 - PySpark's names
        """Ids of the known jobs of ``jobGroup`` (of no group when ``None``)."""
        return [j["jobId"] for j in self._store.jobs() if j.get("jobGroup") == jobGroup]

    def getJobIdsForTag(self, jobTag: str) -> list[int]:  # noqa: N802,N803
        """Ids of the known jobs carrying ``jobTag``."""
        return [j["jobId"] for j in self._store.jobs() if jobTag in j.get("jobTags", [])]

    def getActiveStageIds(self) -> list[int]:  # noqa: N802
        """Ids of the stages running now."""
        return sorted({s["stageId"] for s in self._store.stages({"ACTIVE"})})

    def getActiveJobsIds(self) -> list[int]:  # noqa: N802
        """Ids of the jobs running now."""
        return sorted(j["jobId"] for j in self._store.jobs({"RUNNING"}))

    def getJobInfo(self, jobId: int) -> SparkJobInfo | None:  # noqa: N802,N803
        """The job ``jobId``, or ``None`` if it is unknown (not seen yet, or no longer retained)."""
        job = self._store.job(jobId)
        if job is None:
            return None
        return SparkJobInfo(job["jobId"], list(job.get("stageIds", [])), job["status"])

    def getStageInfo(self, stageId: int) -> SparkStageInfo | None:  # noqa: N802,N803
        """The latest attempt of stage ``stageId``, or ``None`` if it is unknown."""
        attempts = self._store.stage_attempts(stageId, details=False)
        if not attempts:
            return None
        last = attempts[-1]
        return SparkStageInfo(last["stageId"], last["attemptId"], last.get("name", ""), last["numTasks"],
                              last["numActiveTasks"], last["numCompleteTasks"], last["numFailedTasks"])


class ContextJobs:
    """Job tags and the status tracker; mixed into :class:`rdd.context.SparkContext`."""

    _env: Env

    if TYPE_CHECKING:
        def _properties(self) -> dict[str, str]: ...  # SparkContext's
        def setLocalProperty(self, key: str, value: str | None) -> None: ...  # noqa: N802

    def _tags(self) -> set[str]:
        return set(job_tags(self._properties()))

    def _set_tags(self, tags: set[str]) -> None:
        self.setLocalProperty(JOB_TAGS_KEY, ",".join(sorted(tags)) if tags else None)

    def addJobTag(self, tag: str) -> None:  # noqa: N802 - PySpark's name
        """Tag the jobs this thread starts from now on with ``tag`` (see :meth:`cancelJobsWithTag`)."""
        self._set_tags(self._tags() | {_check_tag(tag)})

    def removeJobTag(self, tag: str) -> None:  # noqa: N802
        """Stop tagging this thread's jobs with ``tag``."""
        self._set_tags(self._tags() - {_check_tag(tag)})

    def getJobTags(self) -> set[str]:  # noqa: N802
        """The tags this thread's jobs get."""
        return self._tags()

    def clearJobTags(self) -> None:  # noqa: N802
        """Stop tagging this thread's jobs."""
        self._set_tags(set())

    def cancelJobsWithTag(self, tag: str) -> None:  # noqa: N802
        """Cancel the running and waiting jobs that carry ``tag`` (as ``cancelJobGroup`` does for a group)."""
        self._env.runner.cancel(f"part of cancelled job tags {_check_tag(tag)}", tag=tag)

    def setInterruptOnCancel(self, interruptOnCancel: bool) -> None:  # noqa: N802,N803
        """Accepted for PySpark compatibility: a cancelled job's tasks are always stopped here."""
        self.setLocalProperty("spark.job.interruptOnCancel", str(bool(interruptOnCancel)).lower())

    def statusTracker(self) -> StatusTracker:  # noqa: N802
        """A :class:`StatusTracker` of this context's jobs and stages."""
        self._env.track_status()
        return StatusTracker(self._env.status_store)
