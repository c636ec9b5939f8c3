"""What a key map costs an edit, in process, on a composed 64-bar pop song in Bb major (five
parts): "make the bass busier" proposed on the one-key song, and on the same song after "change
the key to F# minor in the chorus" was accepted (two keys: the bass is written again once per
key of the map and spliced bar by bar). Each figure is the wall time from the call to a ready
variation (the variation discarded after), with the process's CPU time beside it, so a busy
machine shows as wall ≫ cpu.

    python benchmarks/key_map.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def _timed(fn: Callable[[], None], rounds: int) -> dict[str, float]:
    wall, cpu = [], []
    for _ in range(rounds):
        w, c = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - w) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return {"median": round(statistics.median(wall), 1), "cpu_median": round(statistics.median(cpu), 1),
            "rounds": rounds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    from bandstand.producer.composing.compose import compose_song
    from bandstand.producer.requests.iteration import edit
    from bandstand.producer.sessions.projects import open_project

    with tempfile.TemporaryDirectory() as tmp:
        root = compose_song("pop song in Bb major", seed=3, bars=64, out_dir=tmp, render_audio=False,
                            render_pianoroll=False).result.session_dir
        session = open_project(Path(root))

        def busier() -> None:
            outcome = edit(root, "make the bass busier", session=session)
            assert outcome.variation is not None
            session.discard(outcome.variation.id)

        one_key = _timed(busier, args.rounds)
        scoped = edit(root, "change the key to F# minor in the chorus", session=session)
        assert scoped.variation is not None
        session.accept(scoped.variation.id)
        two_keys = _timed(busier, args.rounds)
        print(json.dumps({"edit_one_key_ms": one_key, "edit_two_keys_ms": two_keys,
                          "key_changes": [c.key for c in session.head.key_changes]}, indent=2))


if __name__ == "__main__":
    main()
