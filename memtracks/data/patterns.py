"""Loading the regex pattern files: ``rules/slot_patterns.yaml`` and ``rules/happenings.yaml``.

A pattern's regex may name macros as ``@name``. They expand recursively from the file's
``macros`` section and from the lexicons (``@relation``, ``@animal``, ``@job``, ``@activity``,
``@condition``, ``@car``). A group name
used twice after expansion (``subj`` in both arms of an alternation) is renamed ``subj2``,
``subj3``...; :func:`group` reads them back under the base name.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Generic, Literal, TypeVar

from pydantic import Field

from memtracks.data.catalogue import Catalogue, default_catalogue
from memtracks.data.files import Strict, bundled, read_yaml, validate_entries
from memtracks.data.lexicons import Lexicons, alternation, default_lexicons
from memtracks.errors import DataFileError

_MACRO = re.compile(r"@([a-z_][a-z0-9_]*)")
_GROUP = re.compile(r"\(\?P<([A-Za-z_]\w*)>")
_MAX_DEPTH = 8


class SlotPatternSpec(Strict):
    id: str = Field(min_length=1)
    lang: Literal["en", "zh"]
    slot: str
    regex: str
    negate: bool = False
    historical: bool = False
    confidence: float = Field(0.9, ge=0.0, le=1.0)
    require_entity: str | None = None
    reject: str | None = None
    split_list: bool = False
    keep_times: bool = False
    ends_only: bool = False
    value: str | None = None  # the value when the regex captures none ("谈恋爱了": 恋爱中)
    intent: bool = False  # the pattern states an aim ("my goal is to", 我打算考…): wishes and plans count
    lasting: bool = False  # a lasting trait: a clause pinned to one day ("不吃了" today) states none
    one_per_kind: bool = False  # one value per kind ("favourite colour"): a new one replaces the old one of its kind
    framed: bool = False  # the words around the value say what it is (在X做<a job>): its word tags are not checked
    speakers: bool = False  # said without a subject, it is the speaker's (家里现在两个孩子), not the last one named
    shown: bool = False  # told by something done: it holds now, whatever the tense ("had a chat in Tagalog yesterday")


class HappeningSpec(Strict):
    id: str = Field(min_length=1)
    lang: Literal["en", "zh"]
    kind: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    regex: str
    needs: list[str] = Field(default_factory=list)
    require_entity: dict[str, str] = Field(default_factory=dict)
    confidence: float = Field(0.85, ge=0.0, le=1.0)
    speaker: bool = False  # an order the speaker gives ("Scratch Boise"): theirs, whatever the parse says


S = TypeVar("S", SlotPatternSpec, HappeningSpec)


@dataclass(frozen=True)
class Compiled(Generic[S]):
    """A validated pattern spec (a slot pattern or a happening) with its compiled regexes, and
    the literal pieces one of which every match holds (``needs``, case-folded; see
    :func:`required_pieces`): a text holding none of them is not searched."""

    spec: S
    regex: re.Pattern[str]
    reject: re.Pattern[str] | None = None
    needs: tuple[str, ...] = ()

    def may_match_given(self, present: frozenset[str]) -> bool:
        """Could the regex match a text that holds the pieces ``present`` (:func:`present_pieces`)?
        False only when the text holds none of the pieces every match holds."""
        return not self.needs or not present.isdisjoint(self.needs)

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def optional_subject(self) -> bool:
        """The regex may match without a subject (Chinese drops subjects in later clauses)."""
        return "@subj?" in self.spec.regex or "@poss?" in self.spec.regex


_PIECES: dict[int, tuple[Sequence[Compiled], tuple[str, ...]]] = {}


def present_pieces(patterns: Sequence[Compiled], folded: str) -> frozenset[str]:
    """The pieces of ``patterns`` (their ``needs``) that the text ``folded`` (case-folded)
    holds, each looked for once however many patterns need it."""
    known = _PIECES.get(id(patterns))
    if known is None or known[0] is not patterns:
        if len(_PIECES) >= 64:  # pattern sets made and dropped (tests, reloads): start again
            _PIECES.clear()
        known = (patterns, tuple(sorted({piece for p in patterns for piece in p.needs})))
        _PIECES[id(patterns)] = known
    return frozenset(piece for piece in known[1] if piece in folded)


MIN_PIECE = 3  # a literal of fewer Latin letters (a Han character counts two) is in too many texts to check


def required_pieces(regex: re.Pattern[str]) -> tuple[str, ...]:
    """Literal pieces, case-folded, one of which every match of ``regex`` holds: the most
    selective such set the regex's parse shows (a run of literal characters in its top
    sequence, or one per branch of an alternation every match takes). () when there is no
    such set with pieces of at least ``MIN_PIECE`` (:func:`_weight`): the regex is always run."""
    from re import _parser  # type: ignore[attr-defined]

    found = _needed(_parser.parse(regex.pattern, regex.flags).data)
    return tuple(sorted(found)) if found and min(map(_weight, found)) >= MIN_PIECE else ()


def _weight(piece: str) -> int:
    """How selective a literal is: one per character, two per Han character."""
    return sum(2 if "\u3400" <= ch <= "\u9fff" else 1 for ch in piece)


def _needed(items: list) -> frozenset[str] | None:
    """The best set of pieces one of which a match of the sequence ``items`` must hold."""
    from re import _constants as c  # type: ignore[attr-defined]

    options: list[frozenset[str]] = []
    run: list[str] = []
    for op, arg in [*items, (None, None)]:
        if op is c.LITERAL:
            run.append(chr(arg))
            continue
        if run:
            options.append(frozenset({"".join(run).casefold()}))
            run = []
        inner = None
        if op is c.SUBPATTERN:
            inner = _needed(arg[-1].data if hasattr(arg[-1], "data") else arg[-1])
        elif op is c.ATOMIC_GROUP:
            inner = _needed(arg.data if hasattr(arg, "data") else arg)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and arg[0] >= 1:
            inner = _needed(arg[2].data if hasattr(arg[2], "data") else arg[2])
        elif op is c.BRANCH:
            branches = [_needed(b.data if hasattr(b, "data") else b) for b in arg[1]]
            if all(branches):
                inner = frozenset().union(*branches)  # type: ignore[arg-type]
        if inner:
            options.append(inner)
    return max(options, key=lambda o: (min(map(_weight, o)), -len(o)), default=None)


def _captured(match: re.Match[str], name: str) -> str | None:
    """The first of ``name`` and its renamed copies (``name2``...) that captured something."""
    return next((k for k in (name, f"{name}2", f"{name}3", f"{name}4") if match.groupdict().get(k)), None)


def group(match: re.Match[str], name: str) -> str | None:
    """The first non-empty capture of ``name`` or its renamed copies (``name2``...)."""
    key = _captured(match, name)
    return match.group(key) if key else None


def written(match: re.Match[str], name: str, text: str) -> str | None:
    """:func:`group` as ``text`` writes it, where ``match`` ran over its Simplified copy (same
    length, so the offsets hold): 貓 where the pattern read 猫."""
    key = _captured(match, name)
    if key is None:
        return None
    return text[match.start(key) : match.end(key)] if len(match.string) == len(text) else match.group(key)


def base_groups(match: re.Match[str]) -> dict[str, str]:
    """All non-empty captures, renamed copies folded into their base name."""
    out: dict[str, str] = {}
    for key, value in match.groupdict().items():
        if value:
            out.setdefault(re.sub(r"\d+$", "", key), value)
    return out


def lexicon_macros(lexicons: Lexicons, lang: str) -> dict[str, str]:
    return {
        "relation": alternation(lexicons.relations.forms(lang)),
        "animal": alternation(lexicons.animals.forms(lang)),
        "job": alternation(lexicons.jobs.forms(lang)),
        "activity": alternation(lexicons.activities.forms(lang)),
        "condition": alternation(lexicons.conditions.forms(lang)),
        # makes and models of car; a Chinese turn may write them in Latin letters (买了一辆Tesla)
        "car": f"(?i:{lexicons.vehicles.pattern(('car',), ('en',) if lang == 'en' else ('zh', 'en'))})",
    }


def expand(regex: str, macros: dict[str, str]) -> str:
    """Expand ``@name`` macros; raise ``KeyError`` naming an unknown one."""
    for _ in range(_MAX_DEPTH):
        names = _MACRO.findall(regex)
        if not names:
            return _dedupe_groups(regex)
        unknown = [n for n in names if n not in macros]
        if unknown:
            raise KeyError(f"unknown macro '@{unknown[0]}' (known: {', '.join(sorted(macros))})")
        regex = _MACRO.sub(lambda m: macros[m.group(1)], regex)
    raise KeyError(f"macros nest deeper than {_MAX_DEPTH} levels (a macro refers to itself?)")


def _dedupe_groups(regex: str) -> str:
    counts: Counter[str] = Counter()

    def rename(m: re.Match[str]) -> str:
        counts[m.group(1)] += 1
        n = counts[m.group(1)]
        return m.group(0) if n == 1 else f"(?P<{m.group(1)}{n}>"

    return _GROUP.sub(rename, regex)


def _compile(spec, macros: dict[str, dict[str, str]]) -> tuple[Compiled | None, list[str]]:
    flags = re.IGNORECASE if spec.lang == "en" else 0
    try:
        regex = re.compile(expand(spec.regex, macros[spec.lang]), flags)
    except KeyError as exc:
        return None, [f"field 'regex': {exc.args[0]}"]
    except re.error as exc:
        return None, [f"field 'regex': does not compile after macro expansion: {exc}"]
    reject = None
    if getattr(spec, "reject", None):
        try:
            reject = re.compile(spec.reject, flags)
        except re.error as exc:
            return None, [f"field 'reject': bad regex: {exc}"]
    return Compiled(spec, regex, reject, required_pieces(regex)), []


def _file_macros(
    path: Path, doc: dict, lexicons: Lexicons, base: dict[str, dict[str, str]] | None = None
) -> dict[str, dict[str, str]]:
    """The macros a pattern file may use: the lexicons', ``base`` (another file's), its own."""
    raw = doc.get("macros", {})
    if not isinstance(raw, dict) or not all(isinstance(v, dict) for v in raw.values()):
        raise DataFileError(str(path), ["section 'macros' must map a language to name: regex"])
    return {
        lang: {**lexicon_macros(lexicons, lang), **(base or {}).get(lang, {}), **raw.get(lang, {})}
        for lang in ("en", "zh")
    }


def file_macros(
    path: Path, lexicons: Lexicons | None = None, base: dict[str, dict[str, str]] | None = None
) -> dict[str, dict[str, str]]:
    """The macros of a pattern file (with the lexicons' and ``base``'s), by language."""
    doc = read_yaml(path)
    return _file_macros(path, doc if isinstance(doc, dict) else {}, lexicons or default_lexicons(), base)


def _load(
    path: Path,
    section: str,
    model: type,
    macros: dict[str, dict[str, str]],
    check: Callable[..., Iterator[str]],
) -> list[Compiled]:
    doc = read_yaml(path)
    if not isinstance(doc, dict) or section not in doc:
        raise DataFileError(str(path), [f"missing top-level section '{section}'"])
    compiled: list[Compiled] = []

    def check_and_compile(spec) -> Iterator[str]:
        yield from check(spec)
        item, problems = _compile(spec, macros)
        if item is not None:
            compiled.append(item)
        yield from problems

    validate_entries(path, doc[section], model, section=section, check=check_and_compile)
    return compiled


def load_slot_patterns(
    path: Path | None = None,
    catalogue: Catalogue | None = None,
    lexicons: Lexicons | None = None,
    base_macros: dict[str, dict[str, str]] | None = None,
) -> list[Compiled]:
    """Load and compile slot patterns, in file order (earlier patterns win overlaps).
    ``base_macros``: macros of another file this one may use (the bundled one's)."""
    path = path or bundled("rules", "slot_patterns.yaml")
    catalogue = catalogue or default_catalogue()
    macros = file_macros(path, lexicons, base_macros)

    def check(spec: SlotPatternSpec) -> Iterator[str]:
        if spec.slot not in catalogue:
            yield f"field 'slot': unknown slot {spec.slot!r}; known: {', '.join(sorted(catalogue.by_name))}"
        if not spec.negate and not spec.value and "(?P<value>" not in expand_safe(spec.regex, macros[spec.lang]):
            yield "field 'regex': needs a (?P<value>...) group (or negate: true, or a constant value)"

    return _load(path, "patterns", SlotPatternSpec, macros, check)


def load_happening_patterns(
    path: Path | None = None,
    macros_from: Path | None = None,
    lexicons: Lexicons | None = None,
    base_macros: dict[str, dict[str, str]] | None = None,
) -> list[Compiled]:
    """Load and compile happening patterns; macros come from the slot pattern file (and
    ``base_macros``)."""
    path = path or bundled("rules", "happenings.yaml")
    macros = file_macros(macros_from or bundled("rules", "slot_patterns.yaml"), lexicons, base_macros)

    def check(spec: HappeningSpec) -> Iterator[str]:
        for need in spec.needs:
            if need != "time" and f"(?P<{need}>" not in expand_safe(spec.regex, macros[spec.lang]):
                yield f"field 'needs': argument {need!r} is not a group of the regex"

    return _load(path, "happenings", HappeningSpec, macros, check)


def expand_safe(regex: str, macros: dict[str, str]) -> str:
    try:
        return expand(regex, macros)
    except KeyError:
        return regex


def load_change_words(path: Path | None = None) -> dict[str, tuple[str, ...]]:
    """``changes`` of ``rules/happenings.yaml``: happening kind -> the nouns that name it."""
    path = path or bundled("rules", "happenings.yaml")
    doc = read_yaml(path)
    section = doc.get("changes", {}) if isinstance(doc, dict) else {}
    if not isinstance(section, dict) or not all(isinstance(v, list) for v in section.values()):
        raise DataFileError(str(path), ["section 'changes' must map a happening kind to a list of words"])
    return {kind: tuple(str(w).lower() for w in words) for kind, words in section.items()}


@lru_cache(maxsize=1)
def default_slot_patterns() -> tuple[Compiled, ...]:
    return tuple(load_slot_patterns())


@lru_cache(maxsize=1)
def default_happening_patterns() -> tuple[Compiled, ...]:
    return tuple(load_happening_patterns())


@lru_cache(maxsize=1)
def default_change_words() -> dict[str, tuple[str, ...]]:
    return load_change_words()
