"""Playing into the live outputs (OSC to SuperDirt, a MIDI port with clock): the studio's
transport, a session played live, the Strudel desk outside a jam.

Modules: `live_outputs`, `live_play`, `live_transport`, `transport`, `strudel_desk`, and `desk`
(`LiveDesk`, `App.live()`), through which alone clients reach the others. Import them
by their full name (`bandstand.producer.live.live_outputs`); the package re-exports nothing (the
facade is `bandstand.producer.App`, docs/architecture.md)."""

__all__: list[str] = []
