"""The public names of the compose graph, the request parser and the iteration use cases
are pinned: a change to them is a change of contract (other helpers build on these)."""

from __future__ import annotations

import importlib

import pytest

EXPORTS = {
    "bandstand.compose.graph": {"Artifacts", "Fanout", "Graph"},
    "bandstand.compose.edges": {"Edge", "Group", "edges_of", "typed_node"},
    "bandstand.compose.runs": {"PLAN_OPTIONS", "PartFn", "Plans", "Recipe", "Regenerated", "Rerun", "RunProducts",
                               "active_spans", "default_part", "dependencies", "lay_out", "part_seed", "plan",
                               "plan_seed", "plans_for", "products", "reach", "read_state", "regenerate", "replan",
                               "role_order", "roles_for", "supported_roles", "write_state"},
    "bandstand.compose.models.reports": {"SessionFiles", "ValidationReport"},
    "bandstand.compose.nodes": {"FACTS", "Cancelled", "Job", "Node", "NodeContext", "NodeResult", "TimeUp", "Worker",
                                "WorkerPool", "derive_seed"},
    "bandstand.compose.engine": {"HINTS", "Approver", "Decision", "Engine", "EventSink", "Limits", "Verdict"},
    "bandstand.compose.recipe": {"GENERATOR", "PLAN_NODES", "PlanArtifact", "Recipe", "Rerun", "part_role", "rerun"},
    "bandstand.compose.api": {"ACTIVE_SECONDS", "ALIASES", "Approver", "ArrangementPlan", "CleanPlan",
                              "ComposeResult", "Constraint", "DEFAULT_PROGRAMS", "Decision", "EventSink", "FORMS",
                              "GENERATOR", "GENRE_BY_NAME", "HarmonyPlan", "INSTRUMENTS", "Intent", "KEYS_PROGRAMS",
                              "KeySpan", "LEAD_SHEET", "MANIFEST", "METRE_BARS", "MOODS", "MOOD_BY_LABEL",
                              "Overrides", "PLAN_OPTIONS", "PartFn", "PartResult", "Pipeline", "PipelineState",
                              "Plans", "RENDER_CACHE", "Recipe", "Regenerated", "Rerun", "RunProducts", "SESSION_RE",
                              "SONG_JSON", "STEPS", "SectionKind", "SectionPlan", "SessionInfo", "Slot", "SongState",
                              "SoundPlan", "TRACK_NAMES", "active_spans", "apply_sound", "bar_chords", "bar_keys",
                              "build_harmony", "build_situation", "build_sound", "chord_changes",
                              "chords_from_track", "clean", "compose", "decompose", "default_part", "dependencies",
                              "evaluate_quality", "inspect", "key_changes", "lay_out", "layers", "lead_sheet",
                              "lead_sheet_source", "list_sessions", "make_config", "midi_files", "new_session_id",
                              "node_names", "overlay", "parse_generators", "part_files", "part_node", "part_role",
                              "part_seed", "plan", "plan_clean", "plan_seed", "planned_state", "plans_for",
                              "preset_name", "primary_genre", "products", "reach", "read_session_song", "read_state",
                              "regenerate", "replan", "resume", "role_order", "roles_for", "self_listed",
                              "song_files", "styles_for", "supported_roles", "takes_for", "with_chords",
                              "write_audio", "write_parts", "write_state"},
    "bandstand.compose.options": {"make_config", "node_names"},
    "bandstand.craft.requests": {"BPM", "BPM_RANGE", "EXAMPLES", "MAX_CHARS", "NO_WORDS", "ROLE_WORDS", "SECTION_WORDS", "Vocabulary",
                                 "not_understood", "parse_request", "scoped_to"},
    "bandstand.craft.mixer_edits": {"EFFECT_WORDS", "GRID_WORDS", "MIXER_ADAPTER", "AddTrackEdit", "EffectEdit",
                                    "MixerEdit", "MuteEdit", "PanEdit", "QuantizeEdit", "RenameEdit", "SwingEdit",
                                    "TrackSoloEdit", "TransportEdit", "VolumeEdit"},
    "bandstand.producer.composing.compose": {"APPROVAL_OPTIONS", "STEPS", "Answer", "Composed", "Question",
                                   "ambiguity_questions", "approver", "compose_song", "part_generator", "resume_song",
                                   "style_words"},
    "bandstand.producer.requests.iteration": {"edit", "propose_edits", "read", "vocabulary"},
    "bandstand.producer.requests.proposal": {"AUTHOR", "EditOutcome", "part_keys", "propose_plan", "recipe_of"},
    "bandstand.producer.requests.alternatives": {"Alternative", "AlternativeSet", "DEFAULT_COUNT", "MAX_COUNT",
                                        "alternatives", "next_alternative"},
    "bandstand.producer.requests.sensitivity": {"BlastRadius", "Cost", "EXPENSIVE", "blast_radius", "changed_by",
                                       "component_node", "sensitivity"},
}


@pytest.mark.parametrize("module", sorted(EXPORTS))
def test_exports_are_pinned_and_defined(module: str) -> None:
    mod = importlib.import_module(module)
    assert set(mod.__all__) == EXPORTS[module]
    assert all(hasattr(mod, name) for name in mod.__all__)


def test_every_edit_kind_is_exported_and_in_the_union() -> None:
    from bandstand.craft import edits

    classes = [getattr(edits, n) for n in edits.__all__ if n.endswith("Edit") and n != "Edit"]
    kinds = {c.model_fields["kind"].default for c in classes}
    assert len(kinds) == len(classes) == 19 and {"style", "praise", "freeze"} <= kinds
    for c in classes:  # each kind reads back through the one discriminated union
        sample = {"style": {"override": {"role": "bass"}}, "key": {"tonic": "A"}, "mode": {"mode": "dorian"},
                  "transpose": {"semitones": 2}, "metre": {"numerator": 3, "denominator": 4},
                  "progression": {"chords": ["Am"]}, "genre": {"genre": "house"},
                  "instrument": {"role": "lead", "program": 65}, "add_part": {"role": "pad"},
                  "remove_part": {"role": "pad"}, "presence": {"present": False},
                  "regenerate": {"target": "lead"}, "freeze": {"roles": ["drums"]},
                  "mix": {"role": "bass", "volume": 1.2}}.get(c.model_fields["kind"].default, {})
        edit = edits.EDIT_ADAPTER.validate_python({"kind": c.model_fields["kind"].default, **sample})
        assert type(edit) is c
