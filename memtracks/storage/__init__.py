"""Embedded storage: a SQLite file (or in-memory database) and vector indexes."""

from .sqlite import Store

__all__ = ["Store"]
