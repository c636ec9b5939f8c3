"""A SoundFont 2 file read into what a synthesizer plays: presets made of regions.

A SoundFont is a RIFF file: `sdta/smpl` holds every sample as 16-bit PCM, `pdta`
holds the "hydra" — presets (`phdr`) made of zones (`pbag`) with generators
(`pgen`), each pointing at an instrument (`inst`) made of zones (`ibag`) with
generators (`igen`), each pointing at a sample header (`shdr`). This module
flattens that into one `Region` per (preset zone × instrument zone): the
instrument zone's generators (over its global zone and the SF2 defaults) plus
the preset zone's (relative, over the preset's global zone), clamped to the
ranges TinySoundFont uses, with envelope and LFO times in seconds and sample
positions absolute. Presets are sorted by (bank, number, order in file).
Modulators are ignored (as TinySoundFont does)."""

from __future__ import annotations

import struct
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["Envelope", "Preset", "Region", "SoundFont", "SoundFontError", "parse"]


class SoundFontError(ValueError):
    """The bytes are not a SoundFont 2 file this synthesizer can play."""


@dataclass(frozen=True)
class Envelope:
    """An envelope's stages in seconds (hold/decay stay in timecents when a key scales them);
    sustain is a gain (volume envelope) or a level 0..1 (modulation envelope)."""

    delay: float
    attack: float
    hold: float
    decay: float
    sustain: float
    release: float
    keynum_to_hold: float
    keynum_to_decay: float


@dataclass(frozen=True)
class Region:
    """One sample played over a key and velocity range, with every generator resolved."""

    loop_mode: int  # 0 none, 1 continuous, 2 while the key is held (sustain loop)
    sample_rate: int
    lokey: int
    hikey: int
    lovel: int
    hivel: int
    group: int  # exclusive class: a new note of the class ends the others
    offset: int
    end: int
    loop_start: int
    loop_end: int
    transpose: int
    tune: int
    pitch_keycenter: int
    pitch_keytrack: int
    attenuation: float  # dB
    pan: float  # -0.5 .. 0.5
    ampenv: Envelope
    modenv: Envelope
    initial_filter_q: int
    initial_filter_fc: int
    mod_env_to_pitch: int
    mod_env_to_filter_fc: int
    mod_lfo_to_filter_fc: int
    mod_lfo_to_volume: int
    delay_mod_lfo: float
    freq_mod_lfo: int
    mod_lfo_to_pitch: int
    delay_vib_lfo: float
    freq_vib_lfo: int
    vib_lfo_to_pitch: int


@dataclass(frozen=True)
class Preset:
    name: str
    bank: int
    number: int
    regions: tuple[Region, ...]


@dataclass(frozen=True)
class SoundFont:
    presets: tuple[Preset, ...]
    samples: npt.NDArray[np.float32]  # every sample, -1..1, with one zero after the last

    def preset_index(self, bank: int, number: int) -> int:
        """The index of the first preset with this bank and number, or -1."""
        for index, preset in enumerate(self.presets):
            if preset.number == number and preset.bank == bank:
                return index
        return -1


# Generators: number → (field, kind, (factor, low, high) or None). Kinds: "set" (float or int,
# summed preset over instrument, then scaled and clamped), "add"/"add15" (a sample address
# offset, added; ×32768 for the coarse ones), and the special ones set on the zone only.
_ENV_FIELDS = ("delay", "attack", "hold", "decay", "sustain", "release", "keynum_to_hold", "keynum_to_decay")
_T12K5K, _T12K8K, _K1200 = (1.0, -12000.0, 5000.0), (1.0, -12000.0, 8000.0), (1.0, -1200.0, 1200.0)
_GENERATORS: dict[int, tuple[str, str, tuple[float, float, float] | None]] = {
    0: ("offset", "add", None), 1: ("end", "add", None), 2: ("loop_start", "add", None),
    3: ("loop_end", "add", None), 4: ("offset", "add15", None),
    5: ("mod_lfo_to_pitch", "int", (1, -12000, 12000)), 6: ("vib_lfo_to_pitch", "int", (1, -12000, 12000)),
    7: ("mod_env_to_pitch", "int", (1, -12000, 12000)), 8: ("initial_filter_fc", "int", (1, 1500, 13500)),
    9: ("initial_filter_q", "int", (1, 0, 960)), 10: ("mod_lfo_to_filter_fc", "int", (1, -12000, 12000)),
    11: ("mod_env_to_filter_fc", "int", (1, -12000, 12000)), 12: ("end", "add15", None),
    13: ("mod_lfo_to_volume", "int", (1, -960, 960)), 17: ("pan", "float", (0.001, -0.5, 0.5)),
    21: ("delay_mod_lfo", "float", _T12K5K), 22: ("freq_mod_lfo", "int", (1, -16000, 4500)),
    23: ("delay_vib_lfo", "float", _T12K5K), 24: ("freq_vib_lfo", "int", (1, -16000, 4500)),
    25: ("modenv.delay", "float", _T12K5K), 26: ("modenv.attack", "float", _T12K8K),
    27: ("modenv.hold", "float", _T12K5K), 28: ("modenv.decay", "float", _T12K8K),
    29: ("modenv.sustain", "float", (1.0, 0.0, 1000.0)), 30: ("modenv.release", "float", _T12K8K),
    31: ("modenv.keynum_to_hold", "float", _K1200), 32: ("modenv.keynum_to_decay", "float", _K1200),
    33: ("ampenv.delay", "float", _T12K5K), 34: ("ampenv.attack", "float", _T12K8K),
    35: ("ampenv.hold", "float", _T12K5K), 36: ("ampenv.decay", "float", _T12K8K),
    37: ("ampenv.sustain", "float", (1.0, 0.0, 1440.0)), 38: ("ampenv.release", "float", _T12K8K),
    39: ("ampenv.keynum_to_hold", "float", _K1200), 40: ("ampenv.keynum_to_decay", "float", _K1200),
    43: ("keyrange", "special", None), 44: ("velrange", "special", None),
    45: ("loop_start", "add15", None), 48: ("attenuation", "float", (0.1, 0.0, 144.0)),
    50: ("loop_end", "add15", None), 51: ("transpose", "int", None), 52: ("tune", "int", None),
    54: ("loop_mode", "special", None), 56: ("pitch_keytrack", "int", None),
    57: ("group", "special", None), 58: ("pitch_keycenter", "special", None),
}
_SUMMED = {name: (kind, limit) for name, kind, limit in _GENERATORS.values() if kind in ("int", "float", "add")}
_INSTRUMENT, _KEYRANGE, _VELRANGE, _SAMPLE_ID = 41, 43, 44, 53
_HYDRA = {  # chunk → (struct format of one record, record size in the file)
    "phdr": ("<20sHHHIII", 38), "pbag": ("<HH", 4), "pmod": ("<HHhHH", 10), "pgen": ("<HH", 4),
    "inst": ("<20sH", 22), "ibag": ("<HH", 4), "imod": ("<HHhHH", 10), "igen": ("<HH", 4),
    "shdr": ("<20sIIIIIBbHH", 46),
}


def _cleared(relative: bool) -> dict[str, Any]:
    """A zone before its generators: all zero (a preset zone, relative), or the SF2 defaults."""
    zone: dict[str, Any] = {f.name: 0 for f in fields(Region) if f.name not in ("ampenv", "modenv")}
    zone.update({f"{env}.{name}": 0.0 for env in ("ampenv", "modenv") for name in _ENV_FIELDS})
    zone.update(hikey=127, hivel=127, pitch_keycenter=60, attenuation=0.0, pan=0.0,
                delay_mod_lfo=0.0, delay_vib_lfo=0.0)
    if relative:
        return zone
    zone.update(pitch_keytrack=100, pitch_keycenter=-1, initial_filter_fc=13500,
                delay_mod_lfo=-12000.0, delay_vib_lfo=-12000.0)
    for env in ("ampenv", "modenv"):
        for name in ("delay", "attack", "hold", "decay", "release"):
            zone[f"{env}.{name}"] = -12000.0
    return zone


def _apply(zone: dict[str, Any], oper: int, raw: int) -> None:
    """Set one generator (its raw 16-bit amount) on a zone."""
    meta = _GENERATORS.get(oper)
    if meta is None:
        return
    name, kind, _ = meta
    signed = raw - 0x10000 if raw >= 0x8000 else raw
    if kind in ("int", "float"):
        zone[name] = float(signed) if kind == "float" else signed
    elif kind == "add":
        zone[name] += signed
    elif kind == "add15":
        zone[name] += signed << 15
    elif name == "keyrange":
        zone["lokey"], zone["hikey"] = raw & 0xFF, raw >> 8
    elif name == "velrange":
        zone["lovel"], zone["hivel"] = raw & 0xFF, raw >> 8
    elif name == "loop_mode":
        zone["loop_mode"] = {3: 2, 1: 1}.get(raw & 3, 0)
    elif name == "group":
        zone["group"] = raw
    else:
        zone["pitch_keycenter"] = signed


def _f32(x: float) -> float:
    return float(np.float32(x))


def _merge(zone: dict[str, Any], preset: dict[str, Any]) -> None:
    """Add the preset zone's generators to an instrument zone, then scale and clamp."""
    for name, (kind, limit) in _SUMMED.items():
        value = zone[name] + preset[name]
        if limit is not None:
            factor, low, high = limit
            value = min(max(value * factor if kind == "float" else value, low), high)
        zone[name] = _f32(value) if kind == "float" else value


def _timecents(tc: float) -> float:
    return 0.0 if tc < -11950.0 else _f32(2.0 ** float(np.float32(tc) / np.float32(1200.0)))


def _envelope(zone: dict[str, Any], env: str, sustain_is_gain: bool) -> Envelope:
    p = {name: zone[f"{env}.{name}"] for name in _ENV_FIELDS}
    for name in ("delay", "attack", "release"):
        p[name] = _timecents(p[name])
    if not p["keynum_to_hold"]:
        p["hold"] = _timecents(p["hold"])
    if not p["keynum_to_decay"]:
        p["decay"] = _timecents(p["decay"])
    if p["sustain"] < 0.0:
        p["sustain"] = 0.0
    elif sustain_is_gain:
        db = -p["sustain"] / 10.0
        p["sustain"] = _f32(10.0 ** float(np.float32(db) * np.float32(0.05))) if db > -100.0 else 0.0
    else:
        p["sustain"] = _f32(1.0 - p["sustain"] / 1000.0)
    return Envelope(**p)


def _region(zone: dict[str, Any], shdr: tuple[Any, ...], sample_count: int) -> Region:
    """The finished region of an instrument zone (already merged) playing one sample."""
    _, start, end, start_loop, end_loop, rate, pitch, correction, _, _ = shdr
    mask = 0xFFFFFFFF  # sample addresses are unsigned 32-bit
    values = {k: v for k, v in zone.items() if "." not in k}
    values["ampenv"] = _envelope(zone, "ampenv", True)
    values["modenv"] = _envelope(zone, "modenv", False)
    values["delay_mod_lfo"] = _timecents(zone["delay_mod_lfo"])
    values["delay_vib_lfo"] = _timecents(zone["delay_vib_lfo"])
    values["offset"] = min((zone["offset"] + start) & mask, sample_count)  # a hostile file cannot point past the samples
    stop = (zone["end"] + end) & mask
    loop_end = (zone["loop_end"] + end_loop - (1 if end_loop > 0 else 0)) & mask
    values["loop_start"] = min((zone["loop_start"] + start_loop) & mask, sample_count)
    values["loop_end"] = min(loop_end, sample_count)
    if values["pitch_keycenter"] == -1:
        values["pitch_keycenter"] = pitch
    values["tune"] = zone["tune"] + correction
    values["sample_rate"] = rate
    values["end"] = stop + 1 if stop and stop < sample_count else sample_count
    return Region(**values)


def _chunks(data: bytes, start: int, end: int) -> dict[str, tuple[int, int]]:
    """The sub-chunks between two offsets: id (a LIST's own type for lists) → (data start, size)."""
    found: dict[str, tuple[int, int]] = {}
    pos = start
    while pos + 8 <= end:
        cid = data[pos : pos + 4].decode("latin-1")
        (size,) = struct.unpack_from("<I", data, pos + 4)
        if pos + 8 + size > end:
            break
        if cid == "LIST" and size >= 4:
            found[data[pos + 8 : pos + 12].decode("latin-1")] = (pos + 12, size - 4)
        else:
            found.setdefault(cid, (pos + 8, size))
        pos += 8 + size + (size & 1 if pos + 8 + size + (size & 1) <= end else 0)
    return found


def _records(data: bytes, where: tuple[int, int], name: str) -> list[tuple[Any, ...]]:
    fmt, size = _HYDRA[name]
    start, length = where
    if length % size:
        raise SoundFontError(f"the SoundFont's {name} chunk is not a whole number of records")
    return [struct.unpack_from(fmt, data, start + i * size) for i in range(length // size)]


def parse(data: bytes) -> SoundFont:
    """Read a SoundFont 2 file's bytes. Raises `SoundFontError` for anything else."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"sfbk":
        raise SoundFontError("not a SoundFont 2 file (no RIFF sfbk header)")
    (riff_size,) = struct.unpack_from("<I", data, 4)
    lists = _chunks(data, 12, min(len(data), 8 + riff_size))
    if "pdta" not in lists or "sdta" not in lists:
        raise SoundFontError("the SoundFont has no preset data or no sample data")
    pdta = _chunks(data, lists["pdta"][0], sum(lists["pdta"]))
    sdta = _chunks(data, lists["sdta"][0], sum(lists["sdta"]))
    missing = [name for name in _HYDRA if name not in pdta]
    if missing or "smpl" not in sdta or sdta["smpl"][1] < 2:
        raise SoundFontError(f"the SoundFont is incomplete (missing {', '.join(missing) or 'smpl'})")
    hydra = {name: _records(data, pdta[name], name) for name in _HYDRA}
    start, size = sdta["smpl"]
    pcm = np.frombuffer(data, dtype="<i2", count=size // 2, offset=start)
    samples = np.zeros(len(pcm) + 1, dtype=np.float32)  # one zero: interpolation may read past the end
    step = 1 << 20  # converted a million at a time: no float64 copy of the whole font at once
    for at in range(0, len(pcm), step):
        chunk = pcm[at : at + step]
        samples[at : at + len(chunk)] = chunk / 32767.0
    presets = _presets(hydra, len(pcm))
    return SoundFont(presets=presets, samples=samples)


def _zones(bags: list[tuple[Any, ...]], gens: list[tuple[Any, ...]], first: int, end: int) -> list[list[tuple[int, int]]]:
    """The generators (operator, raw amount) of each zone in bags [first, end)."""
    return [[(g[0], g[1]) for g in gens[bags[b][0] : bags[b + 1][0]]] for b in range(first, min(end, len(bags) - 1))]


def _presets(hydra: dict[str, list[tuple[Any, ...]]], sample_count: int) -> tuple[Preset, ...]:
    phdrs, insts, shdrs = hydra["phdr"], hydra["inst"], hydra["shdr"]
    built: list[tuple[tuple[int, int, int], Preset]] = []
    for p in range(len(phdrs) - 1):
        name, number, bank, bag = phdrs[p][:4]
        regions: list[Region] = []
        global_zone = _cleared(relative=True)
        for z, gens in enumerate(_zones(hydra["pbag"], hydra["pgen"], bag, phdrs[p + 1][3])):
            preset_zone = dict(global_zone)
            had_instrument = False
            for oper, raw in gens:
                if oper != _INSTRUMENT:
                    _apply(preset_zone, oper, raw)
                    continue
                if raw >= len(insts):
                    continue
                had_instrument = True
                regions += _instrument(hydra, raw, preset_zone, shdrs, sample_count)
            if z == 0 and not had_instrument:
                global_zone = preset_zone
        text = name.split(b"\0", 1)[0].decode("latin-1")
        built.append(((bank, number, p), Preset(text, bank, number, tuple(regions))))
    built.sort(key=lambda item: item[0])
    return tuple(preset for _, preset in built)


def _instrument(hydra: dict[str, list[tuple[Any, ...]]], which: int, preset_zone: dict[str, Any],
                shdrs: list[tuple[Any, ...]], sample_count: int) -> list[Region]:
    """The regions one preset zone makes of one instrument."""
    insts = hydra["inst"]
    first = insts[which][1]
    end = insts[which + 1][1] if which + 1 < len(insts) else first
    regions: list[Region] = []
    inst_zone = _cleared(relative=False)
    for z, gens in enumerate(_zones(hydra["ibag"], hydra["igen"], first, end)):
        zone = dict(inst_zone)
        had_sample = False
        for oper, raw in gens:
            if oper != _SAMPLE_ID:
                _apply(zone, oper, raw)
                continue
            if zone["hikey"] < preset_zone["lokey"] or zone["lokey"] > preset_zone["hikey"]:
                continue
            if zone["hivel"] < preset_zone["lovel"] or zone["lovel"] > preset_zone["hivel"]:
                continue
            zone["lokey"] = max(zone["lokey"], preset_zone["lokey"])
            zone["hikey"] = min(zone["hikey"], preset_zone["hikey"])
            zone["lovel"] = max(zone["lovel"], preset_zone["lovel"])
            zone["hivel"] = min(zone["hivel"], preset_zone["hivel"])
            _merge(zone, preset_zone)
            if raw < len(shdrs):
                regions.append(_region(zone, shdrs[raw], sample_count))
            had_sample = True
        if z == 0 and not had_sample:
            inst_zone = zone
    return regions
