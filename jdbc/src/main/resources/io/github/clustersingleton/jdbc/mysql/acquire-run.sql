-- Acquire the lease of job :name for :owner, for a claim of a slot or of a job whose recovery
-- or misfire policy is active: acquire.sql plus the job's current run (run_slot, attempt,
-- run_state, retry_at).
-- The lease is taken exactly when acquire.sql would take it. MySQL has no RETURNING: the
-- caller reads the row afterwards with select-state.sql.
-- Work is pending on the row as it was before the claim when its run is still running on
-- the expired lease or failed (:recoverLost, :recoverFailed) with fewer than :maxAttempts
-- attempts, when its run slot is earlier than its last slot (a holder died between the runs
-- of a catch-up), or, with :catchUp, when its last slot is earlier than :previousSlot
-- (cron slots no node claimed). Then the run columns stay for the new holder to take the
-- work over; otherwise a claim of a slot makes it the slot's first attempt. Without an active
-- policy :recoverLost, :recoverFailed and :catchUp are 0: nothing is pending, and every claim
-- of a slot starts its first attempt, so that a later claim under an active policy does not
-- take the slots it ran for unserved.
--
-- As in acquire.sql, the result does not depend on the order in which the server evaluates
-- the assignments (left to right, or simultaneously under MariaDB's SIMULTANEOUS_ASSIGNMENT).
-- The run columns are assigned right after lease_token and before last_slot, expires_at and
-- each other could change what they read, each under the same condition "a new run starts":
-- the lease was taken (our token, or the stored row allows taking it), the claim has a slot,
-- and either run_slot already is that slot (an earlier run assignment started the new run,
-- seen in left-to-right order; run_slot is never later than last_slot, which is earlier than
-- a slot that can be taken, so it is never true otherwise) or nothing is pending on the row.
-- When no new run starts, no run column changes, so every later assignment reads the run
-- columns as stored and comes to the same answer.
-- A run still recorded as running that :recoverLost would run again may have ended without
-- its completion reaching the database yet: such a row is not taken until a recovery claim
-- marked it (recover.sql) and its recover_at has come; the claim is refused meanwhile, as
-- while the lease is live. That condition reads run_state, attempt and recover_at, which
-- change only when the lease is taken (our token), and recover_at, cleared by every claim,
-- is assigned last.
-- A paused job (paused_at on its row) or every job paused (paused_at on the row named
-- :allJobs, which no job can be named) is not claimed: the upsert reads the row's latest
-- version under its lock, and takes the lease only while paused_at is NULL; the pause of
-- every job stops the SELECT before anything is inserted: that row is read LOCK IN SHARE
-- MODE, so that a claim that waited for a pause of every job reads it once committed, also
-- under READ COMMITTED (a plain read there would see the row as it was before the pause). select-state.sql then reports the claim paused. A claim that
-- overrides the pause (:overridesPause = 1: a run-now request's) is not refused for it.
INSERT INTO ${table} (name, owner, lease_token, acquired_at, expires_at, last_slot, fencing_token,
                      run_slot, attempt, run_state, retry_at, recover_at)
SELECT :name, :owner, :leaseToken, UTC_TIMESTAMP(6),
       UTC_TIMESTAMP(6) + INTERVAL :ttlMillis * 1000 MICROSECOND, :slot, 1,
       :slot, IF(:slot IS NULL, NULL, 1), IF(:slot IS NULL, NULL, 'running'), NULL, NULL
  FROM DUAL
 WHERE (:slot IS NULL
        OR :slot <= UTC_TIMESTAMP(6) + INTERVAL :slotToleranceMillis * 1000 MICROSECOND)
   AND (:overridesPause = 1
          OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL
                      LOCK IN SHARE MODE))
    ON DUPLICATE KEY UPDATE
       lease_token = IF(expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                        AND NOT COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                         AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0)
                        AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot)),
                        VALUES(lease_token), lease_token),
       run_slot = IF((lease_token = VALUES(lease_token) OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                     AND NOT COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                      AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0)
                     AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))))
                AND VALUES(last_slot) IS NOT NULL
                AND (run_slot <=> VALUES(last_slot) OR NOT COALESCE(
                  run_slot IS NOT NULL
                  AND ((attempt < :maxAttempts
                        AND ((:recoverLost = 1 AND run_state = 'running')
                             OR (:recoverFailed = 1 AND run_state = 'failed')))
                       OR ((:recoverLost = 1 OR :recoverFailed = 1 OR :catchUp = 1) AND run_slot < last_slot)
                       OR (:catchUp = 1 AND last_slot < :previousSlot)), 0)),
             VALUES(last_slot), run_slot),
       attempt = IF((lease_token = VALUES(lease_token) OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                     AND NOT COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                      AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0)
                     AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))))
                AND VALUES(last_slot) IS NOT NULL
                AND (run_slot <=> VALUES(last_slot) OR NOT COALESCE(
                  run_slot IS NOT NULL
                  AND ((attempt < :maxAttempts
                        AND ((:recoverLost = 1 AND run_state = 'running')
                             OR (:recoverFailed = 1 AND run_state = 'failed')))
                       OR ((:recoverLost = 1 OR :recoverFailed = 1 OR :catchUp = 1) AND run_slot < last_slot)
                       OR (:catchUp = 1 AND last_slot < :previousSlot)), 0)),
             1, attempt),
       run_state = IF((lease_token = VALUES(lease_token) OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                     AND NOT COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                      AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0)
                     AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))))
                AND VALUES(last_slot) IS NOT NULL
                AND (run_slot <=> VALUES(last_slot) OR NOT COALESCE(
                  run_slot IS NOT NULL
                  AND ((attempt < :maxAttempts
                        AND ((:recoverLost = 1 AND run_state = 'running')
                             OR (:recoverFailed = 1 AND run_state = 'failed')))
                       OR ((:recoverLost = 1 OR :recoverFailed = 1 OR :catchUp = 1) AND run_slot < last_slot)
                       OR (:catchUp = 1 AND last_slot < :previousSlot)), 0)),
             'running', run_state),
       retry_at = IF((lease_token = VALUES(lease_token) OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                     AND NOT COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                      AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0)
                     AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))))
                AND VALUES(last_slot) IS NOT NULL
                AND (run_slot <=> VALUES(last_slot) OR NOT COALESCE(
                  run_slot IS NOT NULL
                  AND ((attempt < :maxAttempts
                        AND ((:recoverLost = 1 AND run_state = 'running')
                             OR (:recoverFailed = 1 AND run_state = 'failed')))
                       OR ((:recoverLost = 1 OR :recoverFailed = 1 OR :catchUp = 1) AND run_slot < last_slot)
                       OR (:catchUp = 1 AND last_slot < :previousSlot)), 0)),
             NULL, retry_at),
       owner = IF(lease_token = VALUES(lease_token)
                  OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                      AND NOT COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                       AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0)
                      AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))),
                  VALUES(owner), owner),
       acquired_at = IF(lease_token = VALUES(lease_token)
                        OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                            AND NOT COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                             AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0)
                            AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))),
                        VALUES(acquired_at), acquired_at),
       fencing_token = IF(lease_token = VALUES(lease_token)
                          OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                              AND NOT COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                               AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0)
                              AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))),
                          fencing_token + 1, fencing_token),
       last_slot = IF(lease_token = VALUES(lease_token)
                      OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                          AND NOT COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                           AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0)
                          AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))),
                      COALESCE(VALUES(last_slot), last_slot), last_slot),
       expires_at = IF(lease_token = VALUES(lease_token)
                       OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                           AND NOT COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                            AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0)
                           AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))),
                       VALUES(expires_at), expires_at),
       recover_at = IF(lease_token = VALUES(lease_token)
                       OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                           AND NOT COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                            AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0)
                           AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))),
                       NULL, recover_at)
