"""Tunable settings in one place, with named defaults (no magic numbers in the stages)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from memtracks.errors import InvalidInputError

ASSISTANT_SPEAKERS = frozenset({"assistant", "system", "ai", "bot", "agent", "助手"})
RANKERS = ("learned", "hand")  # RetrievalConfig.ranker
THREADS = ("off", "aggregate", "always")  # FusionConfig.threads


def is_assistant(speaker: str, speakers: Collection[str] = ASSISTANT_SPEAKERS) -> bool:
    """Whether ``speaker`` is the agent rather than a person: one of ``speakers`` (by default
    the built-in names; ``WriterConfig.assistant_speakers`` where a config is at hand), in any case."""
    return speaker.lower() in speakers


@dataclass(frozen=True)
class WriterConfig:
    """How turns are written.

    Attributes:
        max_analyzed_chars: NLP runs on at most this many characters of a turn; the whole text
            is still stored and embedded (up to the embedder's own limit).
        batch_size: turns per transaction in ``write_many``.
        assistant_speakers: speakers whose "I" is the agent itself: their turns become events,
            but no facts about the agent are extracted.
        inference_rounds: how many times conclusions that are facts may trigger further rules.
        context_events: how many recent events of a kind a rule may join with.
        gate: screen turns with the write gate (``rules/gate.yaml``): tool output, paths,
            command logs, pure greetings and recalled memory blocks give no facts (the turn
            is still stored).
        statement_reader: read, with the learned statement reader
            (``pipeline/statement_reader.py``), the clauses that name a value the speaker holds
            now, and end that value when the reader finds the clause ends or replaces it ("Sold
            the Civic last weekend", "Dan and I are getting divorced", 我对花生不过敏了) or
            calls off a plan of it — the change in words no rule lists. On only with the
            embedder the reader was trained for (the default one).
        reader_min_probability: how likely, by the reader, a clause's sentence must be to end
            what it names (ends + replaces, + cancels for a plan), and more likely than that it
            states it, for the value to end; and how likely a clause that names no held
            value must be to state a new value of a slot, and to be about that slot.
        reader_unnamed_min_probability: how likely a clause that names no held value must be
            to end one ("My contract ran out", 车已经过户给别人了) for the one value the speaker
            holds of the slot it is about to end: higher, as nothing in the clause names it.
        ner_process_from: a ``write_many`` of at least this many turns reads its English
            named entities in a second process (``pipeline/ner_worker.py``), a batch or two
            ahead of the one being written — a third of a write, on the other core — when the
            machine has two cores or more (None: never). The process takes about three
            seconds to start, so a shorter write gains nothing; the results are the same.
    """

    max_analyzed_chars: int = 100_000
    batch_size: int = 64
    assistant_speakers: frozenset[str] = ASSISTANT_SPEAKERS
    inference_rounds: int = 3
    context_events: int = 50
    gate: bool = True
    statement_reader: bool = True
    reader_min_probability: float = 0.8
    reader_unnamed_min_probability: float = 0.9
    ner_process_from: int | None = 1000

    def __post_init__(self) -> None:
        start = self.ner_process_from
        if start is not None and (isinstance(start, bool) or not isinstance(start, int) or start < 1):
            raise InvalidInputError(
                f"WriterConfig: ner_process_from must be a whole number >= 1 or None; found {start!r}"
            )


@dataclass(frozen=True)
class RetrievalConfig:
    """How each track is searched.

    Attributes:
        k_fact, k_temporal, k_inference: candidates each track retriever returns.
        k_conjecture: the temporal track's candidates for a conjecture question ("Would
            Melanie enjoy Vivaldi?", 他可能学的什么专业？; ``Query.conjecture``, the cues in
            ``lexicons/conjecture.yaml``) in place of ``k_temporal``: it names no happening
            and is answered by what the person said about themselves here and there, so a
            wider pool reaches more of it. 25 is the middle of the values (20-35) that raise
            LoCoMo's tuning open-domain recall@5 0.496 -> 0.508 and change no other figure
            (benchmarks/RESULTS.md).
        event_pool: the temporal retriever reads this many times its k from each of the
            semantic and the lexical index before scoring.
        semantic_weight, lexical_weight: how a retriever mixes cosine similarity and
            (max-normalised) BM25 into one relevance in [0, 1].
        lexical_ceiling_share: BM25 is normalised by the best candidate's score, or by this
            share of a full match's score if that is larger (0: by the best candidate alone).
        time_match, time_match_floor: an event inside the question's time window gains
            ``time_match x max(relevance, time_match_floor)``: relevant events in the window
            rise most, and a question with no other words ("what did I do last week?") still
            ranks the window first.
        time_reach_offset, time_reach_period: how far outside the question's time window an
            event still gains part of the window's bonus, as a share of how loosely the time
            is meant (``retrieval/query.py``, ``search_leeway``): of an approximate offset's
            distance from now ("two weeks ago" reaches a week either side), of a named
            period's length ("last week", 上上周).
        time_reach_bonus: the share of the window's bonus an event just outside the window
            gains; it falls linearly to nothing at the reach's edge, so the window comes
            first, then the closest, and nothing is cut at the window's edge.
        when_boost: added to dated events when the question asks when ("when", 什么时候).
        kind_boost: added to events of a happening kind an aggregate question names ("how many
            trips": the trips), which are searched besides the question's words.
        entity_boost: added to events that mention an entity of the question.
        speaker_boost: added to events said by the person the question is about.
        chain_hops, chain_weight: events this many links along the event chain from a hit
            join the candidates, their relevance scaled by ``chain_weight``.
        answer_weight: the reply to a question turn that matched takes this share of its
            relevance (the question names the topic, the reply holds the information).
        min_relevance: candidates below this relevance are dropped.
        substance_floor, substance_full: a turn's relevance is scaled by how much its
            statements say (``retrieval/substance.py``): ``substance_floor`` for a question or a
            reaction with no content words, rising to 1 at ``substance_full`` content words.
            Applied after the chain expansion, so the reply to a question inherits the
            question's full relevance, and after the ``min_relevance`` cut, so a short relevant
            statement ("I love hiking.") ranks lower but is never dropped.
        ranker: how the temporal track orders its candidates: "learned" (default) by the linear model of ``rules/ranker.yaml`` over the hand
            score's parts, the turn, its session and the question's form
            (``retrieval/ranker.py``; the candidates keep the hand relevances, handed out in
            the learned order), or "hand" by the hand score alone. "learned" lifts LoCoMo's
            held-out evidence recall@5 (0.641 -> 0.690; adversarial and the Chinese set hold)
            and loses one of the 50 LongMemEval_S questions (0.940 -> 0.920)
            (benchmarks/RESULTS.md, "A learned ranker").
        session_cap, aggregate_session_cap: at most this many of the temporal track's
            candidates come from one conversation while others are waiting (the rest fill
            any slots left), so one long chat cannot take every slot; the second figure is
            for questions whose answer is spread over conversations ("how many", "in what
            order", 哪些, and comparisons over time: "which ... most recently?", 先…还是…).
        hand_sessions: with the learned ranker, each of the first this many sessions of the
            hand order keeps its best hand-order candidate among the temporal track's ``k``
            (``retrieval/temporal.py``, ``keep_sessions``): the learned order may push all of
            a session's candidates below the cut while two other sessions fill it (0: off).
            5: the largest that changes no LoCoMo tuning figure (6 lowers recall at 300
            tokens, 8 adversarial); it wins back an oracle question (benchmarks/RESULTS.md,
            "The hand order's first sessions").
        expansion_weight: a question that names a category ("martial arts", 乐器, "social
            media"; ``lexicons/categories.yaml``) also searches for the category's members
            ("kickboxing", 小提琴, "Instagram"), each at this share of a question word's BM25
            weight (0 turns the expansion off: the question's own words alone).
        expansion_siblings: also expand a category the question names beside one of its
            members ("sports other than tennis"); off, such a question keeps its own words.
        expansion_max_share: a member held by more than this share of the searched memories
            says too little to search for.
    """

    k_fact: int = 5
    k_temporal: int = 15
    k_conjecture: int = 25
    k_inference: int = 2
    event_pool: int = 3
    semantic_weight: float = 0.6
    lexical_weight: float = 0.4
    lexical_ceiling_share: float = 0.0
    time_match: float = 0.5
    time_match_floor: float = 0.3
    time_reach_offset: float = 0.5
    time_reach_period: float = 0.25
    time_reach_bonus: float = 0.5
    when_boost: float = 0.1
    kind_boost: float = 0.15
    entity_boost: float = 0.15
    speaker_boost: float = 0.15
    chain_hops: int = 1
    chain_weight: float = 0.7
    answer_weight: float = 0.9
    min_relevance: float = 0.12
    substance_floor: float = 0.4
    substance_full: float = 10.0
    session_cap: int = 5
    aggregate_session_cap: int = 3
    ranker: str = "learned"
    hand_sessions: int = 5
    expansion_weight: float = 0.5
    expansion_siblings: bool = False
    expansion_max_share: float = 0.05

    def __post_init__(self) -> None:
        if self.ranker not in RANKERS:
            raise InvalidInputError(
                f"RetrievalConfig: ranker must be one of {', '.join(RANKERS)}; found {self.ranker!r}"
            )
        if isinstance(self.k_conjecture, bool) or not isinstance(self.k_conjecture, int) or self.k_conjecture < 0:
            raise InvalidInputError(
                f"RetrievalConfig: k_conjecture must be a whole number >= 0; found {self.k_conjecture!r}"
            )


@dataclass(frozen=True)
class FusionConfig:
    """How the tracks' candidates are merged into one ranking.

    score = relevance x confidence weight x source weight x recency, where recency is
    ``decay_floor + (1 - decay_floor) * exp(-age / decay_days[track])``: recent memories rank
    first, but an exact old match is never erased by the decay. Age is measured from the
    question's ``now`` (or, when the question names a time, from that time).

    Attributes:
        fact_slot, fact_semantic, temporal, inference: confidence weights by how a memory
            was found.
        stated, inferred, imported: source weights (what the user said outranks what was
            inferred or imported).
        fact_decay_days, temporal_decay_days, inference_decay_days: decay time constants.
        decay_floor: the share of the score that does not decay.
        dedup_similarity: cosine above which two cards are duplicates, unless they differ in
            a number, a date or an entity.
        min_score_ratio: cards scoring below this share of the best card are dropped, so a
            clear answer does not come padded with noise.
        content_free: what becomes of turns that say nothing ("Thanks!", "ok", 谢谢！, "Nice
            to meet you!": ``retrieval/substance.py``'s ``content_free``): "drop" (default)
            leaves them out of the cards, so a question gets fewer cards rather than filler;
            "keep" ranks them like any turn.
        session_diversity, session_free: past the first ``session_free`` events of a
            session among the cards, each further one has its score scaled by
            ``session_diversity`` once more (1.0 turns it off).
        aggregate_session_free: ``session_free`` for questions whose answer is spread over
            conversations ("how many...", "what activities...", 哪些, 几次, "which ... first?",
            最近一次).
        threads: which questions get thread cards: "off" (one memory per card, as before),
            "aggregate" (questions whose answer is spread over conversations, as above) or
            "always". A thread card holds an event and its further mentions: an event ranked
            at ``thread_from`` (0-based) or lower is folded into a higher event card instead of
            taking a slot of its own when it has the same speaker, a cosine of at least
            ``thread_similarity`` with the card's event, a score of at least ``thread_share``
            of the card's, and comes from another session (or is about another time). The
            card cites every part's turn and shows each part's most relevant sentences with
            its resolved dates (at most ``thread_part_tokens`` of a long turn).
        thread_first_tokens: a thread card's own event is cut to at most this many tokens of
            its turn once it has parts (a card alone keeps ``cards.SNIPPET_TOKENS``, 60).
        thread_parts: at most this many events on one card (its own included).
        thread_hosts: only the first this many cards take parts (a deep list of 50 cards
            costs no more to thread than one of 10; the first cards never depend on how many
            are asked for).
        thread_tokens: a part is folded only while the card stays within this many
            (estimated) tokens.
        thread_min_substance: a part must state at least this many content words
            (``retrieval/substance.py``: its statements' distinct words, questions, stop words
            and chitchat left out, a Chinese character counting half): a reaction ("Yeah for
            sure.", 哈哈好的) or a question is no further mention of anything.
        snippet_neighbours: a long turn on one of the first ``snippet_cards`` cards, a card
            of its own (``cards.snippet``), keeps its dated sentence and those sharing words
            with the question, and fills the room left in its budget with the statements right
            after (then right before) those sharing words: an answer often shares no word with
            its question, and follows the sentence that names its topic ("... my asylum
            application took forever. Over a year of uncertainty was really tough."). No
            embedding: it costs nothing measurable. A thread card keeps the cuts its size was
            reckoned with, so the ranking does not change.
        snippet_meaning: with ``snippet_neighbours`` False, fill that room instead with the
            turn's statements closest to the question in meaning (cosine with the question's
            vector, at least ``snippet_min_cosine``), embedded in one call per question, at
            most ``snippet_sentences`` of them (the first cards' first; a turn that would pass
            the limit keeps its shared-words cut). Measured beside the default in
            ``benchmarks/RESULTS.md``: the same LoCoMo gain for more tokens, 1.1-1.3x the
            retrieve p50, and one LongMemEval_S answer fewer.
        latest_window, latest_share: the latest word leads (``retrieval/latest.py``): for a
            question about how things are now, among the first ``latest_window`` memories,
            those about the same thing (the same person and slot or value) that score at
            least ``latest_share`` of the best of their track are put newest first in the
            places they held. ``latest_window`` 0 turns it off.
    """

    fact_slot: float = 0.9
    fact_semantic: float = 0.7
    temporal: float = 0.8
    inference: float = 0.6
    stated: float = 1.0
    inferred: float = 0.85
    imported: float = 0.7
    llm: float = 0.8
    fact_decay_days: float = 180.0
    temporal_decay_days: float = 7.0
    inference_decay_days: float = 3.0
    decay_floor: float = 0.8
    dedup_similarity: float = 0.9
    min_score_ratio: float = 0.1
    content_free: str = "drop"
    session_diversity: float = 0.7
    session_free: int = 4
    aggregate_session_free: int = 1
    threads: str = "always"
    thread_from: int = 2
    thread_similarity: float = 0.4
    thread_share: float = 0.5
    thread_parts: int = 3
    thread_hosts: int = 10
    thread_tokens: int = 120
    thread_part_tokens: int = 20
    thread_first_tokens: int = 40
    thread_min_substance: float = 4.0
    snippet_neighbours: bool = True
    snippet_cards: int = 5
    snippet_meaning: bool = False
    snippet_min_cosine: float = 0.0
    snippet_sentences: int = 16
    latest_window: int = 10
    latest_share: float = 0.5

    def __post_init__(self) -> None:
        if not 0.0 <= self.latest_share <= 1.0 or self.latest_window < 0:
            raise InvalidInputError(
                "FusionConfig: latest_share must lie in [0, 1] and latest_window be >= 0;"
                f" found {self.latest_share!r} and {self.latest_window!r}"
            )
        if self.content_free not in ("drop", "keep"):
            raise InvalidInputError(f"FusionConfig: content_free must be 'drop' or 'keep'; found {self.content_free!r}")
        if self.threads not in THREADS:
            raise InvalidInputError(
                f"FusionConfig: threads must be one of {', '.join(THREADS)}; found {self.threads!r}"
            )
        sizes = (
            self.thread_parts,
            self.thread_hosts,
            self.thread_tokens,
            self.thread_part_tokens,
            self.thread_first_tokens,
        )
        if min(sizes) < 1 or self.thread_from < 0 or self.thread_min_substance < 0:
            raise InvalidInputError(
                "FusionConfig: thread_parts, thread_hosts, thread_tokens, thread_part_tokens and"
                " thread_first_tokens must be >= 1, thread_from and thread_min_substance >= 0;"
                f" found {sizes}, {self.thread_from} and {self.thread_min_substance}"
            )

    def source_weight(self, source: str) -> float:
        weights = {"stated": self.stated, "inferred": self.inferred, "imported": self.imported, "llm": self.llm}
        return weights.get(source, self.imported)

    def decay_days(self, track: str) -> float:
        return {
            "fact": self.fact_decay_days,
            "temporal": self.temporal_decay_days,
            "inference": self.inference_decay_days,
        }[track]


@dataclass(frozen=True)
class Limits:
    """The largest inputs accepted; anything larger is refused with a :class:`~memtracks.errors.LimitError`.

    Identifiers (user, agent, session and turn ids, speakers) are limited to
    :data:`memtracks.scopes.MAX_ID_CHARS` (256) characters, on reads and writes alike.

    Attributes:
        max_turn_chars: characters of one turn's text (it is stored whole; the NLP stages read
            the first ``WriterConfig.max_analyzed_chars``).
        max_metadata_bytes: a turn's metadata, as UTF-8 JSON.
        max_question_chars: characters of a question handed to ``retrieve()``.
    """

    max_turn_chars: int = 5_000_000
    max_metadata_bytes: int = 65_536
    max_question_chars: int = 20_000


SYNCHRONOUS = ("normal", "full")


@dataclass(frozen=True)
class StorageConfig:
    """How the SQLite file (or the Postgres database) is opened.

    Attributes:
        synchronous: "normal" (default): a committed write survives the process crashing or
            being killed; after a power loss or an OS crash the last few commits may be lost
            (the file stays consistent). "full": SQLite syncs the write-ahead log at every
            commit, so a commit also survives a power loss, at the cost of an fsync per
            transaction.
        busy_timeout: seconds to wait for another connection's write lock before giving up
            with a :class:`~memtracks.errors.LockTimeoutError`.
        lock_retries: how many times a transaction that could not start because the file
            was busy is retried (with a short, growing pause) within ``busy_timeout``.
        partitions: Postgres only: a new database's per-user tables are made partitioned by
            the hash of ``user_id`` into this many partitions (``docs/postgres.md``). It shapes
            a new database only: an existing database opened with it set must already be split
            so, or it is refused. None (default): one table each, or whatever the database has.
    """

    synchronous: str = "normal"
    busy_timeout: float = 30.0
    lock_retries: int = 8
    partitions: int | None = None


@dataclass(frozen=True)
class ConsolidationConfig:
    """How ``Memory.consolidate`` finds and folds near-duplicates.

    Attributes:
        find_threshold: two memories are compared at all only from this measured cosine of
            their stored vectors (and when they agree in structure: same subject and slot, or
            same entity and kind of happening); a fact restated with more detail is updated in
            place from here.
        replace_threshold: folding one of two memories into the other (a near-duplicate) or
            superseding a contradicted value needs at least this cosine.
        event_window_days: two events with no resolved time merge only when said within this
            many days of each other (otherwise they may well be two different trips).
    """

    find_threshold: float = 0.7
    replace_threshold: float = 0.9
    event_window_days: float = 7.0


@dataclass(frozen=True)
class TierConfig:
    """Tiered storage (``memtracks/retrieval/tiers.py``): which memories a question searches by default,
    by their age at the question's moment (its ``as_of``, else its ``now``).

    Attributes:
        enabled: off by default: every memory is searched, whatever its age.
        hot_days: memories said within this many days are all searched (the hot tier).
        warm_days: up to this age, facts, important events (``rules/tiers.yaml``) and the
            newest conclusion of each subject and kind are searched (the warm tier). Older
            events and conclusions are archived (the cold tier): kept in the same file, out
            of the live indexes, searched when the question points further back, when
            ``as_of`` moves the moment back to their time, or when the live tiers find
            nothing relevant enough. Facts are always searched.
        fallback_relevance: when no candidate of the live tiers reaches this relevance, the
            archive is searched too (0 turns this test off).
        fallback_coverage: when no candidate of the live tiers holds this share of the
            question's words (people's names left out), the archive is searched too: the live
            tiers do not know what it asks about ("What did Caroline research?" and no recent
            memory speaks of research). 0 turns this test off.
        live_slack_days: the in-memory live index reaches this many days further back than
            a question needs, so one index serves the questions of that many days before it
            is rebuilt (what it holds beyond the question's reach is filtered out).
    """

    enabled: bool = False
    hot_days: float = 7.0
    warm_days: float = 90.0
    fallback_relevance: float = 0.5
    fallback_coverage: float = 1.0
    live_slack_days: float = 7.0

    def __post_init__(self) -> None:
        problems = []
        if not 0 < self.hot_days <= self.warm_days:
            problems.append(f"need 0 < hot_days <= warm_days; found {self.hot_days} and {self.warm_days}")
        for name in ("fallback_relevance", "fallback_coverage"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                problems.append(f"{name} must be in [0, 1]; found {getattr(self, name)}")
        if self.live_slack_days < 0:
            problems.append(f"live_slack_days must be >= 0; found {self.live_slack_days}")
        if problems:
            raise InvalidInputError("TierConfig: " + "; ".join(problems))


@dataclass(frozen=True)
class MemoryConfig:
    """Settings of a :class:`~memtracks.Memory`."""

    writer: WriterConfig = field(default_factory=WriterConfig)
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)
    fusion: FusionConfig = field(default_factory=FusionConfig)
    consolidation: ConsolidationConfig = field(default_factory=ConsolidationConfig)
    tiers: TierConfig = field(default_factory=TierConfig)
    index: str = "faiss"  # "faiss" or "numpy" (the exact reference)
    cache_bytes: int = 2 << 30  # in-memory indexes of all users, least recently used evicted past it
    snapshots: bool = True  # save vector indexes beside a database file for a warm next start
    snapshot_min: int = 500  # smaller indexes are rebuilt (a small fraction of a second), not saved
    # a track rebuilt from this many stored items is saved at once, not only at close(): a
    # process that is killed (or never closed) does not make every later one rebuild again
    snapshot_after_rebuild: int = 20_000
    limits: Limits = field(default_factory=Limits)
    storage: StorageConfig = field(default_factory=StorageConfig)
