"""The session's Ray cluster, for the tests that run on master ``ray`` (``make test-ray``).

One ``ray.cluster_utils.Cluster`` per test session: a head node with no CPU (so no
executor lands on it) and two worker nodes of one CPU each, every process of it bound
to 127.0.0.1, the dashboard off. The test process connects to it once; every
``SparkContext("ray")`` of the session joins that connection, so a context starts its
two executor actors (one per worker node) and nothing else. Tests that remove or add
nodes restore the two worker nodes before they end.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

RAY_MASTER = "ray"
WORKER_NODES = 2
#: Node failure is noticed within about a second (Ray's default is half a minute).
_HEALTH_CHECKS = {"health_check_initial_delay_ms": 0, "health_check_period_ms": 200,
                  "health_check_failure_threshold": 5}


class RayTestCluster:
    """The running cluster and the few operations the failure tests need."""

    def __init__(self) -> None:
        import ray
        from ray.cluster_utils import Cluster

        self.ray = ray
        self.cluster = Cluster(initialize_head=True, head_node_args={
            "num_cpus": 0, "node_ip_address": "127.0.0.1", "include_dashboard": False,
            "_system_config": _HEALTH_CHECKS})
        for _ in range(WORKER_NODES):
            self.add_worker()
        self.cluster.wait_for_nodes()
        ray.init(address=self.cluster.address, log_to_driver=False, configure_logging=False)

    def add_worker(self) -> Any:
        return self.cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")

    def remove_worker(self, node: Any) -> None:
        self.cluster.remove_node(node, allow_graceful=False)

    def worker_nodes(self) -> list[Any]:
        return list(self.cluster.worker_nodes)

    def addresses(self) -> set[str]:
        """Every address a node of the cluster reports (raylet, object store, GCS)."""
        found = {self.cluster.address.rsplit(":", 1)[0]}
        for node in self.ray.nodes():
            found.add(node["NodeManagerAddress"])
        return found

    def shutdown(self) -> None:
        self.ray.shutdown()
        self.cluster.shutdown()


@pytest.fixture(scope="session")
def ray_cluster(context_pool: Any) -> Iterator[RayTestCluster]:
    # Ray reads this when first imported: 0 keeps every process on 127.0.0.1.
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    cluster = RayTestCluster()
    try:
        yield cluster
    finally:
        context_pool.unpin()
        context_pool.evict(reason="the Ray cluster is shutting down")
        cluster.shutdown()
