"""Stage 5: every turn becomes a timed event on the temporal track.

An event keeps when it was said (``mentioned_at``) and, when the turn talks about another
time, the resolved interval of what it talks about (``start``/``end``): a happening's own
time first ("flying to Tokyo next Wednesday"), else the turn's first confident time
expression that dates something ("for two weeks" and "now" do not; "since 2019" gives
its start).
"""

from __future__ import annotations

from collections.abc import Sequence

from memtracks.records import Entity, Event, Happening, TimeMention, Turn

# Entity kinds worth linking events by across sessions; numbers and dates are not.
LINKED_LABELS = frozenset({"person", "place", "org", "product", "pet", "work", "event", "language", "other"})


def build_event(
    turn: Turn,
    *,
    event_id: int,
    subject: str,
    lang: str,
    seq: int,
    times: Sequence[TimeMention] = (),
    happenings: Sequence[Happening] = (),
    entities: Sequence[Entity] = (),
) -> Event:
    """The event for ``turn`` (pure). ``turn`` must already be validated."""
    assert turn.timestamp is not None and turn.user_id and turn.turn_id and turn.session_id
    start = end = granularity = None
    timed = [h for h in happenings if h.start is not None]
    if timed:
        start, end, granularity = timed[0].start, timed[0].end, timed[0].granularity
    else:
        confident = [t for t in times if t.confidence >= 0.7 and t.dated]
        if confident:
            (start, end), granularity = confident[0].when, confident[0].granularity
    keys = tuple(dict.fromkeys(e.key for e in entities if e.label in LINKED_LABELS))
    return Event(
        id=event_id,
        user_id=turn.user_id,
        session_id=turn.session_id,
        turn_id=turn.turn_id,
        speaker=turn.speaker,
        subject=subject,
        text=turn.text,
        lang=lang,
        mentioned_at=turn.timestamp,
        start=start,
        end=end,
        granularity=granularity,
        times=tuple(times),
        happenings=tuple(happenings),
        entity_keys=keys,
        source=turn.source,
        seq=seq,
        metadata=dict(turn.metadata),
    )
