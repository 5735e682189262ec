"""What the track retrievers return and what they search with."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memtracks.config import ASSISTANT_SPEAKERS, RetrievalConfig
from memtracks.data.catalogue import Catalogue
from memtracks.data.ranker import Ranker
from memtracks.records import Event, Fact, Inference
from memtracks.retrieval.database import DatabaseLexical
from memtracks.retrieval.lexical import LexicalIndex
from memtracks.storage import Storage
from memtracks.storage.vectors import similarity

Record = Fact | Event | Inference


@dataclass(frozen=True)
class Hit:
    """A memory a track retriever found, with its relevance in [0, 1] and how it was found.

    ``how`` is the strongest reason: "slot", "entity", "time", "semantic", "lexical", "chain".
    ``explain`` keeps every component for the card's breakdown.
    """

    track: str  # fact | temporal | inference
    record: Record
    relevance: float
    how: str
    explain: dict[str, float] = field(default_factory=dict)

    @property
    def item_id(self) -> int:
        assert self.record.id is not None
        return self.record.id


@dataclass
class SearchContext:
    """One user's indexes and store, as a retriever sees them."""

    user_id: str
    store: Storage
    config: RetrievalConfig
    catalogue: Catalogue
    vectors: Callable[[str], Any]  # track -> vector index
    lexical: Callable[[str], LexicalIndex]  # track -> lexical index
    chain: Callable[[], Any]  # the event chain: StoredChain or networkx graph (in, predecessors, successors)
    ranker: Ranker | None = None  # the temporal track's learned ranker (None: the bundled one)
    # (track, candidate records) -> those the retrieval's filters admit: the tiers of its reach
    # and the turns it is limited to (None: every one). Each retriever applies it before it
    # ranks or cuts, so what is ranked, and the relevances handed out, are the admitted ones'.
    admit: Callable[[str, Sequence[Record]], Sequence[Record]] | None = None
    assistants: Collection[str] = ASSISTANT_SPEAKERS  # who is the agent (WriterConfig.assistant_speakers)

    def admitted_hits(self, track: str, hits: list[Hit]) -> list[Hit]:
        """``hits`` without those whose record the filters leave out (the order is kept)."""
        if self.admit is None or not hits:
            return hits
        kept = {r.id for r in self.admit(track, [h.record for h in hits])}
        return [h for h in hits if h.record.id in kept]


def mix(
    semantic: dict[int, float], lexical: dict[int, float], config: RetrievalConfig, ceiling: float = 0.0
) -> dict[int, dict[str, float]]:
    """Per item: cosine, normalised BM25, and their weighted mix as relevance. BM25 is divided
    by the best candidate's score, but never by less than ``lexical_ceiling_share`` of what a
    full match would score (``ceiling``): when every candidate matches only a word or two of
    the question, none of them is a perfect word match."""
    top = max(max(lexical.values(), default=0.0), config.lexical_ceiling_share * ceiling) or 1.0
    out: dict[int, dict[str, float]] = {}
    for item in set(semantic) | set(lexical):
        sem = max(0.0, semantic.get(item, 0.0))
        lex = lexical.get(item, 0.0) / top
        out[item] = {
            "semantic": sem,
            "lexical": lex,
            "relevance": config.semantic_weight * sem + config.lexical_weight * lex,
        }
    return out


def expansion(config: RetrievalConfig, query: Any) -> tuple[tuple[str, ...], ...]:
    """The category members a question's search adds (``Query.expansions``; those of the
    categories it names beside a member too with ``expansion_siblings``), or none when off."""
    if config.expansion_weight <= 0:
        return ()
    return (*query.expansions, *query.sibling_expansions) if config.expansion_siblings else query.expansions


def covered(config: RetrievalConfig, query: Any) -> tuple[tuple[tuple[str, ...], tuple[tuple[str, ...], ...]], ...]:
    """The question's terms that name a category its search expands, each set with the
    category's member groups (``Query.category_terms``; as :func:`expansion` chooses): a turn
    that names a member holds those terms (the learned ranker's ``coverage``)."""
    if config.expansion_weight <= 0:
        return ()
    if config.expansion_siblings:
        return (*query.category_terms, *query.sibling_category_terms)
    return query.category_terms


def search_both(
    ctx: SearchContext,
    track: str,
    vector: np.ndarray,
    terms: tuple[str, ...],
    k: int,
    extra: tuple[tuple[str, ...], ...] = (),
) -> dict[int, dict[str, float]]:
    """Semantic and lexical candidates of one track, mixed; every candidate gets its cosine.
    ``extra``: member words of the categories the question names (``expansion``)."""
    index = ctx.vectors(track)
    words = ctx.lexical(track)
    cfg = ctx.config
    if isinstance(words, DatabaseLexical) and words.covers(index):  # both in one statement
        semantic, lexical = words.search_with(
            index, vector, terms, k, extra, cfg.expansion_weight, cfg.expansion_max_share
        )
    else:
        semantic = dict(index.search(vector, k))
        lexical = dict(
            words.search(
                terms, k, extra=extra, extra_weight=cfg.expansion_weight, extra_max_share=cfg.expansion_max_share
            )
        )
        missing = [i for i in lexical if i not in semantic]
        semantic.update(similarity(index, missing, vector))
    return mix(semantic, lexical, ctx.config, words.ceiling(terms) if ctx.config.lexical_ceiling_share else 0.0)


def held_back(stale: list[float], hits: list[Hit], floor: float) -> int:
    """How many stale candidates (superseded, expired) would have been among ``hits``: their
    relevance reaches that of the weakest hit returned (or ``floor`` when none was)."""
    bar = min((h.relevance for h in hits), default=floor)
    return sum(1 for r in stale if r >= bar)
