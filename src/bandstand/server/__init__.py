"""The bandstand server: a FastAPI app with the jam page, the jam WebSocket and
the protocol schemas."""

from bandstand.server.app import create_app, web_root
from bandstand.server.hub import JamHub

__all__ = ["JamHub", "create_app", "web_root"]
