-- Run ledger: keep the :maxRuns newest records (highest fencing tokens) of each of the jobs
-- :names, reading each job's records once. The ranking is a derived table, which MySQL and
-- MariaDB materialise, as a DELETE may not read its own table otherwise.
DELETE r
  FROM ${runTable} r
  JOIN (SELECT name, fencing_token,
               ROW_NUMBER() OVER (PARTITION BY name ORDER BY fencing_token DESC) AS newer
          FROM ${runTable}
         WHERE name IN (:names)) ranked
    ON r.name = ranked.name
   AND r.fencing_token = ranked.fencing_token
 WHERE ranked.newer > :maxRuns
