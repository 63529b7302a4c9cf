"""Streaming checkpoints: metadata files, and recovery of a context from them."""
