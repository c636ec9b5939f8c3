"""`App.live()` (`producer.live.desk.LiveDesk`): a song's transport by id or by its folder, a song played
live into real outputs (a SuperDirt peer on this machine), the server's lifespans, and the Strudel desk —
over real session folders."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from bandstand.errors import InvalidInput, NotFound, PatternError
from bandstand.producer import App
from bandstand.producer.live.desk import Transport, TransportCommand
from bandstand.producer.sessions.projects import create_from_song
from bandstand.studio import Provenance, SeededIds

from ..peers.osc_peer import OscPeer
from ..studio.songs import small_song

PROJECT = "session-20260101-abc123"


@pytest.fixture
def app(tmp_path: Path) -> App:
    """The projects folder holding one project (the small song: Intro, Verse, Chorus; 16 bars)."""
    song = small_song()
    song.tempo = 300.0  # its chorus plays in 3.2 s
    create_from_song(tmp_path / PROJECT, song, Provenance(prompt="small", seeds={"song": 1}), ids=SeededIds(3))
    return App(tmp_path)


def test_the_transport_by_id_and_by_folder_is_one_saved_state(app: App) -> None:
    live = app.live()
    folder = app.projects / PROJECT
    assert live.transport(PROJECT) == Transport(folder, live.transport(folder).state)
    assert live.transport(PROJECT).state.bar == 1 and not live.transport(PROJECT).state.playing

    first = live.transport(PROJECT)
    played = live.command(PROJECT, TransportCommand(action="play", bar=5))
    assert played.folder == folder and played.state.playing and played.state.bar == 5
    assert first.again().state == played.state  # a follower reads the command another client gave
    looped = app.live().command(folder, TransportCommand(action="loop", section="the chorus"))
    assert looped.state.loop is not None and looped.state.loop.section == "Chorus" and looped.state.bar == 13
    assert live.transport(PROJECT).state.seq == 2


def test_transport_mistakes_are_one_line_naming_the_field(app: App, tmp_path: Path) -> None:
    live = app.live()
    with pytest.raises(InvalidInput) as past:
        live.command(PROJECT, TransportCommand(action="play", bar=17))
    assert "past the song's end: it has 16 bars" in past.value.message and past.value.context["field"] == "bar"
    with pytest.raises(InvalidInput) as unknown:
        live.command(PROJECT, TransportCommand(action="loop", section="coda"))
    assert unknown.value.context["field"] == "section"
    with pytest.raises(NotFound):
        live.transport("session-20260101-ffffff")
    (tmp_path / "not-a-song").mkdir()
    with pytest.raises(InvalidInput):
        live.transport(tmp_path / "not-a-song")
    assert live.transport(PROJECT).state.seq == 0  # nothing was saved


def test_a_section_is_checked_before_any_output_opens_then_played_into_superdirt(app: App) -> None:
    pytest.importorskip("pythonosc")
    live = app.live()
    assert live.outputs() == []  # no option asks for an output: none
    with pytest.raises(InvalidInput, match="no section 'coda'"):
        live.song(PROJECT, "coda")
    assert live.song(app.projects / PROJECT, "chorus").startswith("the Chorus (bars 13–16")
    heard: list[tuple[str, float]] = []
    with OscPeer() as peer:
        outputs = live.outputs(peer.address, latency=0.2)
        played = live.play(PROJECT, outputs, "chorus", on_start=lambda what, s: heard.append((what, s)))
        got = peer.wait_for(52, timeout=30)
    assert played.notes == 52 and not played.stopped and not played.errors and len(got) == 52
    assert heard == [(played.what, pytest.approx(3.2))]


def test_a_stop_ends_a_live_play_at_once(app: App) -> None:
    pytest.importorskip("pythonosc")
    stop = threading.Event()
    stop.set()
    with OscPeer() as peer:
        played = app.live().play(app.projects / PROJECT, app.live().outputs(peer.address), stop=stop)
    assert played.stopped and played.what.startswith("the whole song") and played.seconds == pytest.approx(12.8)


async def test_the_servers_lifespans_watch_the_projects_and_feed_the_jam(app: App) -> None:
    from bandstand.protocol import Emitter

    live = app.live()
    async with live.follow_transports([]) as transports:
        assert transports.root == app.projects
    async with live.feed_jam(Emitter(), []):
        await asyncio.sleep(0)


def test_a_pattern_desk_in_the_key_and_tempo_asked(app: App) -> None:
    live = app.live()
    desk = live.pattern_desk("D dorian", 100)
    assert (desk.context.key, desk.context.bpm) == ("D dorian", 100)
    assert (live.pattern_desk().context.key, live.pattern_desk().context.bpm) == ("C minor", 120)
    assert live.pattern_desk() is not live.pattern_desk()  # a desk of each client's own


def test_scratch_code_is_checked_and_answered_as_a_song_a_page_loops(app: App) -> None:
    scratch = app.live().scratch('note("c3 e3 g3").s("sawtooth")', cycles=64, key="C major", tempo=90)
    assert scratch.played.playing and scratch.played.bpm == 90 and scratch.played.in_key == 1.0
    assert scratch.song["length"] == 64 * 4 and scratch.song["tempo"] == 90
    assert len(scratch.song["tracks"][0]["notes"]) == 3 * 64
    with pytest.raises(PatternError):
        app.live().scratch('note("c3 e3"')


def test_the_reference_whole_or_for_a_word(app: App) -> None:
    live = app.live()
    assert live.reference().startswith("# Strudel in bandstand")
    assert "`fast`" in live.reference("fast") and not live.reference("fast").startswith("# Strudel")
    with pytest.raises(InvalidInput):
        live.reference("zzzzzz")
