"""Input nodes: the sources of a DStream graph (queue; later files, receivers, Kafka)."""
