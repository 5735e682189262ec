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
from typing import Any

from memtracks import Memory
from memtracks.cards import count_tokens
from memtracks.embedders import Embedder
from memtracks.toolkit import Toolkit

from . import metrics
from .baselines import build_baselines, turn_document
from .datasets import Question, Unit

SYSTEMS = ("memtracks", "bm25", "dense", "rrf")
CONTEXT_K = 5  # items put into the prompt for answer-in-context and token counts
MAX_K = 10  # the largest cut-off the metrics read
# How many items each system is asked for. LoCoMo's @k counts items, so 10 is enough. In
# LongMemEval a ranked list of turns becomes a ranked list of distinct sessions; ten turns
# often name only three or four sessions, so session@10 would be cut short for every
# system. Its own evaluation ranks the whole haystack; 50 items reach ten sessions.
DEPTH = {"locomo": MAX_K, "longmemeval": 50}


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


@dataclass
class Run:
    """Everything measured in one run."""

    dataset: str
    answers: list[Answer] = field(default_factory=list)
    turns: int = 0
    ingest_seconds: float = 0.0
    peak_rss_mb: float = 0.0


def _memtracks_answer(mem: Memory, unit: Unit, q: Question, raw: dict[str, str], depth: int) -> Answer:
    start = time.perf_counter()
    recall = mem.retrieve(q.question, user_id=unit.id, now=q.asked_at, top_n=depth)
    latency = (time.perf_counter() - start) * 1000
    items = [list(c.source_turn_ids) for c in recall.cards]
    top = recall.cards[:CONTEXT_K]
    context = "\n".join(c.text for c in top)
    cited_ids = metrics.cited(items, CONTEXT_K)
    return Answer(
        "memtracks",
        q,
        unit.id,
        items,
        context,
        count_tokens(context) + max(0, len(top) - 1),
        sum(count_tokens(raw[t]) for t in cited_ids if t in raw),
        latency,
    )


def _baseline_answer(system: Any, unit: Unit, q: Question, raw: dict[str, str], depth: int) -> Answer:
    start = time.perf_counter()
    ranked = system.search(q.question, depth)
    latency = (time.perf_counter() - start) * 1000
    context = "\n".join(raw[t] for t in ranked[:CONTEXT_K])
    tokens = count_tokens(context) + max(0, min(CONTEXT_K, len(ranked)) - 1)
    return Answer(system.name, q, unit.id, [[t] for t in ranked], context, tokens, tokens, latency)


def run(
    dataset: str,
    units: Sequence[Unit],
    *,
    toolkit: Toolkit,
    embedder: Embedder,
    skip: Callable[[Question], bool] = lambda q: False,
    progress: bool = True,
    depth: int = MAX_K,
) -> Run:
    """Ingest every unit into a fresh memory, then ask its questions of every system.

    ``depth`` is how many items every system is asked for per question (see ``DEPTH``).
    """
    if depth < MAX_K:
        raise ValueError(f"depth must be at least {MAX_K}, the largest cut-off; got {depth}")
    result = Run(dataset)
    toolkit.nlp.analyze(["Load the English model.", "加载中文分词。"])  # load models before timing
    embedder.embed_batch(["warm up"])
    bar = _bar(sum(len(u.turns) for u in units), "ingest", progress)
    qbar = _bar(sum(1 for u in units for q in u.questions if not skip(q)), "questions", progress)
    for unit in units:
        mem = Memory(toolkit=toolkit, embedder=embedder)
        start = time.perf_counter()
        mem.write_many(unit.turns, batch_size=128)
        result.ingest_seconds += time.perf_counter() - start
        result.turns += len(unit.turns)
        bar(len(unit.turns))
        raw = {t.turn_id: turn_document(t) for t in unit.turns if t.turn_id}
        baselines = build_baselines(unit.turns, embedder)
        for q in unit.questions:
            if skip(q):
                continue
            result.answers.append(_memtracks_answer(mem, unit, q, raw, depth))
            result.answers.extend(_baseline_answer(b, unit, q, raw, depth) for b in baselines)
            qbar(1)
        mem.close()
    bar(0, close=True)
    qbar(0, close=True)
    result.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
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
