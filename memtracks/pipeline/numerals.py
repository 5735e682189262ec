"""Numbers written with digits or Chinese numerals: "30", "三十", "二十五", "两"."""

from __future__ import annotations

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_UNITS = {"十": 10, "百": 100, "千": 1000}


def parse_number(text: str) -> int | None:
    """The integer ``text`` spells, or None. Handles 0–9999 in Chinese numerals."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    if not text or any(ch not in _DIGITS and ch not in _UNITS for ch in text):
        return None
    total, current = 0, 0
    for ch in text:
        if ch in _DIGITS:
            current = _DIGITS[ch]
        else:
            total += (current or 1) * _UNITS[ch]
            current = 0
    return total + current
