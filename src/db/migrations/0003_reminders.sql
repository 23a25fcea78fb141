-- Reminders: a message may say how late it is still worth sending; later than that it is skipped
-- (`skipped:stale`) rather than sent late, e.g. a course reminder after an outage.
ALTER TABLE scheduled_messages ADD COLUMN max_lateness_ms integer CHECK (max_lateness_ms > 0);
