"""memtracks as a LangGraph store: ``put`` writes a turn (facts supersede as in any write),
``search`` returns memory cards, ``get`` reads a turn back, ``delete`` forgets it.

    from memtracks.integrations.langgraph import MemtracksStore
    store = MemtracksStore(mem)
    store.put(("alice",), "m1", {"text": "I moved to Lisbon.", "timestamp": "2024-06-10T10:00:00+00:00"})
    store.search(("alice",), query="Where do I live?")      # [SearchItem(key="fact:3", value={card}...)]
    graph = builder.compile(store=store)                    # the agent reaches it as `store`

A namespace is ``(user_id,)`` or ``(user_id, agent_id...)`` (the rest joined by "/"); pass
``scope=`` to map namespaces your own way. The async methods run the same work in a thread.
Needs the ``langgraph`` extra (``pip install 'memtracks[langgraph]'``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from ..errors import InvalidTurnError, MissingDependencyError
from ..memory import Memory
from ..records import Turn

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
except ImportError as exc:  # pragma: no cover - the extra is installed by make test
    raise MissingDependencyError("the LangGraph store needs: pip install 'memtracks[langgraph]'") from exc

Scope = Callable[[tuple[str, ...]], tuple[str, str | None]]
TURN_FIELDS = ("text", "speaker", "timestamp", "session_id", "lang", "source")


def default_scope(namespace: tuple[str, ...]) -> tuple[str, str | None]:
    """``(user,)`` -> the user's shared memory; ``(user, a, b)`` -> agent "a/b" of that user."""
    if not namespace or not namespace[0]:
        raise InvalidTurnError("a memtracks namespace starts with the user id: (user_id,) or (user_id, agent_id)")
    return namespace[0], "/".join(namespace[1:]) or None


class MemtracksStore(BaseStore):
    """A LangGraph ``BaseStore`` over a :class:`~memtracks.Memory`.

    Values are turns: ``{"text": ..., "speaker": "user", "timestamp": ISO, "session_id": ...}``
    (``"content"`` is taken for ``"text"``); any other keys are kept as the turn's metadata and
    can be searched with ``filter``. Putting a key again with other content replaces the turn
    (the old one is forgotten); ``put(..., None)`` deletes.
    """

    def __init__(self, memory: Memory, *, scope: Scope = default_scope):
        self.memory = memory
        self.scope = scope

    # ------------------------------------------------------------------ operations

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise InvalidTurnError(f"unsupported store operation {type(op).__name__}")

    def _get(self, op: GetOp) -> Item | None:
        user, agent = self.scope(op.namespace)
        turn = self.memory.get(user, op.key, kind="turn", agent_id=agent)
        return _item(op.namespace, turn) if turn is not None else None  # type: ignore[arg-type]

    def _put(self, op: PutOp) -> None:
        user, agent = self.scope(op.namespace)
        stored: Any = self.memory.get(user, op.key, kind="turn", agent_id=agent)
        if op.value is None:
            if stored is not None:
                self.memory.forget(user, agent_id=agent, turn_ids=[op.key])
            return None
        value = dict(op.value)
        text = value.pop("text", None) or value.pop("content", None)
        if not isinstance(text, str):
            raise InvalidTurnError('a memtracks store value needs "text" (or "content"): the words to remember')
        fields = {k: value.pop(k) for k in TURN_FIELDS[1:] if k in value}
        turn = Turn(text, user_id=user, agent_id=agent, turn_id=op.key, metadata=value, **fields)
        if stored is not None:
            if (stored.text, stored.metadata) == (turn.text, turn.metadata):
                return None
            self.memory.forget(user, agent_id=agent, turn_ids=[op.key])
        self.memory.write(turn)
        return None

    def _search(self, op: SearchOp) -> list[SearchItem]:
        user, agent = self.scope(op.namespace_prefix)
        if op.query:
            recall = self.memory.retrieve(
                op.query, user_id=user, agent_id=agent, top_n=op.limit + op.offset, metadata=op.filter or None
            )
            now = recall.now
            return [
                SearchItem(op.namespace_prefix, card.ref, card.to_dict(), now, now, card.score)
                for card in recall.cards[op.offset :]
            ]
        events = self.memory.events(user, agent_id=agent)
        wanted = [e for e in events if all(e.metadata.get(k) == v for k, v in (op.filter or {}).items())]
        out = []
        for event in reversed(wanted[: len(wanted) - op.offset] if op.offset else wanted):
            turn = self.memory.get(user, event.turn_id, kind="turn", agent_id=agent)
            if turn is not None:
                item = _item(op.namespace_prefix, turn)  # type: ignore[arg-type]
                out.append(SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at))
            if len(out) == op.limit:
                break
        return out

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        spaces = sorted({(u, *(a.split("/") if a else ())) for u, a in self.memory.scopes()})
        for condition in op.match_conditions or ():
            spaces = [s for s in spaces if _matches(s, condition.match_type, tuple(condition.path))]
        if op.max_depth is not None:
            spaces = sorted({s[: op.max_depth] for s in spaces})
        return spaces[op.offset : op.offset + op.limit]


def _matches(space: tuple[str, ...], kind: str, path: tuple[str, ...]) -> bool:
    if len(path) > len(space):
        return False
    part = space[: len(path)] if kind == "prefix" else space[len(space) - len(path) :]
    return all(p == "*" or p == s for p, s in zip(path, part, strict=True))


def _item(namespace: tuple[str, ...], turn: Turn) -> Item:
    when: datetime = turn.timestamp  # type: ignore[assignment]
    value: dict[str, Any] = {
        "text": turn.text,
        "speaker": turn.speaker,
        "timestamp": when.isoformat(),
        "session_id": turn.session_id,
        **turn.metadata,
    }
    return Item(value=value, key=turn.turn_id or "", namespace=namespace, created_at=when, updated_at=when)
