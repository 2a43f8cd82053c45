-- Recovery claim of job :name for :owner: take over the expired lease of a row with pending
-- work, without a new slot. Pending is a run still running on the expired lease or failed
-- (:recoverLost, :recoverFailed; a failed run once its retry_at has come) with fewer than
-- :maxAttempts attempts, or a run slot earlier than the last slot (a holder died between
-- the runs of a catch-up).
-- A run still recorded as running that :recoverLost would run again may have ended without
-- its completion reaching the database yet (release-run.sql records it by the run's token
-- even after the lease expired). The first claim that finds it only marks it: recover_at
-- becomes now plus :graceMillis, and the lease stays as it is. A claim at or after
-- recover_at takes it over. Any other pending work is taken over at once.
-- Taking over: the fencing token goes up by one, the mark is cleared; the last slot and the
-- run columns stay. InnoDB locks the row and evaluates the WHERE clause on its latest
-- version, so a concurrent claim of the same row finds the lease live (or the mark set): two
-- claims never both succeed. The caller reads the row afterwards with select-state.sql when
-- a row matched: our lease token in it means taken.
-- (Every assignment decides on run_state, attempt and recover_at, which only the last one
-- writes, so the order in which the server evaluates them does not matter.)
-- The grace counts from the time the mark is written, not from the time the statement began
-- (UTC_TIMESTAMP(6)): a mark that waited for the row lock would otherwise become visible with
-- its grace partly or wholly spent, and a claim queued behind it would take the run over at
-- once. InnoDB evaluates the assignments once it holds the row, and SYSDATE(6) is the time
-- of its own evaluation, in the connection's time zone, so the time waited since the statement
-- began is added to UTC_TIMESTAMP(6) (never less than none, should the connection's zone change
-- its offset meanwhile; with --sysdate-is-now the grace counts from the statement's start).
-- Whether the lease has expired and whether a mark's grace has passed are judged by
-- UTC_TIMESTAMP(6): the time the statement began is never later than the time the row is
-- read, so a claim that waited can only find the lease live, or the run within its grace,
-- for longer.
-- A paused job, or any job while every job is paused (the row named :allJobs), is neither
-- taken nor marked: the statement changes nothing and the caller reports it paused. The row
-- named :allJobs is read LOCK IN SHARE MODE: a claim that waited for a pause of every job
-- reads it once committed, also under READ COMMITTED.
UPDATE ${table}
   SET owner = IF(COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                           AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0),
                  owner, :owner),
       lease_token = IF(COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                 AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0),
                        lease_token, :leaseToken),
       acquired_at = IF(COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                 AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0),
                        acquired_at, UTC_TIMESTAMP(6)),
       expires_at = IF(COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0),
                       expires_at, UTC_TIMESTAMP(6) + INTERVAL :ttlMillis * 1000 MICROSECOND),
       fencing_token = IF(COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                   AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0),
                          fencing_token, fencing_token + 1),
       recover_at = IF(COALESCE(:recoverLost = 1 AND run_state = 'running' AND attempt < :maxAttempts
                                AND (recover_at IS NULL OR recover_at > UTC_TIMESTAMP(6)), 0),
                       COALESCE(recover_at,
                                UTC_TIMESTAMP(6)
                                + INTERVAL GREATEST(0, TIMESTAMPDIFF(MICROSECOND, NOW(6), SYSDATE(6)))
                                           + :graceMillis * 1000 MICROSECOND),
                       NULL)
 WHERE name = :name
   AND paused_at IS NULL
   AND NOT EXISTS (SELECT 1 FROM (SELECT m.paused_at FROM ${table} m WHERE m.name = :allJobs LOCK IN SHARE MODE) a
                    WHERE a.paused_at IS NOT NULL)
   AND expires_at <= UTC_TIMESTAMP(6)
   AND run_slot IS NOT NULL
   AND ((attempt < :maxAttempts
         AND ((:recoverLost = 1 AND run_state = 'running')
              OR (:recoverFailed = 1 AND run_state = 'failed' AND retry_at <= UTC_TIMESTAMP(6))))
        OR ((:recoverLost = 1 OR :recoverFailed = 1 OR :catchUp = 1) AND run_slot < last_slot))
