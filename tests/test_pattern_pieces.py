"""The literal pieces a pattern's every match holds: a text with none of them is not searched.
The check must never skip a text the regex would match (English, Simplified and Traditional
Chinese), and it must skip most texts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memtracks.data.lexicons import default_lexicons
from memtracks.data.patterns import (
    default_happening_patterns,
    default_slot_patterns,
    present_pieces,
    required_pieces,
)

STATEMENTS = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "statements"


@pytest.mark.parametrize(
    "regex,flags,pieces",
    [
        (r"(?:\b(?:my|the) )?(?P<task>[\w' -]{2,40}?) (?:is|are|was) due\b", re.I, (" due",)),  # the longest run
        (r"I (?:quit|left|resigned from) (?P<org>\w+)", re.I, ("left", "quit", "resigned from")),  # a branch: each
        (r"(?:moved|relocated)+ to (?P<place>\w+)", 0, ("moved", "relocated")),  # repeated at least once
        (r"(?:moved )?to (?P<place>\w+)", 0, ("to ",)),  # what is optional is not needed
        (r"(?:moved )?in(?P<place>\w+)", 0, ()),  # and "in" is too short to be worth it
        (r"(?=.*\bvegan\b)I eat (?:fish|meat)", 0, ("i eat ",)),  # a lookahead adds nothing; case-folded
        (r"(?:I have|we have) a (?:dog|cat)|my pets? (?:is|are) (?P<name>\w+)", 0, ("i have", "my pet", "we have")),
        (r"(?:I have|we have) a (?:dog|cat)|(?P<name>\w+) is my pet", 0, (" is my pet", "i have", "we have")),
        (r"(?:I have|we have) a (?:dog|cat)|(?P<name>[A-Z]\w+)!", 0, ()),  # one branch with no piece of its own
        (r"我(?:住在|搬到)(?P<place>\w+)", 0, ("住在", "搬到")),  # two Han characters are selective
        (r"(?:养|买)了(?P<pet>\w+)", 0, ()),  # one Han character is not
    ],
)
def test_required_pieces_of_a_regex(regex, flags, pieces):
    assert required_pieces(re.compile(regex, flags)) == pieces


def _texts() -> list[str]:
    texts = [
        json.loads(line)["text"]
        for path in sorted(STATEMENTS.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    to_simplified = default_lexicons().to_simplified
    return texts + [to_simplified(t) for t in texts if not t.isascii()]


def test_no_shipped_pattern_skips_a_text_it_matches():
    """Over every labelled clause in the repo (English, Simplified, Traditional and their
    Simplified copies), a pattern that matches a text always passes its pieces check; and the
    check spares most of the searches."""
    patterns = [*default_slot_patterns(), *default_happening_patterns()]
    texts = _texts()
    assert len(texts) > 5000
    matched = spared = 0
    for text in texts:
        folded = text.casefold()
        present = present_pieces(patterns, folded)  # each piece looked for once
        for pattern in patterns:
            may = not pattern.needs or any(piece in folded for piece in pattern.needs)
            assert pattern.may_match_given(present) is may
            spared += not may
            if pattern.regex.search(text):
                matched += 1
                assert may, (pattern.id, pattern.needs, text)
    assert matched > 1000
    assert spared > 0.6 * len(texts) * len(patterns)
    for lang in ("en", "zh"):
        own = [p for p in patterns if p.spec.lang == lang]
        assert sum(bool(p.needs) for p in own) > 0.6 * len(own)  # most patterns have pieces


@pytest.mark.parametrize(
    "text,states",
    [
        ("I moved to Lisbon last spring.", True),
        ("My son just turned 7!", True),
        ("The report is due on Friday.", True),
        ("That sounds like so much fun, enjoy it!", False),
        ("Haha yes, see you then.", False),
    ],
)
def test_may_state_still_finds_what_the_patterns_read(toolkit, text, states):
    assert toolkit.may_state(text) is states
