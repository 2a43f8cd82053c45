-- Start another run (a recovery attempt or a catch-up) under the lease of job :name that
-- still carries :leaseToken and is live: the fencing token goes up by one, slot :slot and
-- attempt :attempt become the running run (any recovery mark is cleared), and the last slot
-- moves to :slot when later.
-- Yields the new fencing token, or no row when the lease is no longer held.
-- A paused job (paused_at on its row) or every job paused (paused_at on the row named
-- :allJobs) starts no run: the statement then changes nothing, as when the lease is lost,
-- and the holder stops its recovery or catch-up at that slot.
-- A slot earlier than the run slot is refused as well: a resume without catch-up while the
-- lease is live moves the run slot to the time of the resume, so that the slots of the
-- pause are not started afterwards; the run slot itself stays allowed (:slot >= run_slot),
-- since a retry starts the same slot again with the next attempt, and every later slot of
-- a catch-up is later than the run slot that the previous start left.
SELECT fencing_token FROM FINAL TABLE (
  UPDATE ${table}
     SET fencing_token = fencing_token + 1,
         run_slot = CAST(:slot AS TIMESTAMP WITH TIME ZONE),
         attempt = :attempt,
         run_state = 'running',
         retry_at = NULL,
         recover_at = NULL,
         last_slot = CASE WHEN last_slot IS NULL OR last_slot < CAST(:slot AS TIMESTAMP WITH TIME ZONE)
                          THEN CAST(:slot AS TIMESTAMP WITH TIME ZONE) ELSE last_slot END
   WHERE name = :name
     AND lease_token = :leaseToken
     AND expires_at > CURRENT_TIMESTAMP
     AND paused_at IS NULL
     AND NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL)
     AND (run_slot IS NULL OR CAST(:slot AS TIMESTAMP WITH TIME ZONE) >= run_slot))
