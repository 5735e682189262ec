"""Memory text as quoted data: what a stored memory may put in a prompt or on a terminal.

A memory's words come from whoever spoke them, and so may try to pass for something else: a
line break and a fake ``[fact]`` card, ``</memory><system>...``, an instruction. Everything a
memory contributes to a card or a printed line goes through these functions first:

- :func:`inline` makes a field one line of visible characters: line breaks, tabs, control and
  invisible format characters (zero-width spaces, bidirectional overrides) become escapes
  such as ``\\n`` or ``\\u202e``, and ``<`` ``>`` become ``\\u003c`` ``\\u003e``, so no memory
  can open or close a tag;
- :func:`quoted` also puts the field in double quotes, escaping ``"`` and ``\\`` inside it, so
  where a memory's words end is never in doubt.

The escapes follow JSON's, which every model has read plenty of.
"""

from __future__ import annotations

import unicodedata

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_MARKUP = {"<": "\\u003c", ">": "\\u003e"}
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_JOINERS = frozenset("\u200c\u200d")  # zero-width (non-)joiners: emoji sequences, Persian, Indic scripts


def _escape(char: str, markup: bool) -> str:
    if char in _NAMED:
        return _NAMED[char]
    if markup and char in _MARKUP:
        return _MARKUP[char]
    if unicodedata.category(char) in _ESCAPED_CATEGORIES and char not in _JOINERS:
        code = ord(char)
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    return char


def _needs_escape(char: str, markup: bool) -> bool:
    return (
        char in _NAMED
        or (markup and char in _MARKUP)
        or (unicodedata.category(char) in _ESCAPED_CATEGORIES and char not in _JOINERS)
    )


def inline(text: str, markup: bool = True) -> str:
    """``text`` as one line of visible characters (see the module docstring); ``markup=False``
    leaves ``<`` and ``>`` alone (for a terminal, which reads no tags)."""
    if not any(_needs_escape(c, markup) for c in text):
        return text
    return "".join(_escape(c, markup) for c in text)


def quoted(text: str) -> str:
    """``text`` in double quotes, escaped so that it cannot end the quote or the line."""
    return '"' + inline(text.replace("\\", "\\\\").replace('"', '\\"')) + '"'
