"""The three tracks of memory, one module each: facts (:mod:`~memtracks.tracks.facts`), the
temporal track of events (:mod:`~memtracks.tracks.temporal`) and conclusions
(:mod:`~memtracks.tracks.inferences`). Each has one :class:`~memtracks.tracks.base.Track`
object; :func:`track_of` and :func:`named` find it for a record or a name.
"""

from __future__ import annotations

from typing import Any

from memtracks.errors import InvalidInputError
from memtracks.tracks.base import Track, track_of
from memtracks.tracks.facts import FACTS
from memtracks.tracks.inferences import INFERENCES
from memtracks.tracks.temporal import TEMPORAL

TRACKS: tuple[Track[Any], ...] = (FACTS, TEMPORAL, INFERENCES)
_BY_NAME = {n: t for t in TRACKS for n in (t.name, t.stored)}


def named(name: str) -> Track[Any]:
    """The track called ``name``, by the name its cards carry ("temporal") or the one it is
    stored under ("event")."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise InvalidInputError(f"unknown track {name!r} (known: {', '.join(sorted(_BY_NAME))})") from None


__all__ = ["FACTS", "INFERENCES", "TEMPORAL", "TRACKS", "Track", "named", "track_of"]
