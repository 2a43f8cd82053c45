-- Run ledger: a run of job :name still recorded as running is lost (its node died or lost
-- the lease). An ended run stays as it is.
UPDATE ${runTable}
   SET state = 'lost'
 WHERE name = :name
   AND fencing_token = :fencingToken
   AND state = 'running'
