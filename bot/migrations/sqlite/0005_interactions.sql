-- Events (Discord interactions) claimed by the process that handles them: where several bot
-- processes get the same event (two wrongly on one shard), only the first to claim it answers.
-- Claims older than a day are deleted by the sweep.

CREATE TABLE interactions (
    id         TEXT PRIMARY KEY,  -- the adapter's own id: discord:INTERACTION_ID
    claimed_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX interactions_by_age ON interactions (claimed_at);
