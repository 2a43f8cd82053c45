-- Recovery claim of job :name for :owner: take over the expired lease of a row with pending
-- work, without a new slot. Pending is a run still running on the expired lease or failed
-- (:recoverLost, :recoverFailed; a failed run once its retry_at has come) with fewer than
-- :maxAttempts attempts, or a run slot earlier than the last slot (a holder died between
-- the runs of a catch-up). The fencing token goes up by one; the last slot and the run
-- columns stay. A concurrent claim of the same row waits for this one and then finds the
-- lease live, so two claims never both succeed.
-- Returns one row, the row as the claim left it, when the lease was taken; none otherwise.
UPDATE ${table}
   SET owner = :owner,
       lease_token = :leaseToken,
       acquired_at = CURRENT_TIMESTAMP,
       expires_at = CURRENT_TIMESTAMP + :ttlMillis * INTERVAL '1 millisecond',
       fencing_token = fencing_token + 1
 WHERE name = :name
   AND expires_at <= CURRENT_TIMESTAMP
   AND run_slot IS NOT NULL
   AND ((attempt < :maxAttempts
         AND ((:recoverLost = 1 AND run_state = 'running')
              OR (:recoverFailed = 1 AND run_state = 'failed' AND retry_at <= CURRENT_TIMESTAMP)))
        OR ((:recoverLost = 1 OR :recoverFailed = 1) AND run_slot < last_slot))
RETURNING fencing_token, last_slot, run_slot, attempt, run_state, CURRENT_TIMESTAMP AS store_time
