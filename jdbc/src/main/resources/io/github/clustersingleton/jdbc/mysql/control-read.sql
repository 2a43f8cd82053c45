-- The controls of jobs :names, and the row named :allJobs (the pause of every job).
SELECT name, paused_at, paused_by, pause_reason, cron_override
  FROM ${table}
 WHERE name IN (:names)
    OR name = :allJobs
