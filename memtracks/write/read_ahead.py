"""A long ``write_many`` reads the next batches' English names while it writes this one.

The English entity recogniser is about a third of a write and holds the interpreter lock, so
it runs in a second process (:class:`~memtracks.pipeline.ner_worker.NERWorker`), two batches
ahead of the one being written. The writer's results are the same either way; if the second
process is slow to start, fails or dies, each batch's entities are read here as before.

Used from ``WriterConfig.ner_process_from`` turns on, on a machine with two cores or more.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from memtracks.pipeline.ner_worker import NERWorker, Request
from memtracks.records import Turn

if TYPE_CHECKING:
    from memtracks.write.writer import Screened, Writer

DEPTH = 2  # batches asked for ahead of the one being written


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class ReadAhead:
    """The batches of one write, each with its English entities read ahead where they can be.

    Iterate it for each batch's :class:`~memtracks.write.writer.Screened` (None when not read
    ahead: the writer then reads the batch itself), and close it (or use it in ``with``) to
    stop the second process.
    """

    def __init__(self, writer: Writer, batches: Sequence[Sequence[tuple[Turn, list[str]]]]):
        self.writer = writer
        self.batches = batches
        start = writer.config.ner_process_from
        self.on = start is not None and sum(len(b) for b in batches) >= start and usable_cores() >= 2
        self.worker: NERWorker | None = None
        self._asked: list[tuple[Screened, list[int], Request | None]] = []

    def __iter__(self) -> Iterator[Screened | None]:
        for k in range(len(self.batches)):
            if not self.on:
                yield None
                continue
            while len(self._asked) < min(len(self.batches), k + 1 + DEPTH):
                self._ask(self.batches[len(self._asked)])
            yield self._take(k)

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()

    def __enter__(self) -> ReadAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _ask(self, batch: Sequence[tuple[Turn, list[str]]]) -> None:
        screened = self.writer.screened(batch)
        texts = screened.texts
        detected, primary = self.writer.toolkit.nlp.languages(texts, screened.langs)
        screened.langs = list(detected)  # the writer's analysis takes them as found, not again
        english = [i for i, p in enumerate(primary) if p == "en"]
        request = None
        if english:
            if self.worker is None:
                self.worker = NERWorker()
            if self.worker.failure is None:
                request = self.worker.submit([texts[i] for i in english])
        self._asked.append((screened, english, request))

    def _take(self, k: int) -> Screened:
        screened, english, request = self._asked[k]
        if request is not None and self.worker is not None:
            found = self.worker.take(request)
            if found is not None and len(found) == len(english):
                screened.entities = dict(zip(english, found, strict=True))
        return screened
