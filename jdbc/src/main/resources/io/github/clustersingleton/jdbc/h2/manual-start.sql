-- Start run-now request :requestId of job :name on :owner: only while it is pending, so
-- that of concurrent starts one changes the row (the others wait for its lock, then find
-- it running), and only while :owner holds the job's live lease with :fencingToken.
UPDATE ${manualRunTable}
   SET state = 'running',
       owner = :owner,
       fencing_token = :fencingToken
 WHERE name = :name
   AND request_id = :requestId
   AND state = 'pending'
   AND EXISTS (SELECT 1
                 FROM ${table} l
                WHERE l.name = :name
                  AND l.owner = :owner
                  AND l.fencing_token = :fencingToken
                  AND l.lease_token NOT LIKE 'released:%'
                  AND l.expires_at > CURRENT_TIMESTAMP)
