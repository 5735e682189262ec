"""The temporal track's learned ranker (retrieval/ranker.py, rules/ranker.yaml): the data file,
the features on a real memory, and what it changes in the order, in English and Chinese."""

from __future__ import annotations

import dataclasses
import math
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memtracks import Turn
from memtracks.config import MemoryConfig, RetrievalConfig
from memtracks.data.ranker import FEATURES, Ranker, default_ranker, load_ranker
from memtracks.errors import DataFileError, InvalidInputError
from memtracks.retrieval.hits import covered
from memtracks.retrieval.ranker import features, held, learned_order
from memtracks.retrieval.temporal import cosines, event_pool, retrieve_events, spread
from memtracks.toolkit import Toolkit

T0 = datetime(2024, 5, 6, 20, tzinfo=timezone(timedelta(hours=8)))

ENGLISH = [
    ("Mel", "Hey Caroline! What did you do last weekend?"),
    ("Caroline", "I drove up to the lake and went kayaking with my sister, we paddled about eight miles."),
    ("Mel", "That's awesome, so happy for you!"),
    ("Caroline", "Thanks! How is the new job going?"),
    ("Mel", "Busy, I am leading the design of a mobile banking app now."),
    ("Caroline", "Wow, great!"),
]
CHINESE = [
    ("林晓", "陈默，你上周末干什么了？"),
    ("陈默", "我和我姐去千岛湖划皮划艇了，划了差不多十公里，晚上住在湖边的民宿。"),
    ("林晓", "哇，太棒了，真为你开心！"),
    ("陈默", "谢谢！你新工作怎么样？"),
    ("林晓", "挺忙的，我现在负责一个手机银行应用的界面设计。"),
    ("陈默", "厉害厉害！"),
]


def write(mem, turns, user="u1"):
    for n, (speaker, text) in enumerate(turns):
        mem.write(
            Turn(
                text,
                speaker=speaker,
                user_id=user,
                session_id="s1",
                timestamp=T0 + timedelta(minutes=n),
                turn_id=f"t{n}",
            )
        )


def pool(mem, question, user="u1", ranker="hand"):
    mem.reader.config = dataclasses.replace(
        mem.reader.config, retrieval=dataclasses.replace(mem.reader.config.retrieval, ranker=ranker)
    )
    query = mem.reader.analyze(question, user_id=user, now=T0 + timedelta(days=1))
    ctx = mem.reader.context(user)
    return query, ctx


def turn_of(mem, user="u1"):
    return {e.id: e.turn_id for e in mem.store.events(user)}


# ------------------------------------------------------------------ the data file


def test_ranker_bundled_file_weighs_known_features():
    ranker = default_ranker()
    assert ranker.path.endswith("ranker.yaml")
    named = ranker.named()
    assert set(named) == set(FEATURES)
    assert sum(1 for w in named.values() if w != 0) >= 10  # a fitted model, not a placeholder
    assert all(math.isfinite(w) for w in named.values())


@pytest.mark.parametrize(
    "body,needle",
    [
        (
            "model: logistic\nbias: 0\nweights:\n  - feature: relevance\n    weight: 1\n  - feature: bogus\n    weight: 2\n",
            "weights[1] 'bogus': field 'feature': unknown feature 'bogus'",
        ),
        (
            "model: logistic\nbias: 0\nweights:\n  - feature: coverage\n    weight: high\n",
            "weights[0] 'coverage': field 'weight'",
        ),
        (
            "model: logistic\nbias: 0\nweights:\n  - feature: coverage\n    weight: 1\n    colour: red\n",
            "weights[0] 'coverage': field 'colour'",
        ),
        (
            "model: logistic\nbias: 0\nweights:\n  - feature: coverage\n    weight: 1\n  - feature: coverage\n    weight: 2\n",
            "weights[1] 'coverage': field 'feature': duplicate id 'coverage'",
        ),
        ("model: forest\nbias: 0\nweights: []\n", "field 'model'"),
        ("model: logistic\nweights: []\n", "field 'bias'"),
        ("model: logistic\nbias: .nan\nweights: []\n", "field 'bias': must be a finite number"),
        ("- just a list\n", "must be a mapping"),
    ],
)
def test_ranker_bad_file_names_file_entry_field(tmp_path, body, needle):
    path = tmp_path / "ranker.yaml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        load_ranker(path)
    assert str(path) in str(err.value)
    assert needle in str(err.value)


def test_ranker_file_from_a_rules_folder_replaces_the_bundled_one(tmp_path):
    (tmp_path / "ranker.yaml").write_text(
        "model: logistic\nbias: 0.5\nweights:\n  - feature: coverage\n    weight: 3\n"
    )
    toolkit = Toolkit.load(rules_dir=tmp_path, nlp=Toolkit.load().nlp)
    assert toolkit.ranker.bias == 0.5
    assert toolkit.ranker.named()["coverage"] == 3.0
    assert toolkit.ranker.named()["relevance"] == 0.0  # a feature left out weighs nothing
    (tmp_path / "ranker.yaml").write_text("model: logistic\nbias: 0\nweights:\n  - feature: nope\n    weight: 1\n")
    with pytest.raises(DataFileError, match="weights\\[0\\] 'nope': field 'feature'"):
        Toolkit.load(rules_dir=tmp_path)


def test_ranker_setting_is_checked():
    assert RetrievalConfig(ranker="learned").ranker == "learned"
    with pytest.raises(InvalidInputError, match="ranker"):
        RetrievalConfig(ranker="magic")


# ------------------------------------------------------------------ the features


@pytest.mark.parametrize(
    "turns,question", [(ENGLISH, "What did Caroline do last weekend?"), (CHINESE, "陈默上周末干什么了？")]
)
def test_ranker_features_of_a_real_memory(make_memory, tmp_path, turns, question):
    mem = make_memory(tmp_path / "m.db")
    write(mem, turns)
    query, ctx = pool(mem, question)
    ranked, heads = event_pool(query, ctx, ctx.config.k_temporal)
    ids, x = features(ranked, heads, cosines(ranked, query, ctx), query)
    col = {f: x[:, n] for n, f in enumerate(FEATURES)}
    assert x.shape == (len(ranked), len(FEATURES)) and np.isfinite(x).all()
    assert ids == sorted(ranked, key=lambda i: (-ranked[i][0], i))  # the hand order
    assert col["relevance"].tolist() == [ranked[i][0] for i in ids]
    assert col["relevance_gap"][0] == 0.0 and (col["relevance_gap"] <= 0).all()
    assert np.allclose(col["hand_rank"], np.log1p(np.arange(len(ids))))
    by_turn = {turn_of(mem)[i]: n for n, i in enumerate(ids)}
    asked, answer = by_turn["t0"], by_turn["t1"]
    assert col["question"][asked] == 1.0 and col["question"][answer] == 0.0
    assert col["answer"][answer] == 1.0  # the reply to the question turn that matched
    assert col["content_words"][answer] > col["content_words"][by_turn.get("t2", answer)] or "t2" not in by_turn
    assert 0.0 < col["coverage"][asked] <= 1.0  # the question turn shares the question's words
    assert col["coverage"][asked] >= col["coverage"][answer]
    assert (col["session_count"] == math.log1p(len(ids))).all()  # one session holds them all
    assert col["is_session_best"].sum() == 1.0 and col["is_session_best"][0] == 1.0
    assert col["session_support"][0] == col["relevance"][1]  # the best one's support: the next best
    assert (col["session_support"][1:] == col["relevance"][0]).all()
    assert (col["has_window"] == 1.0).all() and (col["aggregate"] == 0.0).all()
    assert (col["window_x_time_closeness"] == col["time_closeness"]).all()


def test_ranker_features_flag_the_assistant(make_memory, tmp_path):
    mem = make_memory(tmp_path / "m.db")
    write(
        mem,
        [
            ("user", "Which hiking boots should I buy for the Alps?"),
            ("assistant", "For the Alps, buy stiff leather hiking boots with a Vibram sole."),
        ],
    )
    query, ctx = pool(mem, "What hiking boots did the assistant suggest for the Alps?")
    ranked, heads = event_pool(query, ctx, 15)
    ids, x = features(ranked, heads, cosines(ranked, query, ctx), query)
    flags = {turn_of(mem)[i]: x[n, FEATURES.index("assistant")] for n, i in enumerate(ids)}
    assert flags == {"t0": 0.0, "t1": 1.0}


# ------------------------------------------------------------------ the order


@pytest.mark.parametrize(
    "turns,question,answer",
    [
        (ENGLISH, "What did Caroline do last weekend?", "t1"),
        (CHINESE, "陈默上周末干什么了？", "t1"),
        (ENGLISH, "What does Mel work on at the new job?", "t4"),
        (CHINESE, "林晓的新工作负责什么？", "t4"),
    ],
)
def test_ranker_puts_the_answer_above_the_question_and_pleasantries(make_memory, tmp_path, turns, question, answer):
    mem = make_memory(tmp_path / "m.db")
    write(mem, turns)
    query, ctx = pool(mem, question, ranker="learned")
    hits = retrieve_events(query, ctx, 15)
    order = [h.record.turn_id for h in hits]
    assert order[0] == answer, order
    for other in ("t0", "t2", "t3", "t5"):  # the questions and the reactions
        if other in order:
            assert order.index(answer) < order.index(other)
    assert all("learned" in h.explain and "hand" in h.explain for h in hits)
    recall = mem.retrieve(question, user_id="u1", now=T0 + timedelta(days=1), top_n=3)  # through fusion too
    assert answer in recall.cards[0].source_turn_ids


@pytest.mark.parametrize(
    "turns,question", [(ENGLISH, "What did Caroline do last weekend?"), (CHINESE, "陈默上周末干什么了？")]
)
def test_ranker_hand_keeps_the_hand_order(make_memory, tmp_path, turns, question):
    mem = make_memory(tmp_path / "m.db")
    write(mem, turns)
    query, ctx = pool(mem, question, ranker="hand")
    ranked, heads = event_pool(query, ctx, 15)
    expected = spread(sorted(ranked, key=lambda i: -ranked[i][0]), {i: heads[i].session_id for i in ranked}, 5, 15)
    hits = retrieve_events(query, ctx, 15)
    assert [h.item_id for h in hits] == expected
    assert [h.relevance for h in hits] == [ranked[i][0] for i in expected]
    assert not any("learned" in h.explain for h in hits)


def test_ranker_only_reorders_the_hand_relevances(make_memory, tmp_path):
    """The candidates keep the hand relevances (fusion weighs the track as before); a ranker
    that prefers long turns hands the highest to the longest."""
    mem = make_memory(tmp_path / "m.db")
    write(mem, ENGLISH)
    query, ctx = pool(mem, "What did Caroline do last weekend?")
    ranked, heads = event_pool(query, ctx, 15)
    longest = Ranker.of(0.0, {"length": 1.0})
    out = learned_order(ranked, heads, cosines(ranked, query, ctx), query, longest)
    assert sorted(v[0] for v in out.values()) == sorted(v[0] for v in ranked.values())
    top = max(out, key=lambda i: out[i][0])
    assert top == max(ranked, key=lambda i: len(heads[i].text))
    assert out[top][2]["hand"] == ranked[top][0] and out[top][2]["relevance"] == out[top][0]


def test_ranker_default_is_learned():
    """The learned order is the default (benchmarks/RESULTS.md, "A learned ranker"); "hand"
    is the only other choice and keeps every other setting."""
    assert MemoryConfig().retrieval.ranker == "learned"
    assert RetrievalConfig() == RetrievalConfig(ranker="learned")
    hand = dataclasses.replace(RetrievalConfig(), ranker="hand")
    assert dataclasses.replace(hand, ranker="learned") == RetrievalConfig()


# ------------------------------------------------------------------ what the filters admit

KAYAKING_AGAIN = {
    "en": [
        ("Caroline", "We went kayaking on the lake again last weekend, Caroline and her sister paddled to the island."),
        ("Mel", "Kayaking on the lake sounds lovely, Caroline!"),
    ],
    "zh": [("陈默", "上周末我和我姐又去千岛湖划皮划艇了，一直划到湖心岛。"), ("林晓", "千岛湖划皮划艇听起来真不错！")],
}


@pytest.mark.parametrize(
    "turns,other,question",
    [
        (ENGLISH, KAYAKING_AGAIN["en"], "What did Caroline do last weekend?"),
        (CHINESE, KAYAKING_AGAIN["zh"], "陈默上周末干什么了？"),
    ],
)
def test_ranker_ranks_and_hands_out_what_a_filter_admits(make_memory, tmp_path, turns, other, question):
    """Limited to one session, the learned order ranks that session's candidates only and
    hands out their relevances, not those of the other session's better matches."""
    mem = make_memory(tmp_path / "m.db")
    write(mem, turns)
    for n, (speaker, text) in enumerate(other):
        mem.write(
            Turn(text, speaker=speaker, user_id="u1", session_id="s2", timestamp=T0 + timedelta(days=2, minutes=n))
        )
    now = T0 + timedelta(days=3)
    query = mem.reader.analyze(question, user_id="u1", now=now)
    everything, heads = event_pool(query, mem.reader.context("u1"), 15)
    admitted = {i: v for i, v in everything.items() if heads[i].session_id == "s1"}
    assert len(admitted) < len(everything)  # the other session has candidates the filter drops
    allowed = mem.store.turn_ids_where("u1", session_id="s1")
    ctx = mem.reader.context("u1", None, allowed)
    pool, _ = event_pool(query, ctx, 15)
    assert pool == admitted  # the same candidates, scored as without the filter
    hits = retrieve_events(query, ctx, 15)
    assert {h.record.turn_id for h in hits} <= allowed
    assert sorted(h.relevance for h in hits) == sorted(v[0] for v in admitted.values())
    assert all(h.explain["hand"] == admitted[h.item_id][0] for h in hits)
    recall = mem.retrieve(question, user_id="u1", now=now, session_id="s1", top_n=10)
    assert recall.cards and all(set(c.source_turn_ids) <= allowed for c in recall.cards)
    values = sorted(round(v[0], 9) for v in admitted.values())
    assert all(round(c.explain["temporal.relevance"], 9) in values for c in recall.cards if c.track == "temporal")


# ------------------------------------------------------------------ coverage and category members

MEMBERS = {
    "en": (
        "What social media activity did Caroline do last week?",
        [
            ("Caroline", "I posted my vegan chili recipe on Instagram and it got a lot of attention."),
            ("Caroline", "The chili needs three cans of beans and a lot of cumin, that is the secret."),
        ],
        ("social", "media"),
    ),
    "zh": (
        "陈默上周在哪些社交媒体上发了东西？",
        [("陈默", "我在小红书上发了一篇火锅攻略，点赞的人还挺多。"), ("陈默", "那锅底要放很多花椒和牛油，这是秘诀。")],
        ("社交", "媒体"),
    ),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_ranker_coverage_counts_a_category_name_held_through_a_member(make_memory, tmp_path, lang):
    """A turn that names a member of a category the question names (Instagram, 小红书 for
    "social media", 社交媒体) holds the category's words for ``coverage``, as its search found
    it; a turn that names none holds only its own words, and with the expansion off nothing
    changes."""
    question, turns, name = MEMBERS[lang]
    mem = make_memory(tmp_path / "m.db")
    write(mem, turns)
    query, ctx = pool(mem, question)
    named = next(set(n) for n, _ in query.category_terms if set(name) <= set(n))  # the category of the name
    expanded = covered(ctx.config, query)
    assert expanded == query.category_terms
    ranked, heads = event_pool(query, ctx, 15)
    cos = cosines(ranked, query, ctx)
    ids, plain = features(ranked, heads, cos, query)
    _, wide = features(ranked, heads, cos, query, expanded)
    col = FEATURES.index("coverage")
    by_turn = {turn_of(mem)[i]: n for n, i in enumerate(ids)}
    member, other = by_turn["t0"], by_turn["t1"]
    assert wide[member, col] >= plain[member, col] + len(named) / len(query.terms) - 1e-9
    assert wide[other, col] == plain[other, col]
    assert wide[member, col] > wide[other, col]
    off = dataclasses.replace(ctx.config, expansion_weight=0.0)
    assert covered(off, query) == ()


def test_ranker_held_terms_need_a_whole_member_group():
    terms = frozenset({"martial", "art", "john"})
    expanded = ((("martial", "art"), (("muay", "thai"), ("karate",))),)
    assert held(terms, frozenset({"muay", "thai", "john"}), expanded) == terms
    assert held(terms, frozenset({"muay", "john"}), expanded) == {"john"}  # half of "muay thai" names nothing
    assert held(terms, frozenset({"karate"}), ()) == frozenset()
    zh = frozenset({"乐", "器", "乐器", "学过"})
    assert held(zh, frozenset({"小提", "提琴", "学过"}), (((("乐", "器", "乐器")), (("小提", "提琴"),)),)) == zh
