"""A real server process, as `bandstand serve` builds it, with some of its limits changed
(so a test can reach them in seconds): prints the same two lines `serve` does.

    python -m tests.e2e.limited_server serve --runs-dir DIR --limit sse_lag_seconds=1 --limit header_seconds=1
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.server.jam_process import Served, bandstand_server


def main() -> None:
    from bandstand.jam.persona import resolve_members
    from bandstand.server import ServerConfig, bind, create_app, serve
    from bandstand.server.config import Limits

    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["serve"])
    parser.add_argument("--runs-dir", default="runs")
    parser.add_argument("--limit", action="append", default=[], help="NAME=VALUE of bandstand.server.config.Limits")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    types = {f.name: f.type for f in dataclasses.fields(Limits)}
    changed = {name: (float if types[name] in (float, "float") else int)(value)
               for name, _, value in (item.partition("=") for item in args.limit)}
    sock = bind("127.0.0.1", args.port)
    config = ServerConfig(port=sock.getsockname()[1], token=os.environ.get("BANDSTAND_TOKEN", "t" * 32),
                          limits=Limits(**changed))
    app = create_app(config, resolve_members(["beat"]), runs_dir=args.runs_dir)

    def ready() -> None:
        print(f"bandstand serve: {config.url}?token={app.state.server.page_tickets.mint()}  (Ctrl-C to stop)",
              flush=True)
        print(f"API token: {config.token}", flush=True)

    serve(config, app, sock, on_ready=ready)


@contextmanager
def limited_server(runs_dir: Path, **limits: float) -> Iterator[Served]:
    """This module's server, with `limits` (names of `Limits`), on a free loopback port."""
    args = [f"--limit={name}={value}" for name, value in limits.items()]
    root = str(Path(__file__).resolve().parents[2])
    env = {"PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)}
    with bandstand_server("serve", "--runs-dir", str(runs_dir), *args, env=env, module="tests.e2e.limited_server") as served:
        yield served


if __name__ == "__main__":
    main()
