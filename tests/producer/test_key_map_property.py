"""The key map holds under any directing: whatever sequence of edits ("change the key to X", in the
whole song or in a section, "make the bass busier", "make the drums simpler in the verse", "try
something different"), accepts of all or some phrases, undos and alternatives, every pitched part
stays at least 90% in the key the song's key map declares for its bars (theory's scales say which
pitch classes a key holds)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bandstand.errors import InvalidInput
from bandstand.producer.requests.iteration import edit
from bandstand.producer.sessions.projects import open_project
from bandstand.studio import Project, to_song
from bandstand.theory import parse_key

IN_KEY = 0.9
KEYS = ("F# minor", "D major", "Eb major", "A minor", "Bb major")
EDITS = ("make the bass busier", "make the drums simpler in the verse", "try something different")

step = st.one_of(
    st.tuples(st.just("key"), st.sampled_from(KEYS), st.lists(st.integers(0, 99), max_size=3)),
    st.tuples(st.just("key"), st.sampled_from([f"{k} in the {s}" for k in KEYS for s in ("chorus", "verse")]),
              st.lists(st.integers(0, 99), max_size=2)),
    st.tuples(st.just("edit"), st.sampled_from(EDITS), st.lists(st.integers(0, 99), max_size=2)),
    st.tuples(st.just("undo"), st.just(""), st.just([])),
)


def _in_key(project: Project) -> dict[str, float]:
    """Each pitched part's share of notes in the key the map declares where the note starts."""
    song = to_song(project)
    out = {}
    for track in song.tracks:
        if track.is_drum or not track.notes:
            continue
        held = 0
        for note in track.notes:
            key = song.key_at(note.start)
            assert key is not None
            held += note.pitch % 12 in parse_key(key).scale.pitch_classes
        out[track.name] = held / len(track.notes)
    return out


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=4))
def test_every_pitched_part_stays_in_the_key_its_bars_declare(composed: Callable[..., Path],
                                                               steps: list[tuple[str, str, list[int]]]) -> None:
    source = composed("pop song in Bb major", 3, 16)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / source.name
        shutil.copytree(source, root)
        for kind, words, picks in steps:
            session = open_project(root)
            if kind == "undo":
                if session.revision > 1:
                    session.undo()
            else:
                request = f"change the key to {words}" if kind == "key" else words
                try:
                    outcome = edit(root, request, session=session)
                except InvalidInput:  # nothing would change: the song already is what was asked
                    continue
                variation = outcome.variation
                assert variation is not None
                ids = variation.phrase_ids()
                # picks: accept all of it (none drawn) or the phrases drawn
                chosen = sorted({ids[i % len(ids)] for i in picks}) if picks and ids else None
                session.accept(variation.id, chosen)
            head = open_project(root).head
            shares = _in_key(head)
            assert all(v >= IN_KEY for v in shares.values()), (kind, words, picks, head.key,
                                                                 [(c.beat, c.key) for c in head.key_changes], shares)
