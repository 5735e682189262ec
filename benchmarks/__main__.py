"""Benchmark harness: memtracks and raw-turn baselines, in one run, on LoCoMo and LongMemEval.

    python -m benchmarks locomo --data ../shared/data/locomo/locomo10.json --out out/locomo
    python -m benchmarks longmemeval --data ../shared/data/longmemeval/longmemeval_s_subset.json --out out/lme
    python -m benchmarks locomo --data ... --out ... --limit 2 --k 5,10
    python -m benchmarks locomo --data ... --out ... --units 0-4 --dump answers.jsonl

LoCoMo figures are also given per split: the first --tune conversations (default 5: 0-4, the
ones defaults are tuned on) and the rest (held out).

``--embedder usem3+minilm`` (or ``usem3+minilm@0.25``) runs memtracks with the English-leaning
embedder of the minilm extra; the baselines stay as they are (dense USE, dense MiniLM).

Runs memtracks and every raw-turn baseline (see benchmarks/baselines.py; the MiniLM ones when
the minilm extra is installed). Writes DIR/results.json, DIR/results.md and DIR/*.png. With an OpenAI-compatible endpoint
(--llm-base-url/--llm-model/--llm-api-key or MEMTRACKS_LLM_BASE_URL / _MODEL / _API_KEY),
memtracks' cards also answer each question and the answers are scored (token F1, LLM judge).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from memtracks.config import MemoryConfig, TierConfig
from memtracks.retrieval.embedders import EMBEDDERS, Embedder, USEEmbedder, USEMiniLMEmbedder
from memtracks.toolkit import Toolkit

from . import evaluate, report
from .baselines import load_minilm
from .datasets import load_locomo, load_longmemeval
from .runner import DEPTH, run


def _ks(text: str) -> tuple[int, ...]:
    try:
        ks = tuple(sorted({int(k) for k in text.split(",")}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--k takes numbers like 5,10; found {text!r}") from None
    if not ks or min(ks) < 1 or max(ks) > 10:
        raise argparse.ArgumentTypeError("--k values must be between 1 and 10")
    return ks


def _units(text: str) -> tuple[int, ...]:
    """ "0-4" or "5,7,9" or "0-2,8" -> unit indexes."""
    chosen: list[int] = []
    try:
        for part in text.split(","):
            first, _, last = part.partition("-")
            chosen += range(int(first), int(last or first) + 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--units takes indexes like 0-4 or 5,7,9; found {text!r}") from None
    if not chosen or min(chosen) < 0:
        raise argparse.ArgumentTypeError(f"--units takes indexes from 0; found {text!r}")
    return tuple(dict.fromkeys(chosen))


MEMORY_EMBEDDERS = ("usem3", USEMiniLMEmbedder.base_name)


def _embedder_name(text: str) -> str:
    """--embedder: "usem3" or "usem3+minilm", optionally with its weight ("usem3+minilm@0.25")."""
    base, at, weight = text.partition("@")
    if base not in MEMORY_EMBEDDERS or (at and base != USEMiniLMEmbedder.base_name):
        raise argparse.ArgumentTypeError(
            f"--embedder takes {' or '.join(MEMORY_EMBEDDERS)} (the latter optionally @weight); found {text!r}"
        )
    if at:
        try:
            value = float(weight)
        except ValueError:
            value = -1.0
        if not 0 < value < 1:
            raise argparse.ArgumentTypeError(f"--embedder {text!r}: the weight after '@' must be between 0 and 1")
    return text


def memory_embedder(name: str, threads: int | None, use: USEEmbedder | None = None) -> Embedder:
    """The embedder memtracks runs with, by --embedder name; ``use`` is reused for usem3."""
    base, _, weight = name.partition("@")
    if base == "usem3":
        return use or USEEmbedder(threads=threads)
    assert base in EMBEDDERS
    return USEMiniLMEmbedder(float(weight) if weight else USEMiniLMEmbedder.DEFAULT_USE_WEIGHT, threads=threads)


def add_embedder_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--embedder",
        type=_embedder_name,
        default="usem3",
        help="memtracks' embedder: usem3 (default) or usem3+minilm[@weight] (the minilm extra); a "
        "store written by one embedder refuses another, so give each embedder its own --cache",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="dataset", required=True)
    for name, env in (("locomo", "MEMTRACKS_LOCOMO"), ("longmemeval", "MEMTRACKS_LONGMEMEVAL")):
        p = sub.add_parser(name)
        p.add_argument(
            "--data",
            default=os.environ.get(env),
            required=os.environ.get(env) is None,
            help=f"dataset file (or ${env})",
        )
        p.add_argument("--out", required=True, help="directory for results.json, results.md, plots")
        p.add_argument("--limit", type=int, help="only the first N conversations / questions")
        p.add_argument("--units", type=_units, help="only these conversations / questions by index, e.g. 0-4")
        p.add_argument("--dump", help="also write every system's ranked items per question to this JSONL file")
        p.add_argument("--k", type=_ks, default=(5, 10), help="cut-offs, e.g. 5,10")
        p.add_argument("--quiet", action="store_true", help="no progress bars")
        p.add_argument(
            "--threads",
            type=int,
            default=1,
            help="threads per embedder (default 1: on a shared machine, two threads that wait for "
            "each other are many times slower than one)",
        )
        add_embedder_option(p)
        p.add_argument(
            "--no-minilm",
            action="store_true",
            help="skip the dense MiniLM baselines (they run when the minilm extra is installed)",
        )
        if name == "locomo":
            p.add_argument(
                "--tune",
                type=int,
                default=5,
                help="the first N conversations are the tuning split, the rest held out (default 5)",
            )
        p.add_argument(
            "--tiers", action="store_true", help="memtracks with tiered storage on (TierConfig(enabled=True))"
        )
        p.add_argument("--llm-base-url", help="OpenAI-compatible endpoint for the optional QA stage")
        p.add_argument("--llm-model")
        p.add_argument("--llm-api-key")
        p.add_argument("--no-judge", action="store_true", help="QA: token F1 only, no LLM judge")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    data = Path(args.data)
    if not data.exists():
        print(f"dataset not found: {data}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    toolkit, embedder = Toolkit.load(), USEEmbedder(threads=args.threads)
    minilm = None if args.no_minilm else load_minilm(threads=args.threads)
    mine = memory_embedder(args.embedder, args.threads, embedder)
    config = MemoryConfig(tiers=TierConfig(enabled=True)) if args.tiers else None
    if args.dataset == "locomo":
        every = load_locomo(data, limit=args.limit)
        units = _select(every, args.units)
        result = run(
            "locomo",
            units,
            toolkit=toolkit,
            embedder=embedder,
            memory_embedder=mine,
            progress=not args.quiet,
            depth=DEPTH["locomo"],
            minilm=minilm,
            config=config,
        )
        results = evaluate.score_locomo(result, args.k, _splits(every, units, args.tune))
    else:
        units = _select(load_longmemeval(data, limit=args.limit), args.units)
        result = run(
            f"longmemeval:{data.stem}",
            units,
            toolkit=toolkit,
            embedder=embedder,
            memory_embedder=mine,
            skip=lambda q: q.abstention,
            progress=not args.quiet,
            depth=DEPTH["longmemeval"],
            minilm=minilm,
            config=config,
        )
        results = evaluate.score_longmemeval(result, args.k, units[0].session_of if units else str)
    if args.dump:
        dump_answers(result, Path(args.dump))
    _maybe_qa(args, result, results)
    report.write_json(results, out)
    (out / "results.md").write_text(report.markdown(results, args.k), encoding="utf-8")
    report.plots(results, out)
    print(report.markdown(results, args.k))
    return 0


def _select(units: list, indexes: tuple[int, ...] | None) -> list:
    if indexes is None:
        return units
    return [units[i] for i in indexes if i < len(units)]


def _splits(every: list, chosen: list, tune: int) -> dict[str, list[str]]:
    """Tuning (the first ``tune`` units of the file) and held-out (the rest), as far as they
    were run; nothing when one of them is empty."""
    ran = {u.id for u in chosen}
    tuning = [u.id for u in every[:tune] if u.id in ran]
    held = [u.id for u in every[tune:] if u.id in ran]
    if not tuning or not held:
        return {}
    return {f"tuning (0-{tune - 1})": tuning, f"held-out ({tune}-{len(every) - 1})": held}


def dump_answers(result, path: Path) -> None:
    """Every system's ranked items (and memtracks' deep pool and context) per question, one JSON line each."""
    import json

    with open(path, "w", encoding="utf-8") as fh:
        for a in result.answers:
            row = {
                "system": a.system,
                "unit": a.unit,
                "id": a.question.id,
                "category": a.question.category,
                "question": a.question.question,
                "answer": a.question.answer,
                "evidence": sorted(a.question.evidence_turns or a.question.evidence_sessions),
                "items": a.items,
                "context": a.context,
            }
            if a.pool is not None:
                row["pool"] = a.pool
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def _maybe_qa(args: argparse.Namespace, result, results: dict) -> None:
    from .qa import ChatClient, QAItem, config_from_env, run_qa, summarize

    config = config_from_env(args.llm_base_url, args.llm_model, args.llm_api_key)
    if config is None:
        return
    items = [
        QAItem(
            id=a.question.id,
            question=a.question.question,
            gold=a.question.answer,
            category=a.question.category,
            context=a.context,
            question_date=a.question.asked_at.isoformat(),
            locomo_category=int(a.question.category) if result.dataset == "locomo" else None,
        )
        for a in result.answers
        if a.system == "memtracks" and not (result.dataset == "locomo" and a.question.category == "5")
    ]  # LoCoMo category 5 (adversarial) has no gold answer to judge; Mem0 leaves it out too
    results["systems"]["memtracks"]["qa"] = summarize(run_qa(ChatClient(config), items, judge=not args.no_judge))


if __name__ == "__main__":
    sys.exit(main())
