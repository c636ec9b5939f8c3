"""Same prompt + seed → same files: compose 20 varied prompts (no audio) with the checkout
whose `src` is given and print, per song, the SHA-256 of `midi/full-arrangement.mid` and
`manifest.json` as JSON. Run it on two checkouts and compare the outputs (a manifest is
compared without its ids, clock times and file sizes, which differ on every run):

    python benchmarks/facts_bytes.py /work/main/src /tmp/main-songs > main.json
    python benchmarks/facts_bytes.py src /tmp/branch-songs > branch.json
    python benchmarks/facts_bytes.py --compare main.json branch.json
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

PROMPTS: tuple[tuple[str, int], ...] = (
    ("Frank Ocean meets Burial, late-night vibes", 1),
    ("a mechanical robot funk groove at 104 bpm", 2),
    ("robotic techno with a counter-melody", 3),
    ("sad piano ballad in Eb minor", 4),
    ("happy summer reggaeton, 96 BPM", 5),
    ("dark trap beat in F# minor at 140 bpm", 6),
    ("dreamy ambient soundscape with a counter melody", 7),
    ("aggressive drum and bass, 174 bpm", 8),
    ("chill lo-fi hip-hop, rainy day", 9),
    ("epic cinematic score in D minor", 10),
    ("groovy disco house at 122 bpm", 11),
    ("jazzy neo-soul with complex chords in Bb major", 12),
    ("a lullaby in G major", 13),
    ("mysterious trip-hop, tempo 88", 14),
    ("energetic pop anthem in C# major", 15),
    ("minimal techno, clockwork machines", 16),
    ("classical piece in A minor with strings", 17),
    ("spacey synthwave at 100-110 bpm", 18),
    ("nostalgic dusty boom bap in Ab major", 19),
    ("a waltz in 3/4, romantic, in Db major", 20),
)
FILES = ("midi/full-arrangement.mid", "manifest.json")
# what differs from run to run in a manifest: ids, clock times, and the sizes of the files holding them
VOLATILE = frozenset({"created_at", "pipeline_id", "session_id", "duration_ms", "size"})


def _stable(value: object) -> object:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _digest(path: Path) -> str:
    data = path.read_bytes()
    if path.name == "manifest.json":
        data = json.dumps(_stable(json.loads(data)), sort_keys=True).encode()
    return hashlib.sha256(data).hexdigest()


def _compose(src: str, out: Path) -> dict[str, dict[str, str]]:
    env = {**os.environ, "PYTHONPATH": str(Path(src).resolve())}
    hashes: dict[str, dict[str, str]] = {}
    for i, (prompt, seed) in enumerate(PROMPTS):
        folder = out / f"song{i:02d}"
        subprocess.run([sys.executable, "-m", "bandstand", "compose", prompt, "--seed", str(seed), "--no-audio",
                        "--yes", "--json", "--out", str(folder)], env=env, check=True, capture_output=True)
        sessions = sorted(p for p in folder.iterdir() if p.is_dir())
        hashes[prompt] = {f: _digest(sessions[-1] / f) for f in FILES}
    return hashes


def _compare(a: str, b: str) -> dict[str, object]:
    left, right = json.loads(Path(a).read_text()), json.loads(Path(b).read_text())
    changed = {p: [f for f in FILES if left[p][f] != right[p][f]] for p in left}
    return {"songs": len(left), "changed": {p: fs for p, fs in changed.items() if fs}}


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        print(json.dumps(_compare(sys.argv[2], sys.argv[3]), indent=1))
    else:
        print(json.dumps(_compose(sys.argv[1], Path(sys.argv[2])), indent=1))
