-- Why an acquisition of job :name failed: the row as it is now (no row when the job was
-- never acquired) and the database's clock, which tells a slot that lies ahead of it.
-- paused = 1: the job, or every job (the row named :allJobs), is paused.
SELECT l.lease_token, l.fencing_token, l.owner, l.last_slot, l.run_slot, l.attempt, l.run_state, t.store_time,
       CASE WHEN l.paused_at IS NOT NULL OR a.paused_at IS NOT NULL THEN 1 ELSE 0 END AS paused
  FROM (SELECT CURRENT_TIMESTAMP AS store_time) t
  LEFT JOIN ${table} l ON l.name = :name
  LEFT JOIN ${table} a ON a.name = :allJobs
