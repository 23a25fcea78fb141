-- Deleting an account now archives its sequences (issue 26); this archives those of accounts deleted
-- before, which still read `active` or `paused` (their messages were cancelled at the deletion by the
-- account's ledger row) and ends their journeys' open waits.
--
-- An account is gone when the accounts table has no row for it and either a deletion left its ledger row
-- or the table holds other accounts. The second half keeps a database upgraded from before 0010 safe:
-- there the table is still empty while migrations run (WECHAT_ACCOUNTS is imported at start-up, after
-- them), and no sequence of it is archived. Run again, it finds nothing to archive.
WITH gone AS (
  UPDATE sequences s SET status = 'archived', updated_at = now()
  WHERE s.status <> 'archived'
    AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.app_id = s.app_id)
    AND (
      EXISTS (SELECT 1 FROM accounts)
      OR EXISTS (
        SELECT 1 FROM cancellations c WHERE c.app_id = s.app_id AND c.scope = 'account' AND c.target = s.app_id
      )
    )
  RETURNING s.id
)
UPDATE journey_waits w SET outcome = 'ended', resolved_at = now()
FROM gone WHERE w.sequence_id = gone.id AND w.outcome IS NULL;
