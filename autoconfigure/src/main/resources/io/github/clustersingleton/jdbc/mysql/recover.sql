-- Recovery claim of job :name for :owner: take over the expired lease of a row with pending
-- work, without a new slot. Pending is a run still running on the expired lease or failed
-- (:recoverLost, :recoverFailed; a failed run once its retry_at has come) with fewer than
-- :maxAttempts attempts, or a run slot earlier than the last slot (a holder died between
-- the runs of a catch-up). The fencing token goes up by one; the last slot and the run
-- columns stay. InnoDB locks the row and evaluates the WHERE clause on its latest version,
-- so a concurrent claim of the same row finds the lease live: two claims never both
-- succeed. The caller reads the row afterwards with select-state.sql when a row changed.
-- (The assignments read no column that another one writes.)
UPDATE ${table}
   SET owner = :owner,
       lease_token = :leaseToken,
       acquired_at = UTC_TIMESTAMP(6),
       expires_at = UTC_TIMESTAMP(6) + INTERVAL :ttlMillis * 1000 MICROSECOND,
       fencing_token = fencing_token + 1
 WHERE name = :name
   AND expires_at <= UTC_TIMESTAMP(6)
   AND run_slot IS NOT NULL
   AND ((attempt < :maxAttempts
         AND ((:recoverLost = 1 AND run_state = 'running')
              OR (:recoverFailed = 1 AND run_state = 'failed' AND retry_at <= UTC_TIMESTAMP(6))))
        OR ((:recoverLost = 1 OR :recoverFailed = 1) AND run_slot < last_slot))
