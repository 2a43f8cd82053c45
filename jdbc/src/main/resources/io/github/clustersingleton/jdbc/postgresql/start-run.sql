-- Start another run (a recovery attempt or a catch-up) under the lease of job :name that
-- still carries :leaseToken and is live: the fencing token goes up by one, slot :slot and
-- attempt :attempt become the running run (any recovery mark is cleared), and the last slot
-- moves to :slot when later.
-- Returns the new fencing token, or no row when the lease is no longer held; live = 0 when
-- the lease had expired by the time the row was locked and written (clock_timestamp(), not
-- CURRENT_TIMESTAMP, the time the statement began, which the WHERE clause sees): a statement
-- that waited for the row lock past the lease's expiry then starts no run, since a recovery
-- claim queued behind it sees the lease expired and takes the run over (this statement does
-- not extend the lease, and PostgreSQL does not check the WHERE clause again after waiting
-- for a lock on a row that did not change).
-- A paused job (paused_at on its row) or every job paused (paused_at on the row named
-- :allJobs) starts no run: the statement then changes nothing, as when the lease is lost,
-- and the holder stops its recovery or catch-up at that slot. A pause committed while this
-- statement waited for the row's lock is seen: the pause of every job writes every job's
-- row too, and the WHERE clause is checked again on the row's latest version.
-- A slot earlier than the run slot is refused as well: a resume without catch-up while the
-- lease is live moves the run slot to the time of the resume, so that the slots of the
-- pause are not started afterwards; the run slot itself stays allowed (:slot >= run_slot),
-- since a retry starts the same slot again with the next attempt, and every later slot of
-- a catch-up is later than the run slot that the previous start left.
UPDATE ${table}
   SET fencing_token = fencing_token + 1,
       run_slot = CAST(:slot AS TIMESTAMP WITH TIME ZONE),
       attempt = :attempt,
       run_state = 'running',
       retry_at = NULL,
       recover_at = NULL,
       last_slot = GREATEST(last_slot, CAST(:slot AS TIMESTAMP WITH TIME ZONE))
 WHERE name = :name
   AND lease_token = :leaseToken
   AND expires_at > CURRENT_TIMESTAMP
   AND paused_at IS NULL
   AND NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL)
   AND (run_slot IS NULL OR CAST(:slot AS TIMESTAMP WITH TIME ZONE) >= run_slot)
RETURNING fencing_token, CASE WHEN expires_at > clock_timestamp() THEN 1 ELSE 0 END AS live
