"""Fit the temporal track's learned ranker (``rules/ranker.yaml``) on the LoCoMo tuning split.

    python -m benchmarks.train_ranker --data ../shared/data/locomo/locomo10.json --cache /tmp/mt-locomo \\
        --units 0-4 --out rules/ranker.yaml

For every question of the chosen conversations (stored once in ``--cache``, as for
``benchmarks.sweep``), the temporal retriever's whole candidate pool is scored by hand as at
retrieve time (``retrieval/temporal.py: event_pool``), each candidate's features are computed
by ``retrieval/ranker.py: features`` and labelled 1 when its turn is evidence of the
question. A logistic regression (scikit-learn, for training only: retrieval reads the weights
with numpy) is fitted on the standardised features; the scaling is folded into the weights
written out. Questions whose pool holds no evidence teach nothing and are left out; each
question weighs the same (its candidates share a weight of one). Deterministic: the same
stores give the same file.

``--folds`` first reports, per fold of conversations left out in turn, the share of evidence
among each question's first five candidates under the hand order and the learned one (only
the temporal track: the end-to-end figures come from ``benchmarks.sweep``). Only ever train
on conversations 0-4: 5-9 are the held-out split.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from memtracks.config import MemoryConfig
from memtracks.data.ranker import FEATURES
from memtracks.retrieval.embedders import USEEmbedder
from memtracks.retrieval.hits import covered
from memtracks.retrieval.ranker import features
from memtracks.retrieval.temporal import cosines, event_pool
from memtracks.toolkit import Toolkit

from .__main__ import _units
from .datasets import load_locomo
from .sweep import stored

TOP = 5

HEADER = """\
# The temporal track's learned ranker (memtracks/retrieval/ranker.py): a candidate turn's
# score is bias + the sum of weight x feature; the candidates are ordered by it and keep the
# hand relevances, handed out in that order. Used when RetrievalConfig.ranker = "learned"
# (the default; "hand" keeps the hand order: see benchmarks/RESULTS.md, "A learned ranker").
#   model    logistic (a logistic regression: the score is the log-odds of being evidence)
#   bias     the intercept
#   weights  one entry per feature (retrieval/ranker.py, FEATURES); a feature left out weighs 0
#     feature  the feature's name
#     weight   its weight
#     note     optional
#
# Written by benchmarks/train_ranker.py (do not edit by hand; train again):
"""


def dump(data: str, cache: Path, units: tuple[int, ...]) -> list[dict]:
    """Per question with evidence: its conversation, features, labels and hand order."""
    every = load_locomo(data)
    toolkit, embedder = Toolkit.load(), USEEmbedder(threads=1)
    config = MemoryConfig()
    config = replace(config, retrieval=replace(config.retrieval, ranker="hand"))
    out = []
    for n in units:
        unit = every[n]
        mem = stored(unit, cache, toolkit, embedder)
        mem.reader.config = config
        turn_of = {e.id: e.turn_id for e in mem.store.events(unit.id)}
        for q in unit.questions:
            if not q.evidence_turns:
                continue
            query = mem.reader.analyze(q.question, user_id=unit.id, now=q.asked_at)
            ctx = mem.reader.context(unit.id)
            ranked, heads = event_pool(query, ctx, config.retrieval.k_temporal)
            ids, matrix = features(ranked, heads, cosines(ranked, query, ctx), query, covered(config.retrieval, query))
            labels = np.array([float(turn_of.get(i) in q.evidence_turns) for i in ids])
            turns = [turn_of.get(i) for i in ids]
            out.append(
                {
                    "unit": n,
                    "category": q.category,
                    "x": matrix,
                    "y": labels,
                    "turns": turns,
                    "evidence": q.evidence_turns,
                }
            )
        mem.close()
    return out


def fit(
    questions: list[dict], c: float, pairwise: bool = False, drop: tuple[str, ...] = ()
) -> tuple[float, np.ndarray]:
    """Bias and weights (on the raw features) of a logistic regression over ``questions``:
    pointwise (is this candidate evidence?) or pairwise (RankNet-style: is this evidence
    above that non-evidence candidate of the same question?). ``drop``: features kept at 0."""
    keep = np.array([f not in drop for f in FEATURES])
    useful = [{**q, "x": q["x"][:, keep]} for q in questions if q["y"].any() and not q["y"].all()]
    bias, coef = _pairwise(useful, c) if pairwise else _pointwise(useful, c)
    full = np.zeros(len(FEATURES))
    full[keep] = coef
    return bias, full


def _pairwise(useful: list[dict], c: float) -> tuple[float, np.ndarray]:
    from sklearn.linear_model import LogisticRegression  # training only

    diffs, weights = [], []
    for q in useful:
        pos, neg = q["x"][q["y"] > 0], q["x"][q["y"] == 0]
        d = (pos[:, None, :] - neg[None, :, :]).reshape(-1, pos.shape[1])
        diffs.append(d)
        weights.append(np.full(len(d), 1.0 / len(d)))
    x = np.vstack(diffs)
    w = np.concatenate(weights)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    x = np.vstack([x / scale, -x / scale])
    y = np.concatenate([np.ones(len(w)), np.zeros(len(w))])
    w = np.concatenate([w, w])
    model = LogisticRegression(C=c, max_iter=5000, fit_intercept=False)
    model.fit(x, y, sample_weight=w * len(w) / w.sum())
    return 0.0, model.coef_[0] / scale


def _pointwise(useful: list[dict], c: float) -> tuple[float, np.ndarray]:
    from sklearn.linear_model import LogisticRegression  # training only

    x = np.vstack([q["x"] for q in useful])
    y = np.concatenate([q["y"] for q in useful])
    w = np.concatenate([np.full(len(q["y"]), 1.0 / len(q["y"])) for q in useful])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=5000)
    model.fit((x - mean) / scale, y, sample_weight=w * len(useful) / w.sum() * len(y) / len(useful))
    coef = model.coef_[0] / scale
    return float(model.intercept_[0] - coef @ mean), coef


def recall(q: dict, scores: np.ndarray) -> float:
    order = np.argsort(-scores, kind="stable")[:TOP]
    found = {q["turns"][i] for i in order}
    return sum(1 for e in q["evidence"] if e in found) / len(q["evidence"])


def folds(questions: list[dict], c: float, pairwise: bool, drop: tuple[str, ...]) -> None:
    units = sorted({q["unit"] for q in questions})
    hand, learned = [], []
    for held in units:
        bias, coef = fit([q for q in questions if q["unit"] != held], c, pairwise, drop)
        for q in questions:
            if q["unit"] == held and len(q["y"]):
                hand.append(recall(q, -np.arange(len(q["y"]), dtype=float)))
                learned.append(recall(q, q["x"] @ coef + bias))
    print(f"C={c}: temporal recall@{TOP} hand {statistics.fmean(hand):.4f} learned {statistics.fmean(learned):.4f}")


def write(path: Path, bias: float, coef: np.ndarray, note: str) -> None:
    lines = [HEADER + f"#   {note}\n", "model: logistic\n", f"bias: {bias:.6g}\n", "weights:\n"]
    for name, weight in zip(FEATURES, coef.tolist(), strict=True):
        lines.append(f"  - feature: {name}\n    weight: {weight:.6g}\n")
    path.write_text("".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.train_ranker", description=__doc__)
    parser.add_argument("--data", required=True)
    parser.add_argument("--cache", required=True)
    parser.add_argument("--units", type=_units, default=(0, 1, 2, 3, 4), help="the tuning split (default 0-4)")
    parser.add_argument("--out", default="rules/ranker.yaml")
    parser.add_argument("--c", type=float, default=1.0, help="inverse regularisation strength")
    parser.add_argument("--folds", type=float, nargs="*", help="report leave-one-conversation-out for these C")
    parser.add_argument("--pairwise", action="store_true", help="fit on pairs (evidence, other) of a question")
    parser.add_argument("--drop", default="", help="features to leave out, comma-separated")
    parser.add_argument("--dump", help="a pickle of the features: read if it exists, else written")
    args = parser.parse_args(argv)
    if max(args.units) > 4:
        print("warning: conversations 5-9 are the held-out split", file=sys.stderr)
    if args.dump and Path(args.dump).is_file():
        questions = pickle.loads(Path(args.dump).read_bytes())
    else:
        questions = dump(args.data, Path(args.cache), args.units)
        if args.dump:
            Path(args.dump).write_bytes(pickle.dumps(questions))
    drop = tuple(f for f in args.drop.split(",") if f)
    for c in args.folds or ():
        folds(questions, c, args.pairwise, drop)
    bias, coef = fit(questions, args.c, args.pairwise, drop)
    units = ",".join(str(u) for u in args.units)
    how = " --pairwise" if args.pairwise else ""
    how += f" --drop {args.drop}" if drop else ""
    write(Path(args.out), bias, coef, f"--units {units} --c {args.c}{how}: {len(questions)} questions")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
