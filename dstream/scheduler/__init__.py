"""The streaming scheduler: time -> job sets (job_generator) -> run in order (job_scheduler)."""
