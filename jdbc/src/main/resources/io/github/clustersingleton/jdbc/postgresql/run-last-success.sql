-- Run ledger: when each of jobs :names last ended a run successfully.
SELECT name, MAX(finished_at) AS finished_at
  FROM ${runTable}
 WHERE name IN (:names)
   AND state = 'succeeded'
 GROUP BY name
