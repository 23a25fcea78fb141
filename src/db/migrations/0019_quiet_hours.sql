-- Quiet hours: a daily window (the account's local time) in which no sequence step goes out. The account
-- has a default (null: none); a sequence inherits it (null), turns it off (JSON `false`) or sets its own
-- (`{"start": "22:00", "end": "08:00"}`, the API checks the shape). Kept on the sequence row like its name:
-- the latest save applies to every running enrollment, as the account default does.
ALTER TABLE accounts ADD COLUMN quiet_hours jsonb;
ALTER TABLE sequences ADD COLUMN quiet_hours jsonb;

-- When the quiet hours `quiet` (`{start, end}`, times of day in `zone`; end < start crosses midnight) that
-- contain the instant `at` end; null when `at` is outside them or `quiet` is not an object. The claim moves a
-- step due inside them to this time. A local end that does not exist (a DST gap) is read as PostgreSQL reads
-- such a time: with the offset before the change.
CREATE FUNCTION quiet_hours_end(quiet jsonb, zone text, at timestamptz) RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN s < e AND t >= s AND t < e THEN (d + e) AT TIME ZONE zone
    WHEN s > e AND t >= s THEN (d + 1 + e) AT TIME ZONE zone
    WHEN s > e AND t < e THEN (d + e) AT TIME ZONE zone
  END
  FROM (SELECT (quiet->>'start')::time AS s, (quiet->>'end')::time AS e,
               (at AT TIME ZONE zone)::time AS t, (at AT TIME ZONE zone)::date AS d
        WHERE jsonb_typeof(quiet) = 'object') local
$$;
