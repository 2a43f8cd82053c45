-- Run ledger: insert or replace the record of one run of job :name, keyed by its fencing
-- token. Times are the running node's, as it reported them.
INSERT INTO ${runTable} AS r (name, fencing_token, slot, attempt, owner, run_trigger, state, started_at,
                              finished_at, error)
VALUES (:name, :fencingToken, CAST(:slot AS TIMESTAMP WITH TIME ZONE), :attempt, :owner, :trigger, :state,
        CAST(:startedAt AS TIMESTAMP WITH TIME ZONE), CAST(:finishedAt AS TIMESTAMP WITH TIME ZONE), :error)
    ON CONFLICT (name, fencing_token) DO UPDATE
   SET slot = EXCLUDED.slot,
       attempt = EXCLUDED.attempt,
       owner = EXCLUDED.owner,
       run_trigger = EXCLUDED.run_trigger,
       state = EXCLUDED.state,
       started_at = EXCLUDED.started_at,
       finished_at = EXCLUDED.finished_at,
       error = EXCLUDED.error
