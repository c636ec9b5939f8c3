"""Controls: the named parameters of a sound event (note, s, gain, lpf, room, ...).

``note("c e g")`` makes a pattern of ``{"note": ...}`` objects;
``p.note(x)`` sets the control on `p` keeping `p`'s structure (``set.in``).
A control with several names unpacks ``a:b`` lists: ``s("bd:3:0.5")`` gives
``{s: "bd", n: 3, gain: 0.5}``, ``lpf("500:10")`` gives cutoff and resonance.
The table (names, aliases) mirrors @strudel/core 1.2.6's controls.mjs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bandstand.patterns.ops import apply_op
from bandstand.patterns.pattern import Pattern, reify

__all__ = ["CONTROLS", "control_function", "control_names"]

# (names, aliases): the first name is the control; further names unpack `a:b:c` lists.
CONTROLS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (('s', 'n', 'gain'), ('sound',)),
    (('wt',), ('wavetablePosition',)),
    (('wtenv',), ()),
    (('wtattack',), ('wtatt',)),
    (('wtdecay',), ('wtdec',)),
    (('wtsustain',), ('wtsus',)),
    (('wtrelease',), ('wtrel',)),
    (('wtrate',), ()),
    (('wtsync',), ()),
    (('wtdepth',), ()),
    (('wtshape',), ()),
    (('wtdc',), ()),
    (('wtskew',), ()),
    (('warp',), ('wavetableWarp',)),
    (('warpattack',), ('warpatt',)),
    (('warpdecay',), ('warpdec',)),
    (('warpsustain',), ('warpsus',)),
    (('warprelease',), ('warprel',)),
    (('warprate',), ()),
    (('warpdepth',), ()),
    (('warpshape',), ()),
    (('warpdc',), ()),
    (('warpskew',), ()),
    (('warpmode',), ('wavetableWarpMode',)),
    (('wtphaserand',), ('wavetablePhaseRand',)),
    (('warpenv',), ()),
    (('warpsync',), ()),
    (('source',), ('src',)),
    (('n',), ()),
    (('note', 'n'), ()),
    (('accelerate',), ()),
    (('velocity',), ('vel',)),
    (('gain',), ()),
    (('postgain',), ()),
    (('amp',), ()),
    (('attack',), ('att',)),
    (('bank',), ()),
    (('chorus',), ()),
    (('analyze',), ()),
    (('fft',), ()),
    (('decay',), ('dec',)),
    (('sustain',), ('sus',)),
    (('release',), ('rel',)),
    (('hold',), ()),
    (('bandf', 'bandq', 'bpenv'), ('bpf', 'bp')),
    (('bandq',), ('bpq',)),
    (('begin',), ()),
    (('end',), ()),
    (('loop',), ()),
    (('loopBegin',), ('loopb',)),
    (('loopEnd',), ('loope',)),
    (('crush',), ()),
    (('coarse',), ()),
    (('tremolo', 'tremolodepth', 'tremoloskew', 'tremolophase'), ('trem',)),
    (('tremolodepth',), ('tremdepth',)),
    (('tremoloskew',), ('tremskew',)),
    (('tremolophase',), ('tremphase',)),
    (('tremoloshape',), ('tremshape',)),
    (('drive',), ()),
    (('duckorbit',), ('duck',)),
    (('duckdepth',), ()),
    (('duckonset',), ('duckons',)),
    (('duckattack',), ('duckatt',)),
    (('byteBeatExpression',), ('bbexpr',)),
    (('byteBeatStartTime',), ('bbst',)),
    (('channels',), ('ch',)),
    (('pw', 'pwrate', 'pwsweep'), ()),
    (('pwrate',), ()),
    (('pwsweep',), ()),
    (('phasersweep',), ('phs',)),
    (('phasercenter',), ('phc',)),
    (('phaserdepth',), ('phd', 'phasdp')),
    (('channel',), ()),
    (('cut',), ()),
    (('cutoff', 'resonance', 'lpenv'), ('ctf', 'lpf', 'lp')),
    (('lpenv',), ('lpe',)),
    (('hpenv',), ('hpe',)),
    (('bpenv',), ('bpe',)),
    (('lpattack',), ('lpa',)),
    (('hpattack',), ('hpa',)),
    (('bpattack',), ('bpa',)),
    (('lpdecay',), ('lpd',)),
    (('hpdecay',), ('hpd',)),
    (('bpdecay',), ('bpd',)),
    (('lpsustain',), ('lps',)),
    (('hpsustain',), ('hps',)),
    (('bpsustain',), ('bps',)),
    (('lprelease',), ('lpr',)),
    (('hprelease',), ('hpr',)),
    (('bprelease',), ('bpr',)),
    (('ftype',), ()),
    (('fanchor',), ()),
    (('lprate',), ()),
    (('lpsync',), ()),
    (('lpdepth',), ()),
    (('lpdepthfrequency',), ('lpdepthfreq',)),
    (('lpshape',), ()),
    (('lpdc',), ()),
    (('lpskew',), ()),
    (('bprate',), ()),
    (('bpsync',), ()),
    (('bpdepth',), ()),
    (('bpdepthfrequency',), ('bpdepthfreq',)),
    (('bpshape',), ()),
    (('bpdc',), ()),
    (('bpskew',), ()),
    (('hprate',), ()),
    (('hpsync',), ()),
    (('hpdepth',), ()),
    (('hpdepthfrequency',), ('hpdepthfreq',)),
    (('hpshape',), ()),
    (('hpdc',), ()),
    (('hpskew',), ()),
    (('vib', 'vibmod'), ('vibrato', 'v')),
    (('noise',), ()),
    (('vibmod', 'vib'), ('vmod',)),
    (('hcutoff', 'hresonance', 'hpenv'), ('hpf', 'hp')),
    (('hresonance',), ('hpq',)),
    (('resonance',), ('lpq',)),
    (('djf',), ()),
    (('delay', 'delaytime', 'delayfeedback'), ()),
    (('delayfeedback',), ('delayfb', 'dfb')),
    (('delayspeed',), ()),
    (('delaytime',), ('delayt', 'dt')),
    (('delaysync',), ()),
    (('lock',), ()),
    (('detune',), ('det',)),
    (('unison',), ()),
    (('spread',), ()),
    (('dry',), ()),
    (('fadeTime',), ('fadeOutTime',)),
    (('fadeInTime',), ()),
    (('freq',), ()),
    (('pattack',), ('patt',)),
    (('pdecay',), ('pdec',)),
    (('psustain',), ('psus',)),
    (('prelease',), ('prel',)),
    (('penv',), ()),
    (('pcurve',), ()),
    (('panchor',), ()),
    (('gate',), ('gat',)),
    (('leslie',), ()),
    (('lrate',), ()),
    (('lsize',), ()),
    (('activeLabel',), ()),
    (('label', 'activeLabel'), ()),
    (('degree',), ()),
    (('mtranspose',), ()),
    (('ctranspose',), ()),
    (('harmonic',), ()),
    (('stepsPerOctave',), ()),
    (('octaveR',), ()),
    (('nudge',), ()),
    (('octave',), ('oct',)),
    (('orbit',), ('o',)),
    (('bus',), ()),
    (('busgain',), ('bgain',)),
    (('overgain',), ()),
    (('overshape',), ()),
    (('pan',), ()),
    (('panspan',), ()),
    (('pansplay',), ()),
    (('panwidth',), ()),
    (('panorient',), ()),
    (('slide',), ()),
    (('semitone',), ()),
    (('voice',), ()),
    (('chord',), ()),
    (('dictionary',), ('dict',)),
    (('anchor',), ()),
    (('offset',), ()),
    (('octaves',), ()),
    (('mode', 'anchor'), ()),
    (('room', 'size'), ()),
    (('roomlp',), ('rlp',)),
    (('roomdim',), ('rdim',)),
    (('roomfade',), ('rfade',)),
    (('ir', 'i'), ('iresponse',)),
    (('irspeed',), ()),
    (('irbegin',), ()),
    (('roomsize',), ('size', 'sz', 'rsize')),
    (('shape', 'shapevol'), ()),
    (('distort', 'distortvol', 'distorttype'), ('dist',)),
    (('distortvol',), ('distvol',)),
    (('distorttype',), ('disttype',)),
    (('compressorKnee',), ()),
    (('compressorRatio',), ()),
    (('compressorAttack',), ()),
    (('compressorRelease',), ()),
    (('speed',), ()),
    (('stretch',), ()),
    (('unit',), ()),
    (('squiz',), ()),
    (('vowel',), ()),
    (('waveloss',), ()),
    (('density',), ()),
    (('expression',), ()),
    (('sustainpedal',), ()),
    (('fshift',), ()),
    (('fshiftnote',), ()),
    (('fshiftphase',), ()),
    (('triode',), ()),
    (('krush',), ()),
    (('kcutoff',), ()),
    (('octer',), ()),
    (('octersub',), ()),
    (('octersubsub',), ()),
    (('ring',), ()),
    (('ringf',), ()),
    (('ringdf',), ()),
    (('freeze',), ()),
    (('xsdelay',), ()),
    (('tsdelay',), ()),
    (('real',), ()),
    (('imag',), ()),
    (('enhance',), ()),
    (('comb',), ()),
    (('smear',), ()),
    (('scram',), ()),
    (('binshift',), ()),
    (('hbrick',), ()),
    (('lbrick',), ()),
    (('frameRate',), ()),
    (('frames',), ()),
    (('hours',), ()),
    (('minutes',), ()),
    (('seconds',), ()),
    (('songPtr',), ()),
    (('uid',), ()),
    (('val',), ()),
    (('cps',), ()),
    (('clip',), ('legato',)),
    (('duration',), ('dur',)),
    (('zrand',), ()),
    (('curve',), ()),
    (('deltaSlide',), ()),
    (('pitchJump',), ()),
    (('pitchJumpTime',), ()),
    (('znoise',), ()),
    (('zmod',), ()),
    (('zcrush',), ()),
    (('zdelay',), ()),
    (('zzfx',), ()),
    (('color', 'colour'), ()),
    (('midichan',), ()),
    (('midimap',), ()),
    (('midiport',), ()),
    (('midicmd',), ()),
    (('ccn',), ()),
    (('ccv',), ()),
    (('ctlNum',), ()),
    (('nrpnn',), ()),
    (('nrpv',), ()),
    (('progNum',), ()),
    (('sysexid',), ()),
    (('sysexdata',), ()),
    (('midibend',), ()),
    (('miditouch',), ()),
    (('polyTouch',), ()),
    (('oschost',), ()),
    (('oscport',), ()),
    (('transient', 'transsustain'), ()),
    (('FXrelease',), ('FXrel', 'FXr', 'fxr')),
)


def _with_val(names: tuple[str, ...]) -> Callable[[Any], Any]:
    name = names[0]
    multi = len(names) > 1

    def with_val(xs: Any) -> Any:
        bag: dict[str, Any] | None = None
        if isinstance(xs, dict) and xs.get("value") is not None:
            bag = {k: v for k, v in xs.items() if k != "value"}
            xs = xs["value"]
        if multi and isinstance(xs, list):
            result = bag if bag is not None else {}
            for i, x in enumerate(xs[: len(names)]):
                result[names[i]] = x
            return result
        if bag is not None:
            bag[name] = xs
            return bag
        return {name: xs}

    return with_val


def control_function(names: tuple[str, ...]) -> Callable[..., Pattern]:
    """``f(value)`` → a control pattern; ``f(pat, value)`` → `pat` with the control set."""
    with_val = _with_val(names)

    def func(*args: Any) -> Pattern:
        if len(args) == 1:
            return reify(args[0]).with_value(with_val)
        pat, value = args[0], args[1]
        return apply_op("set", "in", pat, reify(value).with_value(with_val))

    return func


def control_names() -> dict[str, tuple[str, ...]]:
    """Every control name and alias → the names it sets (later definitions win)."""
    table: dict[str, tuple[str, ...]] = {}
    for names, aliases in CONTROLS:
        for n in (names[0], *aliases):
            table[n] = names
    return table
