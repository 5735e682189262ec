"""memtracks as a LangGraph store that keeps the ``BaseStore`` contract: what you ``put`` is
what ``get`` and ``search`` give back, under the same namespace and key; a search with a
``query`` ranks the items by memtracks' retrieval (facts current first, dates resolved).

    from memtracks.integrations.langgraph import MemtracksStore
    store = MemtracksStore(mem)
    store.put(("alice",), "m1", {"text": "I moved to Lisbon.", "timestamp": "2024-06-10T10:00:00+00:00"})
    store.search(("alice",), query="Where do I live?")   # [SearchItem(key="m1", value={..., "memtracks": {...}})]
    store.get(("alice",), "m1"); store.delete(("alice",), "m1")
    graph = builder.compile(store=store)                  # the agent reaches it as `store`

- **Namespaces.** ``(user_id,)`` is the user's shared memory, ``(user_id, a, b)`` agent
  "a/b"'s own memories of that user (pass ``scope=`` to map namespaces your own way). A
  search prefix covers every namespace under it: ``("alice",)`` searches ``("alice",)`` and
  ``("alice", "bot", "prefs")``; ``()`` searches the whole store.
- **Values.** Every value is kept as it was put and read back as it was put. A value with
  text (``"text"``, else ``"content"``, or the fields named by ``index=[...]``) is also
  written as a conversation turn (its key is the turn id; ``speaker``, ``timestamp``,
  ``session_id``, ``lang`` and ``source`` are the turn's, every other field its metadata), so
  facts supersede and dates resolve as in any write. A value without text, or put with
  ``index=False``, is stored and read back but never analysed or searched by a query.
- **Search.** With a ``query``, items are ranked by the memory cards that cite them; each hit's
  value is the item's, plus one added field, ``"memtracks"``: ``{"cards": [...]}``, the cards
  that matched it (their text, track, score, provenance). Without a query, items come in the
  order they were first put. ``filter`` matches value fields as LangGraph's stores do
  (equality, nested objects, ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``).
- **Put again, delete.** Putting a key again replaces its value (and its turn, if the text or
  metadata changed; the old one is forgotten); ``delete`` removes the item and forgets its turn.

The async methods run the same work in a thread. Needs the ``langgraph`` extra
(``pip install 'memtracks[langgraph]'``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memtracks.errors import InvalidTurnError, MissingDependencyError
from memtracks.memory import Memory
from memtracks.records import Turn
from memtracks.scopes import scope_key

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
    from langgraph.store.base.embed import get_text_at_path
except ImportError as exc:  # pragma: no cover - the extra is installed by make test
    raise MissingDependencyError("the LangGraph store needs: pip install 'memtracks[langgraph]'") from exc

Scope = Callable[[tuple[str, ...]], tuple[str, str | None]]
TURN_FIELDS = ("speaker", "timestamp", "session_id", "lang", "source")
ADDED = "memtracks"  # the one field a query search adds to a value
CARDS_PER_ITEM = 3  # cards a query search reads for each item it is asked for


def default_scope(namespace: tuple[str, ...]) -> tuple[str, str | None]:
    """``(user,)`` -> the user's shared memory; ``(user, a, b)`` -> agent "a/b" of that user."""
    if not namespace or not namespace[0]:
        raise InvalidTurnError("a memtracks namespace starts with the user id: (user_id,) or (user_id, agent_id)")
    return namespace[0], "/".join(namespace[1:]) or None


@dataclass(frozen=True)
class _Stored:
    """An item as stored: where it lives (scope and namespace), its value and times."""

    user: str
    agent: str | None
    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    indexed: bool
    created_at: datetime
    updated_at: datetime

    def item(self) -> Item:
        return Item(
            value=dict(self.value),
            key=self.key,
            namespace=self.namespace,
            created_at=self.created_at,
            updated_at=self.updated_at,
        )

    def hit(self, score: float | None = None, added: Mapping[str, Any] | None = None) -> SearchItem:
        value = {**self.value, ADDED: dict(added)} if added is not None else dict(self.value)
        return SearchItem(self.namespace, self.key, value, self.created_at, self.updated_at, score)


class MemtracksStore(BaseStore):
    """A LangGraph ``BaseStore`` over a :class:`~memtracks.Memory` (see the module docstring)."""

    def __init__(self, memory: Memory, *, scope: Scope = default_scope):
        self.memory = memory
        self.scope = scope

    # ------------------------------------------------------------------ operations

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Reads first, then writes, as LangGraph's stores run a batch: a get or search sees
        the store as it was before the batch's puts (of which the last for a key counts)."""
        ops = list(ops)
        results = [None if isinstance(op, PutOp) else self._run(op) for op in ops]
        puts = {(tuple(op.namespace), op.key): op for op in ops if isinstance(op, PutOp)}
        for op in puts.values():
            self._put(op)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            found = self._get(op.namespace, op.key)
            return found.item() if found is not None else None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise InvalidTurnError(f"unsupported store operation {type(op).__name__}")

    # ------------------------------------------------------------------ reading

    def _scoped(self, namespace: tuple[str, ...]) -> tuple[str, str | None, str]:
        user, agent = self.scope(tuple(namespace))
        return user, agent, scope_key(user, agent)

    def _get(self, namespace: tuple[str, ...], key: str) -> _Stored | None:
        user, agent, scope = self._scoped(namespace)
        row = self.memory.store.item(scope, _ns(namespace), key)
        if row is not None:
            return _stored(row, user, agent)
        turn = self.memory.get(user, key, kind="turn", agent_id=agent)  # a turn written by memtracks itself
        return _from_turn(tuple(namespace), turn, user, agent) if isinstance(turn, Turn) else None

    def _everything(self, prefix: tuple[str, ...]) -> list[_Stored]:
        """Every item under ``prefix``, namespace by namespace (in the order each was first
        used), each in the order its items were first put; then the turns written by memtracks
        itself (no item of their own) in the order they were said."""
        prefix = tuple(prefix)
        out: list[_Stored] = []
        covered: set[tuple[str, str]] = set()
        for row in self.memory.store.items():
            namespace = tuple(json.loads(row["namespace"]))
            if namespace[: len(prefix)] != prefix:
                continue
            user, agent = self.scope(namespace)
            out.append(_stored(row, user, agent))
            covered.add((scope_key(user, agent), row["key"]))
        for user, agent in self.memory.scopes():
            namespace = (user, *(agent.split("/") if agent else ()))
            if namespace[: len(prefix)] != prefix or self.scope(namespace) != (user, agent):
                continue
            for event in self.memory.events(user, agent_id=agent):
                if (scope_key(user, agent), event.turn_id) in covered:
                    continue
                turn = self.memory.get(user, event.turn_id, kind="turn", agent_id=agent)
                if isinstance(turn, Turn):
                    out.append(_from_turn(namespace, turn, user, agent))
                    covered.add((scope_key(user, agent), event.turn_id))
        groups: dict[tuple[str, ...], list[_Stored]] = {}  # by namespace, in the order each was first used
        for s in out:
            groups.setdefault(s.namespace, []).append(s)
        return [s for group in groups.values() for s in group]

    def _search(self, op: SearchOp) -> list[SearchItem]:
        stored = [s for s in self._everything(op.namespace_prefix) if _holds(s.value, op.filter)]
        if not op.query:
            return [s.hit() for s in stored[op.offset : op.offset + op.limit]]
        searched = [s for s in stored if s.indexed]
        by_scope: dict[tuple[str, str | None], dict[str, _Stored]] = {}
        for s in searched:
            by_scope.setdefault((s.user, s.agent), {})[s.key] = s
        wanted = (op.offset + op.limit) * CARDS_PER_ITEM
        ranked: dict[tuple[tuple[str, ...], str], tuple[float, _Stored, list[dict[str, Any]]]] = {}
        for (user, agent), items in by_scope.items():
            recall = self.memory.retrieve(op.query, user_id=user, agent_id=agent, top_n=wanted)
            for card in recall.cards:
                for hit in (items[t] for t in card.source_turn_ids if t in items):
                    best, _, cards = ranked.setdefault((hit.namespace, hit.key), (card.score, hit, []))
                    cards.append(card.to_dict())
                    ranked[(hit.namespace, hit.key)] = (max(best, card.score), hit, cards)
        order = sorted(ranked.values(), key=lambda x: -x[0])[op.offset : op.offset + op.limit]
        return [s.hit(score, {"cards": cards}) for score, s, cards in order]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        spaces = sorted({s.namespace for s in self._everything(())})
        for condition in op.match_conditions or ():
            spaces = [s for s in spaces if _matches(s, condition.match_type, tuple(condition.path))]
        if op.max_depth is not None:
            spaces = sorted({s[: op.max_depth] for s in spaces})
        return spaces[op.offset : op.offset + op.limit]

    # ------------------------------------------------------------------ writing

    def _put(self, op: PutOp) -> None:
        user, agent, scope = self._scoped(op.namespace)
        namespace = _ns(op.namespace)
        if op.value is None:
            with self.memory.store.transaction():
                self.memory.store.delete_item(scope, namespace, op.key)
            if self.memory.get(user, op.key, kind="turn", agent_id=agent) is not None:
                self.memory.forget(user, agent_id=agent, turn_ids=[op.key])
            return
        value = dict(op.value)
        encoded = _encode(value)
        turn = _turn(value, op.index, user, agent, op.key)
        row = self.memory.store.item(scope, namespace, op.key)
        since = (row["created_at"], row["seq"]) if row is not None else None  # a put again keeps its place
        previous = self.memory.get(user, op.key, kind="turn", agent_id=agent)
        if isinstance(previous, Turn) and (
            turn is None or (previous.text, previous.metadata) != (turn.text, turn.metadata)
        ):
            self.memory.forget(user, agent_id=agent, turn_ids=[op.key])  # a changed item replaces its turn
            previous = None
        if turn is not None and previous is None:
            self.memory.write(turn)
        with self.memory.store.transaction():
            self.memory.store.put_item(scope, namespace, op.key, encoded, turn is not None, self.memory.clock(), since)


# ---------------------------------------------------------------------- values


def _ns(namespace: Iterable[str]) -> str:
    return json.dumps(list(namespace), ensure_ascii=False)


def _encode(value: dict[str, Any]) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidTurnError(f"a store value must be JSON (strings, numbers, lists, objects): {exc}") from None


def _text(value: Mapping[str, Any], index: Any) -> str | None:
    """The words to remember from ``value``: its "text" (else "content") field, or the
    fields ``index`` names; None when it has none or is not to be searched."""
    if index is False:
        return None
    if index:
        found = [t for path in index for t in get_text_at_path(dict(value), path) if t.strip()]
        return "\n".join(found) or None
    text = value.get("text")
    if not isinstance(text, str) or not text.strip():
        text = value.get("content")
    return text if isinstance(text, str) and text.strip() else None


def _turn(value: dict[str, Any], index: Any, user: str, agent: str | None, key: str) -> Turn | None:
    text = _text(value, index)
    if text is None:
        return None
    fields = {k: value[k] for k in TURN_FIELDS if k in value}
    metadata = {k: v for k, v in value.items() if k not in (*TURN_FIELDS, "text", "content")}
    return Turn(text, user_id=user, agent_id=agent, turn_id=key, metadata=metadata, **fields)


def _stored(row: Any, user: str, agent: str | None) -> _Stored:
    return _Stored(
        user,
        agent,
        tuple(json.loads(row["namespace"])),
        row["key"],
        json.loads(row["value"]),
        bool(row["indexed"]),
        datetime.fromisoformat(row["created_at"]),
        datetime.fromisoformat(row["updated_at"]),
    )


def _from_turn(namespace: tuple[str, ...], turn: Turn, user: str, agent: str | None) -> _Stored:
    when: datetime = turn.timestamp  # type: ignore[assignment]
    value: dict[str, Any] = {
        "text": turn.text,
        "speaker": turn.speaker,
        "timestamp": when.isoformat(),
        "session_id": turn.session_id,
        **turn.metadata,
    }
    return _Stored(user, agent, namespace, turn.turn_id or "", value, True, when, when)


def _holds(value: Mapping[str, Any], conditions: Mapping[str, Any] | None) -> bool:
    """Does ``value`` meet ``filter`` as LangGraph's stores read it?"""
    return all(_same(value.get(k), want) for k, want in (conditions or {}).items())


def _same(found: Any, want: Any) -> bool:
    if isinstance(want, dict):
        if any(k.startswith("$") for k in want):
            return all(_compare(found, op, v) for op, v in want.items())
        return isinstance(found, dict) and all(_same(found.get(k), v) for k, v in want.items())
    if isinstance(want, list | tuple):
        return (
            isinstance(found, list | tuple)
            and len(found) == len(want)
            and all(_same(f, w) for f, w in zip(found, want, strict=True))
        )
    return bool(found == want)


_ORDER = {
    "$gt": lambda a, b: a > b,
    "$gte": lambda a, b: a >= b,
    "$lt": lambda a, b: a < b,
    "$lte": lambda a, b: a <= b,
}


def _compare(found: Any, op: str, want: Any) -> bool:
    if op == "$eq":
        return bool(found == want)
    if op == "$ne":
        return bool(found != want)
    if op not in _ORDER:
        raise InvalidTurnError(f"unsupported filter operator {op!r}; use $eq, $ne, $gt, $gte, $lt or $lte")
    try:
        return bool(_ORDER[op](float(found), float(want)))
    except (TypeError, ValueError):
        return False


def _matches(space: tuple[str, ...], kind: str, path: tuple[str, ...]) -> bool:
    if len(path) > len(space):
        return False
    part = space[: len(path)] if kind == "prefix" else space[len(space) - len(path) :]
    return all(p == "*" or p == s for p, s in zip(path, part, strict=True))
