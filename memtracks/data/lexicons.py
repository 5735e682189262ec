"""Bilingual word lists from ``lexicons/``: named entities, relations, animals, jobs,
activities, health conditions, and the categories they belong to.

Each list maps surface forms in English and Chinese to one canonical key, so 上海 and
Shanghai are the same entity and 姐姐 and "sister" the same relation. An entry may name the
categories it belongs to (``categories: [sport]``); ``categories.yaml`` says how a question
names each category ("sports", 运动) and lists the members that have no other home, so a
question about "martial arts" also searches for the turns that say "kickboxing" or 跆拳道.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field

from memtracks.data.files import Strict, bundled, load_section, read_yaml
from memtracks.errors import DataFileError
from memtracks.pipeline.text import surface_key
from memtracks.records import Entity


class TermSpec(Strict):
    key: str = Field(min_length=1)
    en: list[str] = Field(default_factory=list)
    zh: list[str] = Field(default_factory=list)
    gender: Literal["f", "m"] | None = None  # relations: who "she" / 她 can refer to
    parents_say: str | None = None  # relations: the child a parent means by the bare word (哥哥: son)
    categories: list[str] = Field(default_factory=list)  # keys of categories.yaml it belongs to


class EntitySpec(TermSpec):
    label: Literal["place", "org", "product", "language", "person"]


def _problems(spec: TermSpec):
    if not spec.en and not spec.zh:
        yield "fields 'en'/'zh': give at least one surface form"
    for lang in ("en", "zh"):
        for form in getattr(spec, lang):
            if not form.strip():
                yield f"field '{lang}': empty surface form"


def alternation(forms: list[str]) -> str:
    """A regex alternation of ``forms``, longest first, tolerant of inner whitespace. A form
    written in capitals (an acronym: RN, HR) matches only in capitals, in patterns that
    otherwise ignore case ("an RN at Mercy", not "tired rn")."""
    escaped = sorted({re.escape(f).replace(r"\ ", r"\s*") for f in forms}, key=len, reverse=True)
    return "|".join(f"(?-i:{f})" if _ACRONYM.fullmatch(f) else f for f in escaped)


_ACRONYM = re.compile(r"[A-Z]{2,5}")


@dataclass(frozen=True)
class TermList:
    """Surface forms -> canonical key, for one kind of term."""

    name: str
    specs: tuple[TermSpec, ...]

    @cached_property
    def lookup(self) -> dict[str, str]:
        return {surface_key(f): s.key for s in self.specs for f in (*s.en, *s.zh)}

    def forms(self, lang: str) -> list[str]:
        return [f for s in self.specs for f in getattr(s, lang)]

    def key(self, text: str) -> str | None:
        return self.lookup.get(surface_key(text))

    @cached_property
    def genders(self) -> dict[str, str]:
        return {s.key: s.gender for s in self.specs if s.gender}

    @cached_property
    def parents_say(self) -> dict[str, str]:
        """Relation -> the child a parent calls by its bare word (brother -> son: 哥哥三年级了)."""
        return {s.key: s.parents_say for s in self.specs if s.parents_say}

    def key_of_prefix(self, text: str) -> str | None:
        """The key of the longest surface form ``text`` starts with ("朋友开" -> friend)."""
        for end in range(len(text), 0, -1):
            found = self.key(text[:end])
            if found:
                return found
        return None


@dataclass(frozen=True)
class EntityLexicon(TermList):
    """Named entities with labels, found in text by one compiled regex."""

    @cached_property
    def labels(self) -> dict[str, str]:
        return {s.key: s.label for s in self.specs}  # type: ignore[attr-defined]

    @cached_property
    def _regex(self) -> re.Pattern[str]:
        latin = alternation(self.forms("en") + [f for f in self.forms("zh") if f.isascii()])
        han = alternation([f for f in self.forms("zh") if not f.isascii()])
        return re.compile(rf"(?<![A-Za-z0-9])(?:{latin})(?![A-Za-z0-9])|{han}", re.IGNORECASE)

    def find(self, text: str) -> list[Entity]:
        found = []
        for m in self._regex.finditer(text):
            key = self.key(m.group())
            if key is not None:
                found.append(Entity(m.group(), self.labels[key], key, m.span(), "lexicon"))
        return found


class VehicleSpec(TermSpec):
    """An entry of ``vehicles.yaml``: a make or model of car, a word for a car, or another vehicle."""

    kind: Literal["car", "car_word", "other"]


def _form_regex(form: str) -> str:
    """One surface form as a regex: Latin forms as whole words, a capitalised word ("Leaf",
    "Giant") in its own case, the rest in any case (the regex is compiled ignoring case)."""
    body = re.escape(form).replace(r"\ ", r"\s*")
    if not form.isascii():
        return body
    if re.fullmatch(r"[A-Z][a-z]+(?:[ -][A-Z]?[a-z]+)*", form):
        body = f"(?-i:{body})"
    return rf"(?<![A-Za-z0-9]){body}(?![A-Za-z0-9])"


@dataclass(frozen=True)
class Vehicles(TermList):
    """``vehicles.yaml``: what makes a value a car (:meth:`is_car`) and the makes and models
    the ``@car`` macro matches."""

    @cached_property
    def kinds(self) -> dict[str, str]:
        return {s.key: s.kind for s in self.specs}  # type: ignore[attr-defined]

    def pattern(self, kinds: tuple[str, ...], langs: tuple[str, ...]) -> str:
        """A regex (for a pattern compiled ignoring case) of the forms of ``kinds`` in ``langs``,
        longest first; one that matches nothing when there are none."""
        forms = {f for s in self.specs if s.kind in kinds for lang in langs for f in getattr(s, lang)}  # type: ignore[attr-defined]
        return "|".join(_form_regex(f) for f in sorted(forms, key=len, reverse=True)) or "(?!)"

    @cached_property
    def _finder(self) -> re.Pattern[str]:
        return re.compile(self.pattern(("car", "car_word", "other"), ("en", "zh")), re.IGNORECASE)

    def cars_in(self, text: str, lang: str) -> list[tuple[int, int]]:
        """Where ``text`` names a make or model of car, with the model's letters and digits
        after it as the ``@car`` patterns read them ("Honda Civic", 宝马X3, 零跑C10)."""
        car = self.pattern(("car",), ("en",) if lang == "en" else ("zh", "en"))
        after = (
            r"(?: (?-i:[A-Z0-9][\w-]*)){0,2}"
            if lang == "en"
            else rf"(?:{car}|[ -]?[A-Za-z0-9]{{1,6}}){{0,2}}(?![A-Za-z0-9])"
        )
        return [m.span() for m in re.finditer(rf"(?:{car}){after}", text, re.IGNORECASE)]

    def is_car(self, value: str) -> bool:
        """Does ``value`` (Simplified) name a car — a make, a model or a word for a car — and no
        other vehicle ("used Trek bike", 二手捷安特, 电动车 are none)?"""
        kinds = {self.kinds.get(self.key(m.group()) or "") for m in self._finder.finditer(value)}
        return "other" not in kinds and bool(kinds & {"car", "car_word"})


def vehicle_problems(specs: Sequence[VehicleSpec]) -> list[str]:
    """A surface form in two entries would make a value's kind ambiguous."""
    seen: dict[str, str] = {}
    problems = []
    for n, spec in enumerate(specs):
        for lang in ("en", "zh"):
            for form in getattr(spec, lang):
                other = seen.setdefault(surface_key(form), spec.key)
                if other != spec.key:
                    problems.append(f"vehicles[{n}] '{spec.key}': field '{lang}': {form!r} is also a form of '{other}'")
    return problems


class CategorySpec(Strict):
    """A category of ``categories.yaml``: how a question names it, and its members."""

    key: str = Field(min_length=1)
    en: list[str] = Field(default_factory=list)  # how an English question names it ("martial arts")
    zh: list[str] = Field(default_factory=list)  # how a Chinese one does (武术)
    includes: list[str] = Field(default_factory=list)  # categories whose members are members too
    labels: list[Literal["place", "org", "product", "language", "person"]] = Field(default_factory=list)
    lists: list[Literal["entities", "relations", "animals", "jobs", "activities", "conditions"]] = Field(
        default_factory=list
    )  # lexicons whose every entry is a member (pets: animals)
    members_en: list[str] = Field(default_factory=list)  # members with no home in another lexicon
    members_zh: list[str] = Field(default_factory=list)
    known: list[str] = Field(default_factory=list)  # labels of the names a memory learnt (pet: Bailey)


def _category_problems(spec: CategorySpec):
    if not spec.en and not spec.zh:
        yield "fields 'en'/'zh': give at least one way a question names the category"
    for name in ("en", "zh", "members_en", "members_zh"):
        for form in getattr(spec, name):
            if not form.strip():
                yield f"field '{name}': empty surface form"
    if spec.key in spec.includes:
        yield f"field 'includes': a category cannot include itself ({spec.key!r})"


def _word_regex(forms: list[str]) -> re.Pattern[str]:
    """English forms as whole words (a plural or "-s" still matches), any inner whitespace."""
    return re.compile(rf"(?<![a-z0-9])(?:{alternation(forms) or '(?!)'})(?:e?s)?(?![a-z0-9])", re.IGNORECASE)


@dataclass(frozen=True)
class Category:
    """One category with every member it gathers (its own, the entries of other lexicons that
    name it, those of the categories it includes, the entities of its labels)."""

    key: str
    names_en: tuple[str, ...]
    names_zh: tuple[str, ...]
    members_en: tuple[str, ...]
    members_zh: tuple[str, ...]
    known: tuple[str, ...] = ()  # labels of a memory's names that are members ("pet": its pets' names)

    @cached_property
    def named_en(self) -> re.Pattern[str]:
        return _word_regex(list(self.names_en))

    @cached_property
    def named_zh(self) -> re.Pattern[str]:
        return re.compile(alternation(list(self.names_zh)) or "(?!)")

    @cached_property
    def member_en(self) -> re.Pattern[str]:
        return _word_regex(list(self.members_en))

    @cached_property
    def member_zh(self) -> re.Pattern[str]:
        return re.compile(alternation([f for f in self.members_zh if not f.isascii()]) or "(?!)")


def build_categories(
    specs: tuple[CategorySpec, ...], lists: tuple[TermList, ...], path: str = "categories.yaml"
) -> tuple[Category, ...]:
    """Every category with its members gathered; fails (naming ``path``, the category and the
    field) on an unknown included category, a category with no member, or an own member that
    already has a home in another lexicon (give that entry the category instead)."""
    known = {s.key for s in specs}
    homes = {surface_key(f): (t.name, s.key) for t in lists for s in t.specs for f in (*s.en, *s.zh)}
    tagged: dict[str, list[TermSpec]] = {}
    labelled: dict[str, list[TermSpec]] = {}
    for terms in lists:
        for entry in terms.specs:
            for category in entry.categories:
                tagged.setdefault(category, []).append(entry)
            label = getattr(entry, "label", None)
            if label:
                labelled.setdefault(label, []).append(entry)
    problems = []
    for n, spec in enumerate(specs):
        where = f"categories[{n}] '{spec.key}'"
        problems += [f"{where}: field 'includes': unknown category {c!r}" for c in spec.includes if c not in known]
        for field_name in ("members_en", "members_zh"):
            for form in getattr(spec, field_name):
                if (home := homes.get(surface_key(form))) is not None:
                    problems.append(
                        f"{where}: field '{field_name}': {form!r} already has a home in {home[0]}.yaml "
                        f"'{home[1]}' (give that entry the category)"
                    )
    by_key = {s.key: s for s in specs}

    def gather(key: str, seen: set[str]) -> tuple[list[str], list[str]]:
        seen.add(key)
        spec = by_key[key]
        en, zh = list(spec.members_en), list(spec.members_zh)
        whole = [e for t in lists if t.name in spec.lists for e in t.specs]
        for entry in tagged.get(key, []) + [e for label in spec.labels for e in labelled.get(label, [])] + whole:
            en += entry.en
            zh += entry.zh
        for other in spec.includes:
            if other in by_key and other not in seen:
                more_en, more_zh = gather(other, seen)
                en += more_en
                zh += more_zh
        return en, zh

    out = []
    for n, spec in enumerate(specs):
        en, zh = gather(spec.key, set())
        if not en and not zh:
            problems.append(
                f"categories[{n}] '{spec.key}': fields 'members_en'/'members_zh': no members "
                "(list some, include a category, or give entries of another lexicon this category)"
            )
        out.append(
            Category(
                spec.key,
                tuple(spec.en),
                tuple(spec.zh),
                tuple(dict.fromkeys(en)),
                tuple(dict.fromkeys(zh)),
                tuple(spec.known),
            )
        )
    if problems:
        raise DataFileError(path, problems)
    return tuple(out)


@dataclass(frozen=True)
class Lexicons:
    entities: EntityLexicon
    relations: TermList
    animals: TermList
    jobs: TermList
    activities: TermList = field(default_factory=lambda: TermList("activities", ()))
    conditions: TermList = field(default_factory=lambda: TermList("conditions", ()))
    surnames: frozenset[str] = frozenset()
    traditional: dict[str, str] = field(default_factory=dict)  # Traditional -> Simplified character
    # written Cantonese -> the Mandarin word of the same length (咗: 了, 喺: 在, 而家: 现在)
    cantonese: dict[str, str] = field(default_factory=dict)
    categories: tuple[Category, ...] = ()  # categories.yaml, their members gathered
    vehicles: Vehicles = field(default_factory=lambda: Vehicles("vehicles", ()))  # vehicles.yaml: what is a car
    places_zh: tuple[str, ...] = ()  # places_zh.yaml: place names the Chinese word splitter tags as places
    places_en: frozenset[str] = frozenset()  # places_en.yaml: towns and cities a recogniser may mislabel

    @cached_property
    def _to_simplified(self) -> dict[int, str]:
        return str.maketrans(self.traditional)

    @cached_property
    def _cantonese(self) -> re.Pattern[str] | None:
        words = sorted(self.cantonese, key=len, reverse=True)
        return re.compile("|".join(re.escape(w) for w in words)) if words else None

    @cached_property
    def _to_traditional(self) -> dict[int, str]:
        first: dict[str, str] = {}
        for trad, simp in self.traditional.items():
            first.setdefault(simp, trad)  # the map's first reading (发: 發, not 髮)
        return str.maketrans(first)

    def to_traditional(self, text: str) -> str:
        """``text`` (Simplified) in Traditional characters, each character by the map's first
        reading of it: for words memtracks writes itself (a constant value, 离异 → 離異), not for
        reading a turn."""
        return text.translate(self._to_traditional)

    def to_simplified(self, text: str) -> str:
        """``text`` with Traditional characters mapped to Simplified, one for one, and written
        Cantonese words to the Mandarin ones the patterns are written in (same length: the
        offsets of the text hold in its copy)."""
        out = text.translate(self._to_simplified) if self.traditional else text
        if self._cantonese is not None:
            out = self._cantonese.sub(lambda m: self.cantonese[m.group()], out)
        return out

    def is_chinese_name(self, text: str) -> bool:
        """A jieba "nr" word counts as a name only when it starts with a common surname."""
        return 2 <= len(text) <= 4 and (text[0] in self.surnames or text[:2] in self.surnames)


def term_check(known: frozenset[str] | None = None):
    """The checks of a lexicon entry; with ``known``, its categories must be among them."""

    def check(spec: TermSpec):
        yield from _problems(spec)
        if known is not None:
            for category in spec.categories:
                if category not in known:
                    yield f"field 'categories': unknown category {category!r} (categories.yaml)"

    return check


def _load_terms(path: Path, section: str, known: frozenset[str] | None = None) -> tuple[TermSpec, ...]:
    return tuple(load_section(path, section, TermSpec, id_field="key", check=term_check(known)))


def load_entities(path: Path, known: frozenset[str] | None = None) -> EntityLexicon:
    specs = load_section(path, "entities", EntitySpec, id_field="key", check=term_check(known))
    return EntityLexicon("entities", tuple(specs))


def load_vehicles(path: Path, known: frozenset[str] | None = None, base: Sequence[VehicleSpec] = ()) -> Vehicles:
    """``vehicles.yaml`` (its entries before ``base``'s, an entry replacing the one of its key)."""
    mine = load_section(path, "vehicles", VehicleSpec, id_field="key", check=term_check(known))
    keys = {s.key for s in mine}
    specs = (*mine, *(s for s in base if s.key not in keys))
    problems = vehicle_problems(specs)
    if problems:
        raise DataFileError(str(path), problems)
    return Vehicles("vehicles", tuple(specs))


def load_category_specs(path: Path) -> tuple[CategorySpec, ...]:
    return tuple(load_section(path, "categories", CategorySpec, id_field="key", check=_category_problems))


def load_surnames(path: Path) -> frozenset[str]:
    doc = read_yaml(path)
    items = doc.get("surnames") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise DataFileError(str(path), ["section 'surnames' must be a list of strings"])
    bad = [
        f"surnames[{i}]: must be a non-empty string"
        for i, x in enumerate(items)
        if not isinstance(x, str) or not x.strip()
    ]
    if bad:
        raise DataFileError(str(path), bad)
    return frozenset(items)


_HAN_NAME = re.compile(r"[\u4e00-\u9fff]{2,8}")


def load_places(path: Path, taken: Sequence[str] = ()) -> tuple[str, ...]:
    """``places_zh.yaml``: groups of Chinese place names, each two to eight Han characters, once
    in the file and in no entity entry (``taken``: an entity's form has its own key there)."""
    doc = read_yaml(path)
    groups = doc.get("places") if isinstance(doc, dict) else None
    if not isinstance(groups, dict) or not groups:
        raise DataFileError(str(path), ["section 'places' must map group names to lists of place names"])
    names: dict[str, str] = {}
    bad, taken_forms = [], set(taken)
    for group, items in groups.items():
        if not isinstance(items, list):
            bad.append(f"places.{group}: must be a list of place names")
            continue
        for i, name in enumerate(items):
            _listed_once(
                name, f"places.{group}[{i}]", _HAN_NAME, "two to eight Han characters", names, bad, taken_forms
            )
    if bad:
        raise DataFileError(str(path), bad)
    return tuple(names)


def _listed_once(
    name: object,
    where: str,
    form: re.Pattern[str],
    form_said: str,
    names: dict[str, str],
    bad: list[str],
    taken: Collection[str] = (),
) -> None:
    """Add ``name`` (at ``where`` in its file) to ``names``, or say in ``bad`` why not: not of
    ``form``, listed before, or an entity's form (``taken``)."""
    if not isinstance(name, str) or not form.fullmatch(name):
        bad.append(f"{where} {name!r}: must be {form_said}")
    elif name in names:
        bad.append(f"{where} {name!r}: already listed at {names[name]}")
    elif name in taken:
        bad.append(f"{where} {name!r}: already an entity in entities.yaml (keep it there)")
    else:
        names[name] = where


LATIN_PLACE = re.compile(r"[A-Z][A-Za-z.'-]*(?: [A-Za-z][A-Za-z.'-]*){0,4}")


def load_places_en(path: Path) -> frozenset[str]:
    """``places_en.yaml``: English names of towns and cities, each once, capitalised Latin words."""
    doc = read_yaml(path)
    items = doc.get("places") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items:
        raise DataFileError(str(path), ["section 'places' must be a list of place names"])
    names: dict[str, str] = {}
    bad: list[str] = []
    for i, name in enumerate(items):
        _listed_once(name, f"places[{i}]", LATIN_PLACE, "capitalised Latin words", names, bad)
    if bad:
        raise DataFileError(str(path), bad)
    return frozenset(names)


def load_traditional(path: Path) -> dict[str, str]:
    doc = read_yaml(path)
    pairs = doc.get("pairs") if isinstance(doc, dict) else None
    if not isinstance(pairs, str):
        raise DataFileError(str(path), ["field 'pairs': a string of Traditional/Simplified character pairs"])
    out, bad = {}, []
    for i, pair in enumerate(pairs.split()):
        if len(pair) != 2:
            bad.append(f"pairs[{i}] {pair!r}: must be exactly two characters (Traditional, Simplified)")
        elif pair[0] != pair[1]:
            out[pair[0]] = pair[1]
    if bad:
        raise DataFileError(str(path), bad)
    return out


def load_cantonese(path: Path) -> dict[str, str]:
    """The ``cantonese`` table of ``traditional.yaml``: a word of written Cantonese (in
    Simplified characters, as the character map leaves it) and the Mandarin word of the same
    length it reads as."""
    doc = read_yaml(path)
    table = doc.get("cantonese", {}) if isinstance(doc, dict) else {}
    if not isinstance(table, dict):
        raise DataFileError(str(path), ["field 'cantonese': a mapping of Cantonese word to Mandarin word"])
    bad = [
        f"cantonese[{word!r}]: {mandarin!r} must be a word of the same length"
        for word, mandarin in table.items()
        if not isinstance(word, str) or not isinstance(mandarin, str) or len(word) != len(mandarin) or not word
    ]
    if bad:
        raise DataFileError(str(path), bad)
    return dict(table)


def load_lexicons(directory: Path | None = None) -> Lexicons:
    """Load every lexicon from ``directory`` (default: the bundled ``lexicons/``)."""

    def path(name: str) -> Path:
        return directory / name if directory else bundled("lexicons", name)

    categories = load_category_specs(path("categories.yaml"))
    known = frozenset(c.key for c in categories)
    lists = (
        load_entities(path("entities.yaml"), known),
        TermList("relations", _load_terms(path("relations.yaml"), "relations", known)),
        TermList("animals", _load_terms(path("animals.yaml"), "animals", known)),
        TermList("jobs", _load_terms(path("jobs.yaml"), "jobs", known)),
        TermList("activities", _load_terms(path("activities.yaml"), "activities", known)),
        TermList("conditions", _load_terms(path("conditions.yaml"), "conditions", known)),
    )
    entities, relations, animals, jobs, activities, conditions = lists
    return Lexicons(
        entities=entities,  # type: ignore[arg-type]
        relations=relations,
        animals=animals,
        jobs=jobs,
        activities=activities,
        conditions=conditions,
        surnames=load_surnames(path("surnames_zh.yaml")),
        traditional=load_traditional(path("traditional.yaml")),
        cantonese=load_cantonese(path("traditional.yaml")),
        categories=build_categories(categories, lists, str(path("categories.yaml"))),
        vehicles=load_vehicles(path("vehicles.yaml"), known),
        places_zh=load_places(path("places_zh.yaml"), entities.forms("zh")),
        places_en=load_places_en(path("places_en.yaml")),
    )


@lru_cache(maxsize=1)
def default_lexicons() -> Lexicons:
    return load_lexicons()
