-- The row of job :name as it is now (no row when the job was never acquired) and the
-- database's clock: after acquire.sql, our lease token in it means we won; otherwise it
-- tells why not.
-- paused = 1: the job, or every job (the row named :allJobs), is paused.
SELECT l.lease_token, l.fencing_token, l.owner, l.last_slot, l.run_slot, l.attempt, l.run_state, t.store_time,
       CASE WHEN l.paused_at IS NOT NULL OR a.paused_at IS NOT NULL THEN 1 ELSE 0 END AS paused
  FROM (SELECT UTC_TIMESTAMP(6) AS store_time) t
  LEFT JOIN ${table} l ON l.name = :name
  LEFT JOIN ${table} a ON a.name = :allJobs
