-- The retention pruner (src/retention/pruner.ts) deletes finished messages oldest first and processed
-- pushes oldest first, a small batch at a time. Without these indexes each batch would read the whole
-- table to find its rows; with them it reads the rows it deletes. The ledger is walked by its primary key.
-- scheduled_messages_finished costs one index entry per message as it finishes (the hot path writes
-- it once per send); open rows are never in it.
-- (A plain CREATE INDEX blocks writes to the table while it builds: about a second per million rows.)
CREATE INDEX scheduled_messages_finished ON scheduled_messages (updated_at)
  WHERE status IN ('sent', 'skipped', 'cancelled', 'failed', 'unknown');
CREATE INDEX webhook_pushes_processed ON webhook_pushes (received_at) WHERE processed_at IS NOT NULL;
