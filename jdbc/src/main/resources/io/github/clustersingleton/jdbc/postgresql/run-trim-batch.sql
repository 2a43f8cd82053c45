-- Run ledger: keep the :maxRuns newest records (highest fencing tokens) of each of the jobs
-- :names, reading each job's records once.
DELETE FROM ${runTable} r
 USING (SELECT name, fencing_token,
               ROW_NUMBER() OVER (PARTITION BY name ORDER BY fencing_token DESC) AS newer
          FROM ${runTable}
         WHERE name IN (:names)) ranked
 WHERE r.name = ranked.name
   AND r.fencing_token = ranked.fencing_token
   AND ranked.newer > :maxRuns
