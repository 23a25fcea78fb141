-- `pending` retires. Since 0008 every message is inserted `queued` with a wake_up_outbox entry naming it,
-- and the entry is what says "accepted, its wake-up not confirmed yet"; `pending` was the protocol before
-- that, kept alive only by a sweep of the relay for rows it might have left. Any such row moves into the
-- outbox here, and the status is no longer allowed.

-- An entry's age: touched_at moves at every relay lease, so it cannot tell how long a schedule has waited
-- for its wake-up (the backlog gauges read this, see src/store/wake-up-outbox.ts). An entry written
-- before this migration counts from its last touch.
ALTER TABLE wake_up_outbox ADD COLUMN created_at timestamptz;
UPDATE wake_up_outbox SET created_at = touched_at;
ALTER TABLE wake_up_outbox ALTER COLUMN created_at SET DEFAULT now(), ALTER COLUMN created_at SET NOT NULL;
CREATE INDEX wake_up_outbox_created ON wake_up_outbox (created_at);

-- Leftover `pending` rows (found through scheduled_messages_open) become `queued`, and entries of up to 500
-- of them name them, in one statement; touched_at in the past, so that the next relay pass publishes
-- their wake-ups. Run again, it finds no `pending` row and writes nothing.
WITH moved AS (
  UPDATE scheduled_messages SET status = 'queued', updated_at = now()
  WHERE status = 'pending'
  RETURNING id, created_at
), numbered AS (
  SELECT id, created_at, (row_number() OVER (ORDER BY created_at, id) - 1) / 500 AS chunk FROM moved
)
INSERT INTO wake_up_outbox (message_ids, created_at, touched_at)
SELECT array_agg(id ORDER BY created_at, id), min(created_at), min(created_at) FROM numbered GROUP BY chunk;

-- (Checking the constraint reads the table once, under the migration's lock, writes waiting: 0.15 s per
-- million rows measured here with the table in memory, more when it must be read from disk.)
ALTER TABLE scheduled_messages ALTER COLUMN status SET DEFAULT 'queued';
ALTER TABLE scheduled_messages DROP CONSTRAINT scheduled_messages_status_check;
ALTER TABLE scheduled_messages ADD CONSTRAINT scheduled_messages_status_check
  CHECK (status IN ('queued', 'sending', 'sent', 'skipped', 'cancelled', 'failed', 'unknown'));
