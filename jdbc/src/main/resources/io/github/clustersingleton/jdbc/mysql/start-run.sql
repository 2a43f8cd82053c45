-- Start another run (a recovery attempt or a catch-up) under the lease of job :name that
-- still carries :leaseToken and is live: the fencing token goes up by one, slot :slot and
-- attempt :attempt become the running run (any recovery mark is cleared), and the last slot
-- moves to :slot when later.
-- MySQL has no RETURNING: LAST_INSERT_ID(expr) hands the new fencing token back in the
-- statement's reply, where the driver reads it as the generated key.
-- (The assignments read no column that another one writes.)
-- Liveness is judged at the time the row is checked, not at the time the statement began
-- (UTC_TIMESTAMP(6)): a statement that waited for the row lock past the lease's expiry must
-- not start a run that a recovery claim queued behind it, seeing the lease expired, also
-- takes over (this statement does not extend the lease). SYSDATE(6) is the time of its own
-- evaluation, in the connection's time zone, so the time waited since the statement began is
-- added to UTC_TIMESTAMP(6) (never less than none, should the connection's zone change its
-- offset meanwhile; with --sysdate-is-now the check is as before).
-- A paused job (paused_at on its row) or every job paused (paused_at on the row named
-- :allJobs) starts no run: the statement then changes nothing, as when the lease is lost,
-- and the holder stops its recovery or catch-up at that slot. The row named :allJobs is
-- read LOCK IN SHARE MODE, so that a statement that waited for a pause of every job reads
-- it once committed, also under READ COMMITTED.
-- A slot earlier than the run slot is refused as well: a resume without catch-up while the
-- lease is live moves the run slot to the time of the resume, so that the slots of the
-- pause are not started afterwards; the run slot itself stays allowed (:slot >= run_slot),
-- since a retry starts the same slot again with the next attempt, and every later slot of
-- a catch-up is later than the run slot that the previous start left.
UPDATE ${table}
   SET fencing_token = LAST_INSERT_ID(fencing_token + 1),
       run_slot = :slot,
       attempt = :attempt,
       run_state = 'running',
       retry_at = NULL,
       recover_at = NULL,
       last_slot = IF(last_slot IS NULL OR last_slot < :slot, :slot, last_slot)
 WHERE name = :name
   AND lease_token = :leaseToken
   AND expires_at > UTC_TIMESTAMP(6)
                    + INTERVAL GREATEST(0, TIMESTAMPDIFF(MICROSECOND, NOW(6), SYSDATE(6))) MICROSECOND
   AND paused_at IS NULL
   AND NOT EXISTS (SELECT 1 FROM (SELECT m.paused_at FROM ${table} m WHERE m.name = :allJobs LOCK IN SHARE MODE) a
                    WHERE a.paused_at IS NOT NULL)
   AND (run_slot IS NULL OR :slot >= run_slot)
