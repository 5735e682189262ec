"""A bare answer fills the gap of the question it answers (Chinese).

"你养了什么？" — "一只猫" says "我养了一只猫"; "你在哪家公司上班？" — "腾讯" says "我在腾讯上班";
"你女儿叫什么？" — "小雨" says "我女儿叫小雨". The answer takes the place of the question
word, 你 becomes 我, and the writer reads the filled sentence with its ordinary patterns:
no pattern of its own per question. Only a short answer with no clause of its own is filled
("腾讯啊"); one that says more is read as it stands.
"""

from __future__ import annotations

import re

# the question word, with the generic noun it may carry ("什么车", "哪家公司"): the answer names it
_QUESTION_WORD = re.compile(
    r"(?:什么样的|什么|啥|哪一家|哪家|哪一个|哪个|哪里|哪儿|哪)(?:车|宠物|公司|单位|工作|名字|专业|学校)?"
)
_LAST_QUESTION = re.compile(r"([^。！!？?；;\n]*)[？?][\s？?]*$")
_LEAD = re.compile(r"^(?:嗯+|对|是的|就是|哦|啊|呃)[，,\s]*")
_TAIL = re.compile(r"[啊呀吧呢哦嘛哈啦的～~。！!\s]+$")
_MAX_ANSWER = 12
_YOU = re.compile(r"你们|妳們|你們|您|你|妳")


def filled_answer(question: str, answer: str, question_simplified: str) -> str | None:
    """The answer read into the question's last clause, or None when it does not fit.

    Args:
        question: the turn asked (as written); ``question_simplified``: the same text with
            Traditional characters mapped to Simplified, one for one.
        answer: the reply as written.
    """
    m = _LAST_QUESTION.search(question_simplified)
    if m is None:
        return None
    start = max(m.start(1), *(i + 1 for i, ch in enumerate(question_simplified[: m.end(1)]) if ch in "，,"), 0)
    asked = question_simplified[start : m.end(1)]
    written = question[start : m.end(1)]
    if not _YOU.search(asked):
        return None  # asked of someone else ("他在哪上班？"): the reply is about them
    word = _QUESTION_WORD.search(asked)
    reply = _TAIL.sub("", _LEAD.sub("", answer.strip()))
    if word is None or not reply or len(reply) > _MAX_ANSWER or re.search(r"[，,。？?！!；;\s我你妳您他她它]", reply):
        return None
    filled = written[: word.start()] + reply + written[word.end() :]
    return _YOU.sub(lambda y: "我们" if len(y.group()) == 2 else "我", filled) + "。"
