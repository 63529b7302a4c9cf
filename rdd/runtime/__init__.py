"""The per-process and per-task runtime: what code running in a process may ask about it.

``environment.py`` holds this process's executor environment (its id, the context's local
directory, its shuffle store); ``task_context.py`` the :class:`TaskContext` of the task
running in this thread. Invariant: this package imports nothing of ``rdd``, so every
other layer (nodes computing partitions, the shuffle, the executors) may read it; what
the runtime holds is installed from above (the driver's ``Env``, a worker's set-up).
"""
