-- Accounts as data: what WECHAT_ACCOUNTS held, managed through /v1/accounts and seen by every process
-- within seconds. Secrets (AppSecret, push token, EncodingAESKeys) are stored sealed (AES-256-GCM, see
-- src/accounts/secret-box.ts), never in clear.
CREATE TABLE accounts (
  app_id text PRIMARY KEY,
  name text,
  kind text NOT NULL DEFAULT 'own' CHECK (kind IN ('own', 'platform')),
  enabled boolean NOT NULL DEFAULT true,
  secret_sealed text,
  token_sealed text,
  encoding_aes_key_sealed text,
  previous_encoding_aes_key_sealed text,
  push_mode text NOT NULL CHECK (push_mode IN ('plaintext', 'compatible', 'safe')),
  -- as written: a preset name ("official") or the custom rules
  window_policy jsonb NOT NULL,
  send_rate_per_second integer NOT NULL CHECK (send_rate_per_second > 0),
  at_least_once boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every change is announced to the processes' registries; the payload names the schema (tests run one
-- schema each in a shared database) and the account.
CREATE FUNCTION accounts_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('wechat_drip_accounts', current_schema() || ':' || COALESCE(NEW.app_id, OLD.app_id));
  RETURN NULL;
END $$;
CREATE TRIGGER accounts_changed AFTER INSERT OR UPDATE OR DELETE ON accounts
  FOR EACH ROW EXECUTE FUNCTION accounts_notify();

-- Deleting an account cancels all its open messages with one ledger row (scope `account`, target its app id).
ALTER TABLE cancellations DROP CONSTRAINT cancellations_scope_check;
ALTER TABLE cancellations ADD CONSTRAINT cancellations_scope_check
  CHECK (scope IN ('message', 'cancel_key', 'follower', 'sequence', 'enrollment', 'account'));
