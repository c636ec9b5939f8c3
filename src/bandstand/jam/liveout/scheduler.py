"""The send-ahead scheduler shared by every live output: cues in, each sent to each output
on a thread of its own, `ahead` seconds before it sounds.

An output turns a cue into the messages it sends and when (`Output.messages`, pure: the
stream before the port): OSC bundles carry their time, so SuperDirt gets them `latency`
seconds early and plays them on time; MIDI has no timestamps, so a note is a note-on at its
moment and a note-off at its end. A message already due when it arrives is sent at once.
Each send is noted (`Sent`: when it was due, when it went) so a test or a benchmark can
measure how early and how evenly messages left. The scheduler never blocks its caller (the
jam's event loop): `push` only queues.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from bandstand.jam.liveout.cues import Cue, ordered

__all__ = ["Output", "Scheduler", "Sent"]

SENT_KEPT = 100_000
"""How many sends the scheduler remembers for its figures (older ones are forgotten)."""


class Output(Protocol):
    """Where cues go: an OSC peer, a MIDI port."""

    def messages(self, cue: Cue) -> list[tuple[float, Any]]:
        """What `cue` sends: (Unix time to send it, message) pairs."""
        ...

    def send(self, message: Any) -> None: ...

    def describe(self) -> str:
        """Where it sends, in words."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Sent:
    """One message sent for `cue` to output number `output`: `due` is when it was meant to go,
    `sent` when it went (both Unix seconds)."""

    cue: Cue
    output: int
    message: Any
    due: float
    sent: float


class Scheduler:
    """Sends pushed cues to `outputs` on time, from a daemon thread. See the module docstring."""

    def __init__(self, outputs: Iterable[Output], *, clock: Callable[[], float] = time.time) -> None:
        self.outputs = list(outputs)
        self.clock = clock
        self.sent: list[Sent] = []
        self.errors: list[str] = []
        self._heap: list[tuple[float, int, int, Cue, Any]] = []
        self._order = itertools.count()
        self._wake = threading.Condition()
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="bandstand-liveout", daemon=True)
        self._thread.start()

    def push(self, cues: Iterable[Cue]) -> None:
        """Queue `cues` for every output (returns at once)."""
        with self._wake:
            for cue in ordered(cues):
                for i, output in enumerate(self.outputs):
                    for due, message in output.messages(cue):
                        heapq.heappush(self._heap, (due, next(self._order), i, cue, message))
            self._wake.notify()

    def pending(self) -> int:
        with self._wake:
            return len(self._heap)

    def drain(self, timeout: float) -> bool:
        """Wait until every queued cue is sent (True) or `timeout` seconds pass (False)."""
        deadline = time.monotonic() + timeout
        while self.pending():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
        return True

    def clear(self) -> None:
        """Forget every cue not sent yet (a stop: nothing more sounds)."""
        with self._wake:
            self._heap.clear()

    def close(self) -> None:
        """Stop the thread (cues not sent yet are dropped) and close the outputs."""
        with self._wake:
            self._closing = True
            self._wake.notify()
        self._thread.join(timeout=5)
        for output in self.outputs:
            output.close()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._closing:
                    if self._heap:
                        wait = self._heap[0][0] - self.clock()
                        if wait <= 0:
                            break
                        self._wake.wait(min(wait, 0.05))
                    else:
                        self._wake.wait(0.05)
                if self._closing:
                    return
                due, _, index, cue, message = heapq.heappop(self._heap)
            try:
                self.outputs[index].send(message)
            except OSError as exc:  # a peer gone away: said once, the jam goes on
                if len(self.errors) < 10:
                    self.errors.append(f"{type(exc).__name__}: {exc}")
            if len(self.sent) >= SENT_KEPT:
                del self.sent[: SENT_KEPT // 2]
            self.sent.append(Sent(cue, index, message, due, self.clock()))
