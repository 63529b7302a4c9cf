"""Master ``ray`` on a real local cluster: node loss, a killed state actor, locality, clean stop.

The session's cluster (``tests/ray_cluster.py``) has a head node without CPUs and two
worker nodes of one CPU each, so a ``SparkContext("ray")`` has one executor actor per
worker node. Every expected answer is computed in plain Python or by the same program
on ``local[2]``.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rdd import SparkContext
from rdd.nodes.base import ShuffleDependency, walk_narrow
from rdd.runtime import environment
from rdd.runtime.task_context import TaskContext

from dstream import StateSpec, StreamingContext
from dstream.testing import advance_batches, manual_clock
from tests.ray_cluster import RayTestCluster
from tests.rdd.processes import identify, is_running, wait_until

pytestmark = [pytest.mark.ray, pytest.mark.timeout(240)]

KEYS = [f"k{i}" for i in range(12)]
#: Distinct values (pickle would store one shared string once), big enough that every
#: map-output bucket (about 1.5 MB) lives in the object store of the node that wrote it,
#: not inlined in the driver's memory.
BLOB = "x" * 3000


def _executors(sc: SparkContext) -> dict[str, Any]:
    return sc._env.backend.actors()


def _node_of(sc: SparkContext, executor_id: str) -> str:
    import ray

    return ray.get(_executors(sc)[executor_id].node_id.remote(), timeout=30)


def test_a_node_removed_after_a_map_stage_loses_its_outputs_and_the_job_recovers(
        ray_cluster: RayTestCluster, make_sc: Callable[..., SparkContext]) -> None:
    from ray.experimental import get_object_locations

    sc = make_sc("ray")
    # Every record goes to reduce partition 0; the first job reads only partition 1 (empty
    # buckets), so no reducer has copied a big bucket to another node when one is removed.
    shuffled = sc.parallelize(range(2000), 4).map(lambda i: (i % 50, BLOB + str(i))).partitionBy(2, lambda key: 0)
    assert sc.runJob(shuffled, lambda it: [sum(1 for _ in it)], [1]) == [0]
    [(shuffle_id, outputs)] = sc._env.backend.map_outputs.items()
    holders = get_object_locations([buckets[0] for buckets in outputs.values()])
    nodes = {node for info in holders.values() for node in info["node_ids"]}
    assert len(nodes) >= 1 and all(len(info["node_ids"]) == 1 for info in holders.values()), holders
    victim = sorted(nodes)[0]
    [node] = [n for n in ray_cluster.worker_nodes() if n.node_id == victim]
    ray_cluster.remove_worker(node)
    ray_cluster.add_worker()  # room for the replacement executor
    try:
        counts = shuffled.mapValues(len).groupByKey().mapValues(len).collect()
        assert sorted(counts) == [(k, 40) for k in range(50)]
        [map_stage] = [d.stage for n in walk_narrow(shuffled._node) for d in n.dependencies
                       if isinstance(d, ShuffleDependency) and d.shuffle_id == shuffle_id]
        assert map_stage.attempt >= 1, "the lost map outputs were not re-run (no fetch failure?)"
        assert len(sc._env.backend.executor_ids()) == 2
    finally:
        wait_until(lambda: len(ray_cluster.worker_nodes()) == 2, 30, "two worker nodes again")


def _counted(key: str, value: int, state: Any) -> tuple[str, int]:
    total = (state.getOption() or 0) + value
    state.update(total)
    return (key, total)


def _run_state_stream(sc: SparkContext, checkpoint: Path, batches: int,
                      between: Callable[[int], None] | None = None) -> list[list[tuple[str, int]]]:
    sc.setCheckpointDir(str(checkpoint))
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    source = ssc.queueStream([], default=[(k, i % 3 + 1) for i, k in enumerate(KEYS)])
    out: list[list[tuple[str, int]]] = []
    source.mapWithState(StateSpec.function(_counted).numPartitions(2)).foreachRDD(
        lambda rdd: out.append(sorted(rdd.collect())))
    ssc.start()
    try:
        for batch in range(batches):
            if between is not None:
                between(batch)
            advance_batches(ssc, 1)
            assert ssc._engine.waiter.error is None, ssc._engine.waiter.error
    finally:
        ssc.stop(stopSparkContext=False)
    return out


def test_sigkill_of_the_actor_holding_map_with_state_state_matches_a_local_run(
        ray_cluster: RayTestCluster, make_sc: Callable[..., SparkContext], tmp_path: Path) -> None:
    sc = make_sc("ray")
    killed: list[Any] = []

    def kill_at_batch(batch: int) -> None:
        if batch == 4:
            pid = sc._env.backend.worker_pids()[0]
            killed.append(identify(pid))
            os.kill(pid, signal.SIGKILL)

    on_ray = _run_state_stream(sc, tmp_path / "ray", 8, kill_at_batch)
    assert killed and not is_running(killed[0])
    sc.stop()
    reference = _run_state_stream(make_sc("local[2]"), tmp_path / "local", 8)
    assert on_ray == reference
    assert on_ray[-1] == sorted((k, 8 * (i % 3 + 1)) for i, k in enumerate(KEYS))


def _where(key: str, value: int, state: Any) -> tuple[int, str]:
    state.update((state.getOption() or 0) + value)
    return (TaskContext.get().partitionId(), environment.current().executor_id)  # type: ignore[union-attr]


def test_state_tasks_stay_on_one_actor_across_batches(ray_cluster: RayTestCluster,
                                                      make_sc: Callable[..., SparkContext],
                                                      tmp_path: Path) -> None:
    sc = make_sc("ray")
    sc.setCheckpointDir(str(tmp_path))
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    source = ssc.queueStream([], default=[(k, 1) for k in KEYS])
    seen: set[tuple[int, str]] = set()
    source.mapWithState(StateSpec.function(_where).numPartitions(2)).foreachRDD(
        lambda rdd: seen.update(rdd.collect()))
    ssc.start()
    try:
        advance_batches(ssc, 10)
        assert ssc._engine.waiter.error is None
    finally:
        ssc.stop(stopSparkContext=False)
    by_partition: dict[int, set[str]] = {}
    for partition, executor in seen:
        by_partition.setdefault(partition, set()).add(executor)
    assert sorted(by_partition) == [0, 1]
    assert all(len(executors) == 1 for executors in by_partition.values()), by_partition


def test_stop_leaves_no_actor_process_and_frees_the_cpus(ray_cluster: RayTestCluster,
                                                         make_sc: Callable[..., SparkContext]) -> None:
    import ray

    sc = make_sc("ray")
    assert sc.defaultParallelism == 2
    assert sorted(sc.parallelize(range(100), 4).map(lambda x: (x % 5, x)).reduceByKey(
        lambda a, b: a + b).collect()) == [(k, sum(range(k, 100, 5))) for k in range(5)]
    processes = [identify(pid) for pid in sc._env.backend.worker_pids()]
    assert len(processes) == 2 and all(p is not None for p in processes)
    sc.stop()
    assert not [p for p in processes if p is not None and is_running(p)]
    wait_until(lambda: ray.available_resources().get("CPU", 0) == 2, 30, "both CPUs free again")


def _listening(pids: set[int]) -> list[str]:
    """The local addresses of the TCP sockets the processes ``pids`` listen on."""
    inodes: set[str] = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            next(f)
            for line in f:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                    found.append(_address(fields[1]))
    return found


def _address(hex_address: str) -> str:
    host, _ = hex_address.split(":")
    raw = bytes.fromhex(host)
    if len(raw) == 4:
        return ".".join(str(b) for b in reversed(raw))
    words = [raw[i:i + 4][::-1] for i in range(0, 16, 4)]
    flat = b"".join(words)
    if flat[:12] == b"\0" * 10 + b"\xff\xff":
        return ".".join(str(b) for b in flat[12:])
    return flat.hex()


def test_every_process_of_the_cluster_listens_on_127_0_0_1_only(ray_cluster: RayTestCluster,
                                                                make_sc: Callable[..., SparkContext]) -> None:
    sc = make_sc("ray")
    assert ray_cluster.addresses() == {"127.0.0.1"}
    pids = set(sc._env.backend.worker_pids())
    for node in [ray_cluster.cluster.head_node, *ray_cluster.worker_nodes()]:
        for infos in node.all_processes.values():
            pids.update(info.process.pid for info in infos)
    listening = _listening(pids)
    assert listening, "found no listening socket of the cluster (the check would be empty)"
    assert set(listening) == {"127.0.0.1"}, listening


def test_an_executor_that_cannot_see_the_drivers_directory_reads_broadcasts_from_the_object_store(
        ray_cluster: RayTestCluster, make_sc: Callable[..., SparkContext]) -> None:
    sc = make_sc("ray")
    table = sc.broadcast({i: i * i for i in range(100)})
    # As on another node: the driver's broadcast file is not there for the executors.
    os.unlink(os.path.join(sc._env.local_dir, "broadcast", f"{table.id}.pkl"))
    assert sorted(sc.parallelize(range(10), 4).map(lambda i: table.value[i]).collect()) == [i * i for i in range(10)]
    gone = sc.broadcast([1, 2, 3])
    gone.destroy()  # removes the file and the executors' references: no copy is left to read
    with pytest.raises(Exception, match=f"Broadcast {gone.id} was destroyed"):
        sc.parallelize([0], 1).map(lambda _: gone.value).collect()


def test_asking_for_more_cpus_than_the_cluster_offers_fails_at_once(ray_cluster: RayTestCluster,
                                                                    no_active_context: None) -> None:
    import ray

    with pytest.raises(ValueError, match=r"asks for 5 Ray executor\(s\) of 1 CPU\(s\) each, but the cluster "
                                         r"at .* offers 2 CPU\(s\)"):
        SparkContext("ray[5]", "too-big")
    assert getattr(SparkContext, "_active_spark_context", None) is None
    assert ray.is_initialized(), "the session's connection was not the context's to close"
