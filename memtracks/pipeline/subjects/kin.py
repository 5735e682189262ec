"""Relatives named by their relation: "my brother Tom", "my kids Lily and Max", 我哥哥小明,
我老婆是王芳, 我有两个孩子，乐乐和豆豆 — each a fact about the speaker: ``family: Tom (brother)``,
``children: Lily (kid)``, ``partner: 小红（老婆）``.

Which slot a relation fills comes from ``lexicons/relations.yaml``: a relation of the category
``relationship_status`` (wife, boyfriend...) fills ``partner``, a child ``children``, any
other ``family_member`` ``family``; friends, colleagues and bosses fill none. A name must
read as one: in English a capitalised word that is no time, place or thing; in Chinese a
whole word that is a person's name (a known surname, 小/阿 and a character, a doubled
nickname such as 豆豆 that is no adverb like 常常). A question names no one ("Did I tell you
about my brother Sam?"). :func:`kin_values` is pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from memtracks.data.lexicons import Lexicons, alternation
from memtracks.pipeline.nlp import Token
from memtracks.pipeline.subjects.chinese_names import PREDICATE_STARTS, name_end
from memtracks.pipeline.text import sentence_at, sentences, value_key
from memtracks.records import Entity, SlotValue, TimeMention

CHILDREN = frozenset({"son", "daughter", "child"})
CONFIDENCE = 0.85
_NOT_NAME_EN = frozenset(
    "i i'm im and or but so ok okay yes no hi hey today tomorrow yesterday tonight jr sr mr mrs ms dr".split()
)
_NOT_NAME_LABELS = frozenset({"place", "org", "product", "language", "work"})
_MODIFIER_EN = r"(?:(?:older|younger|little|big|baby|twin|eldest|oldest|youngest|step|half)[ -])?"
_NAME_EN = r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?"
# "my brother Tom", "my sister, Anna, is..."; not "my partner, Sarah and I" nor "my gf, Toby, and
# I" (a list of three as likely as a name said twice)
_ONE_EN = re.compile(
    rf"\b(?i:my|our)\s+(?P<rel>{_MODIFIER_EN}(?-i:[a-z-]+))(?:(?P<comma>,)\s+|\s+)(?P<name>{_NAME_EN})(?![\w-])"
    r"(?(comma)(?!,?\s+(?:and|&|or)\b))"
)
_PLURAL_EN = {"kids": "kid", "children": "child", "sons": "son", "daughters": "daughter", "brothers": "brother"}
_PLURAL_EN |= {"sisters": "sister", "cousins": "cousin", "nephews": "nephew", "nieces": "niece"}
_LIST_EN = re.compile(
    r"\b(?:(?i:my|our)\s+(?:(?i:two|three|four|five|\d)\s+)?|(?i:i|we)\s+(?:(?i:have|'ve got|have got|got))\s+"
    r"(?:(?i:two|three|four|five|\d)\s+))"
    rf"(?P<rel>(?i:{'|'.join(_PLURAL_EN)}))[,:]?\s+(?:(?i:named|called|are)\s+|[-—]\s*)?"
    rf"(?P<names>{_NAME_EN}(?:,\s+{_NAME_EN})*,?\s+(?:and|&)\s+{_NAME_EN})\b"
)
_ADVERB_TAGS_ZH = ("d", "t", "m", "p", "c", "r", "u", "v", "q", "f", "y", "e", "x")


def kin_values(
    text: str,
    lang: str,
    speaker: str,
    lexicons: Lexicons,
    entities: Sequence[Entity] = (),
    times: Sequence[TimeMention] = (),
    tokens: Sequence[Token] = (),
    search: str | None = None,
    asked: Callable[[int], bool] | None = None,
) -> tuple[SlotValue, ...]:
    """The relatives the speaker names in ``text`` (``search``: its Simplified copy); none in a
    clause ``asked`` says is a question (by default: in a sentence ending in a question mark)."""
    search = search if search is not None else (lexicons.to_simplified(text) if lang == "zh" else text)
    sents = sentences(text)
    if asked is None:
        asked = lambda pos: sentence_at(sents, pos).question  # noqa: E731
    found = _english(text, lexicons, entities, times) if lang == "en" else _chinese(text, search, lexicons, tokens)
    out: list[SlotValue] = []
    for rel, shown, name, span in found:
        slot = fills(rel, lexicons)
        if slot is None or asked(span[0]):
            continue
        value = f"{name}（{shown}）" if lang == "zh" else f"{name} ({shown})"
        item = SlotValue(speaker, slot, value, value_key(name), span, f"{lang}.kin.named", lang, CONFIDENCE)
        out.append(_qualified(item, rel))
    return tuple(out)


def _qualified(value: SlotValue, rel: str) -> SlotValue:

    return replace(value, qualifier=rel)


def fills(rel: str, lexicons: Lexicons) -> str | None:
    """The slot a relative of relation ``rel`` fills for the one whose relative they are."""
    spec = next((s for s in lexicons.relations.specs if s.key == rel), None)
    if spec is None:
        return None
    if "relationship_status" in spec.categories:
        return "partner"
    if rel in CHILDREN:
        return "children"
    return "family" if "family_member" in spec.categories else None


# ---------------------------------------------------------------------- English


def _english(
    text: str, lexicons: Lexicons, entities: Sequence[Entity], times: Sequence[TimeMention]
) -> list[tuple[str, str, str, tuple[int, int]]]:
    out = []
    for m in _ONE_EN.finditer(text):
        shown = m.group("rel").lower()
        rel = lexicons.relations.key(shown) or lexicons.relations.key(re.sub(rf"^{_MODIFIER_EN}", "", shown))
        if rel and _name_en(m.span("name"), m.group("name"), entities, times):
            out.append((rel, shown, m.group("name"), m.span()))
    for m in _LIST_EN.finditer(text):
        shown = _PLURAL_EN[m.group("rel").lower()]
        rel = lexicons.relations.key(shown)
        names = [(n.group(), m.start("names") + n.start()) for n in re.finditer(_NAME_EN, m.group("names"))]
        if rel and names and all(_name_en((s, s + len(n)), n, entities, times) for n, s in names):
            out += [(rel, shown, n, m.span()) for n, _ in names]
    return out


def _name_en(span: tuple[int, int], name: str, entities: Sequence[Entity], times: Sequence[TimeMention]) -> bool:
    """A capitalised word after "my brother" that is a name: no time ("my sister Saturday"),
    no place, thing or language the lexicon or the user's own names know, not a word that is
    capitalised for other reasons. (The recogniser's guess of a place is overruled: after "my
    sister" a capitalised word is her name, "Leah" as often as not tagged a place.)"""
    if name.lower() in _NOT_NAME_EN:
        return False
    if any(t.span[0] < span[1] and span[0] < t.span[1] for t in times):
        return False
    return not any(
        e.label in _NOT_NAME_LABELS and e.span[0] < span[1] and span[0] < e.span[1] and e.source != "ner"
        for e in entities
    )


# ---------------------------------------------------------------------- Chinese


def _chinese(
    text: str, search: str, lexicons: Lexicons, tokens: Sequence[Token]
) -> list[tuple[str, str, str, tuple[int, int]]]:
    out = []
    for regex in _LISTS_ZH:
        for m in regex.finditer(search):
            shown = text[m.start("rel") : m.end("rel")].rstrip("们們")  # the word the turn calls them by
            rel = lexicons.relations.key(shown) or "child"
            names = [(n.group(), m.start("names") + n.start()) for n in _NAME_ITEM_ZH.finditer(m.group("names"))]
            if all(_listed_name_zh(n, s, lexicons, tokens, bool(m.group("jiao"))) for n, s in names):
                out += [(rel, shown, text[s : s + len(n)], m.span()) for n, s in names]
    taken = [span for *_, span in out]
    for m in _one_zh(lexicons).finditer(search):
        rel = lexicons.relations.key(m.group("rel")) or "child"  # 娃
        if any(a <= m.start() < b for a, b in taken):
            continue
        end = name_end(search, m.end(), tokens, lexicons)  # 我哥哥小明, 我老婆是王芳, 我弟弟阿杰刚…
        if end is None:
            end = _given_name_end(search, m.end(), tokens)  # 我女朋友佩君在金石堂上班
        if end is not None:
            out.append((rel, text[m.start("rel") : m.end("rel")], text[m.end() : end], (m.start(), end)))
    return out


def _given_name_end(search: str, start: int, tokens: Sequence[Token]) -> int | None:
    """A given name without its surname right after a kin word (佩君, 俊熙: chat names a partner
    so), where the splitter reads a name and what follows it says something of them (在, 是,
    也...): where it ends, or None."""
    word = next((t for t in tokens if t.start == start), None)
    if word is None or len(word.text) != 2 or not word.tag.startswith(("nr", "nz")):
        return None
    return word.end if search.startswith(tuple(PREDICATE_STARTS), word.end) else None


_COUNT_ZH = r"(?:两|俩|三|仨|四|五|2|3|4|5)"
_NAMES_ZH = r"(?P<names>[\u4e00-\u9fff]{2,3}(?:[、，,和跟与][\u4e00-\u9fff]{2,3})+)"
_KIDS_ZH = r"孩子|小孩|娃|儿子|女儿|宝宝"
_LISTS_ZH = (
    # 我有两个孩子，乐乐和豆豆 / 我家有俩娃：大宝、二宝 / 我有两个哥哥，分别叫大伟和小伟
    re.compile(
        rf"我(?:们)?(?:家)?(?:有|生了)(?:{_COUNT_ZH})个?(?P<rel>{_KIDS_ZH}|哥哥|姐姐|弟弟|妹妹)"
        rf"[，,：:]?\s*(?:分别)?(?P<jiao>叫|是)?{_NAMES_ZH}"
    ),
    # 我的孩子叫乐乐和豆豆 / 我两个儿子分别叫大伟和小伟
    re.compile(rf"我(?:的|家)?(?:{_COUNT_ZH}个|俩)?(?P<rel>(?:{_KIDS_ZH})们?)(?:分别)?(?P<jiao>叫|是){_NAMES_ZH}"),
)
_NAME_ITEM_ZH = re.compile(r"[^、，,和跟与]+")
_ONE_ZH: dict[int, re.Pattern[str]] = {}


def _one_zh(lexicons: Lexicons) -> re.Pattern[str]:
    """我哥哥 / 我的表姐 / 我家娃 followed by a word (the name is checked on its own)."""
    if id(lexicons) not in _ONE_ZH:
        rels = alternation([*lexicons.relations.forms("zh"), "娃"])
        _ONE_ZH[id(lexicons)] = re.compile(rf"(?<![你他她它])我(?:们)?(?:的|家)?(?P<rel>{rels})(?:是)?")
    return _ONE_ZH[id(lexicons)]


def _listed_name_zh(name: str, start: int, lexicons: Lexicons, tokens: Sequence[Token], loose: bool) -> bool:
    """A name (Simplified) at ``start`` in a list of children or siblings ("乐乐和豆豆", "大宝和
    二宝": jieba may cut across it): no kin word or common noun (男孩和女孩), no adverb, verb or
    number inside."""
    end = start + len(name)
    over = [t for t in tokens if t.start < end and start < t.end]
    if not 2 <= len(name) <= 3 or lexicons.relations.key(name) or not over:
        return False
    if any(t.tag[:1] in _ADVERB_TAGS_ZH and t.tag != "q" for t in over):
        return False
    if loose or name[0] == name[1] or name[0] in "小阿大二三老":
        return True
    return any(t.tag.startswith(("nr", "nz")) for t in over) or lexicons.is_chinese_name(name)
