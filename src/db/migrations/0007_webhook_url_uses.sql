-- Plaintext-mode push URLs seen recently. Their signature covers (token, timestamp, nonce) but not the
-- body, so a captured URL could carry another body while its timestamp is fresh: each URL is remembered
-- with a hash of the body it first carried, and only that body (WeChat's retries) is accepted again.
-- The signature stands for its (timestamp, nonce): it is their SHA-1 with the token. Keying on it also
-- catches the same signed string split differently into timestamp and nonce, and stores no raw query text.
-- The api deletes rows older than three skew windows; by then the timestamp is refused as stale anyway.
CREATE TABLE webhook_url_uses (
  app_id text NOT NULL,
  signature text NOT NULL,
  body_sha256 text NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, signature)
);
CREATE INDEX webhook_url_uses_seen_at ON webhook_url_uses (seen_at);
