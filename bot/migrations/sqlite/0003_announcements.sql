-- The outbox: what a game's channel must be shown (a move, the game's end), written in the same
-- transaction as the change itself, and marked once it has been posted. What is still pending
-- after a crash or a refused post is posted again, once.

CREATE TABLE announcements (
    id              INTEGER PRIMARY KEY,
    game_id         INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind            TEXT    NOT NULL CHECK (kind IN ('move', 'end')),
    ply             INTEGER NOT NULL,  -- plies played once it happened
    created_at      TEXT    NOT NULL,
    posted_at       TEXT,              -- NULL while it waits to be posted
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,              -- after a failed post: not before this time
    UNIQUE (game_id, kind, ply)
);
CREATE INDEX announcements_pending ON announcements (id) WHERE posted_at IS NULL;
