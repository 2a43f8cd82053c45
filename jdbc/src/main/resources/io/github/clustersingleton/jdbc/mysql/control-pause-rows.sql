-- Pausing every job, in the transaction that paused the row named :allJobs: every job's
-- row that is not paused on its own gets the same pause, so that a claim waiting for a
-- row's lock re-reads the row and finds it paused. (A job without a row is refused by
-- the row named :allJobs, which every claim reads.)
UPDATE ${table}
   SET paused_by = :pausedBy,
       pause_reason = :reason,
       paused_at = UTC_TIMESTAMP(6)
 WHERE name <> :allJobs
   AND paused_at IS NULL
