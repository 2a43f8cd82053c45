-- Run ledger: keep the :maxRuns newest records (highest fencing tokens) of job :name. The
-- subquery is wrapped in a derived table, as MySQL does not let a DELETE read its own table
-- otherwise.
DELETE FROM ${runTable}
 WHERE name = :name
   AND fencing_token <= (SELECT oldest.fencing_token
                           FROM (SELECT fencing_token FROM ${runTable} WHERE name = :name
                                  ORDER BY fencing_token DESC LIMIT 1 OFFSET :maxRuns) oldest)
