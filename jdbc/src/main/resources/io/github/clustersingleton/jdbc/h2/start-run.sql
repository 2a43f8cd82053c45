-- Start another run (a recovery attempt or a catch-up) under the lease of job :name that
-- still carries :leaseToken and is live: the fencing token goes up by one, slot :slot and
-- attempt :attempt become the running run (any recovery mark is cleared), and the last slot
-- moves to :slot when later.
-- Yields the new fencing token, or no row when the lease is no longer held.
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
     AND expires_at > CURRENT_TIMESTAMP)
