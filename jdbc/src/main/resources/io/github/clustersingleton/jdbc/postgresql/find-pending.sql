-- The expired leases among jobs :names that have a run recorded, with what tells whether
-- work is pending under each job's policy (the caller decides per job): the run, the last
-- slot, and whether a failed run's retry time has come by the database's clock.
SELECT name, run_slot, attempt, run_state, last_slot,
       CASE WHEN retry_at <= CURRENT_TIMESTAMP THEN 1 ELSE 0 END AS retry_due
  FROM ${table}
 WHERE name IN (:names)
   AND expires_at <= CURRENT_TIMESTAMP
   AND run_slot IS NOT NULL
