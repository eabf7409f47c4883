-- Games, their players and moves (the moves are the truth), challenges and offers.
-- Times are ISO 8601 UTC text with microseconds, so they sort as text.

CREATE TABLE games (
    id           INTEGER PRIMARY KEY,
    guild        TEXT,
    channel      TEXT    NOT NULL,
    variant      TEXT    NOT NULL,
    rules_string TEXT    NOT NULL,  -- the game is replayed under exactly these rules
    status       TEXT    NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'finished')),
    winner       TEXT,              -- the winning side; NULL for a draw or a game in progress
    reason       TEXT,              -- why it ended (engine Reason)
    version      INTEGER NOT NULL DEFAULT 0,  -- bumped by every change; writes check it
    created_at   TEXT    NOT NULL,
    updated_at   TEXT    NOT NULL,
    finished_at  TEXT,
    CHECK ((status = 'finished') = (reason IS NOT NULL AND finished_at IS NOT NULL))
);

-- One game at a time per channel (a thread is a channel too).
CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel) WHERE status = 'active';
CREATE INDEX games_by_finish ON games (finished_at) WHERE status = 'finished';

CREATE TABLE game_players (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    side        TEXT    NOT NULL,
    player_id   TEXT    NOT NULL,
    player_name TEXT    NOT NULL,
    PRIMARY KEY (game_id, side)
) WITHOUT ROWID;

CREATE TABLE moves (
    game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply       INTEGER NOT NULL CHECK (ply >= 1),  -- 1 for the first move of the game
    side      TEXT    NOT NULL,
    notation  TEXT    NOT NULL,                   -- as recorded: d1-d4xd5
    captures  TEXT    NOT NULL DEFAULT '',        -- captured squares, space-separated
    played_at TEXT    NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

CREATE TABLE challenges (
    id              INTEGER PRIMARY KEY,
    guild           TEXT,
    channel         TEXT NOT NULL,
    challenger_id   TEXT NOT NULL,
    challenger_name TEXT NOT NULL,
    opponent_id     TEXT,            -- NULL: open to anyone but the challenger
    opponent_name   TEXT,
    variant         TEXT NOT NULL,
    side            TEXT NOT NULL,   -- the challenger's wish, or 'random'
    status          TEXT NOT NULL DEFAULT 'open'
                    CHECK (status IN ('open', 'accepted', 'declined', 'cancelled', 'expired')),
    created_at      TEXT NOT NULL,
    expires_at      TEXT NOT NULL,
    game_id         INTEGER REFERENCES games (id),
    CHECK ((opponent_id IS NULL) = (opponent_name IS NULL))
);
CREATE INDEX challenges_open_by_expiry ON challenges (expires_at) WHERE status = 'open';

CREATE TABLE offers (
    id         INTEGER PRIMARY KEY,
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind       TEXT    NOT NULL CHECK (kind IN ('draw', 'undo')),
    by_id      TEXT    NOT NULL,
    by_name    TEXT    NOT NULL,
    to_id      TEXT    NOT NULL,
    to_name    TEXT    NOT NULL,
    status     TEXT    NOT NULL DEFAULT 'open'
               CHECK (status IN ('open', 'accepted', 'declined', 'void')),
    ply        INTEGER NOT NULL,  -- plies played when it was made
    created_at TEXT    NOT NULL
);
-- At most one open offer of each kind per game.
CREATE UNIQUE INDEX offers_one_open_per_kind ON offers (game_id, kind) WHERE status = 'open';
