"""The live outputs (OSC to SuperDirt, a MIDI port with clock) as the producer names them:
opening them from the command line's options and feeding a running jam into them — the live-out
core's own functions, re-exported (the scheduler lives once, in `bandstand.jam.liveout`). Clients
reach them through `App.live()` (`producer.live.desk`) alone, see docs/architecture.md."""

from __future__ import annotations

from bandstand.jam.liveout import feeding, open_outputs

__all__ = ["feeding", "open_outputs"]
