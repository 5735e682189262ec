"""A softened no is still a no: "I don't really like coffee", "not really a fan of jazz",
我不怎么爱运动, 我没那么喜欢跑步 say what the speaker dislikes, never what they like."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

T0 = datetime(2024, 6, 1, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I don't really like coffee.", "coffee"),
        ("I'm not really a fan of jazz.", "jazz"),
        ("She doesn't particularly enjoy crowds.", None),  # about someone else: not the user's
        ("我不怎么爱运动。", "运动"),
        ("我没那么喜欢跑步。", "跑步"),
        ("我不大喜欢吃辣。", "吃辣"),
        ("我不太喜欢咖啡。", "咖啡"),
    ],
)
def test_a_softened_no_is_a_dislike(memory, text, value):
    facts = memory.write(text, user_id="u", timestamp=T0).facts
    mine = [f for f in facts if f.subject == "user"]
    assert not any(f.slot == "likes" and not f.negated for f in mine)
    if value is not None:
        assert ("dislikes", value) in {(f.slot, f.value) for f in mine}
    else:
        assert not mine
