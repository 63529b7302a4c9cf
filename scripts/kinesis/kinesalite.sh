#!/usr/bin/env bash
# kinesalite: a Kinesis server in Node.js (mhart/kinesalite, MIT) for the Kinesis tests.
#
# moto's Kinesis keeps a split shard open for ever; kinesalite ends a closed shard's reads
# and routes new records to its children, as Kinesis does, so the tests of resharding
# run against it. Installed from the npm registry into a cache directory, once.
#
#   kinesalite.sh fetch        install (cached); print the package directory
#   kinesalite.sh serve PORT   serve on 127.0.0.1:PORT (streams ACTIVE at once)
#
# Environment:
#   KINESALITE_CACHE   cache root (default ${XDG_CACHE_HOME:-~/.cache}/dstreams/kinesalite)
set -euo pipefail

VERSION=3.3.3
CACHE="${KINESALITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dstreams/kinesalite}/kinesalite-$VERSION"

fetch() {
  if [ ! -f "$CACHE/node_modules/kinesalite/package.json" ]; then
    command -v npm >/dev/null 2>&1 || { echo "kinesalite.sh: npm is missing (Node.js 18 or newer is needed)" >&2; exit 1; }
    mkdir -p "$CACHE"
    npm install --prefix "$CACHE" "kinesalite@$VERSION" --no-audit --no-fund --loglevel=error >&2
  fi
  echo "$CACHE/node_modules/kinesalite"
}

case "${1:-fetch}" in
  fetch) fetch ;;
  serve)
    port="${2:?usage: kinesalite.sh serve PORT}"
    dir="$(fetch)"
    # The CLI listens on every interface; the module's server is bound to 127.0.0.1 here.
    exec node -e "
      const server = require(process.argv[1])({createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0, shardLimit: 100});
      server.listen(Number(process.argv[2]), '127.0.0.1', () => console.log('kinesalite listening'));
      process.on('SIGTERM', () => server.close(() => process.exit(0)));
    " "$dir" "$port"
    ;;
  *) echo "usage: kinesalite.sh fetch | serve PORT" >&2; exit 2 ;;
esac
