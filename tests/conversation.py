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


def fact_states(memory, slot: str, subject: str = "user", user_id: str = "u1") -> dict[str, str]:
    """{value: why it ended, or "current"} of ``subject``'s facts of ``slot``, ended ones too."""
    facts = memory.facts(user_id, slot=slot, include_superseded=True)
    return {f.value: (f.reason or "current") for f in facts if f.subject == subject}


def states_after(memory, slot: str, *texts: str, every: timedelta = timedelta(days=40)) -> dict[str, str]:
    """Say ``texts`` ``every`` apart; the user's facts of ``slot`` by value, as :func:`fact_states`."""
    say(memory, *texts, every=every)
    return fact_states(memory, slot)


def held(memory, slot: str, subject: str = "user", user_id: str = "u1") -> tuple[list[str], list[str]]:
    """The values of ``subject``'s ``slot`` that hold, and those that ended, each sorted."""
    states = fact_states(memory, slot, subject, user_id)
    return sorted(v for v, s in states.items() if s == "current"), sorted(
        v for v, s in states.items() if s != "current"
    )


def conclusions(memory, *texts: str, user_id: str = "u1") -> list[tuple[str, bool]]:
    """Say ``texts`` two days apart; every conclusion drawn, as (text, still active)."""
    say(memory, *texts, every=timedelta(days=2), user_id=user_id)
    return [(i.text, i.is_active) for i in memory.inferences(user_id, include_retracted=True)]
