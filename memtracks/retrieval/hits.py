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
from memtracks.retrieval.database import DatabaseLexical, search_together
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


@dataclass(frozen=True)
class Search:
    """What a track retriever searches its track's vectors and words for: the question's
    ``terms``, how many hits, and the category members it adds (``extra``). Each retriever
    says it in one place (its ``search_of``), so its search can run before it, with the other
    tracks' (:func:`search_all`)."""

    track: str
    terms: tuple[str, ...]
    k: int
    extra: tuple[tuple[str, ...], ...] = ()


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
    # searches already run (:func:`search_all`), each with its (semantic, lexical) hits
    searched: dict[Search, tuple[dict[int, float], dict[int, float]]] = field(default_factory=dict)

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


def search_both(ctx: SearchContext, search: Search, vector: np.ndarray) -> dict[int, dict[str, float]]:
    """Semantic and lexical candidates of one track, mixed; every candidate gets its cosine.
    A search :func:`search_all` ran already is not run again."""
    index = ctx.vectors(search.track)
    words = ctx.lexical(search.track)
    cfg = ctx.config
    if search in ctx.searched:
        semantic, lexical = ctx.searched[search]
    elif isinstance(words, DatabaseLexical) and words.covers(index):  # both in one statement
        semantic, lexical = words.search_with(
            index, vector, search.terms, search.k, search.extra, cfg.expansion_weight, cfg.expansion_max_share
        )
    else:
        semantic = dict(index.search(vector, search.k))
        lexical = dict(
            words.search(
                search.terms,
                search.k,
                extra=search.extra,
                extra_weight=cfg.expansion_weight,
                extra_max_share=cfg.expansion_max_share,
            )
        )
        missing = [i for i in lexical if i not in semantic]
        semantic.update(similarity(index, missing, vector))
    return mix(semantic, lexical, ctx.config, words.ceiling(search.terms) if ctx.config.lexical_ceiling_share else 0.0)


def search_all(ctx: SearchContext, searches: Sequence[Search], vector: np.ndarray) -> None:
    """Run ``searches`` (the tracks' a question asks) at once where the database searches by
    itself: one statement for all of them, kept in ``ctx.searched`` for the retrievers. Where
    the indexes are in memory, or are not all one database's, each retriever searches its own."""
    if len(searches) < 2:
        return
    indexes = [(ctx.lexical(s.track), ctx.vectors(s.track)) for s in searches]
    words = [w for w, index in indexes if isinstance(w, DatabaseLexical) and w.covers(index)]
    if len(words) < len(searches) or len({(w.store, w.scope) for w in words}) > 1:
        return
    cfg = ctx.config
    found = search_together(
        [(w, s.terms, s.k, s.extra) for w, s in zip(words, searches, strict=True)],
        vector,
        cfg.expansion_weight,
        cfg.expansion_max_share,
    )
    ctx.searched.update(zip(searches, found, strict=True))


def held_back(stale: list[float], hits: list[Hit], floor: float) -> int:
    """How many stale candidates (superseded, expired) would have been among ``hits``: their
    relevance reaches that of the weakest hit returned (or ``floor`` when none was)."""
    bar = min((h.relevance for h in hits), default=floor)
    return sum(1 for r in stale if r >= bar)
