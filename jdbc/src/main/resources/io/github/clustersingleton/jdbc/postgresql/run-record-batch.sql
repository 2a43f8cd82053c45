-- Run ledger: insert or replace the records of several runs in one statement, each keyed by
-- its job and fencing token (the caller sends each key once). Times are the running nodes',
-- as they reported them. :runs expands to one row of values per run.
INSERT INTO ${runTable} AS r (name, fencing_token, slot, attempt, owner, run_trigger, state, started_at,
                              finished_at, error)
VALUES :runs
    ON CONFLICT (name, fencing_token) DO UPDATE
   SET slot = EXCLUDED.slot,
       attempt = EXCLUDED.attempt,
       owner = EXCLUDED.owner,
       run_trigger = EXCLUDED.run_trigger,
       state = EXCLUDED.state,
       started_at = EXCLUDED.started_at,
       finished_at = EXCLUDED.finished_at,
       error = EXCLUDED.error
