"""The optional LLM extractor, in two phases, over turns the deterministic writer already
stored (so a failure here never loses a turn: what the writer found stands).

1. **Extract**: each batch of turns (10 by default) goes to the model, which returns facts,
   preferences and decisions with a slot, a value in the turn's own language, tags and a
   confidence. Importance = 0.3 + 0.5 x confidence (+0.1 preference, +0.05 decision); items
   below ``threshold`` (0.5) are dropped.
2. **Merge**, only when the user already has memories: the new items and up to
   ``merge_sample`` of the user's current facts (most recently seen first) go to the model,
   which keeps, skips (already known) or merges each item into a more precise value.

What survives enters the fact track through the same conflict machinery as a turn's own
values (reinforce, supersede, accumulate), with ``source="llm"`` and the model's confidence;
:class:`~memtracks.config.FusionConfig` weighs that source on its own. Every call's cost
(calls, tokens) and every failure (no answer, no JSON, malformed items) is reported per batch.
Prompts are data: ``memtracks/llm/prompts/*.md`` (``string.Template``, ``$name`` fields).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any

from memtracks.errors import LLMError
from memtracks.llm import parse
from memtracks.llm.client import ConsolidationLLM
from memtracks.pipeline.conflicts import FactChanges, resolve_conflicts
from memtracks.records import Fact, SlotValue, Turn
from memtracks.retrieval.cards import count_tokens
from memtracks.storage import codec
from memtracks.storage import consolidations as sql

if TYPE_CHECKING:
    from memtracks.parts import Parts

PROMPTS = Path(__file__).parent / "prompts"
SOURCE = "llm"


@dataclass
class BatchCost:
    """One batch: its turns, what the model cost, what came of it, what went wrong."""

    turns: int
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    extracted: int = 0  # items phase 1 returned well-formed
    malformed: int = 0  # items dropped as malformed (both phases)
    kept: int = 0  # at or above the importance threshold, not skipped by phase 2
    written: int = 0  # facts added or reinforced
    failures: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class LLMReport:
    model: str
    batches: list[BatchCost] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)

    def totals(self) -> dict[str, int]:
        keys = ("turns", "calls", "prompt_tokens", "completion_tokens", "extracted", "malformed", "kept", "written")
        out = {k: sum(getattr(b, k) for b in self.batches) for k in keys}
        out["failures"] = sum(len(b.failures) for b in self.batches)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "totals": self.totals(), "batches": [b.to_dict() for b in self.batches]}


def load_prompts(folder: Path = PROMPTS) -> dict[str, str]:
    names = ("extract.system", "extract.prompt", "merge.system", "merge.prompt")
    return {n: (folder / f"{n}.md").read_text(encoding="utf-8") for n in names}


class LLMExtractor:
    """Runs the two phases for one user's turns with ``llm``.

    Args:
        llm: anything with ``complete(system, prompt) -> str`` (e.g. :class:`OpenAIClient`).
        batch_size: turns per extraction call.
        threshold: the least importance an item needs to be kept.
        merge_sample: how many existing facts phase 2 compares against.
        prompts: a folder with the four prompt files, to replace the bundled ones.
    """

    def __init__(
        self,
        llm: ConsolidationLLM,
        *,
        batch_size: int = 10,
        threshold: float = 0.5,
        merge_sample: int = 20,
        prompts: Path | None = None,
    ):
        self.llm, self.batch_size, self.threshold, self.merge_sample = llm, batch_size, threshold, merge_sample
        self.prompts = load_prompts(prompts or PROMPTS)

    def run(self, parts: Parts | Any, scope: str) -> LLMReport:
        """Extract from the turns of ``scope`` not yet read by the extractor (``parts``: a
        memory's :class:`~memtracks.parts.Parts`, or the ``Memory`` itself)."""
        parts = getattr(parts, "parts", parts)
        store = parts.store
        key = f"llm_extracted:{scope}"
        done = int(store.meta(key) or 0)
        pending = sql.turns_after(store, scope, done)
        report = LLMReport(getattr(self.llm, "name", type(self.llm).__name__))
        advancing = True
        for start in range(0, len(pending), self.batch_size):
            chunk = pending[start : start + self.batch_size]
            turns = [codec.row_turn(row, scope) for _, row in chunk]
            cost = self._batch(parts, scope, turns, report)
            report.batches.append(cost)
            advancing = advancing and not cost.failures
            if advancing:  # a failed batch is read again next time
                with store.transaction():
                    store.set_meta(key, str(chunk[-1][0]))
        return report

    # ------------------------------------------------------------------ one batch

    def _call(self, system: str, prompt: str, cost: BatchCost) -> str | None:
        cost.calls += 1
        try:
            answer = self.llm.complete(system, prompt)
        except Exception as exc:  # any model failure is reported, never raised: the writer's facts stand
            cost.failures.append(f"call failed: {exc}")
            return None
        usage = getattr(self.llm, "usage", None)
        cost.prompt_tokens += getattr(usage, "prompt_tokens", 0) or count_tokens(system + prompt)
        cost.completion_tokens += getattr(usage, "completion_tokens", 0) or count_tokens(answer)
        return answer

    def _batch(self, parts: Parts, scope: str, turns: list[Turn], report: LLMReport) -> BatchCost:
        cost = BatchCost(len(turns))
        catalogue = parts.toolkit.catalogue
        slots = "\n".join(f"- {s.name}: {catalogue.label(s.name, 'en')}" for s in catalogue.slots)
        listing = "\n".join(f"{i}. [{t.speaker}] {t.text}" for i, t in enumerate(turns, 1))
        prompt = Template(self.prompts["extract.prompt"]).safe_substitute(slots=slots, turns=listing)
        answer = self._call(self.prompts["extract.system"], prompt, cost)
        if answer is None:
            return cost
        try:
            items, bad = parse.facts(answer, len(turns), frozenset(s.name for s in catalogue.slots))
        except LLMError as exc:
            cost.failures.append(f"extraction: {exc}")
            return cost
        cost.extracted, cost.malformed = len(items), bad
        items = [
            i
            for i in items
            if i.importance >= self.threshold and parts.writer.speaker_subject(turns[i.turn].speaker) != "assistant"
        ]
        items = self._merge(parts, scope, items, cost)
        cost.kept = len(items)
        if items:
            written = self._write(parts, scope, turns, items)
            cost.written = len(written)
            report.facts += written
        return cost

    def _merge(
        self, parts: Parts, scope: str, items: list[parse.ExtractedFact], cost: BatchCost
    ) -> list[parse.ExtractedFact]:
        existing = sorted(parts.store.facts(scope, current_only=True), key=lambda f: f.last_seen, reverse=True)
        existing = existing[: self.merge_sample]
        if not items or not existing:
            return items
        prompt = Template(self.prompts["merge.prompt"]).safe_substitute(
            existing="\n".join(f"{f.id}: {f.slot} = {f.value}" for f in existing),
            facts="\n".join(f"{n}: {i.slot} = {i.value} — {i.content}" for n, i in enumerate(items)),
        )
        answer = self._call(self.prompts["merge.system"], prompt, cost)
        if answer is None:
            return items
        try:
            chosen, bad = parse.decisions(answer, len(items))
        except LLMError as exc:
            cost.failures.append(f"merge: {exc}")
            return items  # the extracted facts stand, unmerged
        cost.malformed += bad
        out = []
        for n, item in enumerate(items):
            decision = chosen.get(n)
            if decision is None or decision.action == "keep":
                out.append(item)
            elif decision.action == "merge_into" and decision.value:
                out.append(
                    parse.ExtractedFact(
                        item.turn, item.type, item.slot, decision.value, item.content, item.tags, item.confidence
                    )
                )
        return out

    def _write(self, parts: Parts, scope: str, turns: Sequence[Turn], items: list[parse.ExtractedFact]) -> list[Fact]:
        """The items into the fact track, one turn at a time, in one transaction."""
        store, toolkit = parts.store, parts.toolkit
        written: list[Fact] = []
        batches = []
        with store.transaction():
            for index in sorted({i.turn for i in items}):
                turn = turns[index]
                assert turn.turn_id and turn.timestamp
                subject = parts.writer.speaker_subject(turn.speaker)
                values = [
                    SlotValue(
                        subject,
                        i.slot,
                        i.value,
                        toolkit.key_of(i.value),
                        (0, 0),
                        SOURCE,
                        turn.lang or "en",
                        i.confidence,
                    )
                    for i in items
                    if i.turn == index
                ]
                existing = store.facts(scope, subjects=[subject], slots=sorted({v.slot for v in values}))
                known = {(f.slot, f.value_key) for f in existing if f.is_current and turn.turn_id in f.source_turn_ids}
                values = [v for v in values if (v.slot, v.value_key) not in known]  # the writer already has it
                if not values:
                    continue
                counter = iter(range(store.next_id("facts"), 1 << 62))
                changes = resolve_conflicts(
                    values,
                    existing,
                    catalogue=toolkit.catalogue,
                    user_id=scope,
                    turn_id=turn.turn_id,
                    at=turn.timestamp,
                    new_id=counter.__next__,
                    source=SOURCE,
                )
                batches.append(parts.writer.apply_changes(scope, changes, turn.timestamp, f"{SOURCE}:{turn.turn_id}"))
                written += _touched(changes)
        for batch in batches:
            parts.committed(batch)
        return written


def _touched(changes: FactChanges) -> list[Fact]:
    by_id = {f.id: f for f in changes.all_facts()}
    return [by_id[i] for i in changes.touched if i in by_id]
