"""The DAG scheduler: stages cut at shuffles, tasks, the events backends report, job results.

It sits above lineage nodes, storage and the shuffle, and below the executors: a backend
imports ``scheduler.task`` and ``scheduler.events``; nothing here imports ``rdd.executor``.
"""
