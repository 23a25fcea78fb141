-- `due_at` moves when a send is retried or its account paused (45009); `intended_at` keeps the time the
-- message was scheduled for, so `max_lateness_ms` (stale reminders) counts from it. A trigger fills it
-- on insert, whatever the insert path.
ALTER TABLE scheduled_messages ADD COLUMN intended_at timestamptz;
UPDATE scheduled_messages SET intended_at = due_at;

CREATE FUNCTION scheduled_messages_intended_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.intended_at := COALESCE(NEW.intended_at, NEW.due_at);
  RETURN NEW;
END $$;

CREATE TRIGGER scheduled_messages_intended_at BEFORE INSERT ON scheduled_messages
  FOR EACH ROW EXECUTE FUNCTION scheduled_messages_intended_at();

ALTER TABLE scheduled_messages ALTER COLUMN intended_at SET NOT NULL;
