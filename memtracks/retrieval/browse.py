"""What ``Memory`` offers for reading its tracks directly, beside ``retrieve()``: ``facts``,
``fact_history``, ``events``, ``inferences``, ``get``, the event chain, the indexes, the users
and scopes it holds and their counts. :class:`~memtracks.memory.Memory` hands these to a
:class:`Browse` built on its parts.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import networkx as nx

from memtracks.errors import InvalidTurnError
from memtracks.parts import Service
from memtracks.records import Event, Fact, Inference, Turn
from memtracks.retrieval.lexical import LexicalIndex
from memtracks.scopes import check_optional_id, public, scope_key, split_scope
from memtracks.tracks.facts import FACTS, FactState, facts_at, supersede_chain
from memtracks.upkeep import lifecycle
from memtracks.write.validation import check_aware, check_item_id

Record = Turn | Fact | Event | Inference


class Browse(Service):
    """The reading half of :class:`~memtracks.memory.Memory` beside ``retrieve()``, on its parts."""

    # ------------------------------------------------------------------ reading the tracks

    def facts(
        self,
        user_id: str,
        *,
        agent_id: str | None = None,
        subject: str | None = None,
        slot: str | None = None,
        include_superseded: bool = False,
        include_planned: bool = False,
        include_negated: bool = False,
        as_of: datetime | None = None,
    ) -> list[Fact]:
        """Facts about ``user_id``'s conversations, by the as-of rule
        (:func:`memtracks.tracks.facts.fact_state`).

        Args:
            subject: only facts about this subject ("user", a name, "user's friend").
            slot: only this slot.
            include_superseded: every fact stored (recorded by ``as_of``, if given), ended,
                superseded and corrected ones too, with ``reason``, ``valid_from``/``valid_to``.
            include_planned: also dated plans that have not begun ("moving to Denver next month").
            include_negated: also what the user said does not hold ("I don't live in Boston",
                我不住在北京: ``lives_in: Boston`` with ``negated=True``); by default only
                what holds is listed.
            as_of: the facts that held at this time, as known then; default: those that hold now
                (the clock), as known now.
        """
        scope = scope_key(user_id, agent_id)
        if as_of is not None:
            check_aware(as_of, "as_of")
        for name, value in (("subject", subject), ("slot", slot)):
            if value is not None and not isinstance(value, str):
                raise InvalidTurnError(f"{name} must be a string, found {value!r:.80}")
        self.parts.drain(scope)
        facts = self.parts.store.facts(scope, subjects=[subject] if subject else None, slots=[slot] if slot else None)
        if include_superseded:
            facts = [f for f in (FACTS.visible_at(f, as_of) for f in facts) if f is not None]
        else:
            states = frozenset({FactState.CURRENT, FactState.PLANNED} if include_planned else {FactState.CURRENT})
            facts = facts_at(facts, as_of or self.parts.clock(), as_of, states)
            facts = [f for f in facts if include_negated or not f.negated]
        return [public(f, user_id) for f in facts]

    def fact_history(self, user_id: str, fact_id: int, *, agent_id: str | None = None) -> list[Fact]:
        """The supersede chain through ``fact_id``, oldest first."""
        scope = scope_key(user_id, agent_id)
        self.parts.drain(scope)
        stored_id = check_item_id(fact_id, "fact_id")
        found = self.parts.store.facts_by_id(scope, [stored_id]) if stored_id is not None else []
        if not found:
            return []
        fact = found[0]
        chain = supersede_chain(fact, self.parts.store.facts(scope, subjects=[fact.subject], slots=[fact.slot]))
        return [public(f, user_id) for f in chain]

    def events(
        self,
        user_id: str,
        *,
        agent_id: str | None = None,
        kind: str | None = None,
        start: datetime | None = None,
        end: datetime | None = None,
        session_id: str | None = None,
    ) -> list[Event]:
        """Events of ``user_id``, in the order they were said; optionally of one happening
        kind, of one session, or said in / about a time overlapping ``[start, end)``."""
        scope = scope_key(user_id, agent_id)
        check_optional_id(session_id, "session_id")
        check_optional_id(kind, "kind")
        self.parts.drain(scope)
        if start is not None or end is not None:
            start = start or datetime.min.replace(tzinfo=timezone.utc)
            end = end or datetime.max.replace(tzinfo=timezone.utc)
            check_aware(start, "start")
            check_aware(end, "end")
            events = [
                e
                for e in self.parts.store.events_between(scope, start, end, limit=1_000_000)
                if kind is None or kind in e.kinds
            ]
        else:
            events = self.parts.store.events(scope, kinds=[kind] if kind else None)
        return [public(e, user_id) for e in events if session_id is None or e.session_id == session_id]

    def inferences(
        self, user_id: str, *, agent_id: str | None = None, include_retracted: bool = False
    ) -> list[Inference]:
        """Conclusions drawn for ``user_id``; retracted ones only when asked."""
        scope = scope_key(user_id, agent_id)
        self.parts.drain(scope)
        return [public(i, user_id) for i in self.parts.store.inferences(scope, active_only=not include_retracted)]

    def get(
        self, user_id: str, id: str | int, *, kind: str | None = None, agent_id: str | None = None
    ) -> Record | None:
        """One memory by id: ``get(u, "fact:12")``, ``get(u, 12, kind="fact")``, a turn by its
        turn id (``get(u, "D1:3")`` or ``kind="turn"``); None if ``user_id`` has no such memory."""
        self.parts.drain(scope_key(user_id, agent_id))
        return lifecycle.get(self.parts, scope_key(user_id, agent_id), id, kind, user_id)

    def event_chain(self, user_id: str, *, agent_id: str | None = None) -> nx.MultiDiGraph:
        """The event chain of ``user_id`` as a networkx graph (nodes are event ids)."""
        scope = scope_key(user_id, agent_id)
        with self.parts.lock:
            self.parts.fresh()
            return self.parts.indexes.chain(scope)

    def index(self, user_id: str, track: str, *, agent_id: str | None = None) -> Any:
        """The vector index of one user's track, built from stored vectors when first used."""
        with self.parts.lock:
            self.parts.fresh()
            return self.parts.indexes.vectors(scope_key(user_id, agent_id), track)

    def lexical_index(self, user_id: str, track: str, *, agent_id: str | None = None) -> LexicalIndex:
        """The BM25 index of one user's track, built from the store when first used."""
        with self.parts.lock:
            self.parts.fresh()
            return self.parts.indexes.lexical(scope_key(user_id, agent_id), track)

    def users(self) -> list[str]:
        """Every user with memories (shared or an agent's)."""
        return sorted({split_scope(s)[0] for s in self.parts.store.users()})

    def scopes(self) -> list[tuple[str, str | None]]:
        """Every ``(user_id, agent_id)`` with memories; agent_id None is the shared memory."""
        return [split_scope(s) for s in self.parts.store.users()]

    def stats(self, user_id: str, *, agent_id: str | None = None) -> dict[str, int]:
        self.parts.drain(scope_key(user_id, agent_id))
        return self.parts.store.counts(scope_key(user_id, agent_id))
