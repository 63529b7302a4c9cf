"""``python -m dstream.history DIR [--port N] [--host H]``: serve the UIs of the event logs in DIR."""

from __future__ import annotations

import argparse
import logging
import sys
import threading

from dstream.history.server import DEFAULT_PORT, HistoryServer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dstream.history",
        description="Serve the web UI (Jobs, Stages, Storage, Environment, Executors, Streaming, "
                    "Structured Streaming) of the applications whose event logs are in DIR.")
    parser.add_argument("directory", metavar="DIR", help="the event log directory (spark.eventLog.dir)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help="port of the application list (default: %(default)s, Spark's; the next free one "
                             "if taken)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        server = HistoryServer(args.directory, host=args.host, port=args.port).start()
    except (OSError, ValueError) as exc:
        print(f"python -m dstream.history: {exc}", file=sys.stderr)
        return 2
    print(f"History server for {args.directory} at {server.url} (Ctrl-C stops it)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
