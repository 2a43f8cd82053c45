-- Run ledger: insert or replace the record of one run of job :name, keyed by its fencing
-- token. Times are the running node's, as it reported them (UTC). (Every assignment reads
-- only the new values, so their order does not matter.)
INSERT INTO ${runTable} (name, fencing_token, slot, attempt, owner, run_trigger, state, started_at, finished_at,
                         error)
VALUES (:name, :fencingToken, :slot, :attempt, :owner, :trigger, :state, :startedAt, :finishedAt, :error)
    ON DUPLICATE KEY UPDATE
       slot = VALUES(slot),
       attempt = VALUES(attempt),
       owner = VALUES(owner),
       run_trigger = VALUES(run_trigger),
       state = VALUES(state),
       started_at = VALUES(started_at),
       finished_at = VALUES(finished_at),
       error = VALUES(error)
