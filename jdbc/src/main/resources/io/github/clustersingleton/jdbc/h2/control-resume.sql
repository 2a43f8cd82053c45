-- Resume job :name (:all = 0), or every job (:all = 1): clear the pause of the job's row,
-- or of every row and of the row named :allJobs. A job's own resume leaves it paused while
-- every job is, and then moves nothing.
-- Without catch-up (:catchUp = 0) the slots that passed while paused are skipped in the
-- same statement: the last slot becomes the database's clock (never earlier than it was),
-- and a run left on an expired lease is forgotten (its run columns are cleared), so that
-- neither recovery nor catch-up runs a slot of the pause; a run still holding its lease
-- keeps its run columns, its run slot moved to the new last slot, so that start-run.sql
-- refuses the slots of the pause under that lease too. With catch-up the slots stay for the
-- job's misfire policy.
-- Only paused rows are written (every row while every job is paused). Every assignment
-- reads the row as it was (paused_at is assigned last, and nothing else reads a column
-- assigned before it).
UPDATE ${table}
   SET last_slot = CASE WHEN (:catchUp = 0 AND name <> :allJobs
                   AND (:all = 1 OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL)))
                        THEN GREATEST(COALESCE(last_slot, CURRENT_TIMESTAMP), CURRENT_TIMESTAMP) ELSE last_slot END,
       run_slot = CASE WHEN (:catchUp = 0 AND name <> :allJobs
                   AND (:all = 1 OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL)))
                       THEN CASE WHEN expires_at <= CURRENT_TIMESTAMP THEN NULL ELSE GREATEST(COALESCE(run_slot, CURRENT_TIMESTAMP), CURRENT_TIMESTAMP) END
                       ELSE run_slot END,
       attempt = CASE WHEN (:catchUp = 0 AND name <> :allJobs
                   AND (:all = 1 OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL))) AND expires_at <= CURRENT_TIMESTAMP THEN NULL ELSE attempt END,
       run_state = CASE WHEN (:catchUp = 0 AND name <> :allJobs
                   AND (:all = 1 OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL))) AND expires_at <= CURRENT_TIMESTAMP THEN NULL ELSE run_state END,
       retry_at = CASE WHEN (:catchUp = 0 AND name <> :allJobs
                   AND (:all = 1 OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL))) AND expires_at <= CURRENT_TIMESTAMP THEN NULL ELSE retry_at END,
       recover_at = CASE WHEN (:catchUp = 0 AND name <> :allJobs
                   AND (:all = 1 OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL))) AND expires_at <= CURRENT_TIMESTAMP THEN NULL ELSE recover_at END,
       paused_by = NULL,
       pause_reason = NULL,
       paused_at = NULL
 WHERE (name = :name AND paused_at IS NOT NULL)
    OR (:all = 1 AND (name = :allJobs OR paused_at IS NOT NULL
                      OR EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL)))
