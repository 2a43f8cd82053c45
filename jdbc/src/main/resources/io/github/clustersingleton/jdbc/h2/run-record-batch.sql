-- Run ledger: insert or replace the records of several runs in one statement, each keyed by
-- its job and fencing token (the caller sends each key once). Times are the running nodes',
-- as they reported them. :runs expands to one row of values per run.
MERGE INTO ${runTable} (name, fencing_token, slot, attempt, owner, run_trigger, state, started_at, finished_at,
                        error)
  KEY (name, fencing_token)
VALUES :runs
