"""The statement reader (pipeline/statement_reader.py) and the writer stage that reads change in
words no rule lists (write/stages.py: read_changes), in English, Simplified and Traditional."""

from __future__ import annotations

import numpy as np
import pytest
from conversation import say

from memtracks.config import MemoryConfig, WriterConfig
from memtracks.pipeline.statement_reader import KINDS, WEIGHTS, load_reader, reader_for


class _OtherEmbedder:
    name = "other"
    dim = 512

    def embed_batch(self, texts):
        return np.zeros((len(texts), self.dim), dtype=np.float32)


def test_the_shipped_weights_read_the_default_embedder(embedder):
    reader = load_reader(WEIGHTS)
    assert reader.embedder == embedder.name
    assert reader_for(embedder) is not None
    assert reader_for(_OtherEmbedder()) is None  # other vectors: the rules alone decide


@pytest.mark.parametrize(
    "clause,kind",
    [
        ("I work at a small bakery downtown.", "states"),
        ("We finally sold the old Civic last weekend.", "ends"),
        ("Should I move to Berlin next year?", "not_asserted"),
        ("Haha that's so great, thanks!", "says_nothing"),
        ("我在一家面包店上班。", "states"),
        ("我们上个月分手了。", "ends"),
        ("謝謝你啦！", "says_nothing"),
        ("我們下個月要搬去台中。", "plans"),
    ],
)
def test_what_a_clause_does(embedder, toolkit, clause, kind):
    reader = reader_for(embedder)
    assert reader is not None
    [p] = reader.read([clause], embedder, toolkit)
    assert set(p) == set(KINDS) and abs(sum(p.values()) - 1) < 1e-4
    assert max(p, key=p.__getitem__) == kind, p


def _facts(memory, *texts):
    say(memory, *texts)
    return memory.facts("u1", include_superseded=True, include_negated=True)


ENDED = [
    (
        "I drive a Honda Civic.",
        "Said goodbye to the Civic last weekend, so I'm taking the bus for now.",
        "car",
        "Honda Civic",
    ),
    ("I'm allergic to peanuts.", "Good news, I'm not allergic to peanuts anymore.", "allergies", "peanuts"),
    ("My boyfriend Tom and I are planning a trip.", "Tom and I called it quits last month.", "partner", "Tom"),
    ("我开的是一辆宝马X3。", "上周把宝马X3卖掉了。", "car", "宝马X3"),
    ("我對花生過敏。", "我現在對花生不過敏了。", "allergies", "花生"),
]


@pytest.mark.parametrize("first,then,slot,value", ENDED, ids=[t for _, t, _, _ in ENDED])
def test_a_change_no_rule_lists_ends_the_value(memory, first, then, slot, value):
    facts = _facts(memory, first, then)
    held = [f for f in facts if f.slot == slot and value in f.value and not f.negated]
    assert held, facts
    assert all(not f.is_current for f in held), facts
    assert any(f.reason == "ended" for f in held), facts


@pytest.mark.parametrize(
    "first,then",
    [
        ("I drive a Honda Civic.", "If I sold the Civic I could get a Tesla."),
        ("I drive a Honda Civic.", "Should I sell the Civic?"),
        ("I drive a Honda Civic.", "I washed the Civic this morning, it looks new."),
        ("我开的是一辆宝马X3。", "要是把宝马X3卖了，我就买辆电车。"),
    ],
)
def test_a_question_a_condition_or_a_plain_mention_ends_nothing(memory, first, then):
    facts = _facts(memory, first, then)
    assert any(f.slot == "car" and f.is_current and not f.negated for f in facts), facts


def test_off_the_rules_alone_decide(make_memory):
    memory = make_memory(config=MemoryConfig(writer=WriterConfig(statement_reader=False)))
    facts = _facts(memory, *ENDED[0][:2])
    assert any(f.slot == "car" and f.is_current for f in facts), facts
