-- Recovery claim of job :name for :owner, read through FINAL TABLE: take over the expired
-- lease of a row with pending work, without a new slot. Pending is a run still running on
-- the expired lease or failed (:recoverLost, :recoverFailed; a failed run once its retry_at
-- has come) with fewer than :maxAttempts attempts, or a run slot earlier than the last slot
-- (a holder died between the runs of a catch-up).
-- A run still recorded as running that :recoverLost would run again may have ended without
-- its completion reaching the database yet (release-run.sql records it by the run's token
-- even after the lease expired). The first claim that finds it only marks it: recover_at
-- becomes now plus :graceMillis, and the lease stays as it is. A claim at or after
-- recover_at takes it over. Any other pending work is taken over at once.
-- Taking over: the fencing token goes up by one, the mark is cleared; the last slot and the
-- run columns stay.
-- H2 has no clock other than the statement's start (CURRENT_TIMESTAMP): a mark that waited
-- for the row lock counts its grace from the time the statement began, so it becomes
-- visible with up to LOCK_TIMEOUT of its grace spent.
-- A paused job, or any job while every job is paused (the row named :allJobs), is neither
-- taken nor marked: the statement changes nothing and the caller reports it paused.
-- Yields the row as the claim left it when the row was taken or marked (our lease token in
-- it means taken); none otherwise.
SELECT lease_token, fencing_token, last_slot, run_slot, attempt, run_state, CURRENT_TIMESTAMP AS store_time
  FROM FINAL TABLE (
  UPDATE ${table}
     SET owner = CASE WHEN COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                    AND (recover_at IS NULL OR recover_at > CURRENT_TIMESTAMP), FALSE)
                      THEN owner ELSE :owner END,
         lease_token = CASE WHEN COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                          AND (recover_at IS NULL OR recover_at > CURRENT_TIMESTAMP), FALSE)
                            THEN lease_token ELSE :leaseToken END,
         acquired_at = CASE WHEN COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                          AND (recover_at IS NULL OR recover_at > CURRENT_TIMESTAMP), FALSE)
                            THEN acquired_at ELSE CURRENT_TIMESTAMP END,
         expires_at = CASE WHEN COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                         AND (recover_at IS NULL OR recover_at > CURRENT_TIMESTAMP), FALSE)
                           THEN expires_at
                           ELSE DATEADD(MILLISECOND, CAST(:ttlMillis AS BIGINT), CURRENT_TIMESTAMP) END,
         fencing_token = CASE WHEN COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                            AND (recover_at IS NULL OR recover_at > CURRENT_TIMESTAMP), FALSE)
                              THEN fencing_token ELSE fencing_token + 1 END,
         recover_at = CASE WHEN COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                         AND (recover_at IS NULL OR recover_at > CURRENT_TIMESTAMP), FALSE)
                           THEN COALESCE(recover_at,
                                         DATEADD(MILLISECOND, CAST(:graceMillis AS BIGINT), CURRENT_TIMESTAMP))
                           END
   WHERE name = :name
     AND paused_at IS NULL
     AND NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL)
     AND expires_at <= CURRENT_TIMESTAMP
     AND run_slot IS NOT NULL
     AND ((attempt < :maxAttempts
           AND ((:recoverLost = 1 AND run_state = 'running')
                OR (:recoverFailed = 1 AND run_state = 'failed' AND retry_at <= CURRENT_TIMESTAMP)))
          OR ((:recoverLost = 1 OR :recoverFailed = 1 OR :catchUp = 1) AND run_slot < last_slot)))
