-- Where a challenge is shown, in the adapter's own terms (Discord: "channel_id:message_id"),
-- so that the message can be marked when the challenge expires, even after a restart.

ALTER TABLE challenges ADD COLUMN message_ref TEXT;
