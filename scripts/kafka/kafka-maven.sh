#!/usr/bin/env bash
# kafka-maven.sh -- a real Apache Kafka broker (KRaft, one combined broker+controller on
# 127.0.0.1) from Maven Central jars, for dstreams' Kafka tests, example and benchmark.
# Needs Java >= 17 and curl (or Maven for a version without a pinned jar list); no Docker,
# no Kafka distribution; network access to Maven Central on the first run only.
#
# Choices, and why:
#   * free ports by default (KAFKA_PORT=auto): several engineers share one machine, a fixed
#     9092 collides; the chosen address is printed by `start` and written to $WORK/bootstrap.
#   * fast start: C1-only JIT, serial GC, small heap, and an AppCDS archive of the broker's
#     and the storage tool's classes, dumped on the first clean stop and reused afterwards
#     (about 2 s instead of 4-7 s from launch to "ready" on a 2-core machine).
#   * no JVM just to make a cluster id (made in bash), retry on a lost port race, an
#     optional owner watchdog (KAFKA_OWNER_PID) so a killed test run never leaves a broker.
#   * one cache directory for everything (jars, Maven's local repository, CDS archives),
#     filled under a lock so concurrent first runs do not corrupt it; for the default
#     version the jars come from a pinned list (jars-<version>.txt: coordinates + SHA-1s)
#     with curl, 7 s instead of Maven's 40 s of dependency resolution; Maven otherwise.
#
# Usage:
#   kafka-maven.sh [selftest]    fetch (cached) -> format -> start -> probe -> stop
#   kafka-maven.sh fetch         only fill the jar cache (CI: run once, cache $KAFKA_JAR_CACHE)
#   kafka-maven.sh start         start in the background; prints the bootstrap address
#                                (host:port) on stdout; state in $KAFKA_WORK_DIR
#   kafka-maven.sh stop          stop the broker started by 'start' (by PID, from the pid file)
#   kafka-maven.sh probe         ApiVersions + a kafka-python produce/consume smoke test
#   kafka-maven.sh run -- CMD..  start, run CMD with KAFKA_BOOTSTRAP set, stop; exit = CMD's
#
# Environment (all optional):
#   KAFKA_VERSION        org.apache.kafka:kafka_2.13 version (default 4.1.2; 4.x needs Java >= 17)
#   SLF4J_VERSION        slf4j-api/slf4j-simple version (default 2.0.17)
#   KAFKA_JAR_CACHE      cache root (default ${XDG_CACHE_HOME:-~/.cache}/dstreams/kafka)
#   KAFKA_WORK_DIR       config/data/log dir, wiped on each start
#                        (default ${TMPDIR:-/tmp}/dstreams-kafka-$UID)
#   KAFKA_PORT           broker port, or "auto" for a free one (default auto)
#   KAFKA_CONTROLLER_PORT  controller port, or "auto" (default auto)
#   KAFKA_HEAP           max heap (default 256m)
#   KAFKA_FAST_START     1 (default): C1 JIT + serial GC, best for short test runs;
#                        0: G1 + full JIT, for long or throughput-bound runs (benchmarks)
#   KAFKA_CDS            1 (default): use/create the AppCDS archives; 0: do not
#   KAFKA_LOG_LEVEL      slf4j-simple level: trace|debug|info|warn|error (default info)
#   KAFKA_START_TIMEOUT  seconds to wait for readiness (default 60)
#   KAFKA_FETCH          how to fill the cache: auto (default: curl with the pinned list
#                        jars-<version>.txt when there is one, else mvn), mvn or curl
#   KAFKA_OWNER_PID      if set, a watchdog stops the broker when this process is gone
#   KAFKA_OPTS           extra JVM options, word-split
#   JAVA                 java binary (default: $JAVA_HOME/bin/java or java on PATH)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KAFKA_VERSION="${KAFKA_VERSION:-4.1.2}"
SCALA_BINARY="2.13"
SLF4J_VERSION="${SLF4J_VERSION:-2.0.17}"
DEP_PLUGIN_VERSION="${DEP_PLUGIN_VERSION:-3.8.1}"
MAVEN_CENTRAL="${MAVEN_CENTRAL:-https://repo1.maven.org/maven2}"
CACHE_ROOT="${KAFKA_JAR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dstreams/kafka}"
CACHE_DIR="$CACHE_ROOT/kafka-$KAFKA_VERSION"
LIB_DIR="$CACHE_DIR/libs"
CDS_DIR="$CACHE_DIR/cds"
WORK="${KAFKA_WORK_DIR:-${TMPDIR:-/tmp}/dstreams-kafka-$(id -u)}"
HOST="127.0.0.1"
PORT_SETTING="${KAFKA_PORT:-auto}"
CPORT_SETTING="${KAFKA_CONTROLLER_PORT:-auto}"
HEAP="${KAFKA_HEAP:-256m}"
FAST_START="${KAFKA_FAST_START:-1}"
USE_CDS="${KAFKA_CDS:-1}"
LOG_LEVEL="${KAFKA_LOG_LEVEL:-info}"
START_TIMEOUT="${KAFKA_START_TIMEOUT:-60}"
FETCH_WITH="${KAFKA_FETCH:-auto}"
if [ -n "${JAVA:-}" ]; then :; elif [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then JAVA="$JAVA_HOME/bin/java"; else JAVA="java"; fi

PID_FILE="$WORK/kafka.pid"
LOG_FILE="$WORK/kafka.log"
CFG_FILE="$WORK/server.properties"
BOOTSTRAP_FILE="$WORK/bootstrap"
CDS_PENDING_FILE="$WORK/cds-pending"
DATA_DIR="$WORK/data"
PORT=""
CPORT=""

log() { printf '[kafka-maven] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now_ms() { date +%s%3N; }

check_java() {
  command -v "$JAVA" >/dev/null 2>&1 || die "java not found: install a JDK >= 17, or set JAVA or JAVA_HOME"
  local v major
  v="$("$JAVA" -version 2>&1 | sed -n 1p)"
  major="$(printf '%s' "$v" | sed -E 's/.*version "([0-9]+)(\.[0-9]+)*.*/\1/')"
  case "$major" in ''|*[!0-9]*) log "could not parse the java version from: $v";;
    *) [ "$major" -ge 17 ] || die "the Kafka 4.x broker needs Java >= 17, found: $v (set JAVA or JAVA_HOME)";; esac
}

# ---------------------------------------------------------------- 1. fetch jars (cached)
write_pom() {
  cat > "$CACHE_DIR/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.dstreams</groupId>
  <artifactId>kafka-broker-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_${SCALA_BINARY}</artifactId>
      <version>${KAFKA_VERSION}</version>
      <exclusions>
        <!-- keep exactly one SLF4J provider (slf4j-simple below); absent ones are ignored -->
        <exclusion><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j2-impl</artifactId></exclusion>
        <exclusion><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId></exclusion>
        <exclusion><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId></exclusion>
        <exclusion><groupId>org.slf4j</groupId><artifactId>slf4j-log4j12</artifactId></exclusion>
      </exclusions>
    </dependency>
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-api</artifactId>
      <version>${SLF4J_VERSION}</version>
    </dependency>
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-simple</artifactId>
      <version>${SLF4J_VERSION}</version>
    </dependency>
  </dependencies>
  <build>
    <pluginManagement>
      <plugins>
        <plugin>
          <groupId>org.apache.maven.plugins</groupId>
          <artifactId>maven-dependency-plugin</artifactId>
          <version>${DEP_PLUGIN_VERSION}</version>
        </plugin>
      </plugins>
    </pluginManagement>
  </build>
</project>
EOF
}

fetch_with_mvn() {  # fetch_with_mvn DEST
  write_pom
  # Maven's local repository lives in the cache too: CI caches one directory.
  ( cd "$CACHE_DIR" && mvn -q -B -f pom.xml -Dmaven.repo.local="$CACHE_ROOT/m2" \
        dependency:copy-dependencies -DoutputDirectory="$1" -DincludeScope=runtime )
}

fetch_with_curl() {  # fetch_with_curl DEST: the pinned list jars-<version>.txt, SHA-1 checked
  local list="$SCRIPT_DIR/jars-$KAFKA_VERSION.txt" coords sha group artifact version path jar got
  [ -f "$list" ] || die "no pinned jar list $list for Kafka $KAFKA_VERSION: install Maven (mvn), or use the default KAFKA_VERSION"
  command -v curl >/dev/null 2>&1 || die "neither mvn nor curl is installed; install one of them"
  mkdir -p "$1"
  while read -r coords sha; do
    case "$coords" in ''|'#'*) continue;; esac
    IFS=: read -r group artifact version <<<"$coords"
    path="$(printf '%s' "$group" | tr . /)/$artifact/$version/$artifact-$version.jar"
    jar="$1/$artifact-$version.jar"
    curl -fsSL --retry 3 --connect-timeout 20 -o "$jar" "$MAVEN_CENTRAL/$path" \
      || die "download failed: $MAVEN_CENTRAL/$path"
    got="$(sha1sum "$jar" | cut -d' ' -f1)"
    [ "$got" = "$sha" ] || die "SHA-1 mismatch for $artifact-$version.jar: expected $sha, got $got"
  done < "$list"
}

fetch() {
  if [ -f "$LIB_DIR/.complete" ]; then
    log "jars cached: $LIB_DIR ($(find "$LIB_DIR" -name '*.jar' | wc -l) jars)"
    return 0
  fi
  mkdir -p "$CACHE_DIR"
  # Two sessions starting on a cold cache must not both write the same directory.
  exec 9>"$CACHE_DIR/.lock"
  if command -v flock >/dev/null 2>&1; then flock 9; fi
  if [ -f "$LIB_DIR/.complete" ]; then exec 9>&-; fetch; return 0; fi
  rm -rf "$LIB_DIR.tmp"
  local t0=$SECONDS
  local how="$FETCH_WITH"
  if [ "$how" = auto ]; then
    # The pinned list is faster (no dependency resolution) and checks every jar's SHA-1;
    # Maven resolves any other version.
    if [ -f "$SCRIPT_DIR/jars-$KAFKA_VERSION.txt" ] && command -v curl >/dev/null 2>&1; then how=curl; else how=mvn; fi
  fi
  if [ "$how" = mvn ]; then
    command -v mvn >/dev/null 2>&1 || die "mvn not found: install Maven, or curl for a version with a pinned jar list"
    log "downloading org.apache.kafka:kafka_${SCALA_BINARY}:${KAFKA_VERSION} + slf4j-simple ${SLF4J_VERSION} with Maven ..."
    fetch_with_mvn "$LIB_DIR.tmp" || { rm -rf "$LIB_DIR.tmp"; die "mvn dependency:copy-dependencies failed (is Maven Central reachable?)"; }
  else
    log "downloading the pinned jar list jars-$KAFKA_VERSION.txt with curl ..."
    fetch_with_curl "$LIB_DIR.tmp" || { rm -rf "$LIB_DIR.tmp"; exit 1; }
  fi
  rm -rf "$LIB_DIR"
  mv "$LIB_DIR.tmp" "$LIB_DIR"
  touch "$LIB_DIR/.complete"
  exec 9>&-
  log "fetched $(find "$LIB_DIR" -name '*.jar' | wc -l) jars in $((SECONDS - t0)) s into $LIB_DIR"
}

# An explicit, sorted class path (not libs/*): a CDS archive is only valid for the exact
# class path it was dumped with, so the order must not depend on directory listing order.
class_path() { find "$LIB_DIR" -maxdepth 1 -name '*.jar' | LC_ALL=C sort | paste -sd: -; }

# list class files in a jar (unzip, jar or python3, whichever exists)
jar_list() {
  if command -v unzip >/dev/null 2>&1; then unzip -Z1 "$1"
  elif command -v jar >/dev/null 2>&1; then jar tf "$1"
  else python3 -c 'import sys,zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$1"; fi
}
jars_have() {  # jars_have CLASSFILE -> 0 if some kafka jar contains it
  local j
  for j in "$LIB_DIR"/kafka_"${SCALA_BINARY}"-*.jar "$LIB_DIR"/kafka-tools-*.jar "$LIB_DIR"/kafka-server-*.jar; do
    [ -f "$j" ] || continue
    # no 'grep -q': with pipefail an early-exiting grep makes the lister die of SIGPIPE
    if jar_list "$j" 2>/dev/null | grep -x "$1" >/dev/null; then return 0; fi
  done
  return 1
}
pick_main_classes() {
  # Kafka 3.x/4.x: broker main = kafka.Kafka, storage tool = kafka.tools.StorageTool. The
  # org.apache.kafka.* fallbacks are for a later release that moves them.
  if jars_have 'kafka/Kafka.class'; then SERVER_MAIN=kafka.Kafka
  elif jars_have 'org/apache/kafka/server/Kafka.class'; then SERVER_MAIN=org.apache.kafka.server.Kafka
  else die "no kafka.Kafka main class in $LIB_DIR (delete the directory to re-download)"; fi
  if jars_have 'kafka/tools/StorageTool.class'; then STORAGE_MAIN=kafka.tools.StorageTool
  elif jars_have 'org/apache/kafka/tools/StorageTool.class'; then STORAGE_MAIN=org.apache.kafka.tools.StorageTool
  else die "no StorageTool class in $LIB_DIR (is org.apache.kafka:kafka-tools needed for this version?)"; fi
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

free_port() {
  # Ask the kernel for a free port; without python3, probe random high ports.
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
    return
  fi
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 40000))
    port_open "$p" || { echo "$p"; return; }
  done
  die "found no free port"
}

choose_ports() {
  if [ "$PORT_SETTING" = auto ]; then PORT="$(free_port)"; else PORT="$PORT_SETTING"; fi
  if [ "$CPORT_SETTING" = auto ]; then
    CPORT="$(free_port)"
    while [ "$CPORT" = "$PORT" ]; do CPORT="$(free_port)"; done
  else CPORT="$CPORT_SETTING"; fi
}

# A KRaft cluster id is 16 random bytes, base64url without padding (22 characters).
# Kafka's own generator rejects ids starting with '-' (they read as options); so do we.
new_cluster_id() {
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    case "$id" in -*) continue;; esac
    [ "${#id}" -eq 22 ] && { echo "$id"; return; }
  done
}

write_config() {
  cat > "$CFG_FILE" <<EOF
# single combined KRaft node for tests (Kafka 4.x)
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@${HOST}:${CPORT}
listeners=PLAINTEXT://${HOST}:${PORT},CONTROLLER://${HOST}:${CPORT}
advertised.listeners=PLAINTEXT://${HOST}:${PORT}
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=${DATA_DIR}
num.partitions=1
default.replication.factor=1
auto.create.topics.enable=true
delete.topic.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=2
num.recovery.threads.per.data.dir=1
EOF
}

# JVM options. The fast-start set trades peak throughput for launch time: C1 only compiles
# quickly and the serial GC has no concurrent threads to start, which on a 2-core machine
# shared with the test workers is also the cheaper choice while the broker runs.
JVM_OPTS=()
build_jvm_opts() {
  JVM_OPTS=(-Xmx"$HEAP" -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true -Xshare:auto
            -Dorg.slf4j.simpleLogger.defaultLogLevel="$LOG_LEVEL"
            -Dorg.slf4j.simpleLogger.showDateTime=true
            -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS)
  if [ "$FAST_START" = 1 ]; then
    JVM_OPTS+=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:CICompilerCount=1)
  else
    JVM_OPTS+=(-Xms"$HEAP" -XX:+UseG1GC -XX:MaxGCPauseMillis=20)
  fi
  # shellcheck disable=SC2206  # KAFKA_OPTS is intentionally word-split
  [ -n "${KAFKA_OPTS:-}" ] && JVM_OPTS+=(${KAFKA_OPTS})
  return 0
}

# cds_opts NAME JVM-OPTION...: options to use the AppCDS archive NAME, or to dump it at exit
# when it does not exist yet. An archive is only valid for one JVM build and one JVM option
# set, so its file name carries a hash of both. Dumps go to a temporary name first and are
# moved into place only once complete, so a killed JVM never leaves a truncated archive.
CDS_OPTS=()
cds_opts() {
  CDS_OPTS=()
  [ "$USE_CDS" = 1 ] || return 0
  local name="$1" key archive
  shift
  key="$( { "$JAVA" -version 2>&1; printf '%s\n' "$@"; } | cksum | cut -d' ' -f1)"
  archive="$CDS_DIR/$name-$key.jsa"
  mkdir -p "$CDS_DIR"
  if [ -s "$archive" ]; then
    CDS_OPTS=(-XX:SharedArchiveFile="$archive")
  else
    local tmp="$archive.tmp.$$.$RANDOM"
    CDS_OPTS=(-XX:ArchiveClassesAtExit="$tmp")
    printf '%s %s\n' "$tmp" "$archive" >> "$CDS_PENDING_FILE"
  fi
}
cds_commit_pending() {  # [discard]: move finished archive dumps into place, or drop them
  [ -f "$CDS_PENDING_FILE" ] || return 0
  local tmp archive
  while read -r tmp archive; do
    if [ -s "$tmp" ] && [ "${1:-}" != discard ]; then
      mv -f "$tmp" "$archive" && log "CDS archive ready: $archive"
    else
      rm -f "$tmp"
    fi
  done < "$CDS_PENDING_FILE"
  rm -f "$CDS_PENDING_FILE"
}

# ---------------------------------------------------------------- 2+3. format + start
start() {
  check_java
  fetch
  pick_main_classes
  if [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; then
    die "already running with PID $(cat "$PID_FILE") in $WORK (run: KAFKA_WORK_DIR=$WORK $0 stop)"
  fi
  case "$WORK" in /|"$HOME"|'') die "refusing to wipe KAFKA_WORK_DIR='$WORK'";; esac
  local attempt
  for attempt in 1 2 3; do
    if start_once; then return 0; fi
    # Only a lost race for a port chosen automatically is worth another try.
    if [ "$PORT_SETTING$CPORT_SETTING" != autoauto ] || ! grep -q 'Address already in use' "$LOG_FILE" 2>/dev/null; then
      break
    fi
    log "a port was taken between choosing and binding it; retrying with new ports ($attempt/3)"
  done
  tail -60 "$LOG_FILE" >&2 2>/dev/null || true
  die "the broker did not start (log: $LOG_FILE)"
}

start_once() {
  choose_ports
  port_open "$PORT" && { log "port $HOST:$PORT is already in use by another process"; return 1; }
  port_open "$CPORT" && { log "port $HOST:$CPORT is already in use by another process"; return 1; }
  rm -rf "$WORK"; mkdir -p "$DATA_DIR"
  write_config
  build_jvm_opts
  local cp cluster_id t0 pid
  cp="$(class_path)"
  t0="$(now_ms)"
  cluster_id="$(new_cluster_id)"
  local storage_opts=(-Xmx128m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto)
  cds_opts storage "${storage_opts[@]}"
  # static quorum (controller.quorum.voters set) -> plain format, no --standalone
  "$JAVA" "${storage_opts[@]}" "${CDS_OPTS[@]}" \
      -cp "$cp" "$STORAGE_MAIN" format -t "$cluster_id" -c "$CFG_FILE" \
      >"$WORK/format.log" 2>&1 || { cat "$WORK/format.log" >&2; log "storage format failed"; return 1; }
  log "formatted $DATA_DIR in $(( $(now_ms) - t0 )) ms (cluster id $cluster_id)"
  cds_opts broker "${JVM_OPTS[@]}"
  "$JAVA" "${JVM_OPTS[@]}" "${CDS_OPTS[@]}" -cp "$cp" "$SERVER_MAIN" "$CFG_FILE" >"$LOG_FILE" 2>&1 &
  pid=$!
  echo "$pid" > "$PID_FILE"
  log "started $SERVER_MAIN PID $pid on $HOST:$PORT (controller $CPORT), log $LOG_FILE"
  # ready = the server logged "Kafka Server started", or answers a raw ApiVersions request
  # (the port alone is no proof: it accepts into the backlog before requests are served).
  local deadline=$((SECONDS + START_TIMEOUT))
  while [ $SECONDS -lt $deadline ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid" 2>/dev/null || true
      rm -f "$PID_FILE"; log "the broker exited during startup"; return 1
    fi
    if grep -q 'Kafka Server started' "$LOG_FILE" 2>/dev/null || { port_open "$PORT" && api_versions_ok; }; then
      echo "$HOST:$PORT" > "$BOOTSTRAP_FILE"
      log "broker ready at $HOST:$PORT after $(( $(now_ms) - t0 )) ms (format included)"
      start_watchdog "$pid"
      echo "$HOST:$PORT"
      return 0
    fi
    sleep 0.1
  done
  log "broker not ready on $HOST:$PORT within $START_TIMEOUT s"
  stop_pid "$pid"
  return 1
}

# Stop the broker when the process that owns it is gone (a test run killed with SIGKILL
# cannot run its teardown). Detached, with no inherited output, so callers waiting for
# this script's output are not held open by it.
start_watchdog() {
  local pid="$1" owner="${KAFKA_OWNER_PID:-}"
  [ -n "$owner" ] || return 0
  (
    trap '' HUP
    while kill -0 "$owner" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do sleep 1; done
    if kill -0 "$pid" 2>/dev/null; then stop_pid "$pid"; fi
  ) </dev/null >/dev/null 2>&1 &
  disown $! 2>/dev/null || true
}

# ---------------------------------------------------------------- 4. stop by PID
stop_pid() {
  local pid="$1" killed=0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do            # up to 30 s for a controlled shutdown
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "PID $pid still alive after 30 s, sending SIGKILL"; kill -KILL "$pid" 2>/dev/null || true
      killed=1
    fi
    wait "$pid" 2>/dev/null || true
    log "stopped PID $pid"
  fi
  rm -f "$PID_FILE"
  # A JVM killed while dumping its archive may leave a partial file: keep none of it.
  if [ "$killed" = 1 ]; then cds_commit_pending discard; else cds_commit_pending; fi
}
stop() {
  [ -f "$PID_FILE" ] || { log "no pid file $PID_FILE: nothing to stop"; cds_commit_pending; return 0; }
  stop_pid "$(cat "$PID_FILE")"
}

# ---------------------------------------------------------------- protocol probe (stdlib only)
api_versions_ok() {  # quiet readiness check (needs python3; returns 1 without it)
  command -v python3 >/dev/null 2>&1 || return 1
  api_versions >/dev/null 2>&1
}
api_versions() {
  python3 - "$HOST" "$PORT" <<'PY'
import socket, struct, sys
host, port = sys.argv[1], int(sys.argv[2])
cid = b"kafka-maven-probe"
# ApiVersionsRequest v0: header v1 = api_key 18, api_version 0, correlation_id, client_id
body = struct.pack(">hhih", 18, 0, 42, len(cid)) + cid
s = socket.create_connection((host, port), 5)
s.settimeout(5)
s.sendall(struct.pack(">i", len(body)) + body)
def readn(n):
    b = b""
    while len(b) < n:
        chunk = s.recv(n - len(b))
        if not chunk:
            raise SystemExit("connection closed by broker")
        b += chunk
    return b
size, = struct.unpack(">i", readn(4))
resp = readn(size)
corr, err, n = struct.unpack(">ihi", resp[:10])
keys = {struct.unpack(">hhh", resp[10 + 6*i: 16 + 6*i])[0]: struct.unpack(">hhh", resp[10 + 6*i: 16 + 6*i])[1:] for i in range(n)}
print(f"ApiVersions: correlation={corr} error_code={err} apis={n} Produce={keys.get(0)} Fetch={keys.get(1)} ListOffsets={keys.get(2)}")
# error 35 (UNSUPPORTED_VERSION) still carries the broker's version list in a v0 body
sys.exit(0 if corr == 42 and err in (0, 35) and n > 0 else 1)
PY
}
probe() {
  if [ -z "$PORT" ]; then
    [ -f "$BOOTSTRAP_FILE" ] || die "no broker address: start one first (no $BOOTSTRAP_FILE)"
    PORT="$(cut -d: -f2 < "$BOOTSTRAP_FILE")"
  fi
  api_versions
  # end-to-end check if kafka-python is importable
  if python3 -c 'import kafka' 2>/dev/null; then
    python3 - "$HOST:$PORT" <<'PY'
import sys, time
from kafka import KafkaProducer, KafkaConsumer, TopicPartition
bs = sys.argv[1]
p = KafkaProducer(bootstrap_servers=bs)
for i in range(10):
    p.send("kafka-maven-smoke", key=b"k", value=b"v%d" % i)
p.flush(); p.close()
tp = TopicPartition("kafka-maven-smoke", 0)
c = KafkaConsumer(bootstrap_servers=bs, group_id=None, enable_auto_commit=False)
c.assign([tp]); c.seek_to_beginning(tp)
end = c.end_offsets([tp])[tp]; n = 0; t0 = time.time()
while n < 10 and time.time() - t0 < 20:
    n += sum(len(v) for v in c.poll(timeout_ms=500).values())
c.close()
print(f"kafka-python smoke: end_offset={end} consumed={n}")
sys.exit(0 if n == 10 and end == 10 else 1)
PY
  else
    log "kafka-python is not importable by python3: skipped the produce/consume smoke test"
  fi
}

cmd="${1:-selftest}"
case "$cmd" in
  fetch) check_java; fetch ;;
  start) start ;;
  stop) stop ;;
  probe) probe ;;
  run)
    shift; [ "${1:-}" = "--" ] && shift
    [ $# -gt 0 ] || die "usage: $0 run -- CMD [ARGS...]"
    bootstrap="$(start)"
    trap 'stop' EXIT
    rc=0; KAFKA_BOOTSTRAP="$bootstrap" "$@" || rc=$?
    exit "$rc" ;;
  selftest)
    t_all=$SECONDS
    bootstrap="$(start)"
    PORT="${bootstrap##*:}"
    trap 'stop' EXIT
    probe
    log "selftest OK in $((SECONDS - t_all)) s" ;;
  *) die "unknown command '$cmd' (fetch|start|stop|probe|run -- CMD|selftest)" ;;
esac
