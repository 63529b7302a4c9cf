"""The driver's connection to a Ray cluster: join one, or start a private local one.

What this module owns
---------------------
Where a ``SparkContext("ray")`` finds its cluster, in this order:

1. Ray already initialised in this process (the user called ``ray.init``): use it, and
   leave it connected at ``stop()``.
2. ``spark.ray.address``, else the ``RAY_ADDRESS`` environment variable: join that
   cluster, and disconnect at ``stop()`` (the cluster stays up).
3. Neither: start a local cluster as ``ray.init()`` does, bound to 127.0.0.1 only, and
   shut it down at ``stop()``.

Invariants
----------
- ``close()`` undoes exactly what ``open`` did, once.
- A local cluster started here listens on the loopback interface only: nothing outside
  the machine can reach a private cluster. Ray reads that choice when it is first
  imported, so it holds only if this module imports Ray first in the process.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

ADDRESS_KEY = "spark.ray.address"
#: Read by Ray when it is imported: ``0`` keeps a local cluster on 127.0.0.1 (Ray's
#: default for a machine that is not meant to join others; see the module notes).
_LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"

INSTALL_HINT = "install the Ray extra: pip install 'dstreams[ray]'"


def import_ray(local_cluster: bool) -> Any:
    """Import Ray (with a clear error when it is missing)."""
    if local_cluster and "ray" not in sys.modules:
        os.environ.setdefault(_LOOPBACK_ENV, "0")
    try:
        import ray
    except ImportError as exc:
        raise ImportError(f"master 'ray' needs the Ray package, which is not installed: {INSTALL_HINT}") from exc
    return ray


@dataclass
class RayConnection:
    """How this context reached Ray, so that :meth:`close` undoes only that."""

    ray: Any
    owns_connection: bool   # we called ray.init: we call ray.shutdown
    started_cluster: bool   # that ray.init started a local cluster (shut down with it)
    address: str

    @classmethod
    def open(cls, address: str | None) -> RayConnection:
        address = address or os.environ.get("RAY_ADDRESS") or None
        ray = import_ray(local_cluster=address is None)
        if ray.is_initialized():
            return cls(ray, False, False, _gcs_address(ray))
        options: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
        if address is None:
            ray.init(address="local", include_dashboard=False, _node_ip_address="127.0.0.1", **options)
        else:
            ray.init(address=address, **options)
        return cls(ray, True, address is None, _gcs_address(ray))

    def cpus(self) -> int:
        """The CPUs the cluster offers (all nodes)."""
        return int(self.ray.cluster_resources().get("CPU", 0))

    def close(self) -> None:
        if self.owns_connection and self.ray.is_initialized():
            self.ray.shutdown()
        self.owns_connection = False


def _gcs_address(ray: Any) -> str:
    try:
        return str(ray.get_runtime_context().gcs_address)
    except Exception:  # noqa: BLE001 - only for messages and the UI
        return "?"
