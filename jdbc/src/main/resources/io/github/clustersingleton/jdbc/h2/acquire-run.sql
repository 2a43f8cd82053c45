-- Acquire the lease of job :name for :owner, in one statement read through FINAL TABLE, for
-- a claim of a slot or of a job whose recovery or misfire policy is active: acquire.sql plus
-- the job's current run (run_slot, attempt, run_state, retry_at). The lease is taken exactly
-- when acquire.sql would take it.
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
-- A run still recorded as running that :recoverLost would run again may have ended without
-- its completion reaching the database yet: such a row is not taken until a recovery claim
-- marked it (recover.sql) and its recover_at has come; the claim is refused meanwhile, as
-- while the lease is live. Every claim clears the mark.
-- A paused job (paused_at on its row) or every job paused (paused_at on the row named
-- :allJobs, which no job can be named) is not claimed: neither branch applies, and
-- select-state.sql reports the claim paused. A claim that overrides the pause
-- (:overridesPause = 1: a run-now request's) is not refused for it.
SELECT fencing_token, last_slot, run_slot, attempt, run_state, CURRENT_TIMESTAMP AS store_time FROM FINAL TABLE (
  MERGE INTO ${table} l
  USING (VALUES (CAST(:name AS VARCHAR(200)), CAST(:owner AS VARCHAR(255)), CAST(:leaseToken AS VARCHAR(64)),
                 CAST(:ttlMillis AS BIGINT), CAST(:slot AS TIMESTAMP WITH TIME ZONE),
                 CAST(:slotToleranceMillis AS BIGINT), CAST(:recoverLost AS INT), CAST(:recoverFailed AS INT),
                 CAST(:maxAttempts AS INT), CAST(:catchUp AS INT), CAST(:previousSlot AS TIMESTAMP WITH TIME ZONE)))
        AS r (name, owner, lease_token, ttl, slot, tolerance, recover_lost, recover_failed, max_attempts,
              catch_up, previous_slot)
     ON l.name = r.name
   WHEN MATCHED
    AND l.expires_at <= CURRENT_TIMESTAMP
    AND (l.paused_at IS NULL OR :overridesPause = 1)
    AND (:overridesPause = 1
          OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL))
    AND NOT COALESCE(r.recover_lost = 1 AND l.run_state = 'running' AND l.attempt < r.max_attempts
                     AND (l.recover_at IS NULL OR l.recover_at > CURRENT_TIMESTAMP), FALSE)
    AND (r.slot IS NULL OR l.last_slot IS NULL OR l.last_slot < r.slot)
    AND (r.slot IS NULL OR r.slot <= DATEADD(MILLISECOND, r.tolerance, CURRENT_TIMESTAMP)) THEN
        UPDATE SET owner = r.owner,
                   lease_token = r.lease_token,
                   acquired_at = CURRENT_TIMESTAMP,
                   expires_at = DATEADD(MILLISECOND, r.ttl, CURRENT_TIMESTAMP),
                   last_slot = COALESCE(r.slot, l.last_slot),
                   fencing_token = l.fencing_token + 1,
                   run_slot = CASE WHEN r.slot IS NOT NULL AND NOT COALESCE(
                                  l.run_slot IS NOT NULL
                                  AND ((l.attempt < r.max_attempts
                                        AND ((r.recover_lost = 1 AND l.run_state = 'running')
                                             OR (r.recover_failed = 1 AND l.run_state = 'failed')))
                                       OR ((r.recover_lost = 1 OR r.recover_failed = 1 OR r.catch_up = 1) AND l.run_slot < l.last_slot)
                                       OR (r.catch_up = 1 AND l.last_slot < r.previous_slot)),
                                  FALSE)
                              THEN r.slot ELSE l.run_slot END,
                   attempt = CASE WHEN r.slot IS NOT NULL AND NOT COALESCE(
                                  l.run_slot IS NOT NULL
                                  AND ((l.attempt < r.max_attempts
                                        AND ((r.recover_lost = 1 AND l.run_state = 'running')
                                             OR (r.recover_failed = 1 AND l.run_state = 'failed')))
                                       OR ((r.recover_lost = 1 OR r.recover_failed = 1 OR r.catch_up = 1) AND l.run_slot < l.last_slot)
                                       OR (r.catch_up = 1 AND l.last_slot < r.previous_slot)),
                                  FALSE)
                              THEN 1 ELSE l.attempt END,
                   run_state = CASE WHEN r.slot IS NOT NULL AND NOT COALESCE(
                                  l.run_slot IS NOT NULL
                                  AND ((l.attempt < r.max_attempts
                                        AND ((r.recover_lost = 1 AND l.run_state = 'running')
                                             OR (r.recover_failed = 1 AND l.run_state = 'failed')))
                                       OR ((r.recover_lost = 1 OR r.recover_failed = 1 OR r.catch_up = 1) AND l.run_slot < l.last_slot)
                                       OR (r.catch_up = 1 AND l.last_slot < r.previous_slot)),
                                  FALSE)
                              THEN 'running' ELSE l.run_state END,
                   retry_at = CASE WHEN r.slot IS NOT NULL AND NOT COALESCE(
                                  l.run_slot IS NOT NULL
                                  AND ((l.attempt < r.max_attempts
                                        AND ((r.recover_lost = 1 AND l.run_state = 'running')
                                             OR (r.recover_failed = 1 AND l.run_state = 'failed')))
                                       OR ((r.recover_lost = 1 OR r.recover_failed = 1 OR r.catch_up = 1) AND l.run_slot < l.last_slot)
                                       OR (r.catch_up = 1 AND l.last_slot < r.previous_slot)),
                                  FALSE)
                              THEN NULL ELSE l.retry_at END,
                   recover_at = NULL
   WHEN NOT MATCHED
    AND (:overridesPause = 1
          OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL))
    AND (r.slot IS NULL OR r.slot <= DATEADD(MILLISECOND, r.tolerance, CURRENT_TIMESTAMP)) THEN
        INSERT (name, owner, lease_token, acquired_at, expires_at, last_slot, fencing_token,
                run_slot, attempt, run_state, retry_at, recover_at)
        VALUES (r.name, r.owner, r.lease_token, CURRENT_TIMESTAMP, DATEADD(MILLISECOND, r.ttl, CURRENT_TIMESTAMP),
                r.slot, 1, r.slot, CASE WHEN r.slot IS NOT NULL THEN 1 END,
                CASE WHEN r.slot IS NOT NULL THEN 'running' END, NULL, NULL))
