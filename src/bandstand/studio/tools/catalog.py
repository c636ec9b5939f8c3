"""Every studio tool of spec §2 in one table: name, phase, parameter model,
handler. `TOOLS` is the registry the producer, the server, the MCP server and
the docs read."""

from __future__ import annotations

from bandstand.studio.tools import handlers_mix as M
from bandstand.studio.tools import handlers_notes as N
from bandstand.studio.tools import handlers_setup as S
from bandstand.studio.tools import params as P
from bandstand.studio.tools.registry import Tool, ToolRegistry

__all__ = ["CREATING", "TOOLS"]

TOOLS = ToolRegistry([
    Tool("read_project", "setup", P.ReadProject, S.read_project, read_only=True),
    Tool("create_project", "setup", P.CreateProject, S.create_project),
    Tool("set_tempo", "setup", P.SetTempo, S.set_tempo),
    Tool("set_key", "setup", P.SetKey, S.set_key),
    Tool("set_time_signature", "setup", P.SetTimeSignature, S.set_time_signature),
    Tool("add_midi_track", "setup", P.AddMidiTrack, S.add_midi_track),
    Tool("add_midi_region", "setup", P.AddMidiRegion, S.add_midi_region),
    Tool("set_midi_program", "setup", P.SetMidiProgram, S.set_midi_program),
    Tool("set_track_name", "setup", P.SetTrackName, S.set_track_name),
    Tool("set_track_colour", "setup", P.SetTrackColour, S.set_track_colour),
    Tool("add_notes", "composition", P.AddNotes, N.add_notes),
    Tool("generate_part", "composition", P.GeneratePart, N.generate_part),
    Tool("move_region", "arrangement", P.MoveRegion, N.move_region),
    Tool("duplicate_region", "arrangement", P.DuplicateRegion, N.duplicate_region),
    Tool("delete_region", "arrangement", P.DeleteRegion, N.delete_region),
    Tool("transpose_notes", "arrangement", P.TransposeNotes, N.transpose_notes),
    Tool("quantize_notes", "arrangement", P.QuantizeNotes, N.quantize_notes),
    Tool("apply_swing", "arrangement", P.ApplySwing, N.apply_swing),
    Tool("clear_notes", "arrangement", P.ClearNotes, N.clear_notes),
    Tool("update_notes", "arrangement", P.UpdateNotes, N.update_notes),
    Tool("remove_notes", "arrangement", P.RemoveNotes, N.remove_notes),
    Tool("add_insert_effect", "soundDesign", P.AddInsertEffect, M.add_insert_effect),
    Tool("add_midi_cc", "expression", P.AddMidiCC, N.add_midi_cc),
    Tool("add_pitch_bend", "expression", P.AddPitchBend, N.add_pitch_bend),
    Tool("add_aftertouch", "expression", P.AddAftertouch, N.add_aftertouch),
    Tool("set_track_volume", "mixing", P.SetTrackVolume, M.set_track_volume),
    Tool("set_track_pan", "mixing", P.SetTrackPan, M.set_track_pan),
    Tool("mute_track", "mixing", P.MuteTrack, M.mute_track),
    Tool("solo_track", "mixing", P.SoloTrack, M.solo_track),
    Tool("ensure_bus", "mixing", P.EnsureBus, M.ensure_bus),
    Tool("add_send", "mixing", P.AddSend, M.add_send),
    Tool("add_automation", "mixing", P.AddAutomation, M.add_automation),
])

# Tools that make something: an id a client sends with them is ignored (ids are issued here).
CREATING: frozenset[str] = frozenset({"create_project", "add_midi_track", "add_midi_region", "add_notes",
                                      "generate_part", "duplicate_region", "add_insert_effect", "ensure_bus"})
