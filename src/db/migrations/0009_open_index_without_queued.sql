-- scheduled_messages_open served the relay's sweep of `pending` rows and the sweep of rows stuck in
-- `sending`; it also held every `queued` row, which nothing reads through it (the overdue sweep uses
-- scheduled_messages_queued_due, the metrics count `queued` rows through that index too). Since 0008 every
-- message is inserted `queued`, so that entry was one more index write per message for nothing.
-- (A plain CREATE INDEX blocks writes to the table while it builds: about a second per million rows.)
DROP INDEX scheduled_messages_open;
CREATE INDEX scheduled_messages_open ON scheduled_messages (status, updated_at)
  WHERE status IN ('pending', 'sending');
