"""Cancelled and postponed happenings: "I had to cancel the Tokyo trip", 婚礼推迟到五月.

A turn's ``cancel`` or ``postpone`` happening names what it changes. :func:`find_target`
picks that happening among the speaker's earlier events (pure): one of a kind its words name
(``changes`` in ``rules/happenings.yaml``), sharing a name with it where it gives one ("the
Tokyo trip"), still active — the latest such; words that name no kind must name the plan's
place or organisation ("the Lisbon conference got cancelled" calls off the Lisbon trip). :func:`changed_event` returns the event with
that happening cancelled or re-dated; the writer stores it and retracts or re-dates what
was inferred from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from memtracks.records import Event, Happening

CHANGE_KINDS = ("cancel", "postpone")


def kinds_named(what: str, words: Mapping[str, Sequence[str]]) -> list[str]:
    """The happening kinds ``what`` ("the Tokyo trip", 东京之行) names."""
    lowered = what.lower()
    return [kind for kind, nouns in words.items() if any(n in lowered for n in nouns)]


def find_target(
    change: Happening, earlier: Sequence[Event], words: Mapping[str, Sequence[str]], simplify=lambda s: s
) -> tuple[Event, int] | None:
    """The latest earlier event and the index of its happening that ``change`` refers to."""
    what = simplify(change.args.get("what", ""))
    kinds = kinds_named(what, words)
    best = None
    for event in earlier:
        for i, h in enumerate(event.happenings):
            if h.kind in CHANGE_KINDS or h.status == "cancelled" or h.subject != change.subject:
                continue
            names = [simplify(v).lower() for k, v in h.args.items() if k != "what"]
            named = any(n and n in what.lower() for n in names)
            # of a kind the words name ("the Tokyo trip"), or, naming no kind, one whose place
            # or organisation they name ("the Lisbon conference got cancelled", 厦门去不成了)
            if h.kind not in kinds and not (not kinds and named):
                continue
            score = (named, event.mentioned_at)
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
    else:
        new = replace(h, status="moved", note=note, start=change.start, end=change.end, granularity=change.granularity)
    happenings = tuple(new if i == index else x for i, x in enumerate(target.happenings))
    event = replace(target, happenings=happenings)
    if change.kind == "postpone" and (target.start == h.start):
        event = replace(event, start=change.start, end=change.end, granularity=change.granularity)
    return event
