-- Remove run-now requests :requestIds of job :name.
DELETE FROM ${manualRunTable}
 WHERE name = :name
   AND request_id IN (:requestIds)
