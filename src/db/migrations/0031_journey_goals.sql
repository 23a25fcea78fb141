-- Conversion goals (issue 25): a version may name a goal — a posted event, a keyword, a menu click — and a
-- period after enrollment within which reaching it counts. Each enrollment converts at most once (the
-- primary key); the conversion is attributed to the last message sent to it before the goal (its step,
-- and its A/B variant), kept here so results need no search of the messages. No openid: a conversion is
-- an anonymous count, which an unfollow's erasure leaves as it is.
ALTER TABLE sequence_versions ADD COLUMN goal jsonb;

CREATE TABLE journey_conversions (
  enrollment_id uuid PRIMARY KEY REFERENCES enrollments (id) ON DELETE CASCADE,
  sequence_id uuid NOT NULL,
  version integer NOT NULL,
  at timestamptz NOT NULL,
  step_index integer,
  variant text
);
CREATE INDEX journey_conversions_by_sequence ON journey_conversions (sequence_id);
