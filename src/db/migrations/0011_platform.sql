-- The WeChat Open Platform third-party platform (reference/wechat-platform.md §1): what its
-- authorization-event URL receives. Credentials are stored sealed (src/accounts/secret-box.ts).

-- The latest component_verify_ticket per component, with the time WeChat pushed it: the component token
-- needs it, and there is no API to pull one, so it is kept (not cached) until a newer push replaces it.
CREATE TABLE component_tickets (
  component_app_id text PRIMARY KEY,
  ticket_sealed text NOT NULL,
  pushed_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);

-- The last authorization event of each account that authorized (or revoked) the platform. The
-- authorization code is kept sealed until exchanged (api_query_auth); an older event never overwrites a
-- newer one.
CREATE TABLE platform_authorizations (
  authorizer_app_id text PRIMARY KEY,
  component_app_id text NOT NULL,
  state text NOT NULL CHECK (state IN ('authorized', 'updateauthorized', 'unauthorized')),
  authorization_code_sealed text,
  authorization_code_expires_at timestamptz,
  pre_auth_code text,
  event_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);

-- Each signed push the authorization-event URL took, by its msg_signature (which covers the timestamp,
-- the nonce and the body): the same push sent again is a replay, refused. Pruned once older than the
-- accepted clock skew, when its timestamp alone refuses it.
CREATE TABLE component_push_uses (
  msg_signature text PRIMARY KEY,
  seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX component_push_uses_seen_at ON component_push_uses (seen_at);

-- A platform account whose authorization was revoked: disabled, with the time it happened.
ALTER TABLE accounts ADD COLUMN unauthorized_at timestamptz;
