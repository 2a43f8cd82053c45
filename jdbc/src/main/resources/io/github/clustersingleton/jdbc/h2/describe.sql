-- The stored state of job :name's lease, for the actuator endpoint.
SELECT owner, acquired_at, expires_at, last_slot, fencing_token,
       CASE WHEN expires_at > CURRENT_TIMESTAMP THEN 1 ELSE 0 END AS live
  FROM ${table}
 WHERE name = :name
