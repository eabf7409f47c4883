-- Time controls (issue "Games that finish"): the control a challenge offers and a game is played
-- under ('none', '3d', '5d+12h', '10m+5s'), and when the player to move runs out of time. The
-- deadline follows from the stored move times; it is kept here, updated with every change to
-- the game, so that the sweep finds the games due without replaying any. NULL: no clock runs
-- (no time control, the AI to move, or the game over). (sqlite/0004, with timestamptz times.)

ALTER TABLE challenges ADD COLUMN time_control text NOT NULL DEFAULT 'none';
ALTER TABLE games ADD COLUMN time_control text NOT NULL DEFAULT 'none';
ALTER TABLE games ADD COLUMN runs_out_at timestamptz;
CREATE INDEX games_running_out ON games (runs_out_at) WHERE status = 'active' AND runs_out_at IS NOT NULL;

-- The turn reminders sent: at most one of each stage per turn (a turn is the game's plies so
-- far), so a reminder never repeats, and never reaches a player who has moved since.
CREATE TABLE reminders (
    game_id bigint      NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply     integer     NOT NULL,
    stage   text        NOT NULL CHECK (stage IN ('half', 'last')),
    sent_at timestamptz NOT NULL,
    PRIMARY KEY (game_id, ply, stage)
);
