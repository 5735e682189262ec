"""Tiered storage: which memories a question searches by default, by their age.

Ages are measured at the question's moment — its ``as_of``, else its ``now`` — never by the
clock, so the same question at the same moment always searches the same memories:

- **hot** (said within ``hot_days``): everything, held in the in-memory live index;
- **warm** (up to ``warm_days``): facts, important events (``rules/tiers.yaml``: a happening,
  a date, a long statement) and conclusions compressed — the newest conclusion of each
  subject and kind stands for the older ones;
- **cold** (older): facts stay in the default search; events and conclusions are archived:
  kept in the same file, exactly as written, out of the live index.

A question reaches the archive (every memory, as with tiers off) when it points further
back: it names a time before the warm tier ("last year", 去年, 三个月前), says so without a
date ("years ago", 小时候, "the first time"), or asks about something that happened without
saying when ("What did Caroline research?", "When did we meet?", 她研究了什么？) — that may
be any time. A question about how things are ("Where do I work?", 我现在住哪？) or about a
recent time ("yesterday", 上周) searches the live tiers, and the archive too when they find
too little (``TierConfig.fallback_relevance``, ``fallback_coverage``). ``as_of`` moves the moment itself: the
memories of that time are hot again. Moving between tiers changes what is searched, never
what is stored: an archived memory is exported, erased by ``forget`` and read by id like any
other, and a question that reaches it gets it back as it was.

The reader's one hook: :meth:`Tiers.reach` for the question, then :meth:`Tiers.admit` on each
track's candidates, which the live index (``Indexes.live``, from :meth:`Reach.live_since`)
already narrowed to the memories said since the warm tier began. The track retrievers admit
their candidates before they rank them (``SearchContext.admit``), so the temporal track's
learned order ranks, and hands its relevances to, admitted events only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, TypeVar

from memtracks.config import TierConfig
from memtracks.data.stopwords import default_stopwords
from memtracks.data.tiers import ImportantRule, TierRules
from memtracks.moments import shifted
from memtracks.records import Event, Fact, Inference
from memtracks.retrieval.lexical import tokenize
from memtracks.retrieval.substance import substance
from memtracks.tracks import track_of

if TYPE_CHECKING:
    from memtracks.retrieval.hits import Hit
    from memtracks.retrieval.query import Query


R = TypeVar("R", bound=Fact | Event | Inference)


TIERED_TRACKS = ("event", "inference")  # the stored tracks with a live index; facts are always searched


class Tier(StrEnum):
    HOT = "hot"
    WARM = "warm"
    COLD = "cold"


def is_important(rules: TierRules, event: Event) -> bool:
    """Whether an event stays searchable in the warm tier: a rule of ``rules.important`` holds."""
    return any(_SIGNALS[r.signal](event, r) for r in rules.important)


_SIGNALS: dict[str, Callable[[Event, ImportantRule], bool]] = {
    "happening": lambda e, _: any(h.status != "cancelled" for h in e.happenings),
    "dated": lambda e, _: e.start is not None,
    "substance": lambda e, r: substance(e.text) >= (r.min or 0.0),
}


@dataclass(frozen=True)
class Reach:
    """What one question searches: from its ``moment``, the live tiers (``archive`` False) or
    every memory. ``why`` says what decided: "tiers off", "window", "far back", "fallback", or
    "" for the live tiers."""

    moment: datetime
    archive: bool
    why: str
    hot_from: datetime
    warm_from: datetime

    def live_since(self) -> datetime | None:
        """The earliest time a memory of a tiered track must be said to be searched (None:
        any time, the whole index)."""
        return None if self.archive else self.warm_from

    def widened(self, why: str) -> Reach:
        return Reach(self.moment, True, why, self.hot_from, self.warm_from)


def said_at(record: Fact | Event | Inference) -> datetime:
    """When a memory entered the memory: the turn's time for an event, the conclusion's for
    an inference, the last mention for a fact."""
    return track_of(record).said_at(record)


@dataclass(frozen=True)
class Tiers:
    """The tier policy: the limits (``TierConfig``) and the rules (``rules/tiers.yaml``)."""

    config: TierConfig
    rules: TierRules

    def tier(self, record: Fact | Event | Inference, at: datetime) -> Tier:
        """The tier a memory is in at ``at``, by its age."""
        age = at - said_at(record)
        if age <= timedelta(days=self.config.hot_days):
            return Tier.HOT
        if age <= timedelta(days=self.config.warm_days):
            return Tier.WARM
        return Tier.COLD

    def searched(self, record: Fact | Event | Inference, at: datetime) -> bool:
        """Whether the default search at ``at`` holds the memory (a conclusion of the warm tier
        also needs to be the newest of its kind: see :meth:`admit`)."""
        if isinstance(record, Fact):
            return True
        tier = self.tier(record, at)
        if tier is Tier.HOT:
            return True
        if tier is Tier.COLD:
            return False
        return isinstance(record, Inference) or is_important(self.rules, record)

    def reach_at(self, moment: datetime) -> Reach:
        """The live tiers at ``moment``."""
        days = self.config
        return Reach(moment, False, "", _days_before(moment, days.hot_days), _days_before(moment, days.warm_days))

    def reach(self, query: Query, simplified: str) -> Reach:
        """What ``query`` searches. ``simplified``: its text in Simplified Chinese characters."""
        reach = self.reach_at(query.as_of or query.now)
        if not self.config.enabled:
            return reach.widened("tiers off")
        window = query.window
        if window is not None:  # a time named: it decides ("yesterday" is live, "last year" is not)
            return reach.widened("window") if window[0] < reach.warm_from else reach
        if self.rules.matches("far_back", query.text, simplified):
            return reach.widened("far back")
        if query.past or self.rules.matches("undated_past", query.text, simplified):
            return reach.widened("undated past")
        return reach

    def admit(
        self, records: Sequence[R], reach: Reach, newest: Callable[[Sequence[str]], dict[tuple[str, str], int]]
    ) -> list[R]:
        """The candidate memories ``reach`` searches, in their order. ``newest(kinds)``: the id
        of the newest active conclusion of each (subject, kind) said by the moment, for the
        warm tier's compression."""
        if reach.archive:
            return list(records)
        kept = [r for r in records if self.searched(r, reach.moment)]
        warm = [r for r in kept if isinstance(r, Inference) and self.tier(r, reach.moment) is Tier.WARM]
        if not warm:
            return kept
        latest = newest(sorted({i.kind for i in warm}))
        stood_for = {
            i.id for i in warm if latest.get((i.subject, i.kind), i.id) != i.id
        }  # an older conclusion the newest of its kind stands for
        return [r for r in kept if not (isinstance(r, Inference) and r.id in stood_for)]

    def fallback(
        self,
        hits: Sequence[Hit],
        reach: Reach,
        query: Query,
        people: Iterable[str] = (),
        slot_words: Callable[[str], set[str]] = lambda slot: set(),
    ) -> bool:
        """Whether the live tiers found too little: no candidate reaches the fallback relevance,
        or none holds the fallback share of the question's words (``people``: names to leave
        out, besides the question's subjects). A fact found by its slot holds the words that
        asked for the slot (``slot_words(slot)``: "favorite" asks what someone likes) but not
        the rest: "What type of pizza is James' favorite?" is not answered by his liking
        prosciutto, and the turn that named the pizza may be archived."""
        if reach.archive:
            return False
        cfg = self.config
        best = max((h.relevance for h in hits), default=0.0)
        if cfg.fallback_relevance > 0 and best < cfg.fallback_relevance:
            return True
        wanted = asked_words(query.text, [*query.subjects, *people])
        if cfg.fallback_coverage <= 0 or not wanted:
            return False
        covered = max((len(wanted & _words(h, slot_words)) for h in hits), default=0)
        return covered < cfg.fallback_coverage * len(wanted)


def asked_words(question: str, names: Iterable[str]) -> set[str]:
    """The words of a question that say what it asks about: its BM25 terms without the names
    of people in it (every memory of theirs has those); Chinese by its character pairs, those
    without a function character (我对 in 我对什么过敏 is "I" and "to": 过敏 is asked) unless
    every pair has one, and single characters (which match almost anything) only when the
    question has no pair at all."""
    text = question
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        text = re.sub(re.escape(name), " ", text, flags=re.IGNORECASE)
    terms = [t for t in tokenize(text) if not t.startswith("ent:")]
    han = [t for t in terms if _HAN.match(t)]
    pairs = {t for t in han if len(t) > 1}
    function = default_stopwords().zh_chars
    content = {p for p in pairs if not function.intersection(p)} or pairs
    singles = set() if pairs else {t for t in han if len(t) == 1}
    return {t for t in terms if not _HAN.match(t)} | content | singles


def words_asking(
    question: str, simplified: str, ask_patterns: Mapping[str, Sequence[tuple[str, re.Pattern[str]]]]
) -> Callable[[str], set[str]]:
    """For a slot, the question's words its question patterns match (the catalogue's ``ask``:
    "favorite" in "What is Jon's favorite style of dance?" asks for ``likes``), as
    :func:`asked_words` counts them; Chinese patterns see the Simplified question."""

    def words(slot: str) -> set[str]:
        spans = [
            _whole(text, m) if lang == "en" else m.group(0)
            for lang, patterns in ask_patterns.items()
            for text in (simplified if lang == "zh" else question,)
            for name, regex in patterns
            if name == slot
            for m in regex.finditer(text)
        ]
        return asked_words(" ".join(spans), ()) if spans else set()

    return words


def _whole(text: str, match: re.Match[str]) -> str:
    """The English words a match touches: '\\ballerg' matched in "allergic" asks "allergic"."""
    start, end = match.span()
    while start > 0 and text[start - 1].isalnum():
        start -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    return text[start:end]


_HAN = re.compile(r"[\u3400-\u9fff]")


def _words(hit: Hit, slot_words: Callable[[str], set[str]]) -> set[str]:
    """The words a candidate holds, for coverage: its text's, and for a fact found by its slot
    the question's words that asked for that slot."""
    words = set(tokenize(_text(hit.record)))
    if isinstance(hit.record, Fact) and (hit.how == "slot" or "slot" in hit.explain):
        words |= slot_words(hit.record.slot)
    return words


def _text(record: Fact | Event | Inference) -> str:
    return track_of(record).words(record)


def newest_conclusions(inferences: Iterable[Inference], moment: datetime) -> dict[tuple[str, str], int]:
    """The id of the newest active conclusion of each (subject, kind) drawn by ``moment``."""
    out: dict[tuple[str, str], tuple[datetime, int]] = {}
    for i in inferences:
        if i.id is None or not i.is_active or i.created_at > moment:
            continue
        key = (i.subject, i.kind)
        if key not in out or (i.created_at, i.id) > out[key]:
            out[key] = (i.created_at, i.id)
    return {k: v[1] for k, v in out.items()}


def _days_before(moment: datetime, days: float) -> datetime:
    """``days`` before ``moment``, or the first representable moment (an ``as_of`` in year 1)."""
    return shifted(moment, -timedelta(days=days))
