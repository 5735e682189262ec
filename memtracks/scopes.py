"""Scopes: whose memories a read or write touches.

A scope is a user, or a user and an agent (``agent_id``, a namespace): each agent keeps its
own memories of a user, apart from the user's shared ones. The store keys every row by one
scope string; ids may not hold control characters, so the separator cannot collide.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeVar

from .errors import InvalidTurnError

SEPARATOR = "\x1f"
R = TypeVar("R")


def check_id(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidTurnError(f"{name} must be a non-empty string, found {value!r}")
    if SEPARATOR in value or any(ord(c) < 32 for c in value):
        raise InvalidTurnError(f"{name} must be printable, found {value!r}")
    return value


def scope_key(user_id: str, agent_id: str | None = None) -> str:
    """The storage key of ``user_id``'s memories (with ``agent_id``: that agent's own)."""
    check_id(user_id, "user_id")
    if agent_id is None:
        return user_id
    return f"{user_id}{SEPARATOR}{check_id(agent_id, 'agent_id')}"


def split_scope(key: str) -> tuple[str, str | None]:
    """``(user_id, agent_id)`` of a storage key."""
    user, _, agent = key.partition(SEPARATOR)
    return user, agent or None


def public(record: R, user_id: str) -> R:
    """``record`` as callers see it: ``user_id`` without the agent part of the key."""
    if getattr(record, "user_id", user_id) == user_id:
        return record
    return replace(record, user_id=user_id)  # type: ignore[type-var]
