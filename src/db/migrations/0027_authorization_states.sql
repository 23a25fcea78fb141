-- The `state` of each authorization link (issue 23): the connect callback refuses a code that does not
-- come back with the state of a link this service made, before it asks WeChat anything. Known by its
-- SHA-256 only; bound to the first code it comes back with (a reload with that code is the same answer).
CREATE TABLE authorization_states (
  state_sha256 text PRIMARY KEY,
  expires_at timestamptz NOT NULL,
  auth_code_sha256 text
);
CREATE INDEX authorization_states_expires_at ON authorization_states (expires_at);
