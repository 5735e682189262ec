"""Writing results: ``results.json``, a markdown table, and PNG plots."""

from __future__ import annotations

import json
from pathlib import Path

from .runner import SYSTEMS


def write_json(results: dict, out: Path) -> Path:
    path = out / "results.json"
    path.write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def markdown(results: dict, ks: tuple[int, ...]) -> str:
    lme = results["dataset"].startswith("longmemeval")
    head = ["system", *[f"recall@{k}" for k in ks]]
    if lme:
        head += [f"ndcg@{k}" for k in ks] + [f"turn_recall@{k}" for k in ks]
    head += ["answer in context", "same tokens as memtracks", "tokens/question", "retrieve p50 ms", "p95 ms"]
    lines = [f"### {results['dataset']}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for system in SYSTEMS:
        f = results["systems"][system]
        row = [system, *[f"{f[f'recall@{k}']:.3f}" for k in ks]]
        if lme:
            row += [f"{f[f'ndcg@{k}']:.3f}" for k in ks] + [f"{f[f'turn_recall@{k}']:.3f}" for k in ks]
        row += [
            f"{f['answer_in_context']:.3f}",
            f"{f.get('answer_in_context_same_tokens', 0.0):.3f}",
            f"{f['tokens_per_question']:.0f}",
            f"{f['retrieve_ms_p50']:.1f}",
            f"{f['retrieve_ms_p95']:.1f}",
        ]
        lines.append("| " + " | ".join(row) + " |")
    lines += [
        "",
        _category_table(results, ks),
        "",
        f"Ingest: {results['ingest_turns_per_s']:.0f} turns/s over {results['turns']} turns; "
        f"peak RSS {results['peak_rss_mb']:.0f} MB.",
    ]
    mt = results["systems"]["memtracks"]
    lines.append(
        f"memtracks context: {mt['tokens_per_question']:.0f} tokens per question for the top 5 cards vs "
        f"{mt['cited_raw_tokens_per_question']:.0f} tokens of the raw turns they cite "
        f"({100 * mt['tokens_vs_cited_raw']:.0f}%)."
    )
    if "qa" in mt:
        lines.append(f"QA (LLM): F1 {mt['qa']['f1']:.3f}, judge accuracy {mt['qa']['judge_accuracy']}")
    return "\n".join(lines) + "\n"


def _category_table(results: dict, ks: tuple[int, ...]) -> str:
    k = ks[0]
    cats = list(results["systems"]["memtracks"]["by_category"])
    lme = results["dataset"].startswith("longmemeval")
    head = ["category", "n", *SYSTEMS]
    lines = [
        f"recall@{k} by category" + ("" if lme else " (LoCoMo numbering; Mem0 paper's name in brackets)"),
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for cat in cats:
        info = results["systems"]["memtracks"]["by_category"][cat]
        label = cat if lme else f"{cat} {info['name']} ({info['mem0_name'].split(' (')[0]})"
        row = [label, str(info["n"])]
        row += [f"{results['systems'][s]['by_category'].get(cat, {}).get(f'recall@{k}', 0.0):.3f}" for s in SYSTEMS]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def plots(results: dict, out: Path) -> list[Path]:
    """recall@k curves per system, and recall by category."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made = []
    fig, ax = plt.subplots(figsize=(6, 4))
    for system in SYSTEMS:
        curve = results["systems"][system]["recall_curve"]
        ax.plot([int(k) for k in curve], list(curve.values()), marker="o", label=system)
    lme = results["dataset"].startswith("longmemeval")
    ax.set_xlabel("k (distinct sessions cited, in rank order)" if lme else "k (items in the prompt)")
    ax.set_ylabel("session recall_all@k" if lme else "evidence recall@k")
    ax.set_title(results["dataset"])
    ax.grid(alpha=0.3)
    ax.legend()
    path = out / "recall_at_k.png"
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    made.append(path)

    cats = list(results["systems"]["memtracks"]["by_category"])
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(cats) + 2), 4))
    width = 0.8 / len(SYSTEMS)
    key = (
        "recall@5"
        if "recall@5" in results["systems"]["memtracks"]
        else next(k for k in results["systems"]["memtracks"] if k.startswith("recall@"))
    )
    for n, system in enumerate(SYSTEMS):
        values = [results["systems"][system]["by_category"].get(c, {}).get(key, 0.0) for c in cats]
        ax.bar([i + n * width for i in range(len(cats))], values, width, label=system)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(cats))])
    ax.set_xticklabels(cats, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(key)
    ax.set_title(f"{results['dataset']}: {key} by category")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = out / "recall_by_category.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    made.append(path)
    return made
