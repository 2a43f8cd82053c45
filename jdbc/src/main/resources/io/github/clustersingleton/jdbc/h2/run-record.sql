-- Run ledger: insert or replace the record of one run of job :name, keyed by its fencing
-- token. Times are the running node's, as it reported them.
MERGE INTO ${runTable} (name, fencing_token, slot, attempt, owner, run_trigger, state, started_at, finished_at,
                        error)
  KEY (name, fencing_token)
VALUES (:name, :fencingToken, CAST(:slot AS TIMESTAMP WITH TIME ZONE), :attempt, :owner, :trigger, :state,
        CAST(:startedAt AS TIMESTAMP WITH TIME ZONE), CAST(:finishedAt AS TIMESTAMP WITH TIME ZONE), :error)
