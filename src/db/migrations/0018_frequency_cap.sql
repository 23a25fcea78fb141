-- A frequency cap per account: at most `frequency_cap_per_day` capped messages per follower per calendar
-- day (the account's day), across all sequences. A sequence step is capped; a message from the API only
-- when asked (`frequencyCapped`). The claim counts a follower's capped sends of the day on the follower
-- row it already locks for the contact window.
ALTER TABLE accounts ADD COLUMN frequency_cap_per_day integer CHECK (frequency_cap_per_day > 0);
ALTER TABLE scheduled_messages ADD COLUMN frequency_capped boolean NOT NULL DEFAULT false;
ALTER TABLE followers ADD COLUMN capped_day date, ADD COLUMN capped_sent integer NOT NULL DEFAULT 0;
