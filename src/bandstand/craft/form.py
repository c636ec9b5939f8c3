"""A section's role in the form, so a request's section words reach the song's
own sections whatever its genre calls them.

"The chorus" of a pop song is "the drop" of an EDM track and "the hook" of a
hip-hop one: each is the form's peak. The verse is the body, the pre-chorus
and the build lift toward the peak, the bridge and the breakdown are the
contrast. A request names a section kind; when the song has none of that kind,
it means the song's sections that play the same role — and, for the body and
the lift, the neighbouring role (an EDM song's verse is its build; a pop song
without a pre-chorus builds in its verse). Nothing corresponds → nothing is
returned, and the caller says which sections the song has.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["FORM_ROLES", "NEAR_ROLES", "corresponding", "form_role"]

# Section kind → its role in the form.
FORM_ROLES: dict[str, str] = {
    "chorus": "peak", "drop": "peak", "hook": "peak", "head": "peak", "loop": "peak",
    "prechorus": "lift", "build": "lift",
    "verse": "body", "solo": "body",
    "bridge": "contrast", "break": "contrast",
    "intro": "intro", "outro": "outro",
}
# The role a request falls back to when the song has no section of the role asked for.
NEAR_ROLES: dict[str, tuple[str, ...]] = {"body": ("lift",), "lift": ("body",)}


def form_role(kind: str) -> str | None:
    """The role a section kind plays (None for a word that is not a kind)."""
    return FORM_ROLES.get(kind.lower())


def corresponding(wanted: str, kinds: Sequence[str]) -> tuple[str, ...]:
    """The kinds among the song's `kinds` that a request for `wanted` means: `wanted` itself
    when the song has it, else the kinds of the same role, else of a near role; () if none."""
    low = wanted.lower()
    present = list(dict.fromkeys(k.lower() for k in kinds))
    if low in present:
        return (low,)
    role = form_role(low)
    if role is None:
        return ()
    for candidate in (role, *NEAR_ROLES.get(role, ())):
        same = tuple(k for k in present if FORM_ROLES.get(k) == candidate)
        if same:
            return same
    return ()
