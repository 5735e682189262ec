"""The slot catalogue (``rules/slots.yaml``): which slots exist and how many values each holds."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field

from memtracks.data.files import Strict, bundled, load_section
from memtracks.errors import DataFileError, UnknownNameError


class SlotSpec(Strict):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    cardinality: Literal["one", "many"]
    value_type: Literal[
        "place",
        "org",
        "person",
        "product",
        "car",
        "number",
        "date",
        "text",
        "language",
        "pet",
        "thing",
        "title",
        "condition",
    ]
    label: dict[Literal["en", "zh"], str]
    ask: dict[Literal["en", "zh"], list[str]] = Field(default_factory=dict)
    about: dict[Literal["en", "zh"], list[str]] = Field(default_factory=dict)
    read_for_change: bool = False
    # words that stand for the one value held ("the car", 车子): a clause that says them speaks
    # of it, when the speaker holds one value of the slot
    referents: dict[Literal["en", "zh"], list[str]] = Field(default_factory=dict)
    opposite: str | None = None
    # how much a number slot's value grows a year (an age: 1): a new value that the time passed
    # cannot explain ("I'm 29", then "I'm 39" the same day) corrects the one before
    grows_per_year: float | None = None
    # values of this slot that end another slot's current values (relationship_status: single,
    # divorced ... end the partner)
    ends: dict[str, list[str]] = Field(default_factory=dict)
    # values of another slot that any value of this one ends (partner: a partner named ends
    # the relationship_status "single")
    ends_values: dict[str, list[str]] = Field(default_factory=dict)


def _check(spec: SlotSpec) -> Iterator[str]:
    for lang in ("en", "zh"):
        if lang not in spec.label:
            yield f"field 'label.{lang}': missing"
    for field in ("ask", "about", "referents"):
        for lang, regexes in getattr(spec, field).items():
            for i, rx in enumerate(regexes):
                try:
                    re.compile(rx)
                except re.error as exc:
                    yield f"field '{field}.{lang}[{i}]': bad regex: {exc}"
    if spec.about and spec.cardinality != "one":
        yield "field 'about': only a single-valued slot speaks of one thing (cardinality: one)"
    if spec.grows_per_year is not None and (spec.value_type != "number" or spec.cardinality != "one"):
        yield "field 'grows_per_year': only a single-valued number slot grows with time"
    if spec.referents and not spec.read_for_change:
        yield "field 'referents': only a slot read for change (read_for_change: true) uses them"


@dataclass(frozen=True)
class Catalogue:
    slots: tuple[SlotSpec, ...]

    @cached_property
    def by_name(self) -> dict[str, SlotSpec]:
        return {s.name: s for s in self.slots}

    def __contains__(self, name: str) -> bool:
        return name in self.by_name

    def __getitem__(self, name: str) -> SlotSpec:
        try:
            return self.by_name[name]
        except KeyError:
            raise UnknownNameError(f"unknown slot {name!r}; known slots: {', '.join(sorted(self.by_name))}") from None

    @cached_property
    def kinds(self) -> dict[str, str]:
        """Slot name -> its value kind."""
        return {s.name: s.value_type for s in self.slots}

    def is_single(self, name: str) -> bool:
        return self[name].cardinality == "one"

    def label(self, name: str, lang: str) -> str:
        spec = self.by_name.get(name)
        return spec.label.get("zh" if lang == "zh" else "en", name) if spec else name

    @cached_property
    def ask_patterns(self) -> dict[str, list[tuple[str, re.Pattern[str]]]]:
        """Per language, (slot, compiled question regex) pairs."""
        out: dict[str, list[tuple[str, re.Pattern[str]]]] = {"en": [], "zh": []}
        for spec in self.slots:
            for lang, regexes in spec.ask.items():
                out[lang].extend((spec.name, re.compile(rx, re.IGNORECASE)) for rx in regexes)
        return out

    @cached_property
    def about_patterns(self) -> dict[str, re.Pattern[str]]:
        """Single-valued slot -> one regex of the words by which a turn speaks of it (both
        languages; Chinese as written, Traditional forms listed beside Simplified)."""
        out = {}
        for spec in self.slots:
            regexes = [rx for lang in ("en", "zh") for rx in spec.about.get(lang, [])]
            if regexes:
                out[spec.name] = re.compile("|".join(f"(?:{rx})" for rx in regexes), re.IGNORECASE)
        return out

    @cached_property
    def referent_patterns(self) -> dict[tuple[str, str], re.Pattern[str]]:
        """(slot, language) -> one regex of the words standing for the slot's one value held."""
        return {
            (spec.name, lang): re.compile("|".join(f"(?:{rx})" for rx in regexes), re.IGNORECASE)
            for spec in self.slots
            for lang, regexes in spec.referents.items()
            if regexes
        }

    @cached_property
    def read_for_change(self) -> frozenset[str]:
        """The slots whose values the statement reader may end (``read_for_change``)."""
        return frozenset(s.name for s in self.slots if s.read_for_change)


def load_catalogue(path: Path | None = None) -> Catalogue:
    path = path or bundled("rules", "slots.yaml")
    slots = load_section(path, "slots", SlotSpec, id_field="name", check=_check)
    names = {s.name for s in slots}
    bad = (
        [
            f"slots '{s.name}': field 'opposite': unknown slot {s.opposite!r}"
            for s in slots
            if s.opposite and s.opposite not in names
        ]
        + [
            f"slots '{s.name}': field 'ends': unknown slot {other!r}"
            for s in slots
            for other in s.ends
            if other not in names
        ]
        + [
            f"slots '{s.name}': field 'ends_values': unknown slot {other!r}"
            for s in slots
            for other in s.ends_values
            if other not in names
        ]
    )
    if bad:
        raise DataFileError(str(path), bad)
    return Catalogue(tuple(slots))


@lru_cache(maxsize=1)
def default_catalogue() -> Catalogue:
    return load_catalogue()
