-- MariaDB runs MySQL's statements as they are. Acquisition is mysql/acquire.sql followed by
-- this clause (MariaDB 10.5+), which returns the row as the upsert left it, so acquisition is
-- one round trip: our lease token in the row means we won; no row means the slot was refused
-- as ahead of the database's clock, or every job is paused; paused = 1: the job is paused.
RETURNING lease_token, fencing_token, owner, last_slot, run_slot, attempt, run_state, UTC_TIMESTAMP(6) AS store_time,
          CASE WHEN paused_at IS NOT NULL THEN 1 ELSE 0 END AS paused
