"""Block storage: storage levels, block ids and the per-process block manager."""
