-- Acquire the lease of job :name for :owner, in one statement, for a claim of a slot or of a
-- job whose recovery or misfire policy is active: acquire.sql plus the job's current run
-- (run_slot, attempt, run_state, retry_at). The lease is taken exactly when acquire.sql
-- would take it.
-- Work is pending on the row as it was before the claim when its run is still running on
-- the expired lease or failed (:recoverLost, :recoverFailed) with fewer than :maxAttempts
-- attempts, when its run slot is earlier than its last slot (a holder died between the runs
-- of a catch-up), or, with :catchUp, when its last slot is earlier than :previousSlot
-- (cron slots no node claimed). Then the run columns stay for the new holder to take the
-- work over; otherwise a claim of a slot makes it the slot's first attempt. Without an active
-- policy :recoverLost, :recoverFailed and :catchUp are 0: nothing is pending, and every claim
-- of a slot starts its first attempt, so that a later claim under an active policy does not
-- take the slots it ran for unserved. (Every assignment reads the row as it was before the
-- statement.)
-- Returns one row, the row as the claim left it, when the lease was acquired; none otherwise.
INSERT INTO ${table} AS l (name, owner, lease_token, acquired_at, expires_at, last_slot, fencing_token,
                           run_slot, attempt, run_state, retry_at)
SELECT :name, :owner, :leaseToken, CURRENT_TIMESTAMP,
       CURRENT_TIMESTAMP + :ttlMillis * INTERVAL '1 millisecond', CAST(:slot AS TIMESTAMP WITH TIME ZONE), 1,
       CAST(:slot AS TIMESTAMP WITH TIME ZONE),
       CASE WHEN CAST(:slot AS TIMESTAMP WITH TIME ZONE) IS NOT NULL THEN 1 END,
       CASE WHEN CAST(:slot AS TIMESTAMP WITH TIME ZONE) IS NOT NULL THEN 'running' END,
       CAST(NULL AS TIMESTAMP WITH TIME ZONE)
 WHERE CAST(:slot AS TIMESTAMP WITH TIME ZONE) IS NULL
    OR CAST(:slot AS TIMESTAMP WITH TIME ZONE)
       <= CURRENT_TIMESTAMP + :slotToleranceMillis * INTERVAL '1 millisecond'
    ON CONFLICT (name) DO UPDATE
   SET owner = EXCLUDED.owner,
       lease_token = EXCLUDED.lease_token,
       acquired_at = EXCLUDED.acquired_at,
       expires_at = EXCLUDED.expires_at,
       last_slot = COALESCE(EXCLUDED.last_slot, l.last_slot),
       fencing_token = l.fencing_token + 1,
       (run_slot, attempt, run_state, retry_at) = (
         SELECT CASE WHEN c.new_run THEN EXCLUDED.last_slot ELSE l.run_slot END,
                CASE WHEN c.new_run THEN 1 ELSE l.attempt END,
                CASE WHEN c.new_run THEN 'running' ELSE l.run_state END,
                CASE WHEN c.new_run THEN NULL ELSE l.retry_at END
           FROM (SELECT EXCLUDED.last_slot IS NOT NULL AND NOT COALESCE(
                          l.run_slot IS NOT NULL
                          AND ((l.attempt < :maxAttempts
                                AND ((:recoverLost = 1 AND l.run_state = 'running')
                                     OR (:recoverFailed = 1 AND l.run_state = 'failed')))
                               OR ((:recoverLost = 1 OR :recoverFailed = 1) AND l.run_slot < l.last_slot)
                               OR (:catchUp = 1 AND l.last_slot < CAST(:previousSlot AS TIMESTAMP WITH TIME ZONE))),
                          FALSE) AS new_run) c)
 WHERE l.expires_at <= CURRENT_TIMESTAMP
   AND (EXCLUDED.last_slot IS NULL OR l.last_slot IS NULL OR l.last_slot < EXCLUDED.last_slot)
RETURNING fencing_token, last_slot, run_slot, attempt, run_state, CURRENT_TIMESTAMP AS store_time
