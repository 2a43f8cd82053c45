-- The row of job :name as it is now (no row when the job was never acquired) and the
-- database's clock: after acquire.sql, our lease token in it means we won; otherwise it
-- tells why not.
SELECT l.lease_token, l.fencing_token, l.owner, l.last_slot, l.run_slot, l.attempt, l.run_state, t.store_time
  FROM (SELECT UTC_TIMESTAMP(6) AS store_time) t
  LEFT JOIN ${table} l ON l.name = :name
