"""The reference range of every quality figure, as `benchmarks/quality_calibrate.py`
measured it (written by that script; do not edit by hand): figure kind → (5th
percentile, median, 95th percentile, what it was measured on)."""

from __future__ import annotations

__all__ = ["RANGES"]

# calibrated on 80 Bach chorales (music21 corpus), 41 prompts x 2 seeds of ours, 20 rendered
RANGES: dict[str, tuple[float, float, float, tuple[str, ...]]] = {
    'bass_coverage': (1.0, 1.0, 1.0, ('bach', 'ours')),
    'brightness.bass': (0.5047, 1.5003, 1.7697, ('ours',)),
    'brightness.chords': (1.3546, 2.5391, 3.4933, ('ours',)),
    'brightness.drums': (2.5398, 3.161, 4.1745, ('ours',)),
    'brightness.lead': (2.947, 3.3601, 4.2455, ('ours',)),
    'brightness.pad': (1.7316, 2.2747, 3.108, ('ours',)),
    'chord_tones': (1.0, 1.0, 1.0, ('ours',)),
    'density_energy': (0.8786, 0.9399, 0.9788, ('ours',)),
    'direction_changes': (0.3333, 0.5398, 0.7707, ('bach', 'ours')),
    'groove_consistency': (0.7786, 0.901, 0.9446, ('ours',)),
    'in_scale': (0.8293, 0.95, 1.0, ('bach', 'ours')),
    'key_clarity': (0.7886, 0.9181, 0.9797, ('bach', 'ours')),
    'key_rank': (0.0, 0.0, 0.0, ('bach', 'ours')),
    'kick_bass_lock': (0.6378, 0.9756, 1.0, ('ours',)),
    'low_share.bass': (0.4257, 0.6169, 0.8785, ('ours',)),
    'low_share.chords': (0.0396, 0.1365, 0.5956, ('ours',)),
    'low_share.drums': (0.6506, 0.8262, 0.8768, ('ours',)),
    'low_share.lead': (0.0, 0.0, 0.0009, ('ours',)),
    'low_share.pad': (0.0, 0.086, 0.4899, ('ours',)),
    'melodic_range': (5.0, 12.5, 18.95, ('bach', 'ours')),
    'motif_recurrence': (0.0, 0.181, 0.7333, ('bach', 'ours')),
    'notes_per_bar': (9.6098, 28.9789, 63.9446, ('bach', 'ours')),
    'section_contrast': (0.3448, 0.4967, 0.6676, ('ours',)),
    'stem_loudness.bass': (-12.0175, -9.3388, -3.8561, ('ours',)),
    'stem_loudness.chords': (-16.6384, -9.8937, -2.9751, ('ours',)),
    'stem_loudness.drums': (-19.1318, -7.8022, -4.2181, ('ours',)),
    'stem_loudness.lead': (-12.4598, -5.9773, -0.8814, ('ours',)),
    'stem_loudness.pad': (-20.8522, -12.4405, -7.2285, ('ours',)),
    'step_share': (0.2337, 0.7281, 0.9584, ('bach', 'ours')),
}
