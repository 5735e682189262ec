"""The reader: a question in, a few ranked memory cards out.

question -> query analysis -> fact / temporal / inference retrievers (each its own k)
         -> fusion (weights, source, recency, dedup, threads) -> top N cards
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from memtracks.config import FusionConfig, MemoryConfig, RetrievalConfig, is_assistant
from memtracks.errors import InvalidTurnError
from memtracks.records import STORED_AS, Event, Fact, Premise
from memtracks.retrieval import facts, inferences, temporal
from memtracks.retrieval.cards import (
    CardContext,
    Recall,
    Relevance,
    SentenceMeaning,
    build_card,
    thread_tokens,
    to_fill,
)
from memtracks.retrieval.embedders import Embedder
from memtracks.retrieval.facts import retrieve_facts
from memtracks.retrieval.fusion import fuse
from memtracks.retrieval.hits import Hit, Record, SearchContext, search_all
from memtracks.retrieval.indexes import Indexes
from memtracks.retrieval.inferences import retrieve_inferences
from memtracks.retrieval.lexical import LexicalIndex, tokenize
from memtracks.retrieval.query import Query, analyze_query
from memtracks.retrieval.temporal import retrieve_events
from memtracks.retrieval.tiers import TIERED_TRACKS, Reach, Tiers, newest_conclusions, words_asking
from memtracks.storage.base import SQLStorage
from memtracks.storage.chain import StoredChain
from memtracks.toolkit import Toolkit
from memtracks.tracks import track_of
from memtracks.upkeep.consolidation.folded import credit_folded, fold_hits, folded_events

RETRIEVERS = {"fact": retrieve_facts, "temporal": retrieve_events, "inference": retrieve_inferences}
# what each retriever searches its track for (run for all of them at once where the store searches)
SEARCHES = {"fact": facts.search_of, "temporal": temporal.search_of, "inference": inferences.search_of}
FILTER_WIDENING = 4  # a filtered track looks at this many times its k before filtering
NEWEST_LIMIT = 50  # conclusions read to find the newest of each kind (the warm tier's compression)


@dataclass(frozen=True)
class Filters:
    """What a retrieval is limited to: tracks, and memories from turns of one session, said
    within ``[start, end)``, with these metadata values."""

    tracks: frozenset[str] = frozenset(RETRIEVERS)
    session_id: str | None = None
    start: datetime | None = None
    end: datetime | None = None
    metadata: Mapping[str, Any] | None = None

    @classmethod
    def make(
        cls,
        *,
        tracks: Sequence[str] | None = None,
        session_id: str | None = None,
        start: datetime | None = None,
        end: datetime | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Filters:
        if tracks is not None and (isinstance(tracks, str | bytes) or not isinstance(tracks, Iterable)):
            raise InvalidTurnError(f"tracks must be a list of track names, e.g. ['fact']; found {tracks!r:.80}")
        names = list(RETRIEVERS) if tracks is None else list(tracks)
        if not names or any(not isinstance(name, str) or name not in RETRIEVERS for name in names):
            raise InvalidTurnError(f"tracks must be some of {', '.join(RETRIEVERS)}; found {names!r:.120}")
        chosen = frozenset(names)
        for key, value in (metadata or {}).items():
            if not isinstance(key, str) or not (value is None or isinstance(value, str | int | float | bool)):
                raise InvalidTurnError(
                    f"metadata filters match text keys to a string, number, bool or None; found {key!r}: {value!r}"
                )
        return cls(chosen, session_id, start, end, dict(metadata) if metadata else None)

    @property
    def by_turn(self) -> bool:
        return any(x is not None for x in (self.session_id, self.start, self.end, self.metadata))


def _turn_ids(record: Record) -> tuple[str, ...]:
    return track_of(record).turn_ids(record)


@dataclass
class Reader:
    store: SQLStorage
    toolkit: Toolkit
    embedder: Embedder
    config: MemoryConfig
    indexes: Indexes  # each user's vector and word indexes, whole and live
    speakers: Callable[[str], set[str]]
    tiers: Tiers
    chain: Callable[[str], Any] | None = None  # scope -> its event chain; None: read from the store in sets

    def retrieve(
        self,
        question: str,
        *,
        user_id: str,
        now: datetime,
        top_n: int = 5,
        speaker: str | None = None,
        as_of: datetime | None = None,
        k: dict[str, int] | None = None,
        filters: Filters | None = None,
        config: MemoryConfig | None = None,
    ) -> Recall:
        """``config``: the settings of this retrieval (a preset's, ``retrieval/presets.py``;
        None: the memory's own)."""
        config = config or self.config
        filters = filters or Filters()
        clock = time.perf_counter
        t0 = clock()
        query = self.analyze(question, user_id=user_id, now=now, speaker=speaker, as_of=as_of)
        t1 = clock()
        cfg = config.retrieval
        ks = {
            "fact": cfg.k_fact,
            "temporal": cfg.k_conjecture if query.conjecture else cfg.k_temporal,
            "inference": cfg.k_inference,
            **(k or {}),
        }
        allowed = (
            self.store.turn_ids_where(
                user_id, session_id=filters.session_id, start=filters.start, end=filters.end, metadata=filters.metadata
            )
            if filters.by_turn
            else None
        )
        simplified = self.toolkit.lexicons.to_simplified(question)
        reach = self.tiers.reach(query, simplified)
        ctx, hits, stale = self._search(query, user_id, reach, ks, filters, allowed, cfg)
        slot_words = words_asking(question, simplified, self.toolkit.catalogue.ask_patterns)
        if self.tiers.fallback(hits, reach, query, self._people(user_id), slot_words):
            reach = reach.widened("fallback")
            ctx, hits, stale = self._search(query, user_id, reach, ks, filters, allowed, cfg)
        folded = folded_events(self.store, user_id)
        if folded:
            hits = fold_hits(self.store, user_id, hits, folded)
        t2 = clock()
        lookup = self._premise_lookup(user_id)
        fusion = config.fusion
        cards_ctx = CardContext(
            self.toolkit.catalogue,
            fusion.temporal,
            lookup,
            query.terms,
            as_of or now,
            fusion.thread_part_tokens,
            fusion.thread_first_tokens,
        )
        ranked = fuse(
            hits,
            query,
            fusion,
            lambda track, ids: ctx.vectors(track).vectors(ids),
            top_n,
            thread_tokens(cards_ctx),
            lambda: self._ended(query, user_id),
        )
        relevance = self._relevance(query, ranked[: fusion.snippet_cards], fusion)
        shown = fusion.snippet_cards

        def card(r: Any, n: int) -> Any:
            return build_card(r, cards_ctx, relevance if n < shown else None)

        cards = [card(r, n) for n, r in enumerate(ranked)]
        if folded:
            cards = credit_folded(self.store, user_id, cards, folded)
        cards = self._with_metadata(user_id, cards)
        t3 = clock()
        return Recall(
            query=question,
            cards=cards,
            suppressed=stale,
            now=now,
            lang=query.lang,
            candidates=len(hits),
            timings_ms={"analyse": (t1 - t0) * 1e3, "retrieve": (t2 - t1) * 1e3, "fuse": (t3 - t2) * 1e3},
            reached=reach.why or "live",
            as_of=as_of,
        )

    def _relevance(self, query: Query, first: Sequence[Any], fusion: FusionConfig) -> Relevance | None:
        """How the first cards' long turns fill the room their shared-words cut leaves
        (``FusionConfig.snippet_neighbours``; ``snippet_meaning``: by meaning, their
        statements embedded in one call)."""
        named = tuple(g for g in (tuple(dict.fromkeys(tokenize(e.text))) for e in query.entities) if g)
        if fusion.snippet_neighbours:
            return Relevance(None, named=named, neighbours=True)
        if not fusion.snippet_meaning:
            return None
        meaning = SentenceMeaning(self.embedder.embed_batch, query.vector, fusion.snippet_sentences)
        meaning.prepare(to_fill(first, query.terms, named))
        return Relevance(meaning, fusion.snippet_min_cosine, named)

    def _search(
        self,
        query: Query,
        user_id: str,
        reach: Reach,
        ks: dict[str, int],
        filters: Filters,
        allowed: set[str] | None,
        retrieval: RetrievalConfig,
    ) -> tuple[SearchContext, list[Hit], int]:
        """Each chosen track's candidates within ``reach`` and ``allowed`` turns, and how many
        stale ones were held back."""
        ctx = self.context(user_id, reach, allowed, retrieval)
        widening = FILTER_WIDENING if allowed is not None else 1
        hits: list[Hit] = []
        stale = 0
        tracks = [t for t in RETRIEVERS if t in filters.tracks]
        search_all(ctx, [SEARCHES[t](query, ctx.config, ks[t] * widening) for t in tracks], query.vector)
        for track in tracks:
            result: Any = RETRIEVERS[track](query, ctx, ks[track] * widening)  # type: ignore[operator]
            found: list[Hit] = result
            if isinstance(result, tuple):
                found, held = result
                stale += held
            hits += found[: ks[track]]
        return ctx, hits, stale

    def _admission(
        self, user_id: str, reach: Reach | None, allowed: set[str] | None
    ) -> Callable[[str, Sequence[Record]], Sequence[Record]] | None:
        """What the retrieval's filters admit, the one place they are applied: the tiers of
        ``reach`` and the ``allowed`` turns (None: both admit everything). The track
        retrievers apply it to their candidates before they rank them."""
        tiered = reach is not None and not reach.archive
        if not tiered and allowed is None:
            return None

        def admit(track: str, records: Sequence[Record]) -> Sequence[Record]:
            kept = [r for r in records if allowed is None or allowed.intersection(_turn_ids(r))]
            if reach is None or not kept:
                return kept
            return self.tiers.admit(kept, reach, lambda kinds: self._newest(user_id, kinds, reach))

        return admit

    def _newest(self, user_id: str, kinds: Sequence[str], reach: Reach) -> dict[tuple[str, str], int]:
        found = self.store.inferences(user_id, active_only=True, kinds=list(kinds), limit=NEWEST_LIMIT)
        return newest_conclusions(found, reach.moment)

    def analyze(
        self,
        question: str,
        *,
        user_id: str,
        now: datetime,
        speaker: str | None = None,
        as_of: datetime | None = None,
    ) -> Query:
        """The question analysed against what this user's memory knows (names, people, relations)."""
        known = self.store.names(user_id)
        speakers = self._speakers(user_id)
        return analyze_query(
            question,
            now=now,
            toolkit=self.toolkit,
            embedder=self.embedder,
            speaker=speaker or self.asker(user_id, user_id),
            known=known,
            people=self._people(user_id, known, speakers),
            as_of=as_of,
            relations=self.store.relations(user_id),
            speakers=speakers,
        )

    def asker(self, scope: str, user_id: str) -> str:
        """Who "I" / 我 in a question is when the caller does not say: "user" (a turn's default
        speaker) if the user speaks as "user"; else the user's own id if they speak under it
        (turns written with ``speaker=user_id``); else the one person who speaks in this memory
        besides the assistant. Where that is no one person (a chat between two named people),
        "user": name the person asked about, or pass ``speaker``."""
        said = self.speakers(scope)
        people = sorted(s for s in said if not is_assistant(s, self.config.writer.assistant_speakers))
        if "user" in said or not people:
            return "user"
        if user_id in people:
            return user_id
        return people[0] if len(people) == 1 else "user"

    def _speakers(self, user_id: str) -> frozenset[str]:
        """The people who talk in this user's memory, by name (not "user" or "assistant")."""
        return frozenset(s for s in self.speakers(user_id) if s not in ("user", "assistant"))

    def _people(
        self,
        user_id: str,
        known: Mapping[str, tuple[str, str]] | None = None,
        speakers: frozenset[str] | None = None,
    ) -> frozenset[str]:
        """The people this user's memory knows: speakers and names labelled as persons."""
        known = self.store.names(user_id) if known is None else known
        speakers = self._speakers(user_id) if speakers is None else speakers
        return speakers | {name for name, (_, label) in known.items() if label == "person"}

    def context(
        self,
        user_id: str,
        reach: Reach | None = None,
        allowed: set[str] | None = None,
        retrieval: RetrievalConfig | None = None,
    ) -> SearchContext:
        """What the track retrievers search for this user: store, config, indexes, chain, and
        what the filters admit. Within a ``reach`` of the live tiers, events and conclusions
        come from the live index and are admitted by the tiers; ``allowed``: the turns the
        retrieval is limited to (None: any); ``retrieval``: how the tracks are searched (None:
        the memory's own settings)."""
        since = reach.live_since() if reach is not None else None
        slack = self.config.tiers.live_slack_days * 86400.0

        def live(track: str) -> datetime | None:
            """Where the live index of ``track`` starts, if the question searches it."""
            return since if since is not None and STORED_AS.get(track, track) in TIERED_TRACKS else None

        def vectors(track: str) -> Any:
            start = live(track)
            return (
                self.indexes.vectors(user_id, track)
                if start is None
                else self.indexes.live(user_id, track, start, slack)[0]
            )

        def lexical(track: str) -> LexicalIndex:
            start = live(track)
            return (
                self.indexes.lexical(user_id, track)
                if start is None
                else self.indexes.live(user_id, track, start, slack)[1]
            )

        return SearchContext(
            user_id,
            self.store,
            retrieval or self.config.retrieval,
            self.toolkit.catalogue,
            vectors,
            lexical,
            lambda: self.chain(user_id) if self.chain is not None else StoredChain(self.store, user_id),
            self.toolkit.ranker,
            self._admission(user_id, reach, allowed),
            self.config.writer.assistant_speakers,
        )

    def _with_metadata(self, user_id: str, cards: list[Any]) -> list[Any]:
        """Each card with the metadata of the turns it comes from (earlier turns win a key)."""
        found = self.store.turn_metadata(user_id, [t for c in cards for t in c.source_turn_ids])
        out = []
        for card in cards:
            merged: dict[str, Any] = {}
            for turn_id in reversed(card.source_turn_ids):
                merged.update(found.get(turn_id, {}))
            out.append(replace(card, metadata=merged) if merged else card)
        return out

    def _ended(self, query: Query, user_id: str) -> list[Fact]:
        """The facts of the question's subjects that a later turn ended, replaced or put right: the
        latest-word rule puts the turn that ended one before the turn that stated it ("Do I
        have a rabbit?": "We found Clover a new home" before "My rabbit Clover…";
        :mod:`memtracks.retrieval.latest`)."""
        if query.as_of is not None:
            return []
        return self.store.facts(user_id, subjects=list(query.subjects) or None, ended_only=True)

    def _premise_lookup(self, user_id: str) -> Callable[[Premise], Fact | Event | None]:
        def lookup(p: Premise) -> Fact | Event | None:
            if p.on_fact:
                found = self.store.facts_by_id(user_id, [p.id])
            else:
                found = self.store.events(user_id, ids=[p.id])  # type: ignore[assignment]
            return found[0] if found else None

        return lookup
