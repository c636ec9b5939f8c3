"""Alternatives: other takes of a part, the progression or the arrangement.

`alternatives(session, "bass", count=3)` proposes N variants (default 3, at
most 5), each a variation of HEAD to hear and accept or discard, made as:

- defaults: a fresh seed, the part's own style overrides left out;
- dials raised: the creativity dials raised (a part's complexity and
  syncopation, the progression's harmonic dial, the arrangement's energy);
- structural: the part played as a genre with another groove family / bass
  style / comping / lead style would play it (walking against syncopated
  bass), the progression from another harmony family, another form;
- the fourth and fifth: defaults and dials raised again with further seeds.

Each is scored by the quality model (stage 7's axes — harmony, rhythm,
arrangement, vibe — over its calibrated figures, `compose.quality`) and the
set is ranked by that score, best first: A is the take the model rates
highest, and "try something different" offers them in that order. Each is
described in words (the variation's musical diff); no two are the same (a
hash of what changed; a repeat is drawn again with the next seed). The set is
kept in the session (`state/alternatives.json`), so "try something
different" offers the next one, and a new set when those are used up or HEAD
has moved.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bandstand.compose.api import GENRE_BY_NAME, Recipe, part_node, part_role, primary_genre
from bandstand.craft.style import StyleOverride
from bandstand.errors import InvalidInput
from bandstand.files import write_json
from bandstand.producer.execution.running import Control
from bandstand.producer.requests.iteration_plan import Plan
from bandstand.producer.requests.iteration_song import Rebuilt, rebuild
from bandstand.producer.requests.proposal import (
    AUTHOR,
    EditOutcome,
    part_keys,
    propose_plan,
    recipe_of,
)
from bandstand.producer.requests.sensitivity import blast_radius
from bandstand.producer.sessions.projects import ProjectSession, open_project
from bandstand.studio import Variation, to_song
from bandstand.studio.store import read_json

__all__ = ["DEFAULT_COUNT", "MAX_COUNT", "Alternative", "AlternativeSet", "alternatives", "next_alternative"]

DEFAULT_COUNT, MAX_COUNT = 3, 5
STORE = Path("state") / "alternatives.json"
LABELS = "ABCDE"
KINDS = ("defaults", "dials raised", "structural", "defaults", "dials raised")
PLANS = ("progression", "arrangement")
DIAL_KNOBS = {"complexity": 0.3, "syncopation": 0.3}
# The trait a structural alternative changes, by the role's family.
TRAIT = {"drums": "drum_family", "percussion": "drum_family", "bass": "bass_style", "sub_bass": "bass_style",
         "chords": "comp_style", "arp": "comp_style", "pad": "comp_style", "lead": "lead_style",
         "counter_melody": "lead_style"}
TRIES = 4  # seeds drawn per alternative before a repeat is let through


@dataclass(frozen=True, slots=True)
class Alternative:
    """One take: its label (A–E), what kind of change it is, the variation, its quality score
    and the fingerprint that keeps takes apart."""

    label: str
    kind: str
    variation: Variation
    score: dict[str, float]
    fingerprint: str

    def to_json(self) -> dict[str, Any]:
        v = self.variation
        return {"label": self.label, "kind": self.kind, "variation_id": v.id, "score": self.score,
                "diff": dict(v.diff), "counts": dict(v.counts), "phrases": len(v.phrases),
                "cost": v.details.get("cost"), "fingerprint": self.fingerprint}


@dataclass(frozen=True, slots=True)
class AlternativeSet:
    """The takes offered for a target against one base revision."""

    id: str
    target: str
    base_revision: int
    alternatives: tuple[Alternative, ...]

    def to_json(self) -> dict[str, Any]:
        return {"set_id": self.id, "target": self.target, "base_revision": self.base_revision,
                "alternatives": [a.to_json() for a in self.alternatives]}


def _target(target: str, keys: Sequence[str]) -> str:
    wanted = target.strip().lower().replace(" ", "_").replace("-", "_")
    wanted = {"chords_progression": "progression", "chord_progression": "progression", "form": "arrangement",
              "structure": "arrangement"}.get(wanted, wanted)
    if wanted in PLANS or wanted in keys:
        return wanted
    matches = [k for k in keys if part_role(k) == wanted]
    if matches:
        return matches[0]
    raise InvalidInput(f"no '{target}' to try alternatives of; use a part of this song ({', '.join(keys)}), "
                       "progression or arrangement")


def _contrast(recipe: Recipe, key: str) -> tuple[str, str] | None:
    """A genre whose way of playing `key` differs from the song's, nearest in tempo: (genre, what)."""
    trait = TRAIT.get(part_role(key), "lead_style") if key != "progression" else "harmony_family"
    current = getattr(primary_genre(recipe.intent), trait)
    tempo = recipe.intent.tempo

    def distance(g: Any) -> tuple[float, str]:
        low, high = g.tempo_range
        return (0.0 if low <= tempo <= high else min(abs(tempo - low), abs(tempo - high)), g.name)

    others = sorted((g for g in GENRE_BY_NAME.values() if getattr(g, trait) != current), key=distance)
    if not others:
        return None
    g = others[0]
    return g.name, f"{trait.replace('_', ' ')} {getattr(g, trait).replace('_', ' ')} (as {g.name} plays it)"


def _variant_plan(recipe: Recipe, keys: list[str], target: str, kind: str, step: int) -> tuple[Plan, str]:
    """The plan of one take: a seed `step` variants on, and the take's own change."""
    plan = Plan(recipe=recipe, keys=keys, frozen=set(recipe.frozen) & set(keys))
    node = {"progression": "harmony", "arrangement": "arrangement"}.get(target, part_node(target))
    variants = {**recipe.variants, node: recipe.variant(node) + step}
    r = recipe.model_copy(update={"variants": variants})
    label = kind
    if target in keys:
        plan.change(target)
        own = [o for o in r.style_overrides if o.role != target]
        genres = {k: v for k, v in r.node_genres.items() if k != target}
        if kind == "dials raised":
            own.append(StyleOverride(role=target, knobs=DIAL_KNOBS))
        elif kind == "structural" and (found := _contrast(r, target)) is not None:
            genres[target], label = found[0], f"structural: {found[1]}"
        r = r.model_copy(update={"style_overrides": own, "node_genres": genres})
    elif target == "progression":
        plan.change("progression")
        plan.rerun("harmony")
        genres = {k: v for k, v in r.node_genres.items() if k != "harmony"}
        if kind == "dials raised":
            dials = r.intent.creativity_dials
            raised = dials.model_copy(update={"harmonic": round(min(1.0, dials.harmonic + 0.3), 3)})
            r = r.model_copy(update={"intent": r.intent.model_copy(update={"creativity_dials": raised})})
        elif kind == "structural" and (found := _contrast(r, "progression")) is not None:
            genres["harmony"], label = found[0], f"structural: {found[1]}"
        r = r.model_copy(update={"node_genres": genres})
    else:
        plan.change("form")
        plan.rerun("arrangement")
        if kind == "dials raised":
            intent = r.intent
            energy = round(min(1.0, (intent.energy if intent.energy is not None else 0.6) + 0.15), 3)
            r = r.model_copy(update={"intent": intent.model_copy(update={"energy": energy})})
        elif kind == "structural":
            from bandstand.compose.api import FORMS, primary_genre

            form_now = recipe.form or recipe.arrangement.form_name
            forms = [f for f in FORMS if f not in (form_now, primary_genre(recipe.intent).form)]
            if forms:
                form = min(forms, key=lambda f: (abs(sum(s.bars for s in FORMS[f])
                                                     - recipe.arrangement.total_bars), f))
                r = r.model_copy(update={"form": form})
                label = f"structural: {form} form"
    plan.recipe = r
    return plan, label


def _fingerprint(recipe: Recipe, tracks: Sequence[Any], target: str) -> str:
    """A take, hashed: the progression, the arrangement's shape and the notes of the target's
    tracks (every track for the progression or the arrangement)."""
    keys = [k for k in recipe.parts if target in PLANS or k == target]
    names = {recipe.parts[k] for k in keys}
    rows = [(t.name, [(round(n.start, 4), n.pitch, round(n.duration, 4), n.velocity) for n in t.notes])
            for t in tracks if t.name in names]
    shape = [(s.name, s.bars, round(s.energy, 3), sorted(s.roles)) for s in recipe.arrangement.sections]
    chords = [c.symbol for c in recipe.harmony.chords]
    data = json.dumps([target, rows, shape, chords], sort_keys=True, default=str)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]


def _score(built: Rebuilt) -> dict[str, float]:
    from bandstand.compose.api import evaluate_quality

    r = built.recipe
    quality = evaluate_quality(built.song, r.intent, r.harmony, r.arrangement)
    return {**{k: round(v, 3) for k, v in quality.axes.items()}, "mean": round(quality.mean, 4)}


def _load(session: ProjectSession) -> dict[str, Any]:
    data = read_json(session.session_dir / STORE)
    return data if isinstance(data, dict) and isinstance(data.get("sets"), list) else {"sets": []}


def _save(session: ProjectSession, data: dict[str, Any]) -> None:
    write_json(session.session_dir / STORE, data)


def _offered(session: ProjectSession) -> list[str]:
    """Fingerprints of every take offered against HEAD, so a new set does not repeat them."""
    head = session.revision
    return [fp for s in _load(session)["sets"] if s["base_revision"] == head for fp in s["fingerprints"]]


def alternatives(session_dir: str | Path, target: str, *, count: int = DEFAULT_COUNT, author: str = AUTHOR,
                 session: ProjectSession | None = None, control: Control | None = None) -> AlternativeSet:
    """Propose `count` alternatives of `target` (a part, "progression" or "arrangement"), ranked
    best first by the quality model. With a `control`, each take made is reported as progress; a
    cancel raises `Cancelled` and keeps none of the set (takes proposed already are discarded)."""
    if not 1 <= count <= MAX_COUNT:
        raise InvalidInput(f"--count {count}: give 1 to {MAX_COUNT} alternatives")
    session = session or open_project(session_dir)
    head = session.head
    recipe = recipe_of(head)
    keys = list(part_keys(head, recipe))
    chosen = _target(target, keys)
    if chosen in recipe.frozen:
        raise InvalidInput(f"the {chosen.replace('_', ' ')} is frozen; say 'unfreeze the {chosen}' first")
    store = _load(session)
    earlier = [s for s in store["sets"] if s["target"] == chosen and s["base_revision"] == head.revision]
    step = 1 + sum(s.get("steps", 0) for s in earlier)
    song = to_song(head)
    seen = {*_offered(session), _fingerprint(recipe, song.tracks, chosen)}  # never the take it already is
    takes: list[tuple[Plan, str, Rebuilt, str, dict[str, float]]] = []
    for i in range(count):
        if control is not None and control.cancelled:
            control.check(f"making take {i + 1} of {count} of the {chosen.replace('_', ' ')}")
        kind = KINDS[i]
        for _ in range(TRIES):
            plan, label = _variant_plan(recipe, keys, chosen, kind, step)
            step += 1
            built = rebuild(song, plan, part_keys(head, recipe))
            fingerprint = _fingerprint(built.recipe, built.song.tracks, chosen)
            if fingerprint not in seen:
                seen.add(fingerprint)
                takes.append((plan, label, built, fingerprint, _score(built)))
                break
        # every seed tried gave a take already offered (or the song as it is): none of this kind
        if control is not None:
            control.report(i + 1, count, f"take {i + 1} of {count} of the {chosen.replace('_', ' ')}: {KINDS[i]}")
    # ranked by the quality model, best first (ties keep the order they were made in): A is the best
    takes.sort(key=lambda take: -take[4]["mean"])
    made: list[Alternative] = []
    for plan, label, built, fingerprint, score in takes:
        label_letter = LABELS[len(made)]
        if control is not None and control.cancelled:  # none of the set is kept
            for a in made:
                session.discard(a.variation.id)
            control.check(f"making alternative {label_letter} of the {chosen.replace('_', ' ')}")
        outcome = propose_plan(session, f"alternative {label_letter} of the {chosen.replace('_', ' ')}", plan,
                               before=recipe, intent=f"{chosen}: alternative {label_letter} ({label})",
                               author=author, built=built,
                               details={"alternative": {"target": chosen, "label": label_letter, "kind": label,
                                                        "score": score}})
        assert outcome.variation is not None
        made.append(Alternative(label_letter, label, outcome.variation, score, fingerprint))
    if not made:
        raise InvalidInput(f"no alternative of the {chosen.replace('_', ' ')} differs from what the song has "
                           "or was offered already; try another target")
    result = AlternativeSet(uuid.uuid4().hex[:12], chosen, head.revision, tuple(made))
    store["sets"].append({"id": result.id, "target": chosen, "base_revision": head.revision, "steps": step - 1,
                          "variations": [a.variation.id for a in made], "labels": [a.label for a in made],
                          "fingerprints": [a.fingerprint for a in made], "cursor": 0})
    _save(session, store)
    return result


def _last_target(session: ProjectSession, keys: Sequence[str]) -> str | None:
    """What "try something different" means without a target: the last set's target, else the
    one part the latest variation regenerated (None: nothing discussed yet — the caller then
    offers the whole arrangement)."""
    sets = _load(session)["sets"]
    if sets:
        return str(sets[-1]["target"])
    for v in reversed(session.variations()):
        regenerated = v.details.get("blast_radius", {}).get("regenerated", [])
        if len(regenerated) == 1 and regenerated[0] in keys:
            return str(regenerated[0])
    return None


def next_alternative(session: ProjectSession, target: str | None = None, *, request: str = "",
                     author: str = AUTHOR) -> EditOutcome:
    """The next alternative of `target` (or of what was tried last): the next take of the
    current set, or the first of a new set when it is used up or HEAD has moved."""
    head = session.head
    recipe = recipe_of(head)
    keys = list(part_keys(head, recipe))
    # nothing named and nothing discussed yet: the whole arrangement is what there is to try anew
    chosen = _target(target, keys) if target else (_last_target(session, keys) or "arrangement")
    store = _load(session)
    current = next((s for s in reversed(store["sets"]) if s["target"] == chosen
                    and s["base_revision"] == head.revision), None)
    if current is None or current["cursor"] >= len(current["variations"]):
        alternatives(session.session_dir, chosen, session=session, author=author)
        store = _load(session)
        current = store["sets"][-1]
    index = current["cursor"]
    current["cursor"] = index + 1
    _save(session, store)
    variation = session.variation(current["variations"][index])
    details = variation.details
    radius = details.get("blast_radius", {})

    return EditOutcome(request or f"alternative {current['labels'][index]} of the {chosen}", "variation", (),
                       head.revision, variation=variation,
                       radius=blast_radius(radius.get("changed", []), keys, recipe.frozen),
                       affected=tuple(details.get("affected_parts", [])),
                       preserved=tuple(details.get("preserved_parts", [])), frozen=tuple(recipe.frozen),
                       notes=(f"alternative {current['labels'][index]} of {len(current['variations'])}: "
                              f"{details.get('alternative', {}).get('kind', '')}",))
