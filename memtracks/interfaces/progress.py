"""Progress on long work: a tqdm bar on stderr, a plain counter without tqdm, or a callback."""

from __future__ import annotations

import sys
from collections.abc import Callable

Progress = bool | Callable[[int, int], None]


def reporter(progress: Progress, total: int, unit: str = "turn", desc: str = "writing") -> Callable[[int], None]:
    """A function to call with the number of items done so far.

    ``progress`` is True (a bar on stderr), False (silent) or a callback ``(done, total)``.
    """
    if callable(progress):
        return lambda done: progress(done, total)
    if not progress:
        return lambda done: None
    try:
        from tqdm import tqdm
    except ImportError:
        return lambda done: print(f"\r{desc} {done}/{total}", end="\n" if done >= total else "", file=sys.stderr)
    bar = tqdm(total=total, unit=unit, desc=desc)

    def update(done: int) -> None:
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update
