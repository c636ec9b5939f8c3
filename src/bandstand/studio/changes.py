"""What changed between two projects, as a list of `Change(path, label, before,
after)` — the body of a history entry. Scalar fields are compared one by one;
a region's events are summarised (note counts and how many notes were added,
removed or modified, matched by note id) rather than listed, so the history of
a regenerated part stays readable. Paths use ids (`tracks/<id>/volume`);
labels use names ("Bass volume")."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from bandstand.studio.model import BusSpec, Project, Region, Track

__all__ = ["Change", "NoteDelta", "note_delta", "project_changes"]


class Change(BaseModel):
    """One changed value: `before` is None when the thing was added, `after` when removed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    label: str
    before: Any = None
    after: Any = None


class NoteDelta(BaseModel):
    model_config = ConfigDict(frozen=True)

    added: int = 0
    removed: int = 0
    modified: int = 0

    @property
    def total(self) -> int:
        return self.added + self.removed + self.modified


def note_delta(before: Region | None, after: Region | None) -> NoteDelta:
    """Notes added, removed and modified (same id, different sound) between two versions."""
    old = {n.id: n for n in before.notes} if before else {}
    new = {n.id: n for n in after.notes} if after else {}
    return NoteDelta(
        added=sum(1 for i in new if i not in old),
        removed=sum(1 for i in old if i not in new),
        modified=sum(1 for i, n in new.items() if i in old and old[i] != n),
    )


_SONG_FIELDS = ("name", "tempo", "key", "key_changes", "time_signature", "metre_changes", "tempo_changes", "sections", "markers")
_TRACK_FIELDS = ("name", "role", "program", "drum_kit", "channel", "colour", "volume", "pan", "mute", "solo",
                 "inserts", "sends", "automation", "program_changes")
_REGION_FIELDS = ("name", "start_beat", "length_beats", "track_id")
_BUS_FIELDS = ("name", "inserts", "volume")


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _fields(out: list[Change], path: str, label: str, a: BaseModel, b: BaseModel, names: tuple[str, ...]) -> None:
    for name in names:
        va, vb = getattr(a, name), getattr(b, name)
        if va != vb:
            out.append(Change(path=f"{path}{name}", label=f"{label}{name.replace('_', ' ')}",
                              before=_plain(va), after=_plain(vb)))


def _region_summary(r: Region) -> dict[str, Any]:
    return {"name": r.name, "start_beat": r.start_beat, "length_beats": r.length_beats, "notes": len(r.notes)}


def _regions(out: list[Change], t_path: str, t_label: str, a: Track | None, b: Track | None) -> None:
    old = {r.id: r for r in a.regions} if a else {}
    new = {r.id: r for r in b.regions} if b else {}
    for rid in [*old, *(i for i in new if i not in old)]:
        ra, rb = old.get(rid), new.get(rid)
        path = f"{t_path}regions/{rid}"
        label = f"{t_label}region '{(rb or ra).name if (rb or ra) else ''}'"  # type: ignore[union-attr]
        if ra is None or rb is None:
            out.append(Change(path=path, label=label, before=_region_summary(ra) if ra else None,
                              after=_region_summary(rb) if rb else None))
            continue
        if ra == rb:
            continue
        _fields(out, f"{path}/", f"{label} ", ra, rb, _REGION_FIELDS)
        if ra.notes != rb.notes:
            delta = note_delta(ra, rb)
            out.append(Change(path=f"{path}/notes", label=f"{label} notes", before={"count": len(ra.notes)},
                              after={"count": len(rb.notes), **delta.model_dump()}))
        for kind in ("cc", "pitch_bends", "aftertouch"):
            ea, eb = getattr(ra, kind), getattr(rb, kind)
            if ea != eb:
                out.append(Change(path=f"{path}/{kind}", label=f"{label} {kind.replace('_', ' ')}",
                                  before={"count": len(ea)}, after={"count": len(eb)}))


def _bus_summary(b: BusSpec) -> dict[str, Any]:
    return {"name": b.name, "inserts": [e.type for e in b.inserts]}


def _track_summary(t: Track) -> dict[str, Any]:
    return {"name": t.name, "role": t.role, "regions": len(t.regions), "notes": t.note_count}


def project_changes(before: Project | None, after: Project) -> list[Change]:
    """Every change from `before` to `after` (everything is new when `before` is None)."""
    if before is None:
        return [Change(path="", label="project", before=None,
                       after={"name": after.name, "tracks": [t.name for t in after.tracks],
                              "notes": after.note_count()})]
    out: list[Change] = []
    _fields(out, "", "", before, after, _SONG_FIELDS)
    old_b, new_b = {b.id: b for b in before.buses}, {b.id: b for b in after.buses}
    for bid in [*old_b, *(i for i in new_b if i not in old_b)]:
        ba, bb = old_b.get(bid), new_b.get(bid)
        name = (bb or ba).name  # type: ignore[union-attr]
        if ba is None or bb is None:
            out.append(Change(path=f"buses/{bid}", label=f"bus '{name}'", before=ba and _bus_summary(ba),
                              after=bb and _bus_summary(bb)))
        elif ba != bb:
            _fields(out, f"buses/{bid}/", f"bus '{name}' ", ba, bb, _BUS_FIELDS)
    old_t, new_t = {t.id: t for t in before.tracks}, {t.id: t for t in after.tracks}
    for tid in [*old_t, *(i for i in new_t if i not in old_t)]:
        ta, tb = old_t.get(tid), new_t.get(tid)
        name = (tb or ta).name  # type: ignore[union-attr]
        if ta is None or tb is None:
            out.append(Change(path=f"tracks/{tid}", label=f"track '{name}'", before=ta and _track_summary(ta),
                              after=tb and _track_summary(tb)))
            continue
        if ta == tb:
            continue
        _fields(out, f"tracks/{tid}/", f"{name} ", ta, tb, _TRACK_FIELDS)
        if ta.regions != tb.regions:
            _regions(out, f"tracks/{tid}/", f"{name} ", ta, tb)
    if before.provenance != after.provenance:  # summarised: the recipe can be large
        a, b = before.provenance.model_dump(), after.provenance.model_dump()
        keys = sorted(k for k in {*a, *b} if a.get(k) != b.get(k))
        recipe = sorted(k for k in {*a["recipe"], *b["recipe"]} if a["recipe"].get(k) != b["recipe"].get(k))
        out.append(Change(path="provenance", label="provenance", before={"fields": keys},
                          after={"fields": keys, "recipe": recipe}))
    if [t.id for t in before.tracks if t.id in new_t] != [t.id for t in after.tracks if t.id in old_t]:
        out.append(Change(path="tracks", label="track order", before=[t.name for t in before.tracks],
                          after=[t.name for t in after.tracks]))
    return out
