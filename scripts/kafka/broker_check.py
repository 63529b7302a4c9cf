#!/usr/bin/env python3
"""Probe a Kafka-protocol broker ($KAFKA_BOOTSTRAP, else 127.0.0.1:9092) with kafka-python 3.x.

Focus: what a Spark-style *direct stream* source needs (explicit offset ranges
per partition, beginning/end offsets, timestamps, group commits), plus a few
extras (compression, headers, transactions, auto-create, add partitions).

Each check prints PASS / FAIL / WARN with details; a summary is printed at the
end.  Every network call has a bounded timeout so the script cannot hang.

Usage:  python broker_check.py [bootstrap] [--n 10000]
        bash scripts/kafka/kafka-maven.sh run -- python scripts/kafka/broker_check.py

The bootstrap address defaults to
$KAFKA_BOOTSTRAP (the script's `run` sets it; ports are chosen freely), and a compression
codec whose Python library is not installed is a WARN, not a FAIL (the client lacks it,
the broker does not).
"""
import argparse
import json
import logging
import os
import sys
import time
import traceback
import uuid

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic
from kafka.structs import OffsetAndMetadata

RESULTS = []


def record(name, status, detail=""):
    RESULTS.append((name, status, detail))
    print(f"[{status}] {name}: {detail}", flush=True)


def check(name):
    """Decorator: run a check, record FAIL with the exception on error."""
    def deco(fn):
        def wrapper(*a, **kw):
            t0 = time.time()
            try:
                out = fn(*a, **kw)
                return out
            except Exception as e:  # noqa: BLE001
                tb = traceback.format_exc(limit=3)
                record(name, "FAIL", f"{type(e).__name__}: {e}  ({time.time()-t0:.1f}s)\n{tb}")
                return None
        return wrapper
    return deco


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bootstrap", nargs="?", default=os.environ.get("KAFKA_BOOTSTRAP", "127.0.0.1:9092"),
                    help="host:port (default: $KAFKA_BOOTSTRAP, else 127.0.0.1:9092)")
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--debug", action="store_true")
    args = ap.parse_args()
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    BS = args.bootstrap
    N = args.n
    run = uuid.uuid4().hex[:6]
    TOPIC = f"dstream-{run}"
    common = dict(bootstrap_servers=BS, request_timeout_ms=15000)

    # ------------------------------------------------------------------ admin
    admin = None

    @check("admin.connect+api_versions")
    def _admin():
        nonlocal admin
        t0 = time.time()
        admin = KafkaAdminClient(**common)
        dt = time.time() - t0
        try:
            ver = admin._manager.broker_version
        except Exception:  # noqa: BLE001
            ver = "?"
        try:
            av = admin.api_versions()
            nkeys = len(av) if hasattr(av, "__len__") else "?"
        except Exception as e:  # noqa: BLE001
            av, nkeys = None, f"api_versions() failed: {e!r}"
        record("admin.connect+api_versions", "PASS",
               f"connected in {dt*1000:.0f} ms; client-inferred broker_version={ver}; api_versions entries={nkeys}")
        return av
    av = _admin()
    if admin is None:
        print("cannot connect admin; abort")
        return summary()
    if av is not None:
        try:
            print("  api_versions:", json.dumps({str(k): v for k, v in dict(av).items()}, default=str)[:3000])
        except Exception:  # noqa: BLE001
            print("  api_versions (raw):", str(av)[:3000])

    @check("admin.describe_cluster")
    def _cluster():
        # not needed by a direct stream -> WARN, not FAIL (kafka-python 3 raises KeyError 'endpoint_type'
        # on some non-Apache brokers' DescribeCluster responses)
        try:
            c = admin.describe_cluster()
        except Exception as e:  # noqa: BLE001
            record("admin.describe_cluster", "WARN", f"{type(e).__name__}: {e}")
            return
        record("admin.describe_cluster", "PASS", str(c)[:400])
    _cluster()

    @check("admin.create_topics(3 partitions)")
    def _create():
        t0 = time.time()
        r = admin.create_topics([NewTopic(TOPIC, num_partitions=3, replication_factor=1)],
                                timeout_ms=10000)
        dt = time.time() - t0
        md = admin.describe_topics([TOPIC])
        parts = sorted(p["partition_index"] for p in md[0]["partitions"])
        leaders = sorted({p["leader_id"] for p in md[0]["partitions"]})
        st = "PASS" if parts == [0, 1, 2] else "FAIL"
        record("admin.create_topics(3 partitions)", st,
               f"{dt*1000:.0f} ms; result={str(r)[:200]}; partitions={parts}; leaders={leaders}; "
               f"error_code={md[0].get('error_code')}")
    _create()

    @check("admin.list_topics")
    def _list():
        ts = admin.list_topics()
        record("admin.list_topics", "PASS" if TOPIC in ts else "FAIL", f"{ts}")
    _list()

    @check("admin.create_topics(duplicate) -> TopicAlreadyExists")
    def _dup():
        try:
            admin.create_topics([NewTopic(TOPIC, num_partitions=3, replication_factor=1)], timeout_ms=5000)
            record("admin.create_topics(duplicate) -> TopicAlreadyExists", "WARN", "no error raised")
        except Exception as e:  # noqa: BLE001
            st = "PASS" if "TopicAlreadyExists" in type(e).__name__ else "WARN"
            record("admin.create_topics(duplicate) -> TopicAlreadyExists", st, f"{type(e).__name__}: {e}")
    _dup()

    @check("admin.describe_configs(topic)")
    def _cfg():
        from kafka.admin import ConfigResource, ConfigResourceType
        r = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, TOPIC)], config_filter="all")
        s = str(r)
        record("admin.describe_configs(topic)", "PASS", s[:600])
    _cfg()

    # --------------------------------------------------------------- produce
    base_ts = int(time.time() * 1000) - 3_600_000  # 1 h ago, +1 ms per message
    sent = {}  # (partition, offset) -> (key, i, ts)

    @check("produce N keyed msgs (idempotent default, acks=all)")
    def _produce(idem=True, name="produce N keyed msgs (idempotent default, acks=all)"):
        p = KafkaProducer(**common, acks="all", enable_idempotence=idem, linger_ms=5,
                          key_serializer=str.encode, value_serializer=lambda v: json.dumps(v).encode(),
                          max_block_ms=15000)
        t0 = time.time()
        futs = []
        for i in range(N):
            k = f"key-{i % 100}"
            futs.append((k, i, base_ts + i, p.send(TOPIC, key=k, value={"i": i, "k": k}, timestamp_ms=base_ts + i)))
        p.flush(timeout=60)
        dt = time.time() - t0
        errs = 0
        first_err = None
        for k, i, ts, f in futs:
            try:
                md = f.get(timeout=30)
                sent[(md.partition, md.offset)] = (k, i, ts, md.timestamp)
            except Exception as e:  # noqa: BLE001
                errs += 1
                first_err = first_err or repr(e)
        p.close(timeout=5)
        per_part = {}
        for (pp, _o) in sent:
            per_part[pp] = per_part.get(pp, 0) + 1
        st = "PASS" if errs == 0 and len(sent) == N else "FAIL"
        record(name, st, f"{N} msgs in {dt:.2f}s = {N/dt:,.0f} msg/s; errors={errs} first={first_err}; "
               f"per-partition={dict(sorted(per_part.items()))}")
        return st == "PASS"
    ok = _produce()
    if not ok:
        sent.clear()
        # retry on a fresh topic without idempotence
        TOPIC2 = TOPIC + "-noidem"
        try:
            admin.create_topics([NewTopic(TOPIC2, num_partitions=3, replication_factor=1)], timeout_ms=10000)
        except Exception as e:  # noqa: BLE001
            print("create", TOPIC2, e)
        TOPIC = TOPIC2  # noqa: F841 (rebinding intentionally)
        _produce(idem=False, name="produce N keyed msgs (enable_idempotence=False)")

    # key -> partition stickiness
    @check("key->single partition")
    def _keys():
        kp = {}
        for (pp, _o), (k, *_r) in sent.items():
            kp.setdefault(k, set()).add(pp)
        bad = {k: v for k, v in kp.items() if len(v) > 1}
        record("key->single partition", "PASS" if not bad else "FAIL", f"{len(kp)} keys, multi-partition keys={bad}")
    _keys()

    # RecordMetadata offsets contiguous per partition
    @check("producer offsets contiguous 0..n-1 per partition")
    def _contig():
        bad = []
        for pp in range(3):
            offs = sorted(o for (p2, o) in sent if p2 == pp)
            if offs and offs != list(range(offs[0], offs[0] + len(offs))):
                bad.append(pp)
            if offs and offs[0] != 0:
                bad.append((pp, "starts at", offs[0]))
        record("producer offsets contiguous 0..n-1 per partition", "PASS" if not bad else "FAIL", f"bad={bad}")
    _contig()

    tps = [TopicPartition(TOPIC, p) for p in range(3)]

    # --------------------------------------------------------------- offsets
    begin = end = None

    @check("consumer.beginning_offsets/end_offsets")
    def _offs():
        nonlocal begin, end
        c = KafkaConsumer(**common, group_id=None, enable_auto_commit=False)
        t0 = time.time()
        begin = c.beginning_offsets(tps, timeout_ms=10000)
        end = c.end_offsets(tps, timeout_ms=10000)
        dt = time.time() - t0
        c.close()
        expected = {p: sum(1 for (p2, _o) in sent if p2 == p) for p in range(3)}
        ok = all(begin[tp] == 0 for tp in tps) and all(end[tp] == expected[tp.partition] for tp in tps)
        record("consumer.beginning_offsets/end_offsets", "PASS" if ok else "FAIL",
               f"{dt*1000:.0f} ms; begin={ {tp.partition: v for tp, v in begin.items()} } "
               f"end(ListOffsets LATEST)={ {tp.partition: v for tp, v in end.items()} } expected_end={expected}")
        if not ok:
            # fall back to the true log end = producer-reported last offset + 1, so later checks test reads
            for tp in tps:
                end[tp] = expected[tp.partition]
            print("  NOTE: later checks use the producer-reported log end offsets", flush=True)
    _offs()

    @check("admin.list_partition_offsets(earliest/latest/max_timestamp)")
    def _lpo():
        from kafka.admin import OffsetSpec
        out = {}
        for spec in (OffsetSpec.EARLIEST, OffsetSpec.LATEST, OffsetSpec.MAX_TIMESTAMP):
            try:
                r = admin.list_partition_offsets({tp: spec for tp in tps}, timeout_ms=10000)
                out[spec.name] = {tp.partition: (v.offset, v.timestamp) for tp, v in r.items()}
            except Exception as e:  # noqa: BLE001
                out[spec.name] = f"{type(e).__name__}: {e}"
        bad = any(isinstance(v, str) for v in out.values())
        # max_timestamp should point at the last record of each partition (ts = base+i increasing)
        record("admin.list_partition_offsets(earliest/latest/max_timestamp)", "WARN" if bad else "PASS", str(out))
    _lpo()

    # ---------------------------------------------- direct-stream offset ranges
    def read_range(tp, frm, until, timeout_s=20, **extra):
        """Assign, seek(frm), poll until position >= until. Return list of records in [frm, until)."""
        c = KafkaConsumer(**common, group_id=None, enable_auto_commit=False,
                          auto_offset_reset="none", fetch_max_wait_ms=100, **extra)
        c.assign([tp])
        c.seek(tp, frm)
        got = []
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            recs = c.poll(timeout_ms=500)
            for r in recs.get(tp, []):
                if r.offset < until:
                    got.append(r)
            if c.position(tp) >= until:
                break
        pos = c.position(tp)
        c.close()
        return got, pos

    @check("direct-stream: full ranges [begin,end) per partition")
    def _full():
        t0 = time.time()
        total = 0
        problems = []
        for tp in tps:
            got, pos = read_range(tp, begin[tp], end[tp])
            total += len(got)
            offs = [r.offset for r in got]
            if offs != list(range(begin[tp], end[tp])):
                problems.append((tp.partition, len(offs), offs[:3], offs[-3:] if offs else None, "pos", pos))
            for r in got:
                k, i, ts, _mts = sent[(tp.partition, r.offset)]
                v = json.loads(r.value)
                if r.key.decode() != k or v["i"] != i:
                    problems.append(("content mismatch", tp.partition, r.offset))
                    break
        dt = time.time() - t0
        record("direct-stream: full ranges [begin,end) per partition",
               "PASS" if not problems and total == N else "FAIL",
               f"read {total} in {dt:.2f}s = {total/dt:,.0f} msg/s (incl. 3 consumer setups); problems={problems[:5]}")
    if begin and end:
        _full()

    @check("consumer.highwater (Fetch high watermark) == log end")
    def _hw():
        c = KafkaConsumer(**common, group_id=None, enable_auto_commit=False, fetch_max_wait_ms=100)
        c.assign(tps)
        for tp in tps:
            c.seek(tp, max(0, end[tp] - 1))
        deadline = time.time() + 10
        while time.time() < deadline and any(c.highwater(tp) is None for tp in tps):
            c.poll(timeout_ms=200)
        hw = {tp.partition: c.highwater(tp) for tp in tps}
        c.close()
        ok = all(hw[tp.partition] == end[tp] for tp in tps)
        record("consumer.highwater (Fetch high watermark) == log end", "PASS" if ok else "FAIL",
               f"highwater={hw} log end={ {tp.partition: end[tp] for tp in tps} }")
    if begin and end:
        _hw()

    @check("direct-stream: mid-partition ranges (batch boundaries)")
    def _mid():
        problems = []
        checked = 0
        for tp in tps:
            e = end[tp]
            # odd ranges that straddle producer batches
            for frm, until in [(1, 2), (7, 777), (e // 2 - 3, e // 2 + 250), (e - 1, e), (e, e)]:
                if frm > until or frm < 0:
                    continue
                got, pos = read_range(tp, frm, until, timeout_s=10)
                offs = [r.offset for r in got]
                checked += 1
                if offs != list(range(frm, until)):
                    problems.append((tp.partition, frm, until, len(offs), offs[:2], "pos", pos))
        record("direct-stream: mid-partition ranges (batch boundaries)", "PASS" if not problems else "FAIL",
               f"{checked} ranges checked; problems={problems[:6]}")
    if begin and end:
        _mid()

    @check("direct-stream: max_poll_records=1 / small fetch_max_bytes")
    def _small():
        tp = tps[0]
        got, pos = read_range(tp, 10, 60, max_poll_records=1, max_partition_fetch_bytes=1024, fetch_max_bytes=1024)
        offs = [r.offset for r in got]
        record("direct-stream: max_poll_records=1 / small fetch_max_bytes",
               "PASS" if offs == list(range(10, 60)) else "FAIL", f"got {len(offs)} offs, pos={pos}")
    if begin and end:
        _small()

    @check("timestamps: CreateTime preserved")
    def _ts():
        tp = tps[1]
        got, _ = read_range(tp, 0, min(end[tp], 200))
        bad = []
        types = set()
        for r in got:
            k, i, ts, md_ts = sent[(tp.partition, r.offset)]
            types.add(r.timestamp_type)
            if r.timestamp != ts:
                bad.append((r.offset, r.timestamp, ts))
        mdbad = [(o, v[2], v[3]) for (p2, o), v in sent.items() if v[3] != v[2]][:3]
        record("timestamps: CreateTime preserved", "PASS" if not bad and types == {0} else "FAIL",
               f"{len(got)} recs; timestamp_type set={types} (0=CreateTime,1=LogAppendTime); mismatches={bad[:3]}; "
               f"RecordMetadata.timestamp mismatches={mdbad}")
    if begin and end:
        _ts()

    @check("consumer.offsets_for_times")
    def _oft():
        c = KafkaConsumer(**common, group_id=None, enable_auto_commit=False)
        # message i has ts base+i. For each partition pick the ts of the record at offset 100.
        q = {}
        exp = {}
        for tp in tps:
            k, i, ts, _ = sent[(tp.partition, 100)]
            q[tp] = ts
            exp[tp] = 100
        r = c.offsets_for_times(q, timeout_ms=10000)
        far = c.offsets_for_times({tps[0]: int(time.time() * 1000) + 86_400_000}, timeout_ms=10000)
        c.close()
        got = {tp.partition: (v.offset if v else None, v.timestamp if v else None) for tp, v in r.items()}
        ok = all(r[tp] is not None and r[tp].offset == exp[tp] for tp in tps)
        record("consumer.offsets_for_times", "PASS" if ok else "FAIL",
               f"got={got} expected offset 100 each; future ts -> {far}")
    if sent:
        _oft()

    # ------------------------------------------------------------ group + commit
    GROUP = f"g-{run}"
    # some Kafka-compatible brokers answer the first JoinGroup only after ~session_timeout_ms/2 (kafka-python 3 default
    # session_timeout_ms=45000 -> ~23 s!). 6000 is Apache Kafka's group.min.session.timeout.ms.
    SESSION_MS = 6000

    @check("consumer group: subscribe, consume part, commit, resume")
    def _group():
        c1 = KafkaConsumer(TOPIC, **common, group_id=GROUP, enable_auto_commit=False,
                           auto_offset_reset="earliest", fetch_max_wait_ms=100,
                           session_timeout_ms=SESSION_MS, heartbeat_interval_ms=1000, max_poll_records=500)
        t0 = time.time()
        seen = {}
        join_t = None
        deadline = time.time() + 40
        while time.time() < deadline and sum(len(v) for v in seen.values()) < N // 2:
            recs = c1.poll(timeout_ms=1000)
            if recs and join_t is None:
                join_t = time.time() - t0
            for tp, rs in recs.items():
                seen.setdefault(tp.partition, []).extend(r.offset for r in rs)
        assignment = sorted(tp.partition for tp in c1.assignment())
        c1.commit(timeout_ms=10000)  # commit current positions
        committed = {tp.partition: c1.committed(tp, timeout_ms=10000) for tp in tps}
        positions = {tp.partition: c1.position(tp) for tp in c1.assignment()}
        c1.close()
        first = sum(len(v) for v in seen.values())
        # resume in same group
        c2 = KafkaConsumer(TOPIC, **common, group_id=GROUP, enable_auto_commit=False,
                           auto_offset_reset="earliest", fetch_max_wait_ms=100,
                           session_timeout_ms=SESSION_MS, heartbeat_interval_ms=1000)
        seen2 = {}
        deadline = time.time() + 40
        while time.time() < deadline and first + sum(len(v) for v in seen2.values()) < N:
            for tp, rs in c2.poll(timeout_ms=1000).items():
                seen2.setdefault(tp.partition, []).extend(r.offset for r in rs)
        c2.commit(timeout_ms=10000)
        committed2 = {tp.partition: c2.committed(tp, timeout_ms=10000) for tp in tps}
        c2.close()
        second = sum(len(v) for v in seen2.values())
        dup = sum(len(set(seen.get(p, [])) & set(seen2.get(p, []))) for p in range(3))
        ok = first + second == N and dup == 0 and committed == positions and \
            all(committed2[p] == end[TopicPartition(TOPIC, p)] for p in range(3))
        record("consumer group: subscribe, consume part, commit, resume", "PASS" if ok else "FAIL",
               f"first join+data after {join_t if join_t is None else round(join_t, 2)}s; assignment={assignment}; "
               f"c1 read {first}, committed={committed} positions={positions}; c2 read {second}, dup={dup}, "
               f"committed2={committed2}; total {time.time()-t0:.1f}s")
    if end:
        _group()

    @check("admin: list_groups/describe_groups/list_group_offsets")
    def _gadmin():
        out = {}
        for nm, fn in (("list_groups", lambda: admin.list_groups()),
                       ("describe_groups", lambda: admin.describe_groups([GROUP])),
                       ("list_group_offsets", lambda: admin.list_group_offsets({GROUP: None}))):
            try:
                out[nm] = str(fn())[:400]
            except Exception as e:  # noqa: BLE001
                out[nm] = f"ERR {type(e).__name__}: {e}"
        bad = [k for k, v in out.items() if v.startswith("ERR")]
        record("admin: list_groups/describe_groups/list_group_offsets", "WARN" if bad else "PASS", json.dumps(out))
    _gadmin()

    @check("assign()+group_id: commit explicit offsets (Spark commitAsync style)")
    def _assign_commit():
        G2 = f"g2-{run}"
        c = KafkaConsumer(**common, group_id=G2, enable_auto_commit=False)
        c.assign(tps)
        offs = {tp: OffsetAndMetadata(123 + tp.partition, "spark-batch-1", -1) for tp in tps}
        c.commit(offsets=offs, timeout_ms=10000)
        got = {tp.partition: c.committed(tp, metadata=True, timeout_ms=10000) for tp in tps}
        # async commit
        fut = c.commit_async(offsets={tp: OffsetAndMetadata(200, "", -1) for tp in tps})
        deadline = time.time() + 10
        while time.time() < deadline and not (getattr(fut, "is_done", True)):
            c.poll(timeout_ms=100)
        got2 = {tp.partition: c.committed(tp, timeout_ms=10000) for tp in tps}
        c.close()
        ok = (all(got[p] is not None and got[p].offset == 123 + p for p in range(3))
              and all(v == 200 for v in got2.values()))
        record("assign()+group_id: commit explicit offsets (Spark commitAsync style)", "PASS" if ok else "FAIL",
               f"sync committed={got}; after commit_async={got2}")
    _assign_commit()

    @check("consumer group: 2 members (threads) share 3 partitions")
    def _two():
        import threading
        G3 = f"g3-{run}"
        hist = {"a": [], "b": []}
        stop = threading.Event()

        def member(name, delay):
            time.sleep(delay)
            c = KafkaConsumer(TOPIC, **common, group_id=G3, enable_auto_commit=False,
                              auto_offset_reset="earliest", fetch_max_wait_ms=100,
                              session_timeout_ms=SESSION_MS, heartbeat_interval_ms=1000)
            while not stop.is_set():
                c.poll(timeout_ms=100)
                a = sorted(tp.partition for tp in c.assignment())
                if not hist[name] or hist[name][-1][1] != a:
                    hist[name].append((round(time.time() - T0, 2), a))
            c.close()
        T0 = time.time()
        ths = [threading.Thread(target=member, args=("a", 0), daemon=True),
               threading.Thread(target=member, args=("b", 1), daemon=True)]
        for th in ths:
            th.start()
        deadline = time.time() + 45
        ok = False
        while time.time() < deadline:
            a = set(hist["a"][-1][1]) if hist["a"] else set()
            b = set(hist["b"][-1][1]) if hist["b"] else set()
            if a and b and a | b == {0, 1, 2} and not (a & b):
                ok = True
                break
            time.sleep(0.1)
        dt = time.time() - T0
        stop.set()
        for th in ths:
            th.join(15)
        record("consumer group: 2 members (threads) share 3 partitions", "PASS" if ok else "FAIL",
               f"balanced after {dt:.1f}s (b starts at 1s); history (t, partitions)={hist}")
    _two()

    # ---------------------------------------------------------------- extras
    def roundtrip(name, topic, producer_kw, consumer_kw=None, msgs=None, create=True, parts=1):
        if create:
            admin.create_topics([NewTopic(topic, num_partitions=parts, replication_factor=1)], timeout_ms=10000)
        p = KafkaProducer(**common, max_block_ms=15000, **producer_kw)
        msgs = msgs or [dict(key=b"k%d" % i, value=b"v%d" % i * 50) for i in range(200)]
        fs = [p.send(topic, **m) for m in msgs]
        p.flush(timeout=30)
        mds = [f.get(timeout=10) for f in fs]
        p.close(timeout=5)
        tp = TopicPartition(topic, 0)
        c = KafkaConsumer(**common, group_id=None, enable_auto_commit=False, fetch_max_wait_ms=100,
                          **(consumer_kw or {}))
        c.assign([tp])
        c.seek_to_beginning(tp)
        endo = c.end_offsets([tp], timeout_ms=10000)[tp]
        got = []
        deadline = time.time() + 15
        while time.time() < deadline and c.position(tp) < endo:
            for _tp, rs in c.poll(timeout_ms=500).items():
                got.extend(rs)
        c.close()
        return msgs, mds, got, endo

    # kafka-python needs an optional Python package per codec (python-snappy, lz4,
    # zstandard); a missing one is a property of this client, not of the broker: WARN.
    from kafka import codec as client_codecs
    client_has = {"gzip": client_codecs.has_gzip, "snappy": client_codecs.has_snappy,
                  "lz4": client_codecs.has_lz4, "zstd": client_codecs.has_zstd}
    for codec in ("gzip", "snappy", "lz4", "zstd"):
        if not client_has[codec]():
            record(f"compression {codec}", "WARN",
                   f"skipped: this kafka-python has no {codec} library installed (client-side, not a broker fault)")
            continue

        @check(f"compression {codec}")
        def _comp(codec=codec):
            msgs, mds, got, endo = roundtrip(f"compression {codec}", f"comp-{codec}-{run}",
                                             dict(compression_type=codec))
            ok = [(r.key, r.value) for r in got] == [(m["key"], m["value"]) for m in msgs]
            record(f"compression {codec}", "PASS" if ok else "FAIL", f"sent {len(msgs)}, got {len(got)}, end={endo}")
        _comp()

    @check("headers + null key + null value (tombstone)")
    def _hdr():
        msgs = [dict(key=b"a", value=b"1", headers=[("h1", b"x"), ("h2", b"")]),
                dict(key=None, value=b"nokey"),
                dict(key=b"t", value=None)]
        msgs, mds, got, endo = roundtrip("hdr", f"hdr-{run}", {}, msgs=msgs)
        ok = len(got) == 3 and list(got[0].headers) == [("h1", b"x"), ("h2", b"")] and got[1].key is None \
            and got[2].value is None
        record("headers + null key + null value (tombstone)", "PASS" if ok else "FAIL",
               f"got={[(r.key, r.value, r.headers) for r in got]}")
    _hdr()

    @check("large message ~900 KB")
    def _large():
        msgs = [dict(key=b"big", value=b"x" * 900_000)]
        msgs, mds, got, endo = roundtrip("large", f"large-{run}", dict(max_request_size=2_000_000),
                                         msgs=msgs, consumer_kw=dict(max_partition_fetch_bytes=2_000_000))
        ok = len(got) == 1 and len(got[0].value) == 900_000
        record("large message ~900 KB", "PASS" if ok else "FAIL", f"got {len(got)} recs")
    _large()

    @check("auto topic creation on produce (unknown topic)")
    def _auto():
        t = f"auto-{run}"
        p = KafkaProducer(**common, max_block_ms=15000)
        t0 = time.time()
        md = p.send(t, b"hello").get(timeout=15)
        p.close(timeout=5)
        parts = admin.describe_topics([t])[0]["partitions"]
        record("auto topic creation on produce (unknown topic)", "PASS",
               f"{time.time()-t0:.2f}s; md=(p{md.partition},o{md.offset}); partitions={len(parts)}")
    _auto()

    @check("seek past end with auto_offset_reset=none -> OffsetOutOfRange")
    def _oor():
        tp = tps[0]
        c = KafkaConsumer(**common, group_id=None, enable_auto_commit=False, auto_offset_reset="none",
                          fetch_max_wait_ms=100)
        c.assign([tp])
        c.seek(tp, end[tp] + 1000)
        err = None
        deadline = time.time() + 8
        while time.time() < deadline:
            try:
                c.poll(timeout_ms=500)
            except Exception as e:  # noqa: BLE001
                err = e
                break
        c.close()
        st = "PASS" if err is not None and "OutOfRange" in type(err).__name__ else "WARN"
        record("seek past end with auto_offset_reset=none -> OffsetOutOfRange", st,
               f"{type(err).__name__ if err else None}: {err}")
    if end:
        _oor()

    @check("long-poll on empty range returns after ~fetch_max_wait")
    def _empty():
        tp = tps[0]
        c = KafkaConsumer(**common, group_id=None, enable_auto_commit=False, fetch_max_wait_ms=500)
        c.assign([tp])
        c.seek_to_end(tp)
        c.position(tp)
        t0 = time.time()
        r = c.poll(timeout_ms=2000)
        dt = time.time() - t0
        c.close()
        record("long-poll on empty range returns after ~fetch_max_wait", "PASS" if not r else "WARN",
               f"poll(2000ms) returned {len(r)} partitions after {dt:.2f}s")
    if end:
        _empty()

    @check("admin.create_partitions 3->5 (new partitions mid-stream)")
    def _addp():
        from kafka.admin import NewPartitions
        t = f"grow-{run}"
        admin.create_topics([NewTopic(t, num_partitions=3, replication_factor=1)], timeout_ms=10000)
        r = admin.create_partitions({t: NewPartitions(5)}, timeout_ms=10000)
        parts = admin.describe_topics([t])[0]["partitions"]
        record("admin.create_partitions 3->5 (new partitions mid-stream)", "PASS" if len(parts) == 5 else "FAIL",
               f"result={str(r)[:200]}; partitions now {len(parts)}")
    _addp()

    @check("transactions: commit + abort, read_committed consumer")
    def _txn():
        t = f"txn-{run}"
        admin.create_topics([NewTopic(t, num_partitions=1, replication_factor=1)], timeout_ms=10000)
        p = KafkaProducer(**common, transactional_id=f"tx-{run}", max_block_ms=15000)
        p.init_transactions()
        p.begin_transaction()
        for i in range(5):
            p.send(t, b"committed-%d" % i)
        p.commit_transaction()
        p.begin_transaction()
        for i in range(5):
            p.send(t, b"aborted-%d" % i)
        p.abort_transaction()
        p.close(timeout=5)
        tp = TopicPartition(t, 0)
        res = {}
        for iso in ("read_committed", "read_uncommitted"):
            c = KafkaConsumer(**common, group_id=None, enable_auto_commit=False, isolation_level=iso,
                              fetch_max_wait_ms=100)
            c.assign([tp])
            c.seek_to_beginning(tp)
            eo = c.end_offsets([tp], timeout_ms=10000)[tp]
            vals = []
            deadline = time.time() + 8
            while time.time() < deadline and c.position(tp) < eo:
                for _tp, rs in c.poll(timeout_ms=300).items():
                    vals.extend(r.value for r in rs)
            res[iso] = (eo, [v.decode() for v in vals])
            c.close()
        ok = res["read_committed"][1] == [f"committed-{i}" for i in range(5)]
        record("transactions: commit + abort, read_committed consumer", "PASS" if ok else "FAIL",
               f"read_committed end={res['read_committed'][0]} vals={res['read_committed'][1]}; "
               f"read_uncommitted end={res['read_uncommitted'][0]} n={len(res['read_uncommitted'][1])}")
    _txn()

    @check("admin.delete_records (log start offset moves)")
    def _delrec():
        tp = tps[2]
        r = admin.delete_records({tp: 50}, timeout_ms=10000)
        c = KafkaConsumer(**common, group_id=None, enable_auto_commit=False)
        b = c.beginning_offsets([tp], timeout_ms=10000)[tp]
        c.close()
        record("admin.delete_records (log start offset moves)", "PASS" if b == 50 else "WARN",
               f"result={str(r)[:200]}; beginning_offset now {b}")
    if end:
        _delrec()

    @check("admin.delete_topics")
    def _del():
        t = f"del-{run}"
        admin.create_topics([NewTopic(t, num_partitions=1, replication_factor=1)], timeout_ms=10000)
        admin.delete_topics([t], timeout_ms=10000)
        time.sleep(0.5)
        ts = admin.list_topics()
        record("admin.delete_topics", "PASS" if t not in ts else "FAIL", f"still listed={t in ts}")
    _del()

    try:
        admin.close()
    except Exception:  # noqa: BLE001
        pass
    return summary()


def summary():
    print("\n================ SUMMARY ================")
    n = {"PASS": 0, "FAIL": 0, "WARN": 0}
    for name, st, _detail in RESULTS:
        n[st] = n.get(st, 0) + 1
        print(f"{st:4}  {name}")
    print(f"{n['PASS']} passed, {n['FAIL']} failed, {n['WARN']} warned")
    return 1 if n["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
