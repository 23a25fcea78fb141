-- Who changed what through the API (issue 26 §1): each change of a sequence or an account, written in the
-- transaction that makes it, so that a change is never without its entry nor an entry without its change.
-- `actor` is the credential that made it (today the admin token; users and API keys later), `source` the
-- address it came from; `details` names what changed (field names, a name, counts), never a secret's value.
CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  actor jsonb NOT NULL,
  source text NOT NULL,
  request_id text,
  action text NOT NULL,
  target_type text NOT NULL,
  target_id text NOT NULL,
  app_id text,
  details jsonb NOT NULL DEFAULT '{}'
);
-- The page's two reads: everything newest first, and one account's newest first.
CREATE INDEX audit_log_app_id ON audit_log (app_id, id DESC);
