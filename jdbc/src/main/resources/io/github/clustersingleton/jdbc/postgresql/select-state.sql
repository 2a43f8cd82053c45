-- Why an acquisition of job :name failed: the row as it is now (no row when the job was
-- never acquired) and the database's clock, which tells a slot that lies ahead of it.
SELECT l.lease_token, l.fencing_token, l.owner, l.last_slot, l.run_slot, l.attempt, l.run_state, t.store_time
  FROM (SELECT CURRENT_TIMESTAMP AS store_time) t
  LEFT JOIN ${table} l ON l.name = :name
