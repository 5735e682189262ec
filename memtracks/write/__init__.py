"""The write side: what happens to a turn between ``Memory.write()`` and the store.

:mod:`~memtracks.write.validation` checks the turn, :mod:`~memtracks.write.gate` decides
whether it is worth extracting from, :mod:`~memtracks.write.writer` runs the stages of
:mod:`memtracks.pipeline` and commits turn, facts, events and conclusions in one
transaction, and :mod:`~memtracks.write.queue` does the same off the caller's thread when
``async_writes`` is on.
"""
