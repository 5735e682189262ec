"""Turns said one after another by the user, for tests that write a short conversation."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memtracks import Turn

T0 = datetime(2024, 9, 2, 9, tzinfo=timezone.utc)  # a Monday


def say(memory, *texts: str, every: timedelta = timedelta(days=30), user_id: str = "u1") -> None:
    """Write ``texts`` as the user's turns, ``every`` apart from ``T0``, each in its own session."""
    for i, text in enumerate(texts):
        memory.write(
            Turn(
                text=text,
                speaker="user",
                user_id=user_id,
                session_id=f"s{i}",
                turn_id=f"t{i}",
                timestamp=T0 + every * i,
            )
        )
