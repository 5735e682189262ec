"""Arithmetic on stored moments that stays inside the calendar.

A memory may hold a moment at either end of what ``datetime`` represents (an ``as_of`` in
year 1, a turn dated 9999-12-31). Shifting such a moment, or reading its epoch back, must not
overflow: the result is the nearest representable moment instead.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

FIRST = datetime.min.replace(tzinfo=timezone.utc)
LAST = datetime.max.replace(tzinfo=timezone.utc)


def shifted(moment: datetime, delta: timedelta) -> datetime:
    """``moment + delta``, or the first or last representable moment past either end."""
    try:
        return moment + delta
    except OverflowError:
        edge = datetime.min if delta < timedelta(0) else datetime.max
        return edge.replace(tzinfo=moment.tzinfo)


def from_epoch(epoch: float) -> datetime:
    """The UTC moment of a stored epoch; the calendar's ends for epochs beyond them (the last
    microsecond of year 9999 rounds, as a float, to the first second of year 10000)."""
    try:
        return datetime.fromtimestamp(epoch, tz=timezone.utc)
    except (OverflowError, ValueError, OSError):
        return FIRST if epoch < 0 else LAST
