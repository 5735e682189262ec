"""Benchmark metrics on hand-computed cases."""

from __future__ import annotations

import math
from datetime import date

import pytest

from benchmarks import metrics
from benchmarks.datasets import Question


def session(turn_id: str) -> str:
    return turn_id.split("#")[0]


def test_bench_recall_acc_counts_evidence_among_cited_turns():
    items = [["D1:1"], ["D2:3", "D2:4"], ["D5:1"]]
    # evidence D2:4 and D7:7: at k=2 one of two found -> 0.5; at k=1 none -> 0.0
    assert metrics.recall_acc(items, {"D2:4", "D7:7"}, 2) == 0.5
    assert metrics.recall_acc(items, {"D2:4", "D7:7"}, 1) == 0.0
    assert metrics.recall_acc(items, set(), 5) is None


def test_bench_sessions_are_ranked_by_first_citation():
    items = [["a#0"], ["b#2"], ["a#3"], ["c#1", "d#0"]]
    assert metrics.unit_ranking(items, session) == ["a", "b", "c", "d"]


def test_bench_recall_all_and_any_by_session():
    items = [["a#0"], ["b#2"], ["a#3"], ["c#1"], ["d#0"]]
    # distinct sessions in order: a, b, c, d
    assert metrics.recall_all(items, {"a", "c"}, 2, session) == 0.0
    assert metrics.recall_all(items, {"a", "c"}, 3, session) == 1.0
    assert metrics.recall_any(items, {"d", "z"}, 3, session) == 0.0
    assert metrics.recall_any(items, {"d", "z"}, 4, session) == 1.0


def test_bench_ndcg_any_hand_computed():
    items = [["x#0"], ["a#1"], ["x#4"], ["y#0"], ["b#5"]]
    # distinct sessions x, a, y, b: relevant at ranks 2 and 4
    # DCG = 1/log2(3) + 1/log2(5); ideal (2 evidence) = 1 + 1/log2(3)
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert metrics.ndcg_any(items, {"a", "b"}, 4, session) == pytest.approx(expected)
    assert metrics.ndcg_any([["a#0"], ["a#1"], ["b#0"]], {"a", "b"}, 2, session) == pytest.approx(1.0)
    assert metrics.ndcg_any([["a#0", "b#1"], ["a#1"]], {"a", "b"}, 5, session) <= 1.0


def test_bench_cited_keeps_rank_order_without_repeats():
    assert metrics.cited([["a", "b"], ["b", "c"], ["d"]], 2) == ["a", "b", "c"]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("7 May 2023", {date(2023, 5, 7)}),
        ("on May 7, 2023 and 2023-06-01", {date(2023, 5, 7), date(2023, 6, 1)}),
        ("8th of nothing", set()),
        ("2023/5/9", {date(2023, 5, 9)}),
        ("31 February 2023", set()),
    ],
)
def test_bench_dates_in_any_format(text, expected):
    assert metrics.dates_in(text) == expected


@pytest.mark.parametrize(
    "answer,context,found",
    [
        ("7 May 2023", "[event] 2023-05-08 Maya: pottery class yesterday [2023-05-07]", True),
        ("7 May 2023", "[event] 2023-05-08 Maya: pottery class", False),
        ("Biscuit", "Leo pets: Biscuit (puppy)", True),
        ("The Biscuit!", "leo adopted biscuit.", True),
        ("bis", "Leo adopted Biscuit", False),  # whole words only
        ("2023", "since 2023-05-07", True),
        ("上海", "[事实] user 居住地：上海（置信度 0.90）", True),
        ("豆包", "[时序] 2024-03-02 林晓：那豆包就得麻烦你帮我喂两天了", True),  # inside a run of characters
        ("乐乐、六岁", "周婷：六岁了，九月份就要上小学了。乐乐天天在愁", True),  # every key term
        ("乐乐、七岁", "周婷：六岁了，九月份就要上小学了。乐乐天天在愁", False),
        ("麻糬、柴犬", "吳佳穎：麻糬超皮 … 黃志明：柴犬就是這樣", True),  # Traditional as Simplified
        ("鸭肉饭", "去高雄記得吃鹽埕區的鴨肉飯。", True),
        ("2024年5月18日、西溪湿地", "陈默：五月十八号 [2024-05-18]，在西溪湿地那边的一个酒店", True),
        ("2024年5月18日、西溪湿地", "陈默：五月，在西溪湿地那边", False),
    ],
)
def test_bench_answer_in_context(answer, context, found):
    assert metrics.answer_in_context(answer, context) is found


def test_bench_answer_in_context_at_memtracks_token_budget():
    """Baselines' contexts are cut to the tokens memtracks used on the same question."""
    from datetime import datetime, timezone

    from benchmarks.evaluate import score_longmemeval
    from benchmarks.runner import Answer, Run

    def q(qid, answer):
        return Question(
            qid,
            "Where did I go?",
            answer,
            "single-session-user",
            datetime(2023, 6, 1, tzinfo=timezone.utc),
            frozenset({"s1#0"}),
            frozenset({"s1"}),
        )

    q1, q2 = q("q1", "Denver"), q("q2", "Boston")
    run = Run(
        "longmemeval:mini",
        answers=[
            Answer("memtracks", q1, "u1", [["s1#0"]], "[event] Denver trip", 4, 10, 1.0),
            Answer("memtracks", q2, "u2", [["s1#0"]], "[event] nothing", 4, 10, 1.0),
            # Denver is the 6th token: cut to memtracks' 4 tokens it is gone; Boston is the 1st
            Answer("bm25", q1, "u1", [["s1#0"]], "I flew somewhere nice to Denver", 6, 6, 1.0),
            Answer("bm25", q2, "u2", [["s1#0"]], "Boston in spring was lovely", 5, 5, 1.0),
        ],
        turns=2,
        ingest_seconds=1.0,
        systems=["memtracks", "bm25", "dense", "rrf"],
    )
    for system in ("dense", "rrf"):
        run.answers += [Answer(system, q1, "u1", [], "", 0, 0, 1.0), Answer(system, q2, "u2", [], "", 0, 0, 1.0)]
    figures = score_longmemeval(run, (1,), session)["systems"]
    assert figures["bm25"]["answer_in_context"] == 1.0
    assert figures["bm25"]["answer_in_context_same_tokens"] == 0.5
    assert figures["memtracks"]["answer_in_context_same_tokens"] == figures["memtracks"]["answer_in_context"] == 0.5


# ------------------------------------------------------------------ dates at any precision


@pytest.mark.parametrize(
    "answer,context,found",
    [
        ("June 2023", "[event] 2023-06-14 Maya: we moved last week [2023-06]", True),  # ISO month
        ("June 2023", "[event] 2023-06-14 Maya: we moved", True),  # a day inside it
        ("June, 2023", "[event] 2023-07-01 Maya: we moved", False),
        ("In July, 2022", "it was [2022-07]", True),
        ("in 2022", "[event] 2023-01-04 Leo: I started painting last year [2022]", True),
        ("in 2022", "[event] 2021-12-31 Leo: I started painting", False),
        ("Since 2016", "[fact] Leo works at: bakery (since 2016-03-01)", True),
        ("7 May 2023", "[event] 2023-05 Maya: pottery", False),  # coarser: no day
        ("The week before 9 June 2023", "[event] 2023-06-09 Maya: I ran a race last week", True),
        ("The weekend of 22August, 2022.", "[event] 2022-08-22 Leo: camping", True),  # no space before the month
        ("early August, 2023", "[event] 2023-08-03 Leo: ...", True),
        ("last week of September 2023", "[event] 2023-10-02 ...", False),
        ("2023年6月", "[时序] 2023-06-05 user：我搬到了上海", True),
        ("2023年6月5日", "[时序] 2023-06-05 user：我搬到了上海", True),
        ("在2021年", "[时序] 2020-06-05 user：我搬到了上海", False),
        ("Paris in 2019", "[event] 2019-05-01 Maya: a trip", False),  # not only a date
        ("Cyberpunk 2077", "I played it in 2077", False),
    ],
)
def test_bench_answer_in_context_matches_months_and_years(answer, context, found):
    assert metrics.answer_in_context(answer, context) is found


def test_bench_periods_at_their_own_precision():
    from benchmarks.answers import Period

    assert metrics.periods_in("June 2023, then 2023-08, 2024-01-05 and [2022]") == {
        Period(2023, 6),
        Period(2023, 8),
        Period(2024, 1, 5),
        Period(2022),
    }
    assert metrics.periods_in("2023年6月5日和2022年") == {Period(2023, 6, 5), Period(2022)}
    assert metrics.periods_in("8 of us, 12 items, room 305") == set()
    assert Period(2023, 6, 5).within(Period(2023, 6)) and not Period(2023, 6).within(Period(2023, 6, 5))


def test_bench_date_answers_are_only_dates_and_qualifiers():
    from benchmarks.answers import Period, date_answer

    assert date_answer("in summer 2022") == {Period(2022)}
    assert date_answer("The Friday before 14 September 2022") == {Period(2022, 9, 14)}
    assert date_answer("1968 Kustom K-200A vintage guitar") == set()
    assert date_answer("Biscuit") == set()


# ------------------------------------------------------------------ ceilings


def test_bench_best_recall_acc_picks_the_best_k_items():
    items = [["a"], ["b", "c"], ["d"], ["e"], ["g"]]
    evidence = {"a", "c", "g"}
    assert metrics.best_recall_acc(items, evidence, 2) == pytest.approx(2 / 3)
    assert metrics.best_recall_acc(items, evidence, 3) == 1.0
    assert metrics.best_recall_acc(items[2:4], evidence, 5) == 0.0
    assert metrics.best_recall_acc(items, set(), 5) is None


def test_bench_best_recall_acc_is_exact_where_greedy_is_not():
    # greedy takes the largest item {1,2,3,4} first and reaches 5 of 6; {1,2,5} + {3,4,6} cover all
    items = [["1", "2", "3", "4"], ["1", "2", "5"], ["3", "4", "6"]]
    assert metrics.best_recall_acc(items, {"1", "2", "3", "4", "5", "6"}, 2) == 1.0


def test_bench_best_recall_all_by_session():
    items = [["a#0"], ["x#1"], ["b#2"], ["y#0"]]
    assert metrics.best_recall_all(items, {"a", "b"}, 2, session) == 1.0  # a perfect reranker puts a, b first
    assert metrics.best_recall_all(items[:2], {"a", "b"}, 2, session) == 0.0  # b not in the pool
    assert metrics.best_recall_all(items, {"a", "b", "x"}, 2, session) == 0.0  # three sessions do not fit in two


def test_bench_pool_reads_each_ranking_to_depth_once():
    assert metrics.pool([["a"], ["b"], ["c"]], [["b"], ["d"]], [["e", "f"]], depth=2) == [
        ["a"],
        ["b"],
        ["d"],
        ["e", "f"],
    ]


def test_bench_within_tokens_counts_each_line_and_its_break():
    items = [["a"], ["b", "c"], ["d"]]
    assert metrics.within_tokens(items, [10, 5, 3], 16) == [["a"], ["b", "c"]]  # 10 + 1 + 5
    assert metrics.within_tokens(items, [10, 5, 3], 15) == [["a"]]  # the break costs one
    assert metrics.within_tokens(items, [10, 5, 3], 9) == []  # nothing fits: nothing is shown
    assert metrics.within_tokens(items, [1, 1], 100) == [["a"], ["b", "c"]]  # an item without a cost stops


def test_bench_recall_at_memtracks_tokens_gives_a_baseline_as_many_turns_as_fit():
    """A baseline with short raw turns gets more of them into memtracks' tokens than its five;
    a long card list is cut to the same tokens as well, and the fixed budget holds everyone."""
    from datetime import datetime, timezone

    from benchmarks.evaluate import score_locomo
    from benchmarks.runner import Answer, Run

    def q(qid):
        return Question(qid, "Where did I go?", "Denver", "1", datetime(2023, 6, 1, tzinfo=timezone.utc),
                        frozenset({"D1:6", "D1:2"}), frozenset())  # fmt: skip

    cards = [["D1:1"], ["D1:2"], ["D1:3"], ["D1:4"], ["D1:5"], ["D1:6"]]
    turns = [["D1:1"], ["D1:2"], ["D1:3"], ["D1:4"], ["D1:5"], ["D1:6"], ["D1:7"]]
    run = Run(
        "locomo:mini",
        answers=[
            # memtracks: five cards of 60 tokens, 304 tokens with their breaks; its recall@5 is 0.5
            Answer("memtracks", q("q1"), "u1", cards, "", 304, 100, 1.0, lines=[" ".join(["card"] * 60)] * 6),
            # raw turns of 40 tokens: seven fit in 304 (7 * 40 + 6), so D1:6 is found too
            Answer("bm25", q("q1"), "u1", turns, "", 204, 204, 1.0, lines=[" ".join(["turn"] * 40)] * 7),
        ],
        turns=7,
        ingest_seconds=1.0,
        systems=["memtracks", "bm25"],
    )
    figures = score_locomo(run, (5,))["systems"]
    assert figures["memtracks"]["recall@5"] == 0.5 == figures["memtracks"]["recall_same_tokens"]
    assert figures["bm25"]["recall@5"] == 0.5 and figures["bm25"]["recall_same_tokens"] == 1.0
    # 300 tokens: memtracks' fourth card ends at 243, its fifth would reach 304; bm25's seventh turn at 286
    assert figures["memtracks"]["recall@300tok"] == 0.5 and figures["bm25"]["recall@300tok"] == 1.0
    assert figures["bm25"]["by_category"]["1"]["recall_same_tokens"] == 1.0


def test_bench_answer_in_context_at_memtracks_tokens_fills_the_prompt():
    """At an equal prompt size a system shows its lines while they fit, then the start of the
    next: short raw turns past the fifth count, a long line is cut where the room ends."""
    from datetime import datetime, timezone

    from benchmarks.evaluate import filled
    from benchmarks.runner import Answer

    question = Question("q1", "Where did I go?", "Denver", "1", datetime(2023, 6, 1, tzinfo=timezone.utc),
                        frozenset({"D1:6"}), frozenset())  # fmt: skip
    lines = [f"turn {n} was about nothing" for n in range(1, 6)] + ["I went to Denver", "and then home"]
    answer = Answer(
        "bm25", question, "u1", [[str(n)] for n in range(7)], "\n".join(lines[:5]), 29, 29, 1.0, lines=lines
    )
    assert "Denver" not in answer.context  # five items: not there
    assert filled(answer, 1000) == "\n".join(lines)
    assert filled(answer, 39).endswith("\nI went to Denver")  # five lines of 6 tokens, 5 breaks, 4 tokens
    assert filled(answer, 37).endswith("\nI went")  # the sixth, cut to the two tokens left
    assert filled(answer, 3) == "turn 1 was"  # the first line alone, cut
    assert metrics.answer_in_context("Denver", filled(answer, 39))
