-- The expired leases among jobs :names that have a run recorded, with what tells whether
-- work is pending under each job's policy (the caller decides per job): the run, the last
-- slot, and whether a failed run's retry time has come by the database's clock.
SELECT name, run_slot, attempt, run_state, last_slot,
       CASE WHEN retry_at <= UTC_TIMESTAMP(6) THEN 1 ELSE 0 END AS retry_due
  FROM ${table}
 WHERE name IN (:names)
   AND expires_at <= UTC_TIMESTAMP(6)
   AND run_slot IS NOT NULL
