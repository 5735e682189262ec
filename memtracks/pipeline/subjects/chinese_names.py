"""A Chinese name right after the word that introduces someone (我哥哥小明, 我弟弟阿杰刚搬到深圳,
我老婆王芳): is there one, and where does it end?

jieba finds most names as one word, but runs a two-character nickname into the adverb or
verb that opens the predicate after it (阿杰刚搬到: 阿杰刚; 小美也住在: 小美也). A nickname of
小 or 阿 and one character is two characters long, so such a word is cut back to its first
two when its third character opens a predicate (:data:`PREDICATE_STARTS`). A name is one
whole word (or a surname jieba cut off its given name: 王 + 桂兰) that reads as a person's
name: a known surname and a given name, 小 or 阿 and a character (小明, not 小学), a doubled
nickname (豆豆, not 常常 or 宝宝).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memtracks.data.lexicons import Lexicons
from memtracks.pipeline.nlp import Token

# Words that open a predicate after its subject: adverbs and connectives, time words,
# prepositions and the verbs a clause about someone most often starts with. A name is never
# followed by more of itself, so where one of these starts the name has ended.
PREDICATE_STARTS = (
    "刚刚 刚 已经 已 也 还 就 都 又 再 才 正在 正式 正 终于 总算 其实 最近 现在 目前 一直 居然 竟然 果然 突然 早就 "
    "本来 平时 经常 常常 马上 然后 今年 去年 明年 前年 上个 下个 这个 那个 上周 下周 这周 上 下 这 那 今 明 昨 前 每 "
    "在 从 跟 和 与 给 把 被 对 到 向 住 是 要 会 能 想 说 去 来 搬 买 换 找 当 做 开 结 养 喜 爱 生 考 读 学 回 有 没 不"
).split()
_ADVERB_TAGS = ("d", "t", "m", "p", "c", "r", "u", "v", "q", "f", "y", "e", "x")


_LATIN_NAME = re.compile(r"(?:阿|小)?[A-Z][a-z]{1,11}(?![A-Za-z])")
# what may follow a bare Latin name (Tom在银行上班, Tom，): a predicate or a pause, not a verb of its own (Excel用得好)
_NAME_THEN = re.compile("|".join([*PREDICATE_STARTS, r"[，。！？,.!?\s]", "$"]))


def name_end(search: str, start: int, tokens: Sequence[Token], lexicons: Lexicons) -> int | None:
    """Where the name starting at ``start`` of the Simplified ``search`` ends, or None when no
    name starts there (``tokens``: its jieba words). A Latin name, alone or after 阿 or 小
    (阿Ken, Tom), is one too."""
    latin = _LATIN_NAME.match(search, start)
    if latin is not None and (latin.group()[0] in "阿小" or _NAME_THEN.match(search, latin.end())):
        return latin.end()
    word = next((t for t in tokens if t.start == start), None)
    if word is None:
        return None
    if len(word.text) == 3 and search[start] in "小阿" and search.startswith(tuple(PREDICATE_STARTS), start + 2):
        return start + 2 if word.tag.startswith("nr") else None  # 阿杰刚搬到: 阿杰, then 刚
    given = next((t for t in tokens if t.start == word.end), None)
    if word.text in ("小", "阿") and given is not None and len(given.text) == 1:  # 小 + 美: cut in two
        nickname = given.tag[:1] not in _ADVERB_TAGS and not search.startswith(tuple(PREDICATE_STARTS), given.start)
        return given.end if nickname else None
    end = word.end
    if len(word.text) == 1 and word.tag == "nr" and given is not None and len(given.text) <= 2:
        end = given.end  # 王 + 桂兰: jieba cut the surname off its given name
    return end if is_name(start, end, lexicons, tokens) else None


def is_name(start: int, end: int, lexicons: Lexicons, tokens: Sequence[Token]) -> bool:
    """Is ``start:end`` one whole word that is a person's name, not a kin word: a known
    surname and a given name, 小 or 阿 and a character (小明, not 小学), a doubled nickname
    (豆豆, not 常常 or 宝宝)."""
    words = [t for t in tokens if start <= t.start and t.end <= end]
    if not words or words[0].start != start or words[-1].end != end or len(words) > 2:
        return False
    name = lexicons.to_simplified("".join(t.text for t in words))
    tag = words[0].tag if len(words) == 1 else "nr"
    doubled = len(name) == 2 and name[0] == name[1]
    if not 2 <= len(name) <= 4 or lexicons.relations.key(name):
        return False
    if any(t.tag[:1] in _ADVERB_TAGS and not (doubled and t.tag == "q") for t in words):
        return False  # 常常, 刚刚, 高兴; a doubled nickname may be tagged a measure word (朵朵)
    if doubled:
        return True
    return tag.startswith("nr") and (len(name) == 2 and name[0] in "小阿" or lexicons.is_chinese_name(name))
