"""memtracks as an MCP server: an agent adds turns, searches memory cards, reads facts and
their history, forgets, and checks what is stored — six tools over stdio.

    memtracks --db memory.db mcp --user alice        # or: python -m memtracks mcp

Needs the ``mcp`` extra (``pip install 'memtracks[mcp]'``, the 2.x SDK). Every tool takes a
``user_id`` (default: the server's ``--user``) and an optional ``agent_id``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

from .._version import __version__
from ..errors import InvalidTurnError, MemtracksError, MissingDependencyError
from ..memory import Memory
from ..views import fact_json

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import CallToolResult, TextContent
except ImportError as exc:  # pragma: no cover - the extra is installed by make test
    raise MissingDependencyError("the MCP server needs the mcp extra: pip install 'memtracks[mcp]'") from exc

F = TypeVar("F", bound=Callable[..., Any])
INSTRUCTIONS = (
    "Long-term memory of the user. Call add_memory with each turn worth remembering (the user's "
    "words, in English or Chinese); before answering, call search_memory with the question and put "
    "the returned cards in your context. Facts come current first, with dates resolved; use "
    "fact_history to see what a fact replaced, forget when the user asks to erase something."
)


def _tool_errors(fn: F) -> F:
    """memtracks' own errors reach the agent as tool errors with their message."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except MemtracksError as exc:
            raise ToolError(str(exc)) from exc

    return wrapper  # type: ignore[return-value]


def _when(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidTurnError(f"{name} must be ISO 8601 with an offset, e.g. 2024-06-10T10:00:00+08:00") from None
    if parsed.tzinfo is None:
        raise InvalidTurnError(f"{name} needs a timezone offset, e.g. {value}+00:00")
    return parsed


def build_server(memory: Memory, *, user_id: str | None = None, agent_id: str | None = None) -> MCPServer:
    """An MCP server over ``memory``; ``user_id``/``agent_id``: defaults for every tool."""
    server: MCPServer = MCPServer("memtracks", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")

    def who(user: str | None) -> str:
        chosen = user or user_id
        if not chosen:
            raise InvalidTurnError("pass user_id (this server has no default user)")
        return chosen

    @server.tool()
    @_tool_errors
    def add_memory(
        text: str,
        user_id: str | None = None,
        session_id: str | None = None,
        timestamp: str | None = None,
        speaker: str = "user",
        agent: str | None = None,
    ) -> dict[str, Any]:
        """Remember one conversation turn. timestamp: ISO 8601 with offset (default now);
        speaker: "user" or "assistant". Returns the facts, times and conclusions it changed."""
        result = memory.write(
            text,
            user_id=who(user_id),
            session_id=session_id,
            timestamp=_when(timestamp, "timestamp"),
            speaker=speaker,
            agent_id=agent or agent_id,
        )
        return {
            "turn_id": result.turn.turn_id,
            "duplicate": result.duplicate,
            "facts": [fact_json(f) for f in result.facts],
            "superseded": [fact_json(f) for f in result.superseded],
            "times": [{"text": t.text, "start": t.start.isoformat(), "end": t.end.isoformat()} for t in result.times],
            "inferences": [i.text for i in result.inferences],
            "warnings": list(result.warnings),
        }

    @server.tool()
    @_tool_errors
    def search_memory(
        query: str,
        user_id: str | None = None,
        now: str | None = None,
        top_n: int = 5,
        session_id: str | None = None,
        max_tokens: int = 400,
        agent: str | None = None,
    ) -> CallToolResult:
        """The memory cards that matter to a question, ranked: the rendered text to put in a
        prompt, and each card as JSON (track, text, score, source turns)."""
        recall = memory.retrieve(
            query,
            user_id=who(user_id),
            agent_id=agent or agent_id,
            now=_when(now, "now"),
            top_n=top_n,
            session_id=session_id,
        )
        rendered = recall.render(max_tokens=max_tokens)
        return CallToolResult(
            content=[TextContent(type="text", text=rendered.text or "(no relevant memories)")],
            structured_content={"cards": [c.to_dict() for c in recall.cards], "suppressed": recall.suppressed},
        )

    @server.tool()
    @_tool_errors
    def list_facts(
        user_id: str | None = None, slot: str | None = None, include_history: bool = False, agent: str | None = None
    ) -> dict[str, Any]:
        """Facts known about the user (current ones; with include_history also superseded ones)."""
        facts = memory.facts(who(user_id), agent_id=agent or agent_id, slot=slot, include_superseded=include_history)
        return {"facts": [fact_json(f) for f in facts]}

    @server.tool()
    @_tool_errors
    def fact_history(fact_id: int, user_id: str | None = None, agent: str | None = None) -> dict[str, Any]:
        """The chain of values a fact went through, oldest first, with when and why each ended."""
        return {
            "history": [fact_json(f) for f in memory.fact_history(who(user_id), fact_id, agent_id=agent or agent_id)]
        }

    @server.tool()
    @_tool_errors
    def forget(
        user_id: str | None = None,
        turn_ids: list[str] | None = None,
        session_id: str | None = None,
        everything: bool = False,
        agent: str | None = None,
    ) -> dict[str, Any]:
        """Erase turns for good (by id, by session, or everything of the user) with what rests on them."""
        report = memory.forget(
            who(user_id), agent_id=agent or agent_id, turn_ids=turn_ids, session_id=session_id, everything=everything
        )
        return {**report.counts(), "reopened_facts": list(report.reopened)}

    @server.tool()
    @_tool_errors
    def memory_status() -> dict[str, Any]:
        """Which users and agents have memories, and how many of each kind."""
        from ..cli import status

        return status(memory)

    return server


def serve(
    db: str | Path,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    rules_dir: str | Path | None = None,
    lexicons_dir: str | Path | None = None,
) -> None:
    """Run the server over stdio until the client closes it."""
    with Memory(db, rules_dir=rules_dir, lexicons_dir=lexicons_dir, create_dirs=True) as memory:
        build_server(memory, user_id=user_id, agent_id=agent_id).run("stdio")
