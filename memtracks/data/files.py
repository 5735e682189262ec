"""Finding and validating the data files in ``rules/`` and ``lexicons/``.

Rules, slot catalogues and lexicons are YAML. Each file is checked entry by entry against a
pydantic model with ``extra="forbid"``; every problem is collected (file, entry, field) and
raised once as :class:`~memtracks.errors.DataFileError`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from memtracks.errors import DataFileError

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # memtracks/, beside data/

M = TypeVar("M", bound=BaseModel)


class Strict(BaseModel):
    """Base for data-file schemas: unknown fields are errors, records are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def pattern_problems(pattern: str, field: str = "pattern") -> Iterator[str]:
    """The problem with a regex field of a data file, if it does not compile."""
    try:
        re.compile(pattern)
    except re.error as exc:
        yield f"field '{field}': bad regex: {exc}"


def string_list(name: str, items: Any, problems: list[str], regex: bool = False) -> tuple[str, ...]:
    """The non-empty strings of the data-file field ``name`` (stripped); what is wrong with it
    goes to ``problems``, naming the field and the entry. ``regex``: each must compile."""
    if not isinstance(items, list):
        problems.append(f"field '{name}': must be a list of {'regular expressions' if regex else 'non-empty strings'}")
        return ()
    for i, item in enumerate(items):
        if not isinstance(item, str) or not item.strip():
            problems.append(f"field '{name}', entry {i}: must be a non-empty string (got {item!r})")
        elif regex:
            try:
                re.compile(item)
            except re.error as exc:
                problems.append(f"field '{name}', entry {i} ({item!r}): not a regular expression: {exc}")
    return tuple(item.strip() for item in items if isinstance(item, str) and item.strip())


def data_dir(kind: str) -> Path:
    """Directory holding the bundled ``rules`` or ``lexicons``.

    In a wheel they live inside the package; in a source checkout, beside it.
    """
    for candidate in (_PACKAGE_DIR / kind, _PACKAGE_DIR.parent / kind):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"memtracks data folder '{kind}' not found near {_PACKAGE_DIR}")


def bundled(kind: str, name: str) -> Path:
    return data_dir(kind) / name


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: ~10x faster


def read_yaml(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return yaml.load(fh, Loader=_LOADER)  # a safe loader (C or pure Python)
    except OSError as exc:
        raise DataFileError(str(path), [f"cannot read file: {exc}"]) from exc
    except yaml.YAMLError as exc:
        raise DataFileError(str(path), [f"not valid YAML: {exc}"]) from exc


def _describe(error: Any) -> str:
    loc = ".".join(str(p) for p in error["loc"]) or "(entry)"
    return f"field '{loc}': {error['msg']}"


def validate_entries(
    path: Path,
    entries: Any,
    model: type[M],
    *,
    section: str,
    id_field: str = "id",
    check: Callable[[M], Iterable[str]] | None = None,
) -> list[M]:
    """Validate a list of mappings against ``model``; raise once with every problem.

    ``check`` adds semantic checks for an entry that validated (a regex that must compile, a
    slot that must exist); it yields problem strings naming the field.
    """
    if not isinstance(entries, list):
        raise DataFileError(str(path), [f"section '{section}' must be a list of entries"])
    problems: list[str] = []
    parsed: list[M] = []
    seen: set[str] = set()
    for index, raw in enumerate(entries):
        name = raw.get(id_field) if isinstance(raw, dict) else None
        where = f"{section}[{index}]" + (f" '{name}'" if name else "")
        if not isinstance(raw, dict):
            problems.append(f"{where}: entry must be a mapping, found {type(raw).__name__}")
            continue
        try:
            item = model(**raw)
        except ValidationError as exc:
            problems.extend(f"{where}: {_describe(e)}" for e in exc.errors())
            continue
        if name is not None:
            if name in seen:
                problems.append(f"{where}: field '{id_field}': duplicate id '{name}'")
            seen.add(name)
        if check is not None:
            problems.extend(f"{where}: {p}" for p in check(item))
        parsed.append(item)
    if problems:
        raise DataFileError(str(path), problems)
    return parsed


def load_section(path: Path, section: str, model: type[M], **kwargs: Any) -> list[M]:
    """Read ``path`` and validate the list under ``section``."""
    doc = read_yaml(path)
    if not isinstance(doc, dict) or section not in doc:
        raise DataFileError(str(path), [f"missing top-level section '{section}'"])
    return validate_entries(path, doc[section], model, section=section, **kwargs)
