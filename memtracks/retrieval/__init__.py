"""The read side: what happens between ``Memory.retrieve()`` and the cards an agent reads.

:mod:`~memtracks.retrieval.query` reads the question, the retrievers (``lexical``,
``database``, ``facts``, ``temporal``, ``inferences``) find candidates in the indexes
(:mod:`~memtracks.retrieval.indexes`), :mod:`~memtracks.retrieval.ranker` and
:mod:`~memtracks.retrieval.fusion` order them, :mod:`~memtracks.retrieval.tiers` keeps hot
and cold apart, and :mod:`~memtracks.retrieval.cards` turns the winners into labelled cards
within a token budget. :mod:`~memtracks.retrieval.reader` runs the whole.
"""
