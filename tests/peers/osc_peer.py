"""A local OSC peer standing in for SuperDirt: a UDP socket on a free loopback port that
keeps every bundle it receives — when it arrived, its timestamp, and its messages' addresses
and arguments (decoded by python-osc, as SuperDirt's own OSC stack would)."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Received:
    arrived: float  # Unix seconds
    timestamp: float  # the bundle's time tag, Unix seconds
    address: str
    args: dict[str, Any]  # the name/value pairs


class OscPeer:
    """Receives on 127.0.0.1:`port` until closed; `bundles` is what came, in arrival order."""

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.settimeout(0.1)
        self.port = self._sock.getsockname()[1]
        self.bundles: list[Received] = []
        self.malformed: list[bytes] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _run(self) -> None:
        from pythonosc.osc_bundle import OscBundle
        from pythonosc.osc_message import OscMessage

        while not self._done.is_set():
            try:
                data = self._sock.recv(65536)
            except TimeoutError:
                continue
            arrived = time.time()
            if not OscBundle.dgram_is_bundle(data):
                self.malformed.append(data)
                continue
            bundle = OscBundle(data)
            for content in bundle:
                if isinstance(content, OscMessage):
                    params = list(content.params)
                    self.bundles.append(Received(arrived, bundle.timestamp, content.address,
                                                 dict(zip(params[::2], params[1::2], strict=True))))

    def wait_for(self, count: int, timeout: float = 60.0) -> list[Received]:
        """The bundles once `count` have come (or all that came in `timeout` seconds)."""
        deadline = time.monotonic() + timeout
        while len(self.bundles) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return list(self.bundles)

    def close(self) -> None:
        self._done.set()
        self._thread.join(5)
        self._sock.close()

    def __enter__(self) -> OscPeer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
