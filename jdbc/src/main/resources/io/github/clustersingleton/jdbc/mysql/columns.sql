-- The lease table's columns, read from the metadata of an empty result: shows a table
-- created before the run columns (run_slot, attempt, run_state, retry_at) or the
-- recovery mark (recover_at) existed.
SELECT * FROM ${table} WHERE 1 = 0
