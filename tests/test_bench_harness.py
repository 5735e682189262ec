"""The harness end to end on small fixtures in the data sets' real formats."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from benchmarks.__main__ import main
from benchmarks.datasets import load_locomo, load_longmemeval, parse_lme_date

DATA = Path(__file__).parent / "data"


def test_bench_locomo_loader_parses_evidence_and_time():
    [unit] = load_locomo(DATA / "locomo_mini.json")
    assert unit.id == "conv-mini" and len(unit.turns) == 10
    assert unit.turns[0].timestamp == datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    assert "small brown dog" in unit.turns[3].text  # the photo caption is kept
    by_question = {q.question: q for q in unit.questions}
    messy = by_question["In which year did Maya take the pottery class?"]
    assert messy.evidence_turns == {"D1:1"} and messy.answer == "2023"  # D9:9 does not exist; int answer
    assert by_question["What did Maya adopt?"].answer == "a puppy"  # adversarial_answer
    assert all(q.asked_at == datetime(2023, 6, 2, 19, 31, tzinfo=timezone.utc) for q in unit.questions)


def test_bench_longmemeval_loader_sorts_sessions_and_maps_turns():
    units = load_longmemeval(DATA / "longmemeval_mini.json")
    first = units[0]
    assert [t.session_id for t in first.turns][::2] == ["s-dentist", "s-noise", "s-late"]
    assert first.questions[0].evidence_turns == {"s-late#0", "s-dentist#0"}
    assert first.session_of("s-late#1") == "s-late"
    assert units[2].questions[0].abstention
    assert parse_lme_date("2023/05/30 (Tue) 23:40") == datetime(2023, 5, 30, 23, 40, tzinfo=timezone.utc)


@pytest.mark.parametrize("dataset,fixture", [("locomo", "locomo_mini.json"), ("longmemeval", "longmemeval_mini.json")])
def test_bench_runner_writes_results(tmp_path, dataset, fixture, capsys):
    out = tmp_path / "out"
    assert main([dataset, "--data", str(DATA / fixture), "--out", str(out), "--quiet", "--k", "1,5"]) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["dataset"].startswith(dataset)
    assert set(results["systems"]) == {"memtracks", "bm25", "dense", "rrf"}
    for figures in results["systems"].values():
        for key in (
            "recall@1",
            "recall@5",
            "answer_in_context",
            "tokens_per_question",
            "retrieve_ms_p50",
            "retrieve_ms_p95",
            "by_category",
        ):
            assert key in figures
        assert 0.0 <= figures["recall@1"] <= figures["recall@5"] <= 1.0
    assert results["ingest_turns_per_s"] > 0
    assert sum(line.startswith("| memtracks |") for line in (out / "results.md").read_text().splitlines()) == 1
    assert (out / "recall_at_k.png").stat().st_size > 1000 and (out / "recall_by_category.png").exists()
    if dataset == "locomo":
        assert set(results["systems"]["memtracks"]["by_category"]) == {"1", "2", "3", "4", "5"}
        assert results["systems"]["memtracks"]["recall@5"] > 0.5
    else:
        assert results["systems"]["memtracks"]["questions"] == 2  # the _abs question is skipped


def test_bench_runner_missing_data_fails_clearly(tmp_path, capsys):
    assert main(["locomo", "--data", str(tmp_path / "nope.json"), "--out", str(tmp_path)]) == 2
    assert "not found" in capsys.readouterr().err


def test_bench_longmemeval_repeated_session_ids_get_distinct_turn_ids():
    unit = load_longmemeval(DATA / "longmemeval_mini.json")[1]
    ids = [t.turn_id for t in unit.turns]
    assert len(ids) == len(set(ids)) and "s-cat~2#0" in ids
    assert unit.session_of("s-cat~2#0") == "s-cat"


def _many_sessions(path: Path, sessions: int, turns_per_session: int) -> Path:
    """A LongMemEval question whose haystack has many short sessions about trips."""
    cities = [
        "Denver",
        "Boston",
        "Austin",
        "Seattle",
        "Chicago",
        "Miami",
        "Dallas",
        "Portland",
        "Phoenix",
        "Atlanta",
        "Detroit",
        "Nashville",
        "Tampa",
        "Omaha",
    ][:sessions]
    haystack = [
        [
            {
                "role": "user" if i % 2 == 0 else "assistant",
                "content": f"Trip note {i} about my flight to {city} for a conference.",
            }
            for i in range(turns_per_session)
        ]
        for city in cities
    ]
    question = {
        "question_id": "q-deep",
        "question_type": "multi-session",
        "question": "Which cities did I fly to for a conference?",
        "answer": "many",
        "question_date": "2023/07/01 (Sat) 10:00",
        "haystack_session_ids": [f"s-{c}" for c in cities],
        "haystack_dates": [f"2023/06/{i + 1:02d} (Thu) 09:00" for i in range(len(cities))],
        "haystack_sessions": haystack,
        "answer_session_ids": ["s-Denver"],
    }
    path.write_text(json.dumps([question]), encoding="utf-8")
    return path


def test_bench_depth_lets_longmemeval_rank_ten_distinct_sessions(tmp_path, toolkit, embedder):
    from benchmarks import metrics
    from benchmarks.runner import DEPTH, MAX_K, run

    units = load_longmemeval(_many_sessions(tmp_path / "lme.json", sessions=12, turns_per_session=4))
    to_session = units[0].session_of

    def sessions(depth: int) -> dict[str, int]:
        result = run("longmemeval", units, toolkit=toolkit, embedder=embedder, progress=False, depth=depth)
        return {a.system: len(metrics.unit_ranking(a.items, to_session)) for a in result.answers}

    shallow, deep = sessions(MAX_K), sessions(DEPTH["longmemeval"])
    # ten turns of four-turn sessions name fewer than ten sessions; fifty turns name all twelve
    assert shallow["dense"] < MAX_K and deep["dense"] == 12
    assert deep["rrf"] == 12 and all(deep[s] >= shallow[s] for s in shallow)
    assert DEPTH["locomo"] == MAX_K  # LoCoMo's @k counts items, not sessions


def test_bench_depth_below_the_largest_cutoff_is_refused(toolkit, embedder):
    from benchmarks.runner import MAX_K, run

    with pytest.raises(ValueError, match="depth must be at least"):
        run("locomo", [], toolkit=toolkit, embedder=embedder, progress=False, depth=MAX_K - 1)
