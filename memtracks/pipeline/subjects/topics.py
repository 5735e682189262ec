"""Topic continuity in Chinese: whom a clause without a subject is about.

Chinese drops the subject of a clause when it is the topic already under discussion:
"我养了一只柯基，叫豆豆，三岁了" — the second and third clauses are about the dog, not the
speaker; "她叫佳慧，是在吉他课认识的，在银行上班" — all about 佳慧; "我找了一个宠物保姆，是个
大学生，很喜欢狗" — the liking belongs to the pet sitter, whoever that is. The rule, per turn:

- a clause that opens with a subject (我, 我妈, 她, 阿楠...) is about it, and makes it the topic;
- a clause without one continues the topic of the clause before, except right after a clause
  that brought someone new in as its object ("找了一个保姆", "养了一只猫", "交了个女朋友"):
  then it is about the newcomer — by name once it is named ("叫豆豆"), else unknown;
- a clause that names its subject ("我姐姐叫李娜", "她叫佳慧") makes the name the topic of the
  clauses after it;
- the first clause of a turn without a subject is about the speaker — unless the turn
  answers a question about someone else ("你外甥几岁了？" — "七岁正好"), when it is about
  someone unknown; after an echo ("啊？刚升主美") the news is the other's.

:func:`clause_topics` returns one :class:`Topic` per clause (pure); an unknown topic is None,
and a slot value found in such a clause is dropped (precision first).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

from memtracks.data.lexicons import Lexicons, alternation
from memtracks.pipeline.statements import clauses

_PUNCTUATION = ",;:.!?，。；：！？\n~～…"
_FILLER = (
    r"(?:然后|所以|但是|可是|不过|而且|其实|就是|反正|现在|目前|最近|以前|之前|后来|今年|去年|明年|"
    r"这个月|上个月|下个月|这周|上周|下周|每天|平时|对了|对啊|对|嗯+|哈+|啊+|哦+|诶|还有|另外|那|就|也|还|都|又|"
    r"再|终于|已经|刚刚|刚|本来|结果|因为|虽然|而|并且|同时|当然|毕竟|原来)*"
)
_PRONOUNS = {
    "我们": "self",
    "咱们": "self",
    "我": "self",
    "你们": "you",
    "你": "you",
    "他们": "they",
    "她们": "they",
    "他": "he",
    "她": "she",
    "它": "it",
    "牠": "it",
}
# nouns that bring a new person in ("找了一个保姆"), beside relations, jobs and animals
_PERSON_NOUNS = (
    "保姆|阿姨|男生|女生|男孩|女孩|男的|女的|小伙子|姑娘|人|朋友|同学|同事|学生|大学生|师傅|邻居|室友|"
    "网友|医生|老师|客户|病人|顾客|帅哥|美女|小哥|大叔|大爷|大妈"
)
_INTRODUCE = r"(?:找了|认识了|有|有了|养了|生了|交了|遇到了?|请了|招了|来了|收养了|领养了|捡了|买了)"
_COUNT = r"(?:一|两|三|几|1|2|3)?(?:个|位|只|条|名|匹)"
_NAMING = re.compile(
    r"^\s*(?:名字)?(?:叫|名叫|取名叫|取名)(?P<name>[\u4e00-\u9fffA-Za-z]{1,4}?)(?=$|[，。！？,.!?\s]|是|今年)"
)


@dataclass(frozen=True)
class Topic:
    start: int
    end: int
    subject: str | None  # who a subject-less clause here is about; None: someone unknown
    lead: int | None = None  # where the subject the clause opens with ends (None: it opens with none)


def clause_spans(text: str) -> list[tuple[int, int]]:
    """The clauses of :func:`statements.clauses`, without their punctuation and spaces."""
    out = []
    for start, end in clauses(text):
        piece = text[start:end]
        body = piece.rstrip(_PUNCTUATION + " \t")
        lead = len(body) - len(body.lstrip())
        if body.strip():
            out.append((start + lead, start + len(body)))
    return out


@dataclass(frozen=True)
class _Grammar:
    opener: re.Pattern[str]
    newcomer: re.Pattern[str]


_GRAMMARS: dict[int, _Grammar] = {}


def _grammar(lexicons: Lexicons) -> _Grammar:
    key = id(lexicons)
    if key not in _GRAMMARS:
        rel = alternation(lexicons.relations.forms("zh"))
        beings = alternation(lexicons.relations.forms("zh") + lexicons.animals.forms("zh") + lexicons.jobs.forms("zh"))
        opener = re.compile(
            rf"^\s*{_FILLER}\s*(?P<subj>(?:我|你)(?:们)?(?:的|家)?(?:{rel})|(?:{rel})(?=[^的])|"
            + "|".join(sorted(_PRONOUNS, key=len, reverse=True))
            + r")"
        )
        newcomer = re.compile(
            rf"{_INTRODUCE}{_COUNT}[\u4e00-\u9fff]{{0,6}}?(?P<who>{beings}|{_PERSON_NOUNS})(?:[，,\s]|$)"
        )
        _GRAMMARS[key] = _Grammar(opener, newcomer)
    return _GRAMMARS[key]


def clause_topics(
    text: str,
    speaker: str,
    lexicons: Lexicons,
    resolve: Callable[[str, tuple[int, int]], str | None],
    named_at: Callable[[int, int], str | None] = lambda start, end: None,
    answering_about_other: bool = False,
) -> tuple[Topic, ...]:
    """The topic of every clause of the Chinese ``text`` (Simplified) said by ``speaker``.

    ``resolve(surface, span)`` turns an opening subject (我妈, 她) into a subject or None;
    ``named_at(start, end)`` gives a person or pet named at the start of a clause (an entity
    or a known name), else None. ``answering_about_other``: the turn answers a question about
    someone else ("你外甥几岁了？" — "七岁"), so its opening clauses without a subject are
    about them, not the speaker.
    """
    grammar = _grammar(lexicons)
    out: list[Topic] = []
    topic: str | None = None if answering_about_other else speaker
    newcomer = False  # the clause before brought someone new in; topic is them
    for start, end in clause_spans(text):
        piece = text[start:end]
        m = grammar.opener.match(piece)
        name = named_at(start, end)
        naming = _NAMING.match(piece)
        lead = None
        if m is not None:
            surface = m.group("subj")
            span = (start + m.start("subj"), start + m.end("subj"))
            kind = _PRONOUNS.get(surface)
            topic = speaker if kind == "self" else (None if kind in ("you", "they") else resolve(surface, span))
            newcomer, lead = False, span[1]
            if kind is None and topic is not None and text.startswith(lexicons.to_simplified(topic), lead):
                lead += len(topic)  # 我哥哥小明: the name is part of the subject
        elif name is not None:
            topic, newcomer = name, False
            lead = start + len(name) if text.startswith(name, start) else None
        elif newcomer and naming is not None:
            topic, newcomer = naming.group("name"), False  # "养了一只柯基，叫豆豆": from here on, 豆豆
        elif newcomer:
            topic = None
        out.append(Topic(start, end, topic, lead))
        if _ECHO.match(piece) and text[end : end + 1] in "？?":
            topic = None  # "啊？刚升主美": the news echoed is the other's
        if m is not None and topic not in (None, speaker):
            named = _NAMING.match(piece[m.end() :])
            if named is not None:  # "我姐姐叫李娜，住在成都": from the next clause on, 李娜
                topic = named.group("name")
        found = grammar.newcomer.search(piece)
        if found is not None:  # from the next clause on, about the newcomer
            after = _named_in(piece[found.end() :])
            topic = after.group("name") if after else None
            newcomer = after is None
    return tuple(out)


_ECHO = re.compile(r"^\s*(?:啊|啥|什么|真的假的|真的|不会吧|哇|诶|欸|咦|天哪|我去|卧槽|嗯|哈)+\s*$")
_THIRD_PARTY = re.compile(r"[他她它牠](?!们)")


_ASKING = re.compile(r"[？?]\s*$|[吗呢]\s*$|几岁|多大|什么|哪|谁|怎么样|来着")


def asks_about_other(question: str, lexicons: Lexicons, names: Collection[str] = ()) -> bool:
    """Is the Chinese ``question`` (Simplified) about someone other than the one it is
    asked of: a third-person pronoun, a relation, a pet or someone named ("你外甥几岁了？",
    "它多大了？", "团子几岁了来着")?"""
    body = question.strip()
    if not _ASKING.search(body):
        return False
    beings = "|".join(lexicons.relations.forms("zh") + lexicons.animals.forms("zh"))
    return (
        _THIRD_PARTY.search(body) is not None
        or re.search(f"(?:{beings})", body) is not None
        or any(name and not name.isascii() and name in body for name in names)
        or _asked_of_someone_named(body)
    )


_ABOUT = re.compile(r"几岁|多大|多少岁|叫什么|做什么|干什么|在哪")


def _asked_of_someone_named(body: str) -> bool:
    """ "团子几岁了来着": the clause names someone other than 你 before what it asks."""
    m = _ABOUT.search(body)
    if m is None:
        return False
    head = re.split(r"[，。！？；,.!?;\s]", body[: m.start()])[-1]
    head = re.sub(
        r"(?:那么|那|所以|对了|请问|冒昧问一下|问一下|话说|今年|现在|目前|最近|明年|去年|到底|究竟)", "", head
    )
    return bool(re.search(r"[\u4e00-\u9fff]{2}", head)) and not re.search(r"[你您]", head)


def _named_in(rest: str) -> re.Match[str] | None:
    """ "养了一只柯基叫豆豆" / "，叫豆豆" in the same clause."""
    return re.match(r"^[，,]?\s*(?:名字)?(?:叫|名叫)(?P<name>[\u4e00-\u9fffA-Za-z]{1,4}?)(?=$|[，。！？,.!?\s])", rest)


def topic_at(topics: tuple[Topic, ...], pos: int, default: str | None) -> str | None:
    for t in topics:
        if t.start <= pos < t.end:
            return t.subject
    return default
