-- The outbox moves off the message rows. Until now a message was written twice: inserted `pending`, then
-- updated to `queued` once its wake-up was confirmed; that UPDATE rewrote the whole row (payload
-- included) and, `status` being indexed, every index of it. Now the rows are inserted `queued`, and the
-- same statement appends one small entry here naming them; the entry is deleted once every wake-up it
-- owes is confirmed (one DELETE per insert, however many rows). An entry still here after
-- RELAY_PENDING_AFTER_MS is what the relay republishes: a crash or a broker outage between the commit
-- and the confirms.
CREATE TABLE wake_up_outbox (
  id bigserial PRIMARY KEY,
  message_ids uuid[] NOT NULL,
  -- When the entry was written, or last leased by a relay.
  touched_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX wake_up_outbox_touched ON wake_up_outbox (touched_at);

-- Rows left `pending` by the old protocol keep being found by the relay's `pending` sweep.
