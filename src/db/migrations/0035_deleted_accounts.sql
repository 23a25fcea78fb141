-- The app ids of deleted accounts, so that WECHAT_ACCOUNTS does not bring one back at the next start: a
-- row is written with the deletion and removed when the account is created again (POST /v1/accounts, a
-- platform authorization). A few bytes per deleted account; nothing prunes them.
CREATE TABLE deleted_accounts (
  app_id text PRIMARY KEY,
  deleted_at timestamptz NOT NULL DEFAULT now()
);

-- Kept by triggers, so that every way an account goes or comes (the API, a platform authorization, a
-- revocation that deletes) keeps the list right in its own transaction.
CREATE FUNCTION remember_deleted_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO deleted_accounts (app_id) VALUES (OLD.app_id)
    ON CONFLICT (app_id) DO UPDATE SET deleted_at = now();
  RETURN NULL;
END $$;
CREATE FUNCTION forget_deleted_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM deleted_accounts WHERE app_id = NEW.app_id;
  RETURN NULL;
END $$;
CREATE TRIGGER accounts_deleted AFTER DELETE ON accounts
  FOR EACH ROW EXECUTE FUNCTION remember_deleted_account();
CREATE TRIGGER accounts_created AFTER INSERT ON accounts
  FOR EACH ROW EXECUTE FUNCTION forget_deleted_account();
