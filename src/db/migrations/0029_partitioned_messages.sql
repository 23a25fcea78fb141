-- scheduled_messages and delivery_attempts become partitioned by `due_slot`, the time a message's id
-- carries: since this release an id is UUIDv7-shaped with the message's intended due time in its
-- timestamp field (src/store/message-id.ts), so an id alone names its partition. A partition holds a day
-- (MESSAGE_PARTITION) of due times; retention detaches and drops a day whose messages all finished long
-- enough ago instead of deleting rows. Two partitions have no day:
--   scheduled_messages_later  (due_slot = infinity)   rows awaiting the horizon pump (due beyond
--                                                      PUBLISH_HORIZON); the pump moves each into its day
--                                                      as it publishes its wake-up, so days are only
--                                                      created for the horizon's next hours;
--   scheduled_messages_legacy (due_slot = -infinity)  the table as it was before this migration (random
--                                                      ids), attached as it is: nothing is copied. New rows
--                                                      never go there; it is dropped like a day once its
--                                                      last message finished RETENTION_FINISHED_AFTER ago.
-- Idempotency keys move to a table of their own: a unique index of a partitioned table must contain the
-- partition key, so (app_id, idempotency_key) could no longer be unique across partitions.
-- Online: no row of scheduled_messages or delivery_attempts is rewritten or copied. What reads the table
-- once: the check of legacy_slot (as with 0023, ~0.15 s per million rows), the primary key's new index
-- (id, due_slot) on the legacy rows, and copying the keys (docs/operations.md "Upgrading to partitioned
-- messages" has the times measured on 1,000,000 rows).

-- The time an id carries (UUIDv7: the first 48 bits, ms since the epoch); null for any other id.
CREATE FUNCTION message_slot(id uuid) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN substr(id::text, 15, 1) = '7'
    THEN to_timestamp(('x' || substr(id::text, 1, 8) || substr(id::text, 10, 4))::bit(48)::bigint / 1000.0)
  END
$$;

-- The partitions rows with these ids are in once they have a day (rows from before: the legacy one), for a
-- statement that joins ids read from a table (the relay's outbox lease). The hot statements pass the same
-- slots computed from their ids as a parameter (src/store/message-partitions.ts partitionSlotsOf): the
-- planner then needs no function call to prune.
CREATE FUNCTION message_slots(ids uuid[]) RETURNS timestamptz[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT COALESCE(array_agg(DISTINCT COALESCE(message_slot(i), '-infinity')), '{}') FROM unnest(ids) AS i
$$;

-- The legacy table: its indexes renamed out of the way of the partitioned table's, its trigger and its
-- attempts' foreign key dropped (the partitioned table has both at the top).
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT indexrelid::regclass::text AS name FROM pg_index
           WHERE indrelid IN ('scheduled_messages'::regclass, 'delivery_attempts'::regclass)
  LOOP
    EXECUTE format('ALTER INDEX %I RENAME TO %I', r.name, r.name || '_legacy');
  END LOOP;
END $$;
ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_message_id_fkey;
-- Their primary keys become (id, due_slot), built when they are attached.
ALTER TABLE scheduled_messages DROP CONSTRAINT scheduled_messages_pkey_legacy;
ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_pkey_legacy;
DROP TRIGGER scheduled_messages_intended_at ON scheduled_messages;
ALTER TABLE scheduled_messages RENAME TO scheduled_messages_legacy;
ALTER TABLE delivery_attempts RENAME TO delivery_attempts_legacy;
ALTER TABLE scheduled_messages_legacy ADD COLUMN due_slot timestamptz NOT NULL DEFAULT '-infinity',
  ADD CONSTRAINT legacy_slot CHECK (due_slot = '-infinity');
ALTER TABLE delivery_attempts_legacy ADD COLUMN due_slot timestamptz NOT NULL DEFAULT '-infinity',
  ADD CONSTRAINT legacy_slot CHECK (due_slot = '-infinity');

-- The idempotency keys, written first by the insert (src/store/insert-messages.ts); retention deletes a
-- message's key when it drops the message's partition.
CREATE TABLE message_idempotency_keys (
  app_id text NOT NULL,
  idempotency_key text NOT NULL,
  message_id uuid NOT NULL,
  PRIMARY KEY (app_id, idempotency_key)
);
CREATE INDEX message_idempotency_keys_message ON message_idempotency_keys (message_id);
INSERT INTO message_idempotency_keys (app_id, idempotency_key, message_id)
SELECT app_id, idempotency_key, id FROM scheduled_messages_legacy WHERE idempotency_key IS NOT NULL;
DROP INDEX scheduled_messages_idempotency_legacy;
DROP INDEX scheduled_messages_awaiting_pump_legacy;

-- The partitioned tables: the legacy tables' columns, defaults and checks (not legacy_slot), and their
-- indexes declared again on top, so that attaching the legacy tables adopts the indexes they have.
CREATE TABLE scheduled_messages (LIKE scheduled_messages_legacy INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
  PARTITION BY RANGE (due_slot);
ALTER TABLE scheduled_messages DROP CONSTRAINT legacy_slot,
  ALTER COLUMN due_slot DROP DEFAULT,
  ALTER COLUMN id DROP DEFAULT,
  ADD PRIMARY KEY (id, due_slot);
-- The pump moves every row it reaches, a cancelled one too (into its day, where retention finds it).
CREATE INDEX scheduled_messages_awaiting_pump ON scheduled_messages (due_at) WHERE awaiting_pump;
CREATE INDEX scheduled_messages_cancel_key ON scheduled_messages (app_id, cancel_key) WHERE cancel_key IS NOT NULL;
CREATE INDEX scheduled_messages_finished ON scheduled_messages (updated_at)
  WHERE status IN ('sent', 'skipped', 'cancelled', 'failed', 'unknown');
CREATE INDEX scheduled_messages_follower ON scheduled_messages (app_id, openid);
CREATE INDEX scheduled_messages_open ON scheduled_messages (status, updated_at)
  WHERE status IN ('pending', 'sending');
CREATE INDEX scheduled_messages_queued_due ON scheduled_messages (due_at) WHERE status = 'queued';
CREATE INDEX scheduled_messages_sequence ON scheduled_messages (sequence_id, step_index)
  WHERE sequence_id IS NOT NULL;
CREATE INDEX scheduled_messages_template_msgid ON scheduled_messages (app_id, template_msgid)
  WHERE template_msgid IS NOT NULL;
CREATE TRIGGER scheduled_messages_intended_at BEFORE INSERT ON scheduled_messages
  FOR EACH ROW EXECUTE FUNCTION scheduled_messages_intended_at();

CREATE TABLE delivery_attempts (LIKE delivery_attempts_legacy INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
  PARTITION BY RANGE (due_slot);
ALTER TABLE delivery_attempts DROP CONSTRAINT legacy_slot,
  ALTER COLUMN due_slot DROP DEFAULT,
  ADD PRIMARY KEY (id, due_slot);
CREATE INDEX delivery_attempts_message ON delivery_attempts (message_id);
-- The attempts' id sequence belonged to the legacy table's column: dropping that table must not drop it.
ALTER SEQUENCE delivery_attempts_id_seq OWNED BY delivery_attempts.id;

-- The legacy tables hold -infinity (before any id's time; checked by legacy_slot, so attaching them reads
-- nothing), the later partition infinity. Days are created by the service (create_message_partition).
ALTER TABLE scheduled_messages ATTACH PARTITION scheduled_messages_legacy
  FOR VALUES FROM (MINVALUE) TO ('1970-01-01 00:00:00+00');
ALTER TABLE delivery_attempts ATTACH PARTITION delivery_attempts_legacy
  FOR VALUES FROM (MINVALUE) TO ('1970-01-01 00:00:00+00');
CREATE TABLE scheduled_messages_later PARTITION OF scheduled_messages
  FOR VALUES FROM ('infinity') TO (MAXVALUE);

-- The day partitions: [from, to) of each, from their bounds (the legacy and later partitions have none).
CREATE FUNCTION message_partitions() RETURNS TABLE (name text, from_slot timestamptz, to_slot timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT c.relname::text, b[1]::timestamptz, b[2]::timestamptz
  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid,
       regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([^'']+)''\) TO \(''([^'']+)''\)') AS b
  WHERE i.inhparent = 'scheduled_messages'::regclass AND b IS NOT NULL
$$;

-- The partition of both tables for the due slot `slot`, unless one holds it: `width` wide, aligned on
-- multiples of it since the epoch (a day: midnight UTC), shortened where a neighbour created with another
-- width begins or ends. Created apart and then attached, so the partitioned tables are locked only against
-- other DDL (SHARE UPDATE EXCLUSIVE), never against reads and writes; concurrent callers queue on an
-- advisory lock. Returns whether it created one.
CREATE FUNCTION create_message_partition(slot timestamptz, width interval) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  lo timestamptz := date_bin(width, slot, timestamptz 'epoch');
  hi timestamptz := lo + width;
  suffix text;
  t text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('wechat-drip-partitions:' || current_schema()));
  IF EXISTS (SELECT 1 FROM message_partitions() p WHERE p.from_slot <= slot AND slot < p.to_slot) THEN
    RETURN false;
  END IF;
  lo := greatest(lo, (SELECT max(p.to_slot) FROM message_partitions() p WHERE p.to_slot <= slot));
  hi := least(hi, (SELECT min(p.from_slot) FROM message_partitions() p WHERE p.from_slot > slot));
  suffix := to_char(lo AT TIME ZONE 'UTC', 'YYYYMMDD"t"HH24MISS');
  FOREACH t IN ARRAY ARRAY['scheduled_messages', 'delivery_attempts'] LOOP
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', t || '_' || suffix, t);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT slot CHECK (due_slot >= %L AND due_slot < %L)',
                   t || '_' || suffix, lo, hi);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                   t, t || '_' || suffix, lo, hi);
  END LOOP;
  RETURN true;
END $$;
