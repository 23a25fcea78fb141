-- API keys (issue 26 §1): one per integration, scoped to accounts and to operations (schedule, cancel,
-- read). The key itself is shown once, when it is created; only its SHA-256 is kept (a key is 32 random
-- bytes, so a fast digest is as safe as a slow one, and the check costs nothing per request). A revoked key
-- stays listed with `revoked_at`; each api process keeps the unrevoked ones in memory and re-reads them
-- when this table's trigger notifies.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  digest bytea NOT NULL UNIQUE,
  -- The key's last four characters, to tell keys apart in a list.
  hint text NOT NULL,
  app_ids text[] NOT NULL CHECK (cardinality(app_ids) > 0),
  operations text[] NOT NULL CHECK (cardinality(operations) > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

CREATE FUNCTION notify_api_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('wechat_drip_api_keys', current_schema() || ':' || COALESCE(NEW.id, OLD.id)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_api_keys_changed();
