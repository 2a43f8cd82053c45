-- Run ledger: the :limit newest records of job :name, newest first.
SELECT name, fencing_token, slot, attempt, owner, run_trigger, state, started_at, finished_at, error
  FROM ${runTable}
 WHERE name = :name
 ORDER BY fencing_token DESC
 LIMIT :limit
