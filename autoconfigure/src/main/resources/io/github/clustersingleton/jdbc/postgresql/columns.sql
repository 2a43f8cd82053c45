-- The lease table's columns, read from the metadata of an empty result: shows a table
-- created before the run columns (run_slot, attempt, run_state, retry_at) existed.
SELECT * FROM ${table} WHERE 1 = 0
