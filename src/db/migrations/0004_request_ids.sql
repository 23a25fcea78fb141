-- Request ids follow a message from the request (or webhook push) that created it to its send, so
-- one id finds every log line of that path.
ALTER TABLE scheduled_messages ADD COLUMN request_id text;
ALTER TABLE webhook_pushes ADD COLUMN request_id text;
