-- A journey wait may watch for a variable of the enrollment having a value (issue 25): a posted event's
-- `vars` meets the waits open then; the workers' timeouts pass takes the ones whose variable was given
-- before they started watching. This index keeps that pass to the open variable waits.
CREATE INDEX journey_waits_open_variable ON journey_waits (starts_at)
  WHERE outcome IS NULL AND condition->>'type' = 'var';
