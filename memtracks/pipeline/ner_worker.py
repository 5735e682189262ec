"""English named entities read in a second process, while this one writes.

spaCy's entity recogniser holds the interpreter lock while it runs, and it is the largest
share of a write (about a third), so a thread cannot overlap it with the rest of the writer.
A long ``write_many`` starts one child process (``python -m memtracks.pipeline.ner_worker``)
that loads the same English pipeline and reads the next batches' entities while the current
batch is written (:mod:`memtracks.write.read_ahead`). The child's answers are the same as the
parent's own: the same model, the same texts, in the same batches.

The two speak in frames on the child's stdin and stdout: four bytes of length, then JSON. The
child first sends ``{"ready": true}`` (or ``{"error": ...}`` if the model does not load), then
answers each list of texts with a list of entity lists (or ``{"error": ...}``), in order, and
exits when its stdin closes — also when the parent dies. Anything that goes wrong in the child (it does not start,
dies, answers nonsense or too slowly) makes :meth:`NERWorker.take` return None, and the caller
reads the entities itself: a write never depends on the child.
"""

from __future__ import annotations

import json
import logging
import os
import struct
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Sequence
from concurrent.futures import CancelledError, Future
from typing import IO, Any

from memtracks.pipeline.nlp import Ents, english_entities, load_english

log = logging.getLogger(__name__)

_LENGTH = struct.Struct(">I")
# the child runs single-threaded: its parent and the embedder have the other cores
_CHILD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# how long an answer may take: this floor, plus a second per this many characters asked
WAIT_FLOOR_S = 60.0
CHARS_PER_SECOND = 20_000


def send_frame(stream: IO[bytes], value: Any) -> None:
    body = json.dumps(value).encode()
    stream.write(_LENGTH.pack(len(body)) + body)
    stream.flush()


def read_frame(stream: IO[bytes]) -> Any:
    """The next frame's value, or None at the end of the stream."""
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    body = stream.read(size)
    if len(body) < size:
        return None
    return json.loads(body)


class Request(Future[list[Ents]]):
    """The entities of some texts, to come; ``chars`` is how much was asked (it sets the wait)."""

    def __init__(self, chars: int):
        super().__init__()
        self.chars = chars


class NERWorker:
    """A child process reading English named entities (:func:`english_entities`) on request.

    ``submit`` queues a list of texts and returns at once; ``take`` gives its entities, or None
    if the child could not give them (the caller then reads them itself). Requests made before
    the child has loaded its model wait in this process, and one taken before it is ready is
    withdrawn (the caller is faster reading it than waiting). Close it when done.

    Args:
        command: the child's command line (default: this Python, ``-m memtracks.pipeline.ner_worker``).
    """

    def __init__(self, command: Sequence[str] | None = None):
        self.command = list(command) if command else [sys.executable, "-m", "memtracks.pipeline.ner_worker"]
        self.failure: str | None = None
        self._lock = threading.Lock()
        self._ready = False
        self._held: list[tuple[Request, list[str]]] = []
        self._sent: deque[Request] = deque()
        try:
            self._child: subprocess.Popen[bytes] | None = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={**os.environ, **_CHILD_ENV},
            )
        except OSError as exc:
            self._child = None
            self._fail(f"could not start {self.command[0]}: {exc}")
            return
        self._reader = threading.Thread(target=self._read, name="memtracks-ner-reader", daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int | None:
        return self._child.pid if self._child is not None else None

    def submit(self, texts: Sequence[str]) -> Request:
        """Ask for the entities of ``texts``; the answer comes in the background."""
        texts = list(texts)
        future = Request(sum(len(t) for t in texts))
        with self._lock:
            if self.failure is not None:
                future.set_exception(RuntimeError(self.failure))
            elif self._ready:
                self._send(future, texts)
            else:
                self._held.append((future, texts))
        return future

    def take(self, future: Request) -> list[Ents] | None:
        """The entities asked for, or None when they are better read by the caller: the child
        was not ready when they were asked (the request is withdrawn), or it failed."""
        if future.cancel():
            return None
        wait = WAIT_FLOOR_S + future.chars / CHARS_PER_SECOND
        try:
            return future.result(timeout=wait)
        except CancelledError:
            return None
        except TimeoutError:
            self._fail(f"no answer within {wait:.0f} s")
            self.close()
            return None
        except Exception as exc:  # the child failed: the caller reads the entities itself
            log.debug("entities read here instead: %s", exc)
            return None

    def close(self) -> None:
        """Stop the child (it exits when its input closes) and withdraw what it was asked."""
        child, self._child = self._child, None
        if child is None:
            return
        self._fail("closed")
        try:
            if child.stdin is not None:
                child.stdin.close()
            child.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            child.kill()
            child.wait()
        finally:
            if child.stdout is not None:
                child.stdout.close()

    # ------------------------------------------------------------------ internals

    def _send(self, future: Request, texts: list[str]) -> None:
        if not future.set_running_or_notify_cancel():
            return  # withdrawn while it waited
        child = self._child
        try:
            self._sent.append(future)
            assert child is not None and child.stdin is not None
            send_frame(child.stdin, texts)
        except (OSError, ValueError, AssertionError) as exc:
            self._fail(f"could not write to the child: {exc}", locked=True)

    def _read(self) -> None:
        child = self._child
        assert child is not None and child.stdout is not None
        try:
            hello = read_frame(child.stdout)
            if not isinstance(hello, dict) or not hello.get("ready"):
                reason = hello.get("error") if isinstance(hello, dict) else None
                self._fail(f"the child did not start: {reason or 'it exited'}")
                return
            with self._lock:
                self._ready = True
                held, self._held = self._held, []
                for future, texts in held:
                    self._send(future, texts)
            while True:
                answer = read_frame(child.stdout)
                if answer is None:
                    self._fail("the child exited")
                    return
                future = self._sent.popleft()
                if isinstance(answer, dict):  # this request failed there: the caller reads it itself
                    future.set_exception(RuntimeError(str(answer.get("error"))))
                else:
                    future.set_result([tuple(tuple(e) for e in ents) for ents in answer])  # type: ignore[misc]
        except (OSError, ValueError, IndexError, TypeError) as exc:
            self._fail(f"the child's answer could not be read: {exc}")

    def _fail(self, reason: str, locked: bool = False) -> None:
        if not locked:
            with self._lock:
                self._fail(reason, locked=True)
            return
        if self.failure is None:
            self.failure = reason
            if reason != "closed":
                log.warning("English entities are read in this process from now on: %s", reason)
        error = RuntimeError(self.failure)
        for future, _ in self._held:
            if future.set_running_or_notify_cancel():
                future.set_exception(error)
        self._held = []
        while self._sent:
            future = self._sent.popleft()
            if not future.done():
                future.set_exception(error)


def main() -> int:
    """The child: load the English pipeline, then answer each list of texts with its entities."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but frames on the real stdout
    try:
        pipeline = load_english()
    except Exception as exc:  # told to the parent, which reads the entities itself
        send_frame(stdout, {"error": f"{type(exc).__name__}: {exc}"})
        return 1
    send_frame(stdout, {"ready": True})
    while (texts := read_frame(stdin)) is not None:
        try:
            found = english_entities(pipeline, texts)
        except Exception as exc:  # a text spaCy cannot take: the parent reads this batch itself
            send_frame(stdout, {"error": f"{type(exc).__name__}: {exc}"})
            continue
        send_frame(stdout, [[list(e) for e in ents] for ents in found])
    return 0


if __name__ == "__main__":
    sys.exit(main())
