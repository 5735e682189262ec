"""The reader: a question in, a few ranked memory cards out.

question -> query analysis -> fact / temporal / inference retrievers (each its own k)
         -> fusion (weights, source, recency, dedup) -> top N cards
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import networkx as nx

from .cards import Recall, build_card
from .config import MemoryConfig
from .embedders import Embedder
from .fusion import fuse
from .records import Event, Fact, Premise
from .retrieval.facts import retrieve_facts
from .retrieval.hits import SearchContext
from .retrieval.inferences import retrieve_inferences
from .retrieval.lexical import LexicalIndex
from .retrieval.query import analyze_query
from .retrieval.temporal import retrieve_events
from .storage import Store
from .toolkit import Toolkit


@dataclass
class Reader:
    store: Store
    toolkit: Toolkit
    embedder: Embedder
    config: MemoryConfig
    vectors: Callable[[str, str], Any]  # (user, track) -> vector index
    lexical: Callable[[str, str], LexicalIndex]
    chain: Callable[[str], nx.MultiDiGraph]
    speakers: Callable[[str], set[str]]

    def retrieve(
        self,
        question: str,
        *,
        user_id: str,
        now: datetime,
        top_n: int = 5,
        speaker: str = "user",
        as_of: datetime | None = None,
        k: dict[str, int] | None = None,
    ) -> Recall:
        clock = time.perf_counter
        t0 = clock()
        known = self.store.names(user_id)
        people = frozenset(s for s in self.speakers(user_id) if s not in ("user", "assistant")) | {
            name for name, (_, label) in known.items() if label == "person"
        }
        query = analyze_query(
            question,
            now=now,
            toolkit=self.toolkit,
            embedder=self.embedder,
            speaker=speaker,
            known=known,
            people=people,
            as_of=as_of,
            relations=self.store.relations(user_id),
        )
        t1 = clock()
        cfg = self.config.retrieval
        ks = {"fact": cfg.k_fact, "temporal": cfg.k_temporal, "inference": cfg.k_inference, **(k or {})}
        ctx = SearchContext(
            user_id,
            self.store,
            cfg,
            self.toolkit.catalogue,
            lambda track: self.vectors(user_id, track),
            lambda track: self.lexical(user_id, track),
            lambda: self.chain(user_id),
        )
        facts, stale_facts = retrieve_facts(query, ctx, ks["fact"])
        events = retrieve_events(query, ctx, ks["temporal"])
        inferences, stale_inferences = retrieve_inferences(query, ctx, ks["inference"])
        t2 = clock()
        hits = [*facts, *events, *inferences]
        ranked = fuse(
            hits, query, self.config.fusion, lambda track, ids: self.vectors(user_id, track).vectors(ids), top_n
        )
        lookup = self._premise_lookup(user_id)
        cards = [
            build_card(r, self.toolkit.catalogue, self.config.fusion.temporal, lookup, query.terms, as_of or now)
            for r in ranked
        ]
        t3 = clock()
        return Recall(
            query=question,
            cards=cards,
            suppressed=stale_facts + stale_inferences,
            now=now,
            lang=query.lang,
            candidates=len(hits),
            timings_ms={"analyse": (t1 - t0) * 1e3, "retrieve": (t2 - t1) * 1e3, "fuse": (t3 - t2) * 1e3},
        )

    def _premise_lookup(self, user_id: str) -> Callable[[Premise], Fact | Event | None]:
        def lookup(p: Premise) -> Fact | Event | None:
            if p.track == "fact":
                found = self.store.facts_by_id(user_id, [p.id])
            else:
                found = self.store.events(user_id, ids=[p.id])  # type: ignore[assignment]
            return found[0] if found else None

        return lookup
