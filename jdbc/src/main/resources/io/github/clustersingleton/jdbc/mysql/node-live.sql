-- The owners of the live presence rows (their names start with :prefix), by the database's
-- clock.
SELECT owner
  FROM ${table}
 WHERE name LIKE CONCAT(:prefix, '%')
   AND expires_at > UTC_TIMESTAMP(6)
