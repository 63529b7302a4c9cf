"""Shuffle: map tasks write one bucketed file each; reduce tasks read their bucket.

Files: ``<local_dir>/shuffle/<shuffle_id>/<map_id>.data`` holds every bucket of one
map task back to back (each a pickled list of records), and ``<map_id>.index`` holds
the ``num_reduce + 1`` byte offsets. Both are written under temporary names and
renamed, data first, so a reader that finds the index finds a complete data file. A
missing file raises ``FetchFailedError``, which makes the scheduler re-run that map
task from lineage.
"""
