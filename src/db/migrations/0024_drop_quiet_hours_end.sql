-- The claim decides quiet hours in code now (src/policy/quiet-hours.ts, with the rest of the send policy):
-- nothing calls the SQL copy of that rule any more.
DROP FUNCTION quiet_hours_end(jsonb, text, timestamptz);
