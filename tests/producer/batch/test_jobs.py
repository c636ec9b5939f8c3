"""The prompts file: one song per line (text or JSON), seeds per position, folders per song,
one clear line per mistake."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bandstand.errors import InvalidInput
from bandstand.producer.batch import SongJob, batch_id, load_prompts, read_prompts
from bandstand.producer.batch.jobs import slug

TEXT = """# my album
funk groove in E minor

{"prompt": "dark trap", "seed": 42, "bars": 16, "parts": "drums,bass"}
  jazz ballad, late night
{"prompt": "rock", "team": true}
"""


def test_lines_become_songs_with_seeds_and_folders() -> None:
    jobs = read_prompts(TEXT, seed=10, defaults={"bars": 8})
    assert [j.prompt for j in jobs] == ["funk groove in E minor", "dark trap", "jazz ballad, late night", "rock"]
    assert [j.seed for j in jobs] == [10, 42, 12, 13]
    assert [j.folder for j in jobs] == ["001-funk-groove-in-e-minor", "002-dark-trap", "003-jazz-ballad-late-night",
                                        "004-rock"]
    assert jobs[1].compose_options() == {"bars": 16, "parts": ["drums", "bass"]}
    assert jobs[0].compose_options() == {"bars": 8} and jobs[3].team and not jobs[0].team


@pytest.mark.parametrize(("text", "message"), [
    ("", "no prompts"),
    ("# only a comment\n\n", "no prompts"),
    ("ok\n{not json", "prompts:2: not a JSON object"),
    ('{"seed": 3}', 'needs a "prompt" string'),
    ('{"prompt": "x", "tempo_bpm": 90}', "unknown field 'tempo_bpm'"),
    ('{"prompt": "x", "bars": 2}', "prompts:1: bars: Input should be greater than or equal to 4"),
    ('{"prompt": "x", "seed": -1}', "prompts:1: seed"),
    ("x" * 5000, "keep a song under 4000"),
])
def test_mistakes_are_one_line_naming_the_line(text: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        read_prompts(text)


def test_a_missing_or_unreadable_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no prompts file"):
        load_prompts(tmp_path / "nope.txt")
    with pytest.raises(InvalidInput, match="is a folder"):
        load_prompts(tmp_path)
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(InvalidInput, match="not UTF-8"):
        load_prompts(tmp_path / "latin1.txt")


def test_the_batch_id_follows_the_songs() -> None:
    jobs = read_prompts(TEXT, seed=10)
    assert batch_id(jobs) == batch_id(read_prompts(TEXT, seed=10))
    assert batch_id(jobs) != batch_id(read_prompts(TEXT, seed=11))


prompts = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=60).filter(
    lambda s: s.strip() and not s.strip().startswith(("#", "{")))


@given(st.lists(prompts, min_size=1, max_size=20), st.integers(min_value=0, max_value=1000))
def test_every_prompt_line_is_one_song_in_order(lines: list[str], seed: int) -> None:
    jobs = read_prompts("\n".join(lines), seed=seed)
    assert [j.prompt for j in jobs] == [line.strip() for line in lines]
    assert [j.seed for j in jobs] == [seed + i for i in range(len(lines))]
    assert len({j.folder for j in jobs}) == len(jobs)
    assert all(SongJob.model_validate_json(j.model_dump_json()) == j for j in jobs)


@given(st.text(max_size=80))
def test_a_slug_is_safe_for_a_folder_name(text: str) -> None:
    name = slug(text)
    assert name and len(name) <= 40 and all(c.isascii() and (c.isalnum() or c == "-") for c in name)
