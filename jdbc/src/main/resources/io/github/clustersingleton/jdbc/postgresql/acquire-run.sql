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
-- A run still recorded as running that :recoverLost would run again may have ended without
-- its completion reaching the database yet: such a row is not taken until a recovery claim
-- marked it (recover.sql) and its recover_at has come; the claim is refused meanwhile, as
-- while the lease is live. Every claim clears the mark.
-- Returns one row: acquired = 1 and the row as the claim left it when the lease was
-- acquired, else acquired = 0 with the row's holder and last slot, read in the same round
-- trip as in acquire.sql (refused: FOR SHARE, the row as the refused claim saw it; skewed:
-- no lock); no row at all only when the job's first insert is another transaction's.
-- A paused job (paused_at on its row) or every job paused (paused_at on the row named
-- :allJobs, which no job can be named) is not claimed: the row's pause is re-checked by the
-- ON CONFLICT clause on the row's latest version after any wait for its lock, and the
-- pause of every job stops the SELECT before anything is inserted or locked. A refused
-- claim reports paused = 1 and changes nothing. A claim that overrides the pause
-- (:overridesPause = 1: a run-now request's) is not refused for it.
WITH claim AS (
  INSERT INTO ${table} AS l (name, owner, lease_token, acquired_at, expires_at, last_slot, fencing_token,
                             run_slot, attempt, run_state, retry_at, recover_at)
  SELECT :name, :owner, :leaseToken, CURRENT_TIMESTAMP,
         CURRENT_TIMESTAMP + :ttlMillis * INTERVAL '1 millisecond', CAST(:slot AS TIMESTAMP WITH TIME ZONE), 1,
         CAST(:slot AS TIMESTAMP WITH TIME ZONE),
         CASE WHEN CAST(:slot AS TIMESTAMP WITH TIME ZONE) IS NOT NULL THEN 1 END,
         CASE WHEN CAST(:slot AS TIMESTAMP WITH TIME ZONE) IS NOT NULL THEN 'running' END,
         CAST(NULL AS TIMESTAMP WITH TIME ZONE), CAST(NULL AS TIMESTAMP WITH TIME ZONE)
   WHERE (CAST(:slot AS TIMESTAMP WITH TIME ZONE) IS NULL
          OR CAST(:slot AS TIMESTAMP WITH TIME ZONE)
             <= CURRENT_TIMESTAMP + :slotToleranceMillis * INTERVAL '1 millisecond')
     AND (:overridesPause = 1
          OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL))
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
                                 OR ((:recoverLost = 1 OR :recoverFailed = 1 OR :catchUp = 1) AND l.run_slot < l.last_slot)
                                 OR (:catchUp = 1 AND l.last_slot < CAST(:previousSlot AS TIMESTAMP WITH TIME ZONE))),
                            FALSE) AS new_run) c),
         recover_at = NULL
   WHERE l.expires_at <= CURRENT_TIMESTAMP
     AND (l.paused_at IS NULL OR :overridesPause = 1)
     AND NOT COALESCE(:recoverLost = 1 AND l.run_state = 'running' AND l.attempt < :maxAttempts
                      AND (l.recover_at IS NULL OR l.recover_at > CURRENT_TIMESTAMP), FALSE)
     AND (EXCLUDED.last_slot IS NULL OR l.last_slot IS NULL OR l.last_slot < EXCLUDED.last_slot)
  RETURNING fencing_token, last_slot, run_slot, attempt, run_state
), refused AS (
SELECT r.owner, r.last_slot, CASE WHEN r.paused_at IS NOT NULL OR EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL) THEN 1 ELSE 0 END AS paused
  FROM ${table} r
 WHERE r.name = :name
   AND NOT EXISTS (SELECT 1 FROM claim)
   AND (CAST(:slot AS TIMESTAMP WITH TIME ZONE) IS NULL
        OR CAST(:slot AS TIMESTAMP WITH TIME ZONE)
           <= CURRENT_TIMESTAMP + :slotToleranceMillis * INTERVAL '1 millisecond')
   FOR SHARE
), skewed AS (
SELECT r.owner, r.last_slot, 0 AS paused
  FROM (SELECT 1) t
  LEFT JOIN ${table} r ON r.name = :name
 WHERE CAST(:slot AS TIMESTAMP WITH TIME ZONE)
       > CURRENT_TIMESTAMP + :slotToleranceMillis * INTERVAL '1 millisecond'
)
SELECT 1 AS acquired, c.fencing_token, CAST(NULL AS VARCHAR(255)) AS owner, c.last_slot, c.run_slot, c.attempt,
       c.run_state, CURRENT_TIMESTAMP AS store_time, 0 AS paused
  FROM claim c
 UNION ALL
SELECT 0, CAST(NULL AS BIGINT), f.owner, f.last_slot, CAST(NULL AS TIMESTAMP WITH TIME ZONE), CAST(NULL AS INT),
       CAST(NULL AS VARCHAR(16)), clock_timestamp(), f.paused
  FROM refused f
 UNION ALL
SELECT 0, CAST(NULL AS BIGINT), s.owner, s.last_slot, CAST(NULL AS TIMESTAMP WITH TIME ZONE), CAST(NULL AS INT),
       CAST(NULL AS VARCHAR(16)), CURRENT_TIMESTAMP, s.paused
  FROM skewed s
