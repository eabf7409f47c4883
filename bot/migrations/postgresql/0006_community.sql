-- Server settings, players' reminder choices, a thread per game and rematches (issue "Games
-- that finish"). (sqlite/0006, with timestamptz times.)

-- One row per server (guild, platform-qualified): what new challenges get unless they say
-- otherwise. NULL: the bot's default. ``channels``: the channel ids the bot plays in,
-- space-separated ('' = everywhere).
CREATE TABLE guild_settings (
    guild        text        PRIMARY KEY,
    variant      text,
    time_control text,
    threads      integer     CHECK (threads IN (0, 1)),
    channels     text        NOT NULL DEFAULT '',
    reminders    text        CHECK (reminders IN ('channel', 'dm', 'off')),
    updated_at   timestamptz NOT NULL
);

-- Where each player's turn reminders go (no row: the server's reminder style).
CREATE TABLE player_settings (
    player_id  text        PRIMARY KEY,
    reminders  text        NOT NULL CHECK (reminders IN ('channel', 'dm', 'off')),
    updated_at timestamptz NOT NULL
);

-- A challenge asks for its game to be played in a thread of its own (1) or in its channel (0);
-- a rematch names the game it follows (one open rematch per game).
ALTER TABLE challenges ADD COLUMN thread integer NOT NULL DEFAULT 0 CHECK (thread IN (0, 1));
ALTER TABLE challenges ADD COLUMN rematch_of bigint REFERENCES games (id);
CREATE UNIQUE INDEX challenges_one_open_rematch ON challenges (rematch_of)
    WHERE status = 'open' AND rematch_of IS NOT NULL;

-- A game played in a thread: the channel the thread was started from (where its start and end
-- are announced). NULL: the game is played in the channel it was challenged in.
ALTER TABLE games ADD COLUMN parent_channel text;
