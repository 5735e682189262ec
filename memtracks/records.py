"""Plain data records that flow through memtracks.

Records are frozen dataclasses: stages return new ones (``dataclasses.replace``) instead of
mutating what they were given, which keeps every stage a pure function. All datetimes are
timezone-aware.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime, timedelta
from typing import Any

TRACKS = ("fact", "temporal", "inference")
# Where each track's memories are stored and indexed: the temporal track's are events.
STORED_AS = {"fact": "fact", "temporal": "event", "inference": "inference"}
SOURCES = ("stated", "inferred", "imported")  # of a turn; a fact the LLM extractor wrote has "llm"
# Why a fact stopped holding (``Fact.reason``): a new value replaced it ("I moved to X", "sold
# X and bought Y"), the speaker said it ended ("I don't live there anymore", "I used to...",
# "until June"), it was corrected (never true: "sorry, I meant..."), the user retracted it,
# or it was a plan that was called off before it began; or consolidation folded it into a
# near-duplicate fact that now carries its value, time and provenance ("merged").
REASONS = ("replaced", "ended", "corrected", "retracted", "cancelled", "merged")


@dataclass(frozen=True)
class Turn:
    """One conversation turn, the unit ``Memory.write()`` takes.

    Everything after ``text`` is keyword-only: ``Turn("hi", user_id="u1")``.
    ``timestamp`` is when the turn was said; relative times in ``text`` resolve against it.
    ``lang`` is "en", "zh", or None to detect. ``source`` is "stated" for live conversation
    and "imported" for history loaded from elsewhere. ``agent_id`` keeps one agent's memories
    of a user apart from another's (None: the user's shared memory). ``metadata`` is stored
    with the turn and comes back on its events and cards.
    """

    text: str
    _: KW_ONLY
    speaker: str = "user"
    timestamp: datetime | None = None
    user_id: str | None = None
    session_id: str | None = None
    turn_id: str | None = None
    lang: str | None = None
    source: str = "stated"
    metadata: dict[str, Any] = field(default_factory=dict)
    agent_id: str | None = None


@dataclass(frozen=True)
class TimeMention:
    """A time expression found in a text, resolved to the interval ``[start, end)``.

    ``start``/``end`` are aware datetimes in the reference time's zone; ``span`` holds the
    character offsets of ``text`` in the analysed string. Three kinds carry more:

    * ``approximate``: an offset counted from the turn ("two weeks ago", 三天前) is the day it
      lands on, but the speaker meant "about then";
    * ``unbounded``: "start" for "before 2018" (the interval reaches back without limit; its
      start is a far horizon), "end" for "since March";
    * ``duration``: a length of time that is not a point in time ("for two weeks", 五年没…):
      ``start == end ==`` the reference time, granularity "duration". ``anchored`` is False.
    """

    text: str
    start: datetime
    end: datetime
    granularity: str
    span: tuple[int, int]
    lang: str
    confidence: float = 0.9
    direction: str = "present"  # past | present | future, relative to the reference time
    approximate: bool = False
    unbounded: str | None = None  # None | "start" | "end"
    duration: timedelta | None = None

    @property
    def anchored(self) -> bool:
        """True when the mention is a time (not a bare duration)."""
        return self.duration is None

    @property
    def when(self) -> tuple[datetime, datetime | None]:
        """The time an event or happening takes from this mention: its interval, or for an
        open one its known edge alone ("since 2019": from 2019-01-01, no end)."""
        if self.unbounded == "end":
            return self.start, None
        if self.unbounded == "start":
            return self.end, None
        return self.start, self.end

    @property
    def dated(self) -> bool:
        """True when the mention dates something: a time, and not the moment of saying ("now",
        现在: one second at the reference), which the turn's own timestamp already gives."""
        return self.anchored and not (self.granularity == "second" and self.direction == "present")


@dataclass(frozen=True)
class Entity:
    """A named thing in a turn. ``key`` is language-independent where the lexicon knows it."""

    text: str
    label: str  # person | place | org | product | pet | work | other
    key: str
    span: tuple[int, int]
    source: str = "ner"


@dataclass(frozen=True)
class SlotValue:
    """What slot extraction found: ``subject`` has ``value`` in ``slot`` (or no longer has it)."""

    subject: str
    slot: str
    value: str
    value_key: str
    span: tuple[int, int]
    pattern_id: str
    lang: str
    confidence: float = 0.9
    negated: bool = False
    historical: bool = False  # "I used to live in X": true before, not now
    valid_from: datetime | None = None
    qualifier: str | None = None  # canonical kind beside the value: a pet's species
    valid_to: datetime | None = None  # a stated end ("until June")
    planned: bool = False  # a dated plan: holds from ``valid_from``, which is in the future
    correction: bool = False  # said to correct an earlier value ("sorry, I meant ...", 打错了)
    rejected_key: str | None = None  # the value a correction rejects ("43, not 34": "34")
    replacement: bool = False  # the turn ends the old value and states this one ("sold X, bought Y")
    additive: bool = False  # "I also teach at X": a second value beside the current one, not instead
    ends_only: bool = False  # a negation that ends a known value but is no fact itself ("sold the Civic")
    one_per_kind: bool = False  # one value per kind ("favourite colour"): a new one replaces the old one of its kind
    framed: bool = False  # the words around it say what it is (在美的做采购: a workplace), whatever its word tags


@dataclass(frozen=True)
class Happening:
    """Something a turn says happened or will happen: a trip, a move, a deadline..."""

    kind: str
    subject: str
    args: dict[str, str]
    span: tuple[int, int]
    pattern_id: str
    start: datetime | None = None
    end: datetime | None = None
    granularity: str | None = None
    planned: bool = False  # said before it happens ("I'm flying to Tokyo next week")
    status: str = "active"  # active | cancelled | moved (re-dated by a later turn)
    note: str = ""  # what changed it: "cancelled 2024-01-12 (turn t9)"


@dataclass(frozen=True)
class FactRevision:
    """How a fact's ending was known until ``until`` (system time), before a later change
    rewrote it: a correction or retraction by hand, a retracted fact's predecessor reopened."""

    until: datetime
    valid_to: datetime | None = None
    superseded_by: int | None = None
    reason: str | None = None
    superseded_at: datetime | None = None


@dataclass(frozen=True)
class Fact:
    """A slot value on the fact track. Contradicted facts get ``superseded_by``; none is deleted."""

    subject: str
    slot: str
    value: str
    value_key: str
    user_id: str
    valid_from: datetime
    recorded_at: datetime
    last_seen: datetime
    id: int | None = None
    valid_to: datetime | None = None
    superseded_by: int | None = None
    negated: bool = False
    source: str = "stated"
    confidence: float = 0.9
    mention_count: int = 1
    source_turn_ids: tuple[str, ...] = ()
    lang: str = "en"
    origin: str = ""  # pattern id or rule id that produced it
    reason: str | None = None  # why it stopped holding: one of REASONS (None while current)
    superseded_at: datetime | None = None  # when memtracks learned that (system time)
    planned: bool = False  # stated as a dated plan and not confirmed since
    revisions: tuple[FactRevision, ...] = ()  # earlier endings, oldest first (see tracks.facts.as_known)

    @property
    def is_current(self) -> bool:
        """No statement has ended it (it may still start in the future: see ``fact_state``)."""
        return self.superseded_by is None and self.valid_to is None and self.reason is None


@dataclass(frozen=True)
class Event:
    """A turn on the temporal track: when it was said and when what it talks about happens."""

    user_id: str
    session_id: str
    turn_id: str
    speaker: str
    subject: str
    text: str
    lang: str
    mentioned_at: datetime
    id: int | None = None
    start: datetime | None = None  # resolved time of what the turn talks about
    end: datetime | None = None
    granularity: str | None = None
    times: tuple[TimeMention, ...] = ()
    happenings: tuple[Happening, ...] = ()
    entity_keys: tuple[str, ...] = ()
    source: str = "stated"
    seq: int = 0  # position of the turn within its session
    metadata: dict[str, Any] = field(default_factory=dict)  # the turn's metadata

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(h.kind for h in self.happenings)


@dataclass(frozen=True)
class Premise:
    """A reference from an inference to the fact or event it rests on."""

    track: str  # "fact" | "event"
    id: int

    @property
    def on_fact(self) -> bool:
        """The premise is a fact (else an event)."""
        return self.track == "fact"


@dataclass(frozen=True)
class Inference:
    """A conclusion a rule drew from facts and events, with confidence and premises."""

    user_id: str
    rule_id: str
    subject: str
    kind: str
    text: str
    lang: str
    created_at: datetime
    premises: tuple[Premise, ...]
    id: int | None = None
    confidence: float = 0.6
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    status: str = "active"  # active | retracted
    retracted_at: datetime | None = None
    retracted_because: str | None = None
    source_turn_ids: tuple[str, ...] = ()
    derived_fact_id: int | None = None
    args: dict[str, str] = field(default_factory=dict)

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    @property
    def key(self) -> str:
        """Identity of a conclusion: the rule and the premises it was drawn from."""
        premises = ",".join(f"{p.track}:{p.id}" for p in sorted(self.premises, key=lambda p: (p.track, p.id)))
        return f"{self.rule_id}|{self.subject}|{premises}"


@dataclass(frozen=True)
class WriteResult:
    """What one ``write()`` extracted and changed."""

    turn: Turn
    lang: str
    entities: tuple[Entity, ...] = ()
    times: tuple[TimeMention, ...] = ()
    facts: tuple[Fact, ...] = ()  # facts added or reinforced by this turn
    superseded: tuple[Fact, ...] = ()  # facts this turn ended, as they are now
    event: Event | None = None
    inferences: tuple[Inference, ...] = ()
    retracted: tuple[Inference, ...] = ()
    warnings: tuple[str, ...] = ()
    duplicate: bool = False
    queued: bool = False  # accepted by the write queue, not written yet (Memory(async_writes=True), awrite)
