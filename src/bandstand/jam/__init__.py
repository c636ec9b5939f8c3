"""Jam: a live band of musician agents that the boss directs.

Personas, the musical context, directives and routing, the built-in musicians,
the jam engine (rounds, validation, fallback, composition, autopilot), the
transport clock and the recorder. The server and the CLI sit on top.
"""
