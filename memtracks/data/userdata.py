"""Your own slots, patterns, rules and lexicons, from folders beside the bundled ones.

``Memory(rules_dir="my_rules", lexicons_dir="my_lexicons")`` reads any of these files it finds
there, in the bundled files' format, and adds their entries to the bundled ones; an entry with
the id (slot name, pattern id, rule id, lexicon key) of a bundled one replaces it. Your
patterns are tried before the bundled ones, and may use the bundled macros (``@subj``...).

    my_rules/slots.yaml           slots:     [...]   new slots (name, cardinality, label, ask)
    my_rules/slot_patterns.yaml   patterns:  [...]   regexes that fill slots
    my_rules/happenings.yaml      happenings: [...]  trips, moves... with their time
    my_rules/inference.yaml       rules:     [...]   conclusions from facts and events
    my_rules/gate.yaml            gate:      [...]   noise kept out of facts (tool output...)
    my_rules/ranker.yaml          weights:   [...]   the temporal track's learned ranker (a whole
                                                     model: it replaces the bundled one)
    my_lexicons/entities.yaml     entities:  [...]   also relations.yaml, animals.yaml, jobs.yaml,
                                                     activities.yaml, conditions.yaml,
                                                     categories.yaml, surnames_zh.yaml,
                                                     vehicles.yaml

Each file is validated like the bundled ones: a bad entry fails naming your file, the entry
and the field. Time words (``time_en.yaml`` / ``time_zh.yaml``) and stop words
(``stopwords.yaml``) are not read from here: pass your own through the toolkit's fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from memtracks.data.catalogue import Catalogue, SlotSpec, default_catalogue
from memtracks.data.catalogue import _check as check_slot
from memtracks.data.files import bundled, load_section
from memtracks.data.lexicons import (
    EntityLexicon,
    EntitySpec,
    Lexicons,
    TermList,
    build_categories,
    default_lexicons,
    load_category_specs,
    load_places,
    load_places_en,
    load_surnames,
    load_vehicles,
    term_check,
)
from memtracks.data.patterns import (
    Compiled,
    default_happening_patterns,
    default_slot_patterns,
    file_macros,
    load_happening_patterns,
    load_slot_patterns,
)
from memtracks.data.ranker import default_ranker, load_ranker
from memtracks.data.rules import default_rules
from memtracks.data.rules import load_rules as load_rule_file
from memtracks.errors import DataFileError
from memtracks.write.gate import Gate, default_gate, load_gate

T = TypeVar("T")
RULE_FILES = ("slots.yaml", "slot_patterns.yaml", "happenings.yaml", "inference.yaml", "gate.yaml", "ranker.yaml")
LEXICON_FILES = (
    "entities.yaml",
    "relations.yaml",
    "animals.yaml",
    "jobs.yaml",
    "activities.yaml",
    "conditions.yaml",
    "categories.yaml",
    "surnames_zh.yaml",
    "vehicles.yaml",
    "places_zh.yaml",
    "places_en.yaml",
)


def _folder(path: str | Path | None, kind: str, known: Sequence[str]) -> Path | None:
    if path is None:
        return None
    folder = Path(path)
    if not folder.is_dir():
        raise DataFileError(str(folder), [f"{kind} folder does not exist"])
    if not any((folder / name).is_file() for name in known):
        raise DataFileError(str(folder), [f"no {kind} file found; expected some of {', '.join(known)}"])
    return folder


def _merge(mine: Sequence[T], theirs: Sequence[T], key: str) -> tuple[T, ...]:
    """``mine`` first, then ``theirs`` without the entries ``mine`` replaces."""
    taken = {getattr(x, key) for x in mine}
    return (*mine, *(x for x in theirs if getattr(x, key) not in taken))


def load_lexicons(folder: Path) -> Lexicons:
    base = default_lexicons()
    category_file = folder / "categories.yaml"
    bundled_categories = load_category_specs(bundled("lexicons", "categories.yaml"))
    categories = (
        _merge(load_category_specs(category_file), bundled_categories, "key")
        if category_file.is_file()
        else bundled_categories
    )
    known = frozenset(c.key for c in categories)

    def terms(name: str, section: str, current: TermList) -> Any:
        path = folder / name
        if not path.is_file():
            return current
        model = EntitySpec if section == "entities" else current.specs[0].__class__
        specs = load_section(path, section, model, id_field="key", check=term_check(known))
        return type(current)(current.name, _merge(specs, current.specs, "key"))

    surnames = base.surnames | (
        load_surnames(folder / "surnames_zh.yaml") if (folder / "surnames_zh.yaml").is_file() else frozenset()
    )
    entities: EntityLexicon = terms("entities.yaml", "entities", base.entities)
    lists = (
        entities,
        terms("relations.yaml", "relations", base.relations),
        terms("animals.yaml", "animals", base.animals),
        terms("jobs.yaml", "jobs", base.jobs),
        terms("activities.yaml", "activities", base.activities),
        terms("conditions.yaml", "conditions", base.conditions),
    )
    where = str(category_file if category_file.is_file() else bundled("lexicons", "categories.yaml"))
    return Lexicons(
        entities=entities,
        relations=lists[1],
        animals=lists[2],
        jobs=lists[3],
        activities=lists[4],
        conditions=lists[5],
        surnames=surnames,
        traditional=base.traditional,
        cantonese=base.cantonese,
        categories=build_categories(categories, lists, where),
        vehicles=(
            load_vehicles(folder / "vehicles.yaml", known, base.vehicles.specs)  # type: ignore[arg-type]
            if (folder / "vehicles.yaml").is_file()
            else base.vehicles
        ),
        places_zh=_places(folder / "places_zh.yaml", base.places_zh, entities),
        places_en=(
            base.places_en | load_places_en(folder / "places_en.yaml")
            if (folder / "places_en.yaml").is_file()
            else base.places_en
        ),
    )


def _places(path: Path, bundled_places: tuple[str, ...], entities: EntityLexicon) -> tuple[str, ...]:
    """The bundled place names and the folder's new ones."""
    if not path.is_file():
        return bundled_places
    known = set(bundled_places)
    return bundled_places + tuple(p for p in load_places(path, entities.forms("zh")) if p not in known)


def load_rules(folder: Path | None, lexicons: Lexicons) -> dict[str, Any]:
    """The Toolkit fields for the rules: bundled, extended by ``folder``'s files."""
    catalogue = default_catalogue()
    slot_patterns = default_slot_patterns()
    happenings = default_happening_patterns()
    rules = default_rules()
    gate = default_gate()
    ranker = default_ranker()
    custom_lexicons = lexicons is not default_lexicons()
    if custom_lexicons:  # patterns embed lexicon words (@relation, @animal...): compile them again
        slot_patterns = tuple(load_slot_patterns(lexicons=lexicons))
        happenings = tuple(load_happening_patterns(lexicons=lexicons))
    if folder is not None:
        if (folder / "slots.yaml").is_file():
            path = folder / "slots.yaml"
            mine = load_section(path, "slots", SlotSpec, id_field="name", check=check_slot)
            catalogue = Catalogue(_merge(mine, catalogue.slots, "name"))
            bad = [
                f"slots '{s.name}': field 'opposite': unknown slot {s.opposite!r}"
                for s in mine
                if s.opposite and s.opposite not in catalogue
            ]
            if bad:
                raise DataFileError(str(path), bad)
        macros = file_macros(bundled("rules", "slot_patterns.yaml"), lexicons)
        own_patterns = folder / "slot_patterns.yaml"
        if own_patterns.is_file():
            slot_patterns = _merge_compiled(
                load_slot_patterns(own_patterns, catalogue, lexicons, macros), slot_patterns
            )
            macros = file_macros(own_patterns, lexicons, macros)
        if (folder / "happenings.yaml").is_file():
            own = load_happening_patterns(
                folder / "happenings.yaml", bundled("rules", "slot_patterns.yaml"), lexicons, macros
            )
            happenings = _merge_compiled(own, happenings)
        if (folder / "inference.yaml").is_file():
            rules = _merge(load_rule_file(folder / "inference.yaml", catalogue), rules, "id")
        if (folder / "gate.yaml").is_file():
            gate = Gate(_merge(load_gate(folder / "gate.yaml").rules, gate.rules, "id"))
        if (folder / "ranker.yaml").is_file():
            ranker = load_ranker(folder / "ranker.yaml")  # a whole model: it replaces the bundled one
    return {
        "gate": gate,
        "catalogue": catalogue,
        "slot_patterns": tuple(slot_patterns),
        "happening_patterns": tuple(happenings),
        "rules": tuple(rules),
        "ranker": ranker,
    }


def _merge_compiled(mine: Sequence[Compiled], theirs: Sequence[Compiled]) -> tuple[Compiled, ...]:
    taken = {c.id for c in mine}
    return (*mine, *(c for c in theirs if c.id not in taken))


def load(rules_dir: str | Path | None, lexicons_dir: str | Path | None) -> dict[str, Any]:
    """Toolkit fields (lexicons, catalogue, patterns, rules) with the user's folders merged in."""
    rules_folder = _folder(rules_dir, "rules", RULE_FILES)
    lexicon_folder = _folder(lexicons_dir, "lexicons", LEXICON_FILES)
    lexicons = load_lexicons(lexicon_folder) if lexicon_folder else default_lexicons()
    return {"lexicons": lexicons, **load_rules(rules_folder, lexicons)}
