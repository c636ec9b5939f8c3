"""A request in words or a structured prompt, from routing to the variation it makes: the
router, the studio stream and its modes, the language model's part, plans and steps, the edit
machinery (typed edits → plan → blast radius → the parts made again), alternatives, questions
and suggestions.

Modules: `intent`, `direct`, `stream`, `preview`, `modes`, `model`, `specialists`, `plans`,
`steps`, `conversations`, `ask`, `analysis`, `suggestions`, `structured`, `structured_form`,
`structured_words`, `position`, `form_edit`, `key_accept`, `tempo_plan`, `metre_plan`,
`iteration`, `iteration_plan`, `iteration_read`, `iteration_song`, `alternatives`,
`sensitivity`, `emotion`, `effects`. Import them by their full name
(`bandstand.producer.requests.intent`); the package re-exports nothing (the facade is
`bandstand.producer.App`, docs/architecture.md)."""

__all__: list[str] = []
