"""The reference range of every quality figure, as `benchmarks/quality_calibrate.py`
measured it (written by that script; do not edit by hand): figure kind → (5th
percentile, median, 95th percentile, what it was measured on)."""

from __future__ import annotations

__all__ = ["RANGES"]

# calibrated on 80 Bach chorales (music21 corpus), 41 prompts x 2 seeds of ours, 20 rendered
RANGES: dict[str, tuple[float, float, float, tuple[str, ...]]] = {
    'bass_coverage': (0.9177, 1.0, 1.0, ('bach', 'ours')),
    'brightness.bass': (0.4344, 1.4314, 1.821, ('ours',)),
    'brightness.chords': (1.688, 2.5655, 3.5908, ('ours',)),
    'brightness.drums': (2.2892, 3.0287, 3.6741, ('ours',)),
    'brightness.lead': (2.9196, 3.5323, 4.2928, ('ours',)),
    'brightness.pad': (1.8104, 2.5902, 3.6341, ('ours',)),
    'chord_tones': (0.984, 1.0, 1.0, ('ours',)),
    'density_energy': (0.8649, 0.9355, 0.9708, ('ours',)),
    'direction_changes': (0.3333, 0.542, 0.7756, ('bach', 'ours')),
    'groove_consistency': (0.8436, 0.8994, 0.9498, ('ours',)),
    'in_scale': (0.8214, 0.9544, 1.0, ('bach', 'ours')),
    'key_clarity': (0.7803, 0.9089, 0.97, ('bach', 'ours')),
    'key_rank': (0.0, 0.0, 0.0, ('bach', 'ours')),
    'kick_bass_lock': (0.6509, 0.9557, 1.0, ('ours',)),
    'low_share.bass': (0.4261, 0.6181, 0.9356, ('ours',)),
    'low_share.chords': (0.0257, 0.12, 0.3886, ('ours',)),
    'low_share.drums': (0.706, 0.82, 0.8973, ('ours',)),
    'low_share.lead': (0.0, 0.0, 0.0017, ('ours',)),
    'low_share.pad': (0.0, 0.0055, 0.4024, ('ours',)),
    'melodic_range': (5.0, 12.5, 19.0, ('bach', 'ours')),
    'motif_recurrence': (0.0, 0.1741, 0.7333, ('bach', 'ours')),
    'notes_per_bar': (9.6098, 25.1895, 47.8083, ('bach', 'ours')),
    'section_contrast': (0.3199, 0.5037, 0.6531, ('ours',)),
    'stem_loudness.bass': (-11.5163, -6.8621, -3.0094, ('ours',)),
    'stem_loudness.chords': (-11.9974, -7.9594, -3.7184, ('ours',)),
    'stem_loudness.drums': (-10.471, -7.5554, -4.117, ('ours',)),
    'stem_loudness.lead': (-12.4887, -8.9428, -2.8842, ('ours',)),
    'stem_loudness.pad': (-18.7348, -12.259, -5.2337, ('ours',)),
    'step_share': (0.3027, 0.7353, 0.9584, ('bach', 'ours')),
}
