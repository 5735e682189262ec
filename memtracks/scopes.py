"""Scopes and identifiers: whose memories a read or write touches.

A scope is a user, or a user and an agent (``agent_id``, a namespace): each agent keeps its
own memories of a user, apart from the user's shared ones. The store keys every row by one
scope string, ``user_id`` and ``agent_id`` joined by U+001F.

Identifiers (user, agent, session and turn ids, speakers) are compared exactly, and one rule,
:func:`check_id`, is applied to them wherever they come in — on writes and on reads alike. Rather
than quietly normalising an id (which would let " alice" or a decomposed "é" read another user's
memories), anything some layer might normalise away is refused with a clear error: whitespace
at either end, control and invisible format characters, line breaks, text not in Unicode NFC,
lone surrogates, the scope separator and its visible stand-in U+241F, and more than
:data:`MAX_ID_CHARS` characters.
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from typing import Any, TypeVar

from memtracks.errors import InvalidTurnError, LimitError

SEPARATOR = "\x1f"
SEPARATOR_SYMBOL = "\u241f"  # "␟", how the separator is often displayed: refused too, so no id can look like a scope
MAX_ID_CHARS = 256
_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})  # controls, format, surrogates, line breaks
R = TypeVar("R")


def check_id(value: Any, name: str) -> str:
    """``value`` if it is a valid identifier; otherwise an :class:`InvalidTurnError` saying why."""
    if not isinstance(value, str) or not value:
        raise InvalidTurnError(f"{name} must be a non-empty string, found {value!r}")
    if len(value) > MAX_ID_CHARS:
        raise LimitError(f"{name} has {len(value):,} characters; the limit is {MAX_ID_CHARS}")
    bad = next((c for c in value if unicodedata.category(c) in _FORBIDDEN_CATEGORIES or c == SEPARATOR_SYMBOL), None)
    if bad is not None:
        raise InvalidTurnError(
            f"{name} {value!r} contains U+{ord(bad):04X} ({_describe(bad)}); "
            "ids may not hold control, format or line-break characters"
        )
    if value.strip() != value:
        raise InvalidTurnError(
            f"{name} {value!r} starts or ends with whitespace; ids are compared exactly, so strip it before passing it"
        )
    if not value.strip():
        raise InvalidTurnError(f"{name} must not be blank, found {value!r}")
    if not unicodedata.is_normalized("NFC", value):
        raise InvalidTurnError(
            f"{name} {value!r} is not in Unicode NFC form; ids are compared exactly, so normalise it first "
            "(unicodedata.normalize('NFC', ...))"
        )
    return value


def _describe(char: str) -> str:
    if unicodedata.category(char) == "Cs":
        return "a lone surrogate"
    return unicodedata.name(char, "a control character")


def check_optional_id(value: Any, name: str) -> str | None:
    return None if value is None else check_id(value, name)


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
