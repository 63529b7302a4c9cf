"""The DAG scheduler: stages cut at shuffles, tasks, task contexts and job results."""
