-- Ratings (issue 10). A challenge and its game are rated or not (custom rules never are). A
-- finished game keeps its length in plies (for the archive and stats, without counting moves),
-- how many takebacks were allowed in it, and the final board message once posted.

ALTER TABLE challenges ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));
ALTER TABLE games ADD COLUMN plies INTEGER;
ALTER TABLE games ADD COLUMN takebacks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN final_message_ref TEXT;
UPDATE games SET plies = (SELECT count(*) FROM moves WHERE moves.game_id = games.id)
    WHERE status = 'finished';

-- A player's games, newest first (stats, the archive); the rated games in the order they count.
CREATE INDEX game_players_by_player ON game_players (player_id, game_id);
CREATE INDEX games_rated_in_order ON games (finished_at, id) WHERE status = 'finished' AND rated = 1;

-- Each player's Glicko-2 rating per variant and scope ('global', or the server's guild id), with
-- the games behind it; updated in the transaction that finishes a rated game.
CREATE TABLE ratings (
    player_id   TEXT    NOT NULL,
    variant     TEXT    NOT NULL,
    scope       TEXT    NOT NULL,
    player_name TEXT    NOT NULL,
    rating      REAL    NOT NULL,
    deviation   REAL    NOT NULL,
    volatility  REAL    NOT NULL,
    games       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    draws       INTEGER NOT NULL,
    losses      INTEGER NOT NULL,
    updated_at  TEXT    NOT NULL,
    PRIMARY KEY (player_id, variant, scope)
) WITHOUT ROWID;
CREATE INDEX ratings_by_rank ON ratings (variant, scope, rating DESC, player_id);

-- Each rated game's new ratings of its players, per scope.
CREATE TABLE rating_history (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    player_id  TEXT    NOT NULL,
    scope      TEXT    NOT NULL,
    variant    TEXT    NOT NULL,
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL,
    volatility REAL    NOT NULL,
    rated_at   TEXT    NOT NULL,
    PRIMARY KEY (game_id, player_id, scope)
) WITHOUT ROWID;
CREATE INDEX rating_history_by_player ON rating_history (player_id, variant, scope, rated_at, game_id);
