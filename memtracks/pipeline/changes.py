"""Cancelled and postponed happenings: "I had to cancel the Tokyo trip", 婚礼推迟到五月.

A turn's ``cancel`` or ``postpone`` happening names what it changes. :func:`find_target`
picks that happening among the speaker's earlier events (pure), still active, the latest of
those its words point to: one of a kind they name (``changes`` in ``rules/happenings.yaml``:
"the Tokyo trip"), one whose place or organisation they name whatever kind they say ("the
Lisbon conference got cancelled", 高雄那場會議取消了 call off the trip there), or one planned for
what they call off ("flying to Berlin for a conference" — "the conference got cancelled").
:func:`changed_event` returns the event with that happening cancelled or re-dated; the writer
stores it and retracts or re-dates what was inferred from it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from memtracks.records import Event, Happening

CHANGE_KINDS = ("cancel", "postpone")


def kinds_named(what: str, words: Mapping[str, Sequence[str]]) -> list[str]:
    """The happening kinds ``what`` ("the Tokyo trip", 东京之行) names."""
    lowered = what.lower()
    return [kind for kind, nouns in words.items() if any(n in lowered for n in nouns)]


def nouns_named(what: str, words: Mapping[str, Sequence[str]]) -> list[str]:
    """The nouns of ``words`` that ``what`` says ("the conference" → conference)."""
    lowered = what.lower()
    return [n for nouns in words.values() for n in nouns if n in lowered]


def _says(text: str, noun: str) -> bool:
    """``noun`` in ``text``, a Latin noun as a whole word ("date" is not in "update")."""
    if noun.isascii():
        return re.search(rf"\b{re.escape(noun)}\b", text) is not None
    return noun in text


def find_target(
    change: Happening, earlier: Sequence[Event], words: Mapping[str, Sequence[str]], simplify=lambda s: s
) -> tuple[Event, int] | None:
    """The latest earlier event and the index of its happening that ``change`` refers to."""
    what = simplify(change.args.get("what", ""))
    kinds = kinds_named(what, words)
    nouns = nouns_named(what, words)
    best = None
    for event in earlier:
        said = simplify(event.text).lower()
        for i, h in enumerate(event.happenings):
            if h.kind in CHANGE_KINDS or h.status == "cancelled" or h.subject != change.subject:
                continue
            names = [simplify(v).lower() for k, v in h.args.items() if k != "what"]
            named = any(n and n in what.lower() for n in names)
            # of a kind the words name ("the Tokyo trip"); one whose place or organisation they
            # name, whatever kind they say ("the Lisbon conference got cancelled", 高雄那場會議取消了,
            # 厦门去不成了); or one planned for what they call off ("flying to Berlin for a
            # conference" — "the conference got cancelled")
            purpose = any(_says(said, n) for n in nouns)
            if h.kind not in kinds and not named and not purpose:
                continue
            score = (named, h.kind in kinds, event.mentioned_at)
            if best is None or score > best[0]:
                best = (score, event, i)
    if best is None:
        return None
    if not best[0][0] and any(w[:1].isupper() for w in change.args.get("what", "").split()[:-1]):
        return None  # it names something ("the Paris trip") that no earlier happening has
    return best[1], best[2]


def changed_event(target: Event, index: int, change: Happening, note: str) -> Event:
    """``target`` with its happening ``index`` cancelled or moved to ``change``'s time."""
    h = target.happenings[index]
    if change.kind == "cancel":
        new = replace(h, status="cancelled", note=note)
        happenings = tuple(new if i == index else x for i, x in enumerate(target.happenings))
    else:
        # the plan moves whole: every happening of the turn set for the same time with it
        # (下周六去泉州参加婚礼: the trip and the wedding; "婚礼改到21号" moves both)
        moved = {
            i
            for i, x in enumerate(target.happenings)
            if i == index
            or (x.start is not None and x.start == h.start and x.status == "active" and x.subject == h.subject)
        }
        happenings = tuple(
            replace(x, status="moved", note=note, start=change.start, end=change.end, granularity=change.granularity)
            if i in moved
            else x
            for i, x in enumerate(target.happenings)
        )
    event = replace(target, happenings=happenings)
    if change.kind == "postpone" and (target.start == h.start):
        event = replace(event, start=change.start, end=change.end, granularity=change.granularity)
    return event
