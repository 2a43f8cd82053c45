-- Run ledger: insert or replace the records of several runs in one statement, each keyed by
-- its job and fencing token (the caller sends each key once). Times are the running nodes',
-- as they reported them (UTC). :runs expands to one row of values per run. (Every assignment
-- reads only the new values, so their order does not matter.)
INSERT INTO ${runTable} (name, fencing_token, slot, attempt, owner, run_trigger, state, started_at, finished_at,
                         error)
VALUES :runs
    ON DUPLICATE KEY UPDATE
       slot = VALUES(slot),
       attempt = VALUES(attempt),
       owner = VALUES(owner),
       run_trigger = VALUES(run_trigger),
       state = VALUES(state),
       started_at = VALUES(started_at),
       finished_at = VALUES(finished_at),
       error = VALUES(error)
