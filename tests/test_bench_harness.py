"""The harness end to end on small fixtures in the data sets' real formats."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from benchmarks.__main__ import main
from benchmarks.baselines import load_minilm
from benchmarks.datasets import evidence_ids, load_locomo, load_longmemeval, parse_lme_date

DATA = Path(__file__).parent / "data"


def test_bench_locomo_loader_parses_evidence_and_time():
    [unit] = load_locomo(DATA / "locomo_mini.json")
    assert unit.id == "conv-mini" and len(unit.turns) == 10
    assert unit.turns[0].timestamp == datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    assert "small brown dog" in unit.turns[3].text  # the photo caption is kept
    by_question = {q.question: q for q in unit.questions}
    messy = by_question["In which year did Maya take the pottery class?"]
    assert messy.evidence_turns == {"D1:1"} and messy.answer == "2023"  # D9:9 does not exist; int answer
    assert by_question["In which month did Leo fly to Chicago?"].evidence_turns == {"D2:1"}  # written "D2:01"
    assert by_question["What does Maya bake at work?"].evidence_turns == frozenset()
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
    expected = {"memtracks", "bm25", "dense-use", "rrf-use", "bm25s-default", "dense-use-names", "rrf-default"}
    if load_minilm() is not None:
        expected |= {"dense-minilm", "rrf-minilm"}
    assert set(results["systems"]) == expected
    assert results["strongest_baseline"] in expected - {"memtracks"}
    for figures in results["systems"].values():
        for key in (
            "recall@1",
            "recall@5",
            "answer_in_context",
            "recall_same_tokens",
            "recall@300tok",
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
    room = results["headroom"]["1-4" if dataset == "locomo" else "all"]
    assert room["recall@5"] <= room["rerank_top20"] <= room["rerank_top50"] <= room["rerank_union"] <= 1.0
    assert room["rerank_union"] <= room["in_pool_union"] and room["candidates_mean"] > 0
    assert "| rerank top 20 |" in (out / "results.md").read_text().replace(" | ", " |\n| ")
    if dataset == "locomo":
        mt = results["systems"]["memtracks"]
        assert set(mt["by_category"]) == {"1", "2", "3", "4", "5"}
        assert mt["recall@5"] > 0.5
        # one single-hop question has no evidence: counted, but not in the recall means
        assert (mt["questions"], mt["questions_scored"]) == (10, 9)
        assert (mt["by_category"]["4"]["n"], mt["by_category"]["4"]["n_scored"]) == (5, 4)
        assert "| 4 single-hop (open-domain) | 5 (4) |" in (out / "results.md").read_text()
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
    from benchmarks.runner import DEPTH, MAX_K, POOL_DEPTH, run

    units = load_longmemeval(_many_sessions(tmp_path / "lme.json", sessions=12, turns_per_session=4))
    to_session = units[0].session_of

    def sessions(depth: int) -> dict[str, int]:
        result = run("longmemeval", units, toolkit=toolkit, embedder=embedder, progress=False, depth=depth)
        return {a.system: len(metrics.unit_ranking(a.items, to_session)) for a in result.answers}

    shallow, deep = sessions(MAX_K), sessions(DEPTH["longmemeval"])
    # ten turns of four-turn sessions name fewer than ten sessions; fifty turns name all twelve
    assert shallow["dense-use"] < MAX_K and deep["dense-use"] == 12
    assert deep["rrf-use"] == 12 and all(deep[s] >= shallow[s] for s in shallow)
    assert DEPTH["locomo"] == DEPTH["longmemeval"] == POOL_DEPTH  # deep enough for the ceilings


def test_bench_depth_below_the_largest_cutoff_is_refused(toolkit, embedder):
    from benchmarks.runner import MAX_K, run

    with pytest.raises(ValueError, match="depth must be at least"):
        run("locomo", [], toolkit=toolkit, embedder=embedder, progress=False, depth=MAX_K - 1)


def test_bench_evidence_ids_drop_leading_zeros():
    assert evidence_ids("D30:05") == ["D30:5"]
    assert evidence_ids("D1:1; D9:9, D10:010") == ["D1:1", "D9:9", "D10:10"]
    assert evidence_ids("see above") == []


def test_bench_answer_ceilings_over_raw_turns():
    from benchmarks.runner import _Texts

    [unit] = load_locomo(DATA / "locomo_mini.json")
    texts = _Texts.of(unit)
    by_question = {q.question: q for q in unit.questions}
    month = texts.ceiling(by_question["In which month did Leo fly to Chicago?"])
    # "May 2023" is only in the date D2:1 was said (2023-05-20)
    assert (month.evidence, month.evidence_undated, month.whole, month.whole_undated) == (True, False, True, False)
    name = texts.ceiling(by_question["What is the name of Leo's puppy?"])
    assert name.evidence and name.evidence_undated and name.whole
    # "7 May 2023" was said as "yesterday" on 8 May: no raw turn holds it, dated or not
    day = texts.ceiling(by_question["When did Maya go to the pottery class?"])
    assert not (day.evidence or day.whole)
    none = texts.ceiling(by_question["What does Maya bake at work?"])
    assert not none.evidence and not none.whole  # no evidence turns; "pastries" never said


def test_bench_headroom_hand_computed():
    from benchmarks.datasets import Question
    from benchmarks.headroom import headroom, locomo_best
    from benchmarks.metrics import recall_acc
    from benchmarks.runner import Answer, Ceiling, Run

    asked = datetime(2023, 6, 2, tzinfo=timezone.utc)
    q = Question("q1", "What did Maya do?", "pottery", "1", asked, frozenset({"D1:1", "D1:2"}))
    empty = Question("q2", "What else?", "nothing", "1", asked, frozenset())
    filler = [[f"D9:{i}"] for i in range(30)]
    # memtracks: D1:1 at rank 6 (top 20), D1:2 nowhere; BM25 finds D1:2 at rank 3
    mt = filler[:5] + [["D1:1"]] + filler[5:]
    run = Run(
        "locomo",
        systems=["memtracks", "bm25"],
        answers=[
            Answer("memtracks", q, "u", mt, "[event] Maya: pottery", 4, 4, 1.0, candidates=22),
            Answer("bm25", q, "u", filler[:2] + [["D1:2"]], "", 0, 0, 1.0, candidates=3),
            Answer("memtracks", empty, "u", filler[:5], "", 0, 0, 1.0, candidates=10),
            Answer("bm25", empty, "u", filler[:5], "", 0, 0, 1.0, candidates=5),
        ],
    )
    run.ceilings[("u", "q1")] = Ceiling(whole=True, whole_undated=True, evidence=True, evidence_undated=False)
    run.ceilings[("u", "q2")] = Ceiling(whole=False, whole_undated=False, evidence=False, evidence_undated=False)
    room = headroom(
        run, {"1": [("u", "q1"), ("u", "q2")]}, locomo_best, lambda a: recall_acc(a.items, a.question.evidence_turns, 5)
    )
    f = room["1"]
    assert (f["n"], f["n_scored"]) == (2, 1)
    assert (f["recall@5"], f["rerank_top20"], f["rerank_top50"], f["rerank_union"]) == (0.0, 0.5, 0.5, 1.0)
    assert (f["in_pool_top50"], f["in_pool_union"]) == (0.5, 1.0)
    assert f["candidates_mean"] == 16 and f["cards_mean"] == (31 + 5) / 2
    assert f["union_items_mean"] == (32 + 5) / 2  # D1:2 joins memtracks' 31; q2's lists are the same 5
    assert f["answer_in_context"] == 0.5 and f["ceiling_whole"] == 0.5 and f["ceiling_evidence_undated"] == 0.0
    assert room["union_of"] == ["memtracks", "bm25"]


def test_bench_locomo_splits_and_dump(tmp_path):
    """--tune N reports the first N conversations and the rest apart; --units picks conversations;
    --dump writes every system's ranked items per question."""
    sample = json.loads((DATA / "locomo_mini.json").read_text())[0]
    other = json.loads(json.dumps(sample)) | {"sample_id": "conv-other"}
    data = tmp_path / "two.json"
    data.write_text(json.dumps([sample, other]), encoding="utf-8")
    out, dump = tmp_path / "out", tmp_path / "answers.jsonl"
    args = ["locomo", "--data", str(data), "--out", str(out), "--quiet", "--no-minilm", "--tune", "1"]
    assert main([*args, "--dump", str(dump)]) == 0
    results = json.loads((out / "results.json").read_text())
    tuning, held = results["splits"].values()
    assert tuning["units"] == ["conv-mini"] and held["units"] == ["conv-other"]
    # the same conversation twice: each split scores what the whole run scores
    whole = results["systems"]["memtracks"]["recall@5"]
    assert tuning["systems"]["memtracks"]["recall@5"] == pytest.approx(whole)
    assert held["systems"]["memtracks"]["recall@5"] == pytest.approx(whole)
    assert "| tuning (0-0) | memtracks |" in (out / "results.md").read_text()
    rows = [json.loads(line) for line in dump.read_text().splitlines()]
    mt = [r for r in rows if r["system"] == "memtracks"]
    assert len(mt) == 2 * len(sample["qa"]) and all("pool" in r for r in mt)
    assert {r["system"] for r in rows} >= {"memtracks", "bm25", "rrf-use"}
    assert main([*args[:-2], "--out", str(tmp_path / "one"), "--units", "1"]) == 0
    one = json.loads((tmp_path / "one" / "results.json").read_text())
    assert "splits" not in one and one["systems"]["memtracks"]["questions"] == 10


ZH_CHAT = Path(__file__).parent.parent / "benchmarks" / "data" / "zh_chat.json"


def test_bench_chinese_benchmark_is_well_formed():
    """The Chinese benchmark: at least 4 multi-session conversations of 60+ turns over weeks, 120+
    questions whose evidence ids all exist, some of it in Traditional Chinese."""
    data = json.loads(ZH_CHAT.read_text(encoding="utf-8"))
    units = load_locomo(ZH_CHAT)
    assert len(units) >= 4 and sum(len(u.questions) for u in units) >= 120
    for sample, unit in zip(data, units, strict=True):
        assert len(unit.turns) >= 60
        span = unit.turns[-1].timestamp - unit.turns[0].timestamp
        assert span.days >= 21 and len({t.session_id for t in unit.turns}) >= 5
        raw = [e for qa in sample["qa"] for e in qa["evidence"]]
        assert all(q.evidence_turns for q in unit.questions) and len(evidence_ids(" ".join(raw))) == len(raw)
        assert {q.category for q in unit.questions} >= {"1", "2", "4"}
    traditional = sum(t.text.count("們") + t.text.count("說") for u in units for t in u.turns)
    assert traditional > 10


def test_bench_locomo_reader_detects_each_turns_language(toolkit, embedder):
    """Regression: the LoCoMo reader marked every turn English, so a LoCoMo-format Chinese file
    never reached the Chinese pipeline."""
    from memtracks import Memory
    from memtracks.interfaces.io import read_locomo

    turns = [t for t in read_locomo(ZH_CHAT, timezone.utc) if t.session_id == "session_1"]
    assert all(t.lang is None for t in turns)
    mem = Memory(toolkit=toolkit, embedder=embedder)
    mem.write_many(turns)
    langs = {e.lang for e in mem.events(user_id="zh-chat-1")} | {e.lang for e in mem.events(user_id="zh-chat-4")}
    assert langs == {"zh"}
