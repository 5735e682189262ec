"""The embedder's BLAS thread count follows measured speed: the count that is cheaper per
character now is used, the others are tried again now and then, and a count that became slow
(another job took a core) is left; a fixed count stays fixed."""

from __future__ import annotations

import numpy as np
import pytest

from memtracks.retrieval.embedders import ThreadChoice, USEEmbedder

TEXTS = [
    "I adopted a rescue greyhound last spring.",
    "我上个月搬到了杭州，离西湖很近。",
    "My sister Laura is getting married in Porto next June.",
    "周末我们去成都吃了火锅。",
] * 3


def run(choice: ThreadChoice, batch: int, seconds_per_char: dict[int, float], n: int) -> list[int]:
    """``n`` batches of ``batch`` texts of 100 characters, each costing what its count costs."""
    used = []
    for _ in range(n):
        threads = choice.pick(batch)
        choice.record(batch, threads, seconds_per_char[threads] * 100 * batch, 100 * batch)
        used.append(threads)
    return used


def test_each_count_is_measured_first_then_the_cheapest_is_used_and_others_tried_now_and_then():
    choice = ThreadChoice(2, explore=10)
    used = run(choice, 64, {1: 2.0, 2: 1.0}, 40)
    assert used[:2] == [1, 2]  # each count measured once
    assert used[2:].count(2) == 34 and used[2:].count(1) == 4  # every tenth batch tries the other
    assert choice.best(64) == 2


def test_a_count_that_became_slow_is_left_for_the_faster_one():
    choice = ThreadChoice(2, explore=5)
    run(choice, 64, {1: 2.0, 2: 1.0}, 20)  # idle machine: two threads pay
    used = run(choice, 64, {1: 2.0, 2: 4.0}, 30)  # a job took a core: two threads wait on each other
    assert choice.best(64) == 1
    assert used[-10:].count(1) >= 8


def test_questions_and_writes_are_measured_apart():
    choice = ThreadChoice(2, explore=10)
    run(choice, 64, {1: 2.0, 2: 1.0}, 12)  # large batches: two threads are cheaper
    run(choice, 1, {1: 1.0, 2: 3.0}, 12)  # a single question: one is
    assert choice.best(64) == 2 and choice.best(1) == 1
    assert ThreadChoice(2).best(64) is None


def test_one_core_or_a_fixed_count_never_switches():
    assert ThreadChoice(1).counts == (1,)
    assert run(ThreadChoice(1), 64, {1: 1.0}, 12) == [1] * 12
    fixed = USEEmbedder(threads=2)
    assert fixed.choice is None
    fixed.embed_batch(TEXTS)
    assert fixed._model._model.threads == 2


def test_the_chosen_count_changes_the_speed_not_the_vectors():
    auto = USEEmbedder()
    if auto.choice is None:
        pytest.skip("a one-core machine: nothing to choose")
    one = USEEmbedder(threads=1)
    for _ in range(4):  # both counts used on large batches and on single texts
        got, want = auto.embed_batch(TEXTS), one.embed_batch(TEXTS)
        assert np.allclose(got, want, atol=1e-5)
        assert np.allclose(auto.embed_batch(TEXTS[:1]), one.embed_batch(TEXTS[:1]), atol=1e-5)
    assert auto.choice.best(len(TEXTS)) in (1, 2) and auto.choice.best(1) in (1, 2)
    assert {threads for (_, threads) in auto.choice.cost} == {1, 2}
