-- Ratings (issue 10). A challenge and its game are rated or not (custom rules never are). A
-- finished game keeps its length in plies (for the archive and stats, without counting moves),
-- how many takebacks were allowed in it, and the final board message once posted.
-- (sqlite/0007, with timestamptz times.)

ALTER TABLE challenges ADD COLUMN rated integer NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));
ALTER TABLE games ADD COLUMN rated integer NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));
ALTER TABLE games ADD COLUMN plies integer;
ALTER TABLE games ADD COLUMN takebacks integer NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN final_message_ref text;
UPDATE games SET plies = (SELECT count(*) FROM moves WHERE moves.game_id = games.id)
    WHERE status = 'finished';

-- A player's games, newest first (stats, the archive); the rated games in the order they count.
CREATE INDEX game_players_by_player ON game_players (player_id, game_id);
CREATE INDEX games_rated_in_order ON games (finished_at, id) WHERE status = 'finished' AND rated = 1;

-- Each player's Glicko-2 rating per variant and scope ('global', or the server's guild id), with
-- the games behind it; updated in the transaction that finishes a rated game.
CREATE TABLE ratings (
    player_id   text             NOT NULL,
    variant     text             NOT NULL,
    scope       text             NOT NULL,
    player_name text             NOT NULL,
    rating      double precision NOT NULL,
    deviation   double precision NOT NULL,
    volatility  double precision NOT NULL,
    games       integer          NOT NULL,
    wins        integer          NOT NULL,
    draws       integer          NOT NULL,
    losses      integer          NOT NULL,
    updated_at  timestamptz      NOT NULL,
    PRIMARY KEY (player_id, variant, scope)
);
CREATE INDEX ratings_by_rank ON ratings (variant, scope, rating DESC, player_id);

-- Each rated game's new ratings of its players, per scope.
CREATE TABLE rating_history (
    game_id    bigint           NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    player_id  text             NOT NULL,
    scope      text             NOT NULL,
    variant    text             NOT NULL,
    rating     double precision NOT NULL,
    deviation  double precision NOT NULL,
    volatility double precision NOT NULL,
    rated_at   timestamptz      NOT NULL,
    PRIMARY KEY (game_id, player_id, scope)
);
CREATE INDEX rating_history_by_player ON rating_history (player_id, variant, scope, rated_at, game_id);
