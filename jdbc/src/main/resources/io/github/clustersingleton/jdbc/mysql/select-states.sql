-- The rows of the jobs :names as they are now and the database's clock, read after the
-- upserts of claims sent together (acquire.sql or acquire-run.sql, in the same
-- transaction, whose locks hold every row they found until it ends): a row carrying a
-- claim's lease token means that claim won; otherwise the row tells why not, as
-- select-state.sql does for a claim on its own. A job without a row (its claim was refused
-- before the upsert inserted it) is missing from the answer.
-- paused = 1: the job, or every job (the row named :allJobs), is paused.
SELECT l.name, l.lease_token, l.fencing_token, l.owner, l.last_slot, l.run_slot, l.attempt, l.run_state,
       t.store_time,
       CASE WHEN l.paused_at IS NOT NULL OR a.paused_at IS NOT NULL THEN 1 ELSE 0 END AS paused
  FROM (SELECT UTC_TIMESTAMP(6) AS store_time) t
  JOIN ${table} l ON l.name IN (:names)
  LEFT JOIN ${table} a ON a.name = :allJobs
