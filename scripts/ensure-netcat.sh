#!/usr/bin/env bash
# Make sure `nc` (netcat, with -l and -k) is installed: the socket integration tests type
# lines into `nc -lk PORT`, as Spark's network word count guide does.
#
# Installs netcat-openbsd with apt-get when missing and we are root; otherwise says what
# to install and exits 1. Safe to run repeatedly (a no-op when nc is present).
set -euo pipefail

if command -v nc >/dev/null 2>&1; then
  exit 0
fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-netcat: nc not found; installing netcat-openbsd" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq netcat-openbsd >/dev/null
  command -v nc >/dev/null 2>&1 && exit 0
  echo "ensure-netcat: installing netcat-openbsd did not provide nc" >&2
  exit 1
fi

echo "ensure-netcat: nc (netcat) is missing; install it, e.g. 'sudo apt-get install netcat-openbsd'" \
     "or 'brew install netcat'" >&2
exit 1
