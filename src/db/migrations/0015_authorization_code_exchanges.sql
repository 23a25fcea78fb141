-- Each authorization code the service exchanged (api_query_auth, reference/wechat-platform.md §1.5), by
-- the SHA-256 of the code, never the code: the callback and the `authorized` / `updateauthorized` push
-- carry the same code and WeChat takes it once, so whoever comes second (waiting on an advisory lock on
-- the hash) reads the first one's outcome here instead of calling WeChat again. `own_account`: the code
-- named an own account's app id, which was left alone. Pruned once far older than any code's life.
CREATE TABLE authorization_code_exchanges (
  code_sha256 text PRIMARY KEY,
  app_id text NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('created', 'updated', 'own_account')),
  permissions jsonb NOT NULL,
  exchanged_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX authorization_code_exchanges_exchanged_at ON authorization_code_exchanges (exchanged_at);
