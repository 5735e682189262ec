"""Stage 1c: happenings — a trip, a move, a new job, a deadline — with their time.

Patterns come from ``rules/happenings.yaml``. A happening takes the time expression of its
own sentence (the nearest one), so "I'm flying to Beijing next Wednesday" is a trip on the
Wednesday of next week, resolved against the turn's timestamp.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timezone

from memtracks.data.patterns import Compiled, base_groups, present_pieces
from memtracks.pipeline.changes import CHANGE_KINDS
from memtracks.pipeline.statements import Statement, statement_for
from memtracks.pipeline.subjects.resolver import SubjectResolver
from memtracks.pipeline.text import (
    Sentence,
    at_clause_start,
    clean_value,
    cut_before_times,
    entities_in,
    find_all,
    sentence_at,
    sentences,
    subject_is_filler,
)
from memtracks.records import Entity, Happening, TimeMention

_NOT_ARGS = {"subj", "pname", "here"}
# the word before a place it was left ("moved here from Dallas", 从南宁搬过来)
_LEFT_FROM = re.compile(r"(?:\bfrom|[从從])\s*$", re.IGNORECASE)


def extract_happenings(
    text: str,
    lang: str,
    resolver: SubjectResolver,
    patterns: Sequence[Compiled],
    times: Sequence[TimeMention] = (),
    statements: Sequence[Statement] = (),
    parsed: Sequence = (),
    search: str | None = None,
    said_at: datetime | None = None,
) -> tuple[Happening, ...]:
    """Happenings in ``text``; at most one per kind and sentence (the first pattern wins).
    ``said_at``: when the text was said (a happening that starts after it is a plan).

    A clause that asks, imagines, wishes or denies ("if we moved to Denver", "I'm not going
    to Tokyo") gives none; one said before it happens gives a planned happening.
    """
    sents = sentences(text)
    found: list[Happening] = []
    taken: set[tuple[str, int]] = set()
    present = present_pieces(patterns, (search or text).casefold())
    for pattern in patterns:
        spec = pattern.spec
        if spec.lang != lang or not pattern.may_match_given(present):
            continue

        def build(m: re.Match[str]) -> Happening | None:
            sent = sentence_at(sents, m.start())
            if (spec.kind, sent.start) in taken:  # noqa: B023 - used within the loop
                return None
            st = statement_for(statements, m.span(), parsed)
            # a call-off is said in negative words ("not happening", 去不成了): its negation is
            # what it says, not a denial of it
            if not st.states or (st.polarity != "affirmed" and not _calls_off_in_negative_words(m, spec.kind)):  # noqa: B023
                return None
            h = _happening(m, pattern, sent, resolver, times, text, parsed if lang == "en" else ())  # noqa: B023
            now = said_at or _said(times)  # when it was told: the turn's time, else its past mentions
            # a time that has passed is no plan unless the clause says it was one ("by Sunday
            # night we were eating pizza in our new place": done; "I was going to move on Sunday")
            over = h is not None and h.start is not None and h.start <= now and (h.end is None or h.end <= now)
            if h is not None and (
                (st.planned and not (over and "planned" not in st.cues))
                or (h.start is not None and h.start > now and not over)
            ):
                h = replace(h, planned=True)
            return h

        for happening in find_all(pattern.regex, search or text, build):
            found.append(happening)
            taken.add((spec.kind, sentence_at(sents, happening.span[0]).start))
    return tuple(sorted(found, key=lambda h: h.span))


def _happening(
    m: re.Match[str],
    pattern: Compiled,
    sent: Sentence,
    resolver: SubjectResolver,
    times: Sequence[TimeMention],
    text: str = "",
    parsed: Sequence = (),
) -> Happening | None:
    spec = pattern.spec
    subject = resolver.resolve(m, parsed=parsed)
    if subject == "" and parsed and not spec.speaker:  # "He got a job as a paramedic": the clause's own subject
        subject = resolver.clause_subject(m, parsed)
    if subject is None and pattern.optional_subject and subject_is_filler(m, times):
        subject = ""
    if subject == "" and "subj" in m.re.groupindex and not at_clause_start(m.string, m.start()):
        subject = resolver.opener_before(m.start(), times)  # "我周一开始在微软上班": 我, then only times
    if subject is None:
        return None
    if not subject:
        subject = resolver.without_subject(m.start())
        if subject is None:
            return None
    args = _args(m, times, resolver.entities, spec.require_entity, text or m.string)
    if args is None or _a_verb_leads(m, args, parsed):
        return None
    if subject in args.values():
        subject = resolver.speaker  # 老三上周出生了: the one it names is what happened, not who to
    # the time nearest what happened to (its place, its firm), else nearest the match's start
    at = min((m.start(g) for g, v in m.groupdict().items() if v and re.sub(r"\d+$", "", g) in args), default=m.start())
    # what the match itself says holds now ("we're Tucson people now") takes no other time of
    # its sentence ("Jordan's residency starts monday so yeah, ...")
    when = None if _NOW.search(m.group()) else _time_for(m.span(), sent, times, m.string, at)
    if "time" in spec.needs and when is None:
        return None
    if any(n != "time" and n not in args for n in spec.needs):
        return None
    return Happening(
        kind=spec.kind,
        subject=subject,
        args=args,
        span=m.span(),
        pattern_id=spec.id,
        start=when.when[0] if when else None,
        end=when.when[1] if when else None,
        granularity=when.granularity if when else None,
    )


_NOW = re.compile(r"\bnow\b|现在|而家|如今", re.IGNORECASE)
_DENIED = re.compile(r"(?:[没不未]|n't|\bnot|\bnever)\s*$", re.IGNORECASE)
_NEGATIVE = re.compile(r"\bnot\b|n't\b|[不没]", re.IGNORECASE)


def _calls_off_in_negative_words(m: re.Match[str], kind: str) -> bool:
    """A call-off whose own words are negative ("Vancouver's not happening", 厦门去不成了), not a
    denied one (行程没取消: the negation stands before the call-off word, in what it names)."""
    if kind not in CHANGE_KINDS:
        return False
    what = m.groupdict().get("what") or ""
    rest = m.group(0).replace(what, " ", 1) if what else m.group(0)
    return not _DENIED.search(what) and _NEGATIVE.search(rest) is not None


def _a_verb_leads(m: re.Match[str], args: dict[str, str], parsed: Sequence) -> bool:
    """Does an argument start with a verb in its base form? Then the match read a clause as a
    thing: "I'm going to start working at Zalando" is "going to" the future, not a trip to
    "start working at Zalando" (nor "going to buy a bike" one to a bike)."""
    if not parsed:
        return False
    starts = {tok.idx: tok for tok in parsed}
    for group, value in m.groupdict().items():
        name = re.sub(r"\d+$", "", group)
        if not value or name in _NOT_ARGS or name not in args:
            continue
        first = starts.get(m.start(group))
        if first is not None and first.tag == "VB":
            return True
    return False


def _args(
    m: re.Match[str],
    times: Sequence[TimeMention],
    entities: tuple[Entity, ...],
    require: dict[str, str],
    text: str,
) -> dict[str, str] | None:
    args: dict[str, str] = {}
    spans: dict[str, tuple[int, int]] = {}
    for k, v in m.groupdict().items():
        if v:
            spans.setdefault(re.sub(r"\d+$", "", k), m.span(k))
    for name, _ in base_groups(m).items():
        if name in _NOT_ARGS:
            continue
        start = spans[name][0]
        raw = text[start : spans[name][1]]  # as written (the match may be on the Simplified copy)
        value = clean_value(cut_before_times(raw, start, times))
        if not value:
            continue
        label = require.get(name)
        if label:
            inside = entities_in(entities, start, start + len(raw), label)
            if not inside:
                return None
            value = inside[0].text
        args[name] = value
    if m.groupdict().get("here") and "place" not in args:
        # "Good trails in Denver? Just moved here from Dallas", 昆明有什么好吃的？我刚从南宁搬过来:
        # here is the place the turn names, not the one left
        named = [
            e for e in entities if e.label == "place" and not _LEFT_FROM.search(text[max(0, e.span[0] - 6) : e.span[0]])
        ]
        if len(named) != 1:
            return None
        args["place"] = named[0].text
    if any(name not in args for name in require):
        return None
    return args


def _said(times: Sequence[TimeMention]) -> datetime:
    """When a text with no time of its own was said: a bound from its mentions that are present
    or past (none: the end of time, so nothing it names has passed)."""
    never = datetime.max.replace(tzinfo=timezone.utc)
    return min((t.end for t in times if t.direction != "future"), default=never)


# a time said as the start ("I start on January 6th", 明年二月一号报到, "we leave on May 3")
_START_BEFORE = re.compile(
    r"\b(?:start|starts|starting|begin|begins|beginning|(?:first day|start date|start day|move-in date)(?: is| will be|'s)?"
    r"|leave|leaving|move in|moving in)(?: work| there)?(?: on| in| at| from)?\s*$",
    re.IGNORECASE,
)
_START_AFTER = re.compile(r"^(?:就|正式|开始|要)?(?:入职|报到|上班|出发|开工|搬过去|搬家|交车|提车)")


def _time_for(
    span: tuple[int, int], sent: Sentence, times: Sequence[TimeMention], text: str, at: int | None = None
) -> TimeMention | None:
    """The time expression of the happening's sentence said as its start, else the one closest
    to ``at`` (what happened to: its place or firm; by default the match's start) — "Signed with
    Dropbox yesterday, I start on January 6th": January 6th; 上周辞职了，下个月去台积电: 下个月 —
    one inside the match before one outside it. A time the
    pattern itself reaches past the sentence's end counts too (米哈游的offer接了！11月4号入职)."""
    inside = [t for t in times if (sent.start <= t.span[0] < sent.end or span[0] <= t.span[0] < span[1]) and t.dated]
    if not inside:
        # none in its sentence: a start said in the next one ("Signed with Experian! I start
        # there on the 30th.")
        after = _NEXT_SENTENCE.search(text, sent.end)
        ahead = [t for t in times if sent.end <= t.span[0] < (after.end() if after else len(text)) and t.dated]
        starts = [t for t in ahead if _said_as_start(t, sent.end, text)]
        return min(starts, key=lambda t: (t.span[0], -t.confidence)) if starts else None
    starts = [t for t in inside if _said_as_start(t, sent.start, text)]
    # a time the match itself says comes first (上周辞职了，下个月去台积电: 下个月)
    said = starts or inside
    said = [t for t in said if span[0] <= t.span[0] < span[1]] or said
    at = span[0] if at is None else at
    return min(said, key=lambda t: (abs(t.span[0] - at), -t.confidence))


_NEXT_SENTENCE = re.compile(r"[^.!?。！？]*[.!?。！？]+")


def _said_as_start(t: TimeMention, floor: int, text: str) -> bool:
    """Is time ``t`` said as when something starts ("I start on the 30th", 11月4号入职)?"""
    return bool(
        _START_BEFORE.search(text, max(floor, t.span[0] - 30), t.span[0])
        or _START_AFTER.match(text[t.span[1] : t.span[1] + 6])
    )
