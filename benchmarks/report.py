"""Writing results: ``results.json``, a markdown table, and PNG plots."""

from __future__ import annotations

import json
from pathlib import Path


def write_json(results: dict, out: Path) -> Path:
    path = out / "results.json"
    path.write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def markdown(results: dict, ks: tuple[int, ...]) -> str:
    lme = results["dataset"].startswith("longmemeval")
    head = ["system", *[f"recall@{k}" for k in ks]]
    if lme:
        head += [f"ndcg@{k}" for k in ks] + [f"turn_recall@{k}" for k in ks]
    head += [
        "recall, memtracks' tokens",
        "recall, 300 tokens",
        "answer in context",
        "same tokens as memtracks",
        "without dates",
        "tokens/question",
        "retrieve p50 ms",
        "p95 ms",
    ]
    lines = [f"### {results['dataset']}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for system in results["systems"]:
        f = results["systems"][system]
        row = [_name(results, system), *[f"{f[f'recall@{k}']:.3f}" for k in ks]]
        if lme:
            row += [f"{f[f'ndcg@{k}']:.3f}" for k in ks] + [f"{f[f'turn_recall@{k}']:.3f}" for k in ks]
        undated = f.get("answer_in_context_undated")
        row += [
            f"{f.get('recall_same_tokens', 0.0):.3f}",
            f"{f.get('recall@300tok', 0.0):.3f}",
            f"{f['answer_in_context']:.3f}",
            f"{f.get('answer_in_context_same_tokens', 0.0):.3f}",
            "–" if undated is None else f"{undated:.3f}",
            f"{f['tokens_per_question']:.0f}",
            f"{f['retrieve_ms_p50']:.1f}",
            f"{f['retrieve_ms_p95']:.1f}",
        ]
        lines.append("| " + " | ".join(row) + " |")
    mt = results["systems"]["memtracks"]
    lines += [
        "",
        f"{mt['questions']} questions, {mt.get('questions_scored', mt['questions'])} with evidence: "
        "recall over those with evidence, answer in context over all. *memtracks' tokens*: each "
        "system's first items that fit in the tokens of memtracks' top 5 cards on the same question "
        "(an item is a card, or a raw turn led by its day); *300 tokens*: those that fit in 300. "
        "*without dates*: a baseline's top-5 raw turns without the date each was said.",
    ]
    lines += _notes(results)
    lines += [
        "",
        _category_table(results, ks),
        "",
        split_table(results, ks[0]),
        "",
        headroom_table(results),
        "",
        f"Ingest: {results['ingest_turns_per_s']:.0f} turns/s over {results['turns']} turns; "
        f"peak RSS {results['peak_rss_mb']:.0f} MB.",
    ]
    lines.append(
        f"memtracks context: {mt['tokens_per_question']:.0f} tokens per question for the top 5 cards vs "
        f"{mt['cited_raw_tokens_per_question']:.0f} tokens of the raw turns they cite "
        f"({100 * mt['tokens_vs_cited_raw']:.0f}%)."
    )
    if "qa" in mt:
        lines.append(f"QA (LLM): F1 {mt['qa']['f1']:.3f}, judge accuracy {mt['qa']['judge_accuracy']}")
    return "\n".join(lines) + "\n"


def _name(results: dict, system: str) -> str:
    return f"{system} ★" if system == results.get("strongest_baseline") else system


def _notes(results: dict) -> list[str]:
    lines = [
        "",
        "Systems: "
        + "; ".join(f"`{s}` {f['label']}" for s, f in results["systems"].items())
        + ". ★ strongest baseline by recall@5.",
    ]
    lines += [f"Note: {note}." for note in results.get("notes", [])]
    return lines


def _category_label(results: dict, cat: str) -> str:
    info = results["systems"]["memtracks"]["by_category"].get(cat)
    if results["dataset"].startswith("longmemeval") or info is None:
        return cat
    return f"{cat} {info['name']} ({info['mem0_name'].split(' (')[0]})"


def _category_table(results: dict, ks: tuple[int, ...]) -> str:
    k = ks[0]
    cats = list(results["systems"]["memtracks"]["by_category"])
    lme = results["dataset"].startswith("longmemeval")
    systems = list(results["systems"])
    head = ["category", "n (scored)", *[_name(results, s) for s in systems]]
    lines = [
        f"recall@{k} by category" + ("" if lme else " (LoCoMo numbering; Mem0 paper's name in brackets)"),
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for cat in cats:
        info = results["systems"]["memtracks"]["by_category"][cat]
        n = str(info["n"]) if info.get("n_scored", info["n"]) == info["n"] else f"{info['n']} ({info['n_scored']})"
        row = [_category_label(results, cat), n]
        row += [f"{results['systems'][s]['by_category'].get(cat, {}).get(f'recall@{k}', 0.0):.3f}" for s in systems]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def split_table(results: dict, k: int) -> str:
    """recall@k by split (tuning and held-out conversations) and category, every system."""
    splits = results.get("splits") or {}
    if not splits:
        return ""
    cats = list(results["systems"]["memtracks"]["by_category"])
    head = ["split", "system", "n (scored)", f"recall@{k} (1-4)", *[_category_label(results, c) for c in cats]]
    head.append("answer in context")
    lines = [
        f"recall@{k} by split: tuning conversations (the defaults were tuned on them) and held-out ones",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for name, split in splits.items():
        for system, f in split["systems"].items():
            n = f"{f['questions']} ({f['questions_scored']})"
            row = [name, _name(results, system), n, f"{f[f'recall@{k}']:.3f}"]
            row += [f"{f['by_category'].get(c, {}).get(f'recall@{k}', 0.0):.3f}" for c in cats]
            row.append(f"{f['answer_in_context']:.3f}")
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


HEADROOM_COLUMNS = (
    ("recall@5", "memtracks recall@5"),
    ("rerank_top20", "rerank top 20"),
    ("rerank_top50", "rerank top 50"),
    ("rerank_union", "rerank union"),
    ("in_pool_top50", "in top 50"),
    ("in_pool_union", "in union"),
    ("candidates_mean", "candidates"),
    ("deep_candidates_mean", "deep candidates"),
    ("union_items_mean", "union items"),
    ("answer_in_context", "memtracks answer in context"),
    ("ceiling_whole", "ceiling: whole conversation"),
    ("ceiling_evidence", "ceiling: evidence turns"),
    ("ceiling_evidence_undated", "evidence, no dates"),
)


def headroom_table(results: dict) -> str:
    """memtracks' recall@5 beside what a perfect reranker over its pools would reach, and the
    answer-in-context ceilings (see ``headroom.py``)."""
    room = results.get("headroom") or {}
    groups = [g for g in room if g != "union_of"]
    if not groups:
        return ""
    head = ["questions", "n (scored)", *[title for _, title in HEADROOM_COLUMNS]]
    lines = [
        f"Headroom (perfect reranker's recall@5 over memtracks' top 20 cards, over its top 50 with 50 "
        f"candidates per track, and over the union of that and the top 50 of {', '.join(room['union_of'])}; evidence share in those pools; answer-in-context "
        "ceilings over raw turns)",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for group in groups:
        f = room[group]
        n = str(f["n"]) if f["n_scored"] == f["n"] else f"{f['n']} ({f['n_scored']})"
        cells = [f"{f[key]:.1f}" if key.endswith("_mean") else f"{f[key]:.3f}" for key, _ in HEADROOM_COLUMNS]
        lines.append("| " + " | ".join([_category_label(results, group), n, *cells]) + " |")
    return "\n".join(lines)


def plots(results: dict, out: Path) -> list[Path]:
    """recall@k curves per system, and recall by category."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made = []
    systems = list(results["systems"])
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for system in systems:
        curve = results["systems"][system]["recall_curve"]
        ax.plot([int(k) for k in curve], list(curve.values()), marker="o", label=system)
    lme = results["dataset"].startswith("longmemeval")
    ax.set_xlabel("k (distinct sessions cited, in rank order)" if lme else "k (items in the prompt)")
    ax.set_ylabel("session recall_all@k" if lme else "evidence recall@k")
    ax.set_title(results["dataset"])
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    path = out / "recall_at_k.png"
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    made.append(path)

    cats = list(results["systems"]["memtracks"]["by_category"])
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(cats) + 2), 4))
    width = 0.8 / len(systems)
    key = (
        "recall@5"
        if "recall@5" in results["systems"]["memtracks"]
        else next(k for k in results["systems"]["memtracks"] if k.startswith("recall@"))
    )
    for n, system in enumerate(systems):
        values = [results["systems"][system]["by_category"].get(c, {}).get(key, 0.0) for c in cats]
        ax.bar([i + n * width for i in range(len(cats))], values, width, label=system)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(cats))])
    ax.set_xticklabels(cats, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(key)
    ax.set_title(f"{results['dataset']}: {key} by category")
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = out / "recall_by_category.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    made.append(path)
    return made
