"""Train the statement reader: what a clause does with what it names.

    python -m benchmarks.train_statements [--data benchmarks/data/statements] [--seed 13]
        [--out memtracks/models/statement_reader.npz] [--report benchmarks/results/statement_reader.json]
        [--features FILE.npy]

The corpus (``benchmarks/data/statements/*.jsonl``: English, Simplified and Traditional
Chinese clauses, written fresh in many phrasings plus real LoCoMo and zh_chat turns, one JSON
object per line with ``text``, ``lang``, ``kind``, ``slot``, ``family``, ``source``) is split
into train / dev / test by phrasing family, so no phrasing is seen in training and tested
too. Each clause is read as the writer reads it: the multilingual sentence vector (the
default embedder, USE v3) beside the statement markers of ``lexicons/statements.yaml``
(negated, ceased, planned, question...) and its hashed words and word pairs. A multinomial logistic regression (numpy, L2, class
weights balanced, full-batch Adam, a fixed seed) is fit on train; the L2 strength is chosen
on dev (400 epochs); the test split is scored once. A second head of the same form reads
which slot the clause is about (the corpus's ``slot``, or none), chosen and scored the same way.
The weights ship in the package. ``--features`` keeps the clauses' features in a file, reused
while the corpus is unchanged.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from memtracks.pipeline.statement_reader import KINDS, NO_SLOT, StatementReader, features
from memtracks.retrieval.embedders import USEEmbedder
from memtracks.toolkit import Toolkit

ROOT = Path(__file__).resolve().parent.parent


def read_corpus(folder: Path, slots: frozenset[str]) -> list[dict]:
    rows = []
    for path in sorted(folder.glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            row = json.loads(line)
            if row.get("kind") not in KINDS:
                raise SystemExit(f"{path.name}:{n}: kind {row.get('kind')!r} is none of {', '.join(KINDS)}")
            if row.get("slot") is not None and row["slot"] not in slots:
                raise SystemExit(f"{path.name}:{n}: slot {row['slot']!r} is not in rules/slots.yaml")
            rows.append(row)
    return rows


def split_of(family: str, seed: int) -> str:
    """train 70% / dev 10% / test 20% of the families, by a seeded hash of the family."""
    h = int(hashlib.sha1(f"{seed}:{family}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "test" if h < 0.2 else "dev" if h < 0.3 else "train"


def fit(x: np.ndarray, y: np.ndarray, k: int, l2: float, epochs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Softmax regression over ``k`` classes with balanced class weights, full-batch Adam."""
    rng = np.random.default_rng(seed)
    w = rng.normal(0, 0.01, (x.shape[1], k)).astype(np.float32)
    b = np.zeros(k, dtype=np.float32)
    counts = np.bincount(y, minlength=k).astype(np.float32)
    weight = (len(y) / (k * np.maximum(counts, 1)))[y].astype(np.float32)
    onehot = np.eye(k, dtype=np.float32)[y]
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    lr, beta1, beta2 = 0.05, 0.9, 0.999
    for t in range(1, epochs + 1):
        z = x @ w + b
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) * weight[:, None] / weight.sum()
        grads = [x.T @ g + l2 * w, g.sum(axis=0)]
        for i, (param, grad) in enumerate(zip((w, b), grads, strict=True)):
            m[i] = beta1 * m[i] + (1 - beta1) * grad
            v[i] = beta2 * v[i] + (1 - beta2) * grad * grad
            param -= lr * (m[i] / (1 - beta1**t)) / (np.sqrt(v[i] / (1 - beta2**t)) + 1e-8)
    return w, b


def scores(y: np.ndarray, pred: np.ndarray, classes: tuple[str, ...] = KINDS) -> dict:
    per = {}
    for i, kind in enumerate(classes):
        tp = int(((pred == i) & (y == i)).sum())
        fp = int(((pred == i) & (y != i)).sum())
        fn = int(((pred != i) & (y == i)).sum())
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        per[kind] = {
            "precision": round(p, 3),
            "recall": round(r, 3),
            "f1": round(2 * p * r / (p + r) if p + r else 0.0, 3),
            "n": tp + fn,
        }
    macro = float(np.mean([c["f1"] for c in per.values()]))
    return {"macro_f1": round(macro, 3), "accuracy": round(float((y == pred).mean()), 3), "classes": per}


def clause_features(rows: list[dict], embedder: USEEmbedder, toolkit: Toolkit, cache: Path | None) -> np.ndarray:
    """The features of every clause, from ``cache`` when it holds them for these texts."""
    texts = [r["text"] for r in rows]
    digest = hashlib.sha1("\n".join(texts).encode("utf-8")).hexdigest()
    if cache is not None and cache.exists() and cache.with_suffix(".sha1").exists():
        if cache.with_suffix(".sha1").read_text().strip() == digest:
            return np.load(cache)
    print(f"{len(rows)} clauses; embedding…", file=sys.stderr)
    x = features(texts, embedder, toolkit)
    if cache is not None:
        np.save(cache, x)
        cache.with_suffix(".sha1").write_text(digest + "\n")
    return x


def train_head(
    name: str, x: np.ndarray, y: np.ndarray, classes: tuple[str, ...], split: np.ndarray, rows: list[dict], seed: int
) -> dict:
    """Fit one head: L2 and epochs chosen on dev, test scored once (overall and by language),
    the shipped weights refit on train + dev with the chosen setting (test stays unseen)."""
    tried = []
    best = None
    train, dev = split == "train", split == "dev"
    for l2 in (1e-5, 1e-4):
        for epochs in (400,):
            w, b = fit(x[train], y[train], len(classes), l2, epochs, seed)
            got = scores(y[dev], (x[dev] @ w + b).argmax(axis=1), classes)
            tried.append({"l2": l2, "epochs": epochs, "dev_macro_f1": got["macro_f1"]})
            print(f"{name}: l2 {l2:g} epochs {epochs}: dev macro F1 {got['macro_f1']:.3f}", file=sys.stderr)
            if best is None or got["macro_f1"] > best[0]:
                best = (got["macro_f1"], l2, epochs)
    assert best is not None
    _, l2, epochs = best
    w, b = fit(x[train], y[train], len(classes), l2, epochs, seed)
    test = scores(y[split == "test"], (x[split == "test"] @ w + b).argmax(axis=1), classes)
    by_lang = {}
    for lang in sorted({r["lang"] for r in rows}):
        pick = (split == "test") & np.array([r["lang"] == lang for r in rows])
        if pick.any():
            by_lang[lang] = scores(y[pick], (x[pick] @ w + b).argmax(axis=1), classes)["macro_f1"]
    fit_on = split != "test"
    w, b = fit(x[fit_on], y[fit_on], len(classes), l2, epochs, seed)
    return {
        "tried": tried,
        "chosen": {"l2": l2, "epochs": epochs},
        "test": test,
        "test_macro_f1_by_lang": by_lang,
        "weights": (w, b),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(ROOT / "benchmarks" / "data" / "statements"))
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", default=str(ROOT / "memtracks" / "models" / "statement_reader.npz"))
    ap.add_argument("--report", default=str(ROOT / "benchmarks" / "results" / "statement_reader.json"))
    ap.add_argument("--features", help="a .npy file keeping the clauses' features between runs")
    args = ap.parse_args(argv)
    toolkit = Toolkit.load()
    rows = read_corpus(Path(args.data), frozenset(s.name for s in toolkit.catalogue.slots))
    embedder = USEEmbedder()
    x = clause_features(rows, embedder, toolkit, Path(args.features) if args.features else None)
    split = np.array([split_of(r["family"], args.seed) for r in rows])
    kinds = np.array([KINDS.index(r["kind"]) for r in rows])
    slots = (NO_SLOT, *sorted({r["slot"] for r in rows if r.get("slot")}))
    about = np.array([slots.index(r.get("slot") or NO_SLOT) for r in rows])
    kind_head = train_head("kind", x, kinds, KINDS, split, rows, args.seed)
    slot_head = train_head("slot", x, about, slots, split, rows, args.seed)
    (w, b), (sw, sb) = kind_head.pop("weights"), slot_head.pop("weights")
    StatementReader(
        w.astype(np.float32), b.astype(np.float32), embedder.name, sw.astype(np.float32), sb.astype(np.float32), slots
    ).save(Path(args.out))
    report = {
        "clauses": len(rows),
        "families": len({r["family"] for r in rows}),
        "split": {s: int((split == s).sum()) for s in ("train", "dev", "test")},
        **kind_head,
        "slot_head": slot_head,
        "seed": args.seed,
    }
    Path(args.report).parent.mkdir(parents=True, exist_ok=True)
    Path(args.report).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    for name, head in (("kind", kind_head), ("slot", slot_head)):
        test = head["test"]
        print(
            f"{name}: test macro F1 {test['macro_f1']:.3f}, accuracy {test['accuracy']:.3f}, by lang {head['test_macro_f1_by_lang']}"
        )
        for cls, c in test["classes"].items():
            print(f"  {cls:19s} P {c['precision']:.3f} R {c['recall']:.3f} F1 {c['f1']:.3f} (n={c['n']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
