-- Run ledger: every run of job :name with a fencing token below :fencingToken (the claim
-- that took the job over) that is still recorded as running is lost (its node died or lost
-- the lease). An ended run stays as it is.
UPDATE ${runTable}
   SET state = 'lost'
 WHERE name = :name
   AND fencing_token < :fencingToken
   AND state = 'running'
