-- End started run-now request :requestId of job :name as :state ('succeeded' or
-- 'failed'), now (the database's clock). A request that is not running stays as it is.
UPDATE ${manualRunTable}
   SET state = :state,
       finished_at = CURRENT_TIMESTAMP,
       error = :error
 WHERE name = :name
   AND request_id = :requestId
   AND state = 'running'
