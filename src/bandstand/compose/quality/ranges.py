"""The reference range of every quality figure, as `benchmarks/quality_calibrate.py`
measured it (written by that script; do not edit by hand): figure kind → (5th
percentile, median, 95th percentile, what it was measured on)."""

from __future__ import annotations

__all__ = ["RANGES"]

# calibrated on 80 Bach chorales (music21 corpus), 41 prompts x 2 seeds of ours, 20 rendered
RANGES: dict[str, tuple[float, float, float, tuple[str, ...]]] = {
    'bass_coverage': (1.0, 1.0, 1.0, ('bach', 'ours')),
    'brightness.bass': (0.4219, 1.4563, 1.7433, ('ours',)),
    'brightness.chords': (1.6559, 2.5607, 3.4964, ('ours',)),
    'brightness.drums': (2.3881, 3.0633, 3.9553, ('ours',)),
    'brightness.lead': (2.9683, 3.3631, 4.2346, ('ours',)),
    'brightness.pad': (1.8326, 2.375, 3.1226, ('ours',)),
    'chord_tones': (0.991, 1.0, 1.0, ('ours',)),
    'density_energy': (0.8954, 0.9419, 0.9725, ('ours',)),
    'direction_changes': (0.3333, 0.537, 0.7857, ('bach', 'ours')),
    'groove_consistency': (0.7829, 0.8918, 0.9417, ('ours',)),
    'in_scale': (0.829, 0.9512, 1.0, ('bach', 'ours')),
    'key_clarity': (0.7702, 0.9149, 0.9797, ('bach', 'ours')),
    'key_rank': (0.0, 0.0, 0.95, ('bach', 'ours')),
    'kick_bass_lock': (0.5888, 0.971, 1.0, ('ours',)),
    'low_share.bass': (0.4331, 0.6469, 0.9361, ('ours',)),
    'low_share.chords': (0.018, 0.1154, 0.3596, ('ours',)),
    'low_share.drums': (0.7162, 0.8341, 0.8833, ('ours',)),
    'low_share.lead': (0.0, 0.0, 0.0015, ('ours',)),
    'low_share.pad': (0.0, 0.0392, 0.3738, ('ours',)),
    'melodic_range': (5.0, 12.5, 19.0, ('bach', 'ours')),
    'motif_recurrence': (0.0, 0.1734, 0.7333, ('bach', 'ours')),
    'notes_per_bar': (9.6098, 27.1428, 58.774, ('bach', 'ours')),
    'section_contrast': (0.3283, 0.537, 0.667, ('ours',)),
    'stem_loudness.bass': (-9.6888, -6.8097, -2.9919, ('ours',)),
    'stem_loudness.chords': (-12.4684, -7.6752, -4.4887, ('ours',)),
    'stem_loudness.drums': (-11.6867, -6.3987, -4.0685, ('ours',)),
    'stem_loudness.lead': (-11.983, -7.8268, -3.7359, ('ours',)),
    'stem_loudness.pad': (-21.2474, -11.6129, -8.2879, ('ours',)),
    'step_share': (0.2676, 0.7311, 0.9584, ('bach', 'ours')),
}
