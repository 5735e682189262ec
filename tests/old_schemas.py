"""Postgres memories as an earlier memtracks left them, to test that opening them migrates
them in place: the statements that take a database written today back to an earlier schema."""

from __future__ import annotations

# schema 7 -> 6: the numbered memories, erasures, erased items, quarantined rows and
# consolidation runs keyed by their id alone, a turn's row number unique on its own
BEFORE_USER_KEYS = """
ALTER TABLE turns ADD CONSTRAINT turns_rowid_key UNIQUE (rowid);
ALTER TABLE facts DROP CONSTRAINT facts_pkey, ADD CONSTRAINT facts_pkey PRIMARY KEY (id);
DROP INDEX facts_id;
CREATE INDEX facts_user_id ON facts (user_id, id);
ALTER TABLE events DROP CONSTRAINT events_pkey, ADD CONSTRAINT events_pkey PRIMARY KEY (id);
DROP INDEX events_id;
CREATE INDEX events_user_id ON events (user_id, id);
ALTER TABLE inferences DROP CONSTRAINT inferences_pkey, ADD CONSTRAINT inferences_pkey PRIMARY KEY (id);
DROP INDEX inferences_id;
ALTER TABLE erasures DROP CONSTRAINT erasures_pkey, ADD CONSTRAINT erasures_pkey PRIMARY KEY (id);
ALTER TABLE erased_items DROP CONSTRAINT erased_items_pkey, ADD CONSTRAINT erased_items_pkey PRIMARY KEY (seq);
CREATE INDEX erased_items_user ON erased_items (user_id, seq);
ALTER TABLE quarantine DROP CONSTRAINT quarantine_pkey, ADD CONSTRAINT quarantine_pkey PRIMARY KEY (id);
ALTER TABLE consolidations DROP CONSTRAINT consolidations_pkey, ADD CONSTRAINT consolidations_pkey PRIMARY KEY (id);
DROP INDEX consolidations_id;
UPDATE memtracks_schema SET version = 6
"""


def back_before_user_keys(store) -> None:
    """Take ``store``'s database (unpartitioned, at schema 7) back to schema 6, rows and all."""
    with store.transaction():
        for statement in BEFORE_USER_KEYS.split(";"):
            store.execute(statement)
