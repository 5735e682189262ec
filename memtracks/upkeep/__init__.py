"""Work on a memory that is not a write or a question: expiry and erasure
(:mod:`~memtracks.upkeep.lifecycle`), checks and repair (:mod:`~memtracks.upkeep.integrity`),
the audit trail, export and import (:mod:`~memtracks.upkeep.transfer`, Markdown both ways)
and consolidation of near-duplicate memories."""
