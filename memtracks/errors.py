"""Every error memtracks raises on purpose derives from :class:`MemtracksError`.

Subclasses also inherit the matching built-in (``ValueError``, ``KeyError``...) so that
callers who already catch those keep working. Messages say what was expected, what was
found and, where there is a closed set, the valid options.
"""

from __future__ import annotations


class MemtracksError(Exception):
    """Root of every error raised by memtracks."""


class InvalidTurnError(MemtracksError, ValueError):
    """A turn handed to ``write()`` is malformed (empty text, naive timestamp, ...)."""


class DuplicateTurnError(InvalidTurnError):
    """A turn id was written before, for the same user, with different content."""


class LimitError(InvalidTurnError):
    """An input is larger than a configured limit (turn text, metadata, an id, a question)."""


class UnsupportedLanguageError(MemtracksError, ValueError):
    """A language code memtracks does not handle was requested."""


class InvalidTimeError(MemtracksError, ValueError):
    """A reference time is missing, naive, or not a datetime."""


class DataFileError(MemtracksError, ValueError):
    """A rule, slot or lexicon file failed validation.

    ``problems`` lists every problem found, each naming the file, the entry and the field.
    """

    def __init__(self, path: str, problems: list[str]):
        self.path = path
        self.problems = problems
        listing = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{path}: {len(problems)} problem(s)\n{listing}")


class StorageError(MemtracksError, RuntimeError):
    """The database could not be read or written; the store is left as it was."""


class SchemaVersionError(StorageError):
    """The database was written by a newer memtracks than this one."""


class NotAMemoryFileError(StorageError):
    """The file is not a memtracks database (another application's SQLite file, or not SQLite)."""


class CorruptionError(StorageError):
    """The database file is damaged: SQLite found it malformed, or a stored checksum does not match."""


class LockTimeoutError(StorageError):
    """Another connection held the database's write lock for longer than the busy timeout."""


class ReadOnlyError(StorageError):
    """A write was asked of a memory opened read-only (or of a file that cannot be written)."""


class ClosedError(StorageError):
    """The memory was used after ``close()``."""


class NotFoundError(MemtracksError, KeyError):
    """A memory asked for by id does not exist (for this user)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class ImportConflictError(MemtracksError, ValueError):
    """An import would mix with memories the store already holds for the same user."""


class InvalidInputError(MemtracksError, ValueError):
    """A file handed to memtracks is not in a format it reads."""


class MarkdownImportError(InvalidInputError):
    """An edited MEMORY.md cannot be read back; the message names the file and line."""


class MissingDependencyError(MemtracksError, ImportError):
    """An optional component was requested but is not installed or has no local model."""


class UnknownNameError(MemtracksError, KeyError):
    """A named thing (slot, embedder, track) does not exist. The message lists the options."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class ConsolidationError(MemtracksError, RuntimeError):
    """A consolidation cannot be done or undone as asked (e.g. what it changed changed since)."""


class LLMError(MemtracksError, RuntimeError):
    """A language model could not be reached, or did not answer in the expected form."""
