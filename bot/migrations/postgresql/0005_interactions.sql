-- Events (Discord interactions) claimed by the process that handles them: where several bot
-- processes get the same event (two wrongly on one shard), only the first to claim it answers.
-- Claims older than a day are deleted by the sweep. (sqlite/0005, with a timestamptz.)

CREATE TABLE interactions (
    id         text PRIMARY KEY,  -- the adapter's own id: discord:INTERACTION_ID
    claimed_at timestamptz NOT NULL
);
CREATE INDEX interactions_by_age ON interactions (claimed_at);
