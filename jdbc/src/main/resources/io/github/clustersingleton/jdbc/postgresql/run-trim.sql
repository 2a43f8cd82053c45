-- Run ledger: keep the :maxRuns newest records (highest fencing tokens) of job :name.
DELETE FROM ${runTable}
 WHERE name = :name
   AND fencing_token <= (SELECT fencing_token FROM ${runTable} WHERE name = :name
                          ORDER BY fencing_token DESC LIMIT 1 OFFSET :maxRuns)
