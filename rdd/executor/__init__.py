"""Executor backends: where tasks run (inline in the driver, or worker processes).

Above the scheduler: backends take ``scheduler.task.TaskSpec`` and report
``scheduler.events``; the contract every backend keeps is in ``backend.py``.
"""
