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
-- The clock is the time the resume takes effect, not the time the statement began: a claim
-- of a slot that passed while the resume waited for the row's lock is refused after it. So
-- the statement first locks each row it resumes (the EXISTS sub-select, evaluated before the
-- row's new values are computed: PostgreSQL computes them before it waits for a
-- transaction that only locked the row), and the new values read clock_timestamp() once
-- per row (the sub-select of the assignment), so the last slot and the run slot are equal.
-- Only paused rows are written (every row while every job is paused). Every assignment
-- reads the row as it was (paused_at is assigned last, and nothing else reads a column
-- assigned before it).
UPDATE ${table} AS r
   SET (last_slot, run_slot, attempt, run_state, retry_at, recover_at) = (
         SELECT CASE WHEN c.skip THEN GREATEST(COALESCE(last_slot, c.now), c.now) ELSE last_slot END,
                CASE WHEN c.skip THEN CASE WHEN expires_at <= c.now THEN NULL ELSE GREATEST(COALESCE(run_slot, c.now), c.now) END
                     ELSE run_slot END,
                CASE WHEN c.skip AND expires_at <= c.now THEN NULL ELSE attempt END,
                CASE WHEN c.skip AND expires_at <= c.now THEN NULL ELSE run_state END,
                CASE WHEN c.skip AND expires_at <= c.now THEN NULL ELSE retry_at END,
                CASE WHEN c.skip AND expires_at <= c.now THEN NULL ELSE recover_at END
           FROM (SELECT clock_timestamp() AS now,
                        (:catchUp = 0 AND name <> :allJobs
                         AND (:all = 1 OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL)))
                          AS skip) c),
       paused_by = NULL,
       pause_reason = NULL,
       paused_at = NULL
 WHERE ((name = :name AND paused_at IS NOT NULL)
        OR (:all = 1 AND (name = :allJobs OR paused_at IS NOT NULL
                          OR EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL))))
   AND EXISTS (SELECT 1 FROM ${table} w WHERE w.name = r.name FOR NO KEY UPDATE)
