-- Journeys (issue 25): a path of a sequence may end in a wait for something the follower does, which
-- starts the wait's yes path when it happens and its no path at the timeout. A version keeps its wait
-- and named paths beside its steps (the main path); an enrollment keeps the variables it was given, for
-- the paths it starts later.
ALTER TABLE sequence_versions
  ADD COLUMN wait jsonb,
  ADD COLUMN paths jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE enrollments ADD COLUMN vars jsonb NOT NULL DEFAULT '{}'::jsonb;

-- One row per wait an enrollment reached: written when its path starts, resolved once — `yes` by the
-- follower's action (the push or posted event, in its transaction), `no` by the worker at the deadline,
-- `ended` by an exit, a pause or an archive. The primary key makes each path's wait, and so each path,
-- happen once per enrollment; the update from open to resolved is what decides between an action and the
-- timeout racing for it. The condition is copied from the version so that matching reads only this table.
CREATE TABLE journey_waits (
  enrollment_id uuid NOT NULL REFERENCES enrollments (id) ON DELETE CASCADE,
  path text NOT NULL,
  app_id text NOT NULL,
  openid text NOT NULL,
  sequence_id uuid NOT NULL,
  version integer NOT NULL,
  condition jsonb NOT NULL,
  starts_at timestamptz NOT NULL,
  deadline timestamptz NOT NULL,
  outcome text CHECK (outcome IN ('yes', 'no', 'ended')),
  resolved_at timestamptz,
  PRIMARY KEY (enrollment_id, path)
);
CREATE INDEX journey_waits_open_by_follower ON journey_waits (app_id, openid) WHERE outcome IS NULL;
CREATE INDEX journey_waits_open_by_deadline ON journey_waits (deadline) WHERE outcome IS NULL;
CREATE INDEX journey_waits_by_sequence ON journey_waits (sequence_id) WHERE outcome IS NULL;
