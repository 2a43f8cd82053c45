-- Remove presence rows (their names start with :prefix): this node's, :name, as it shuts
-- down, and those that expired :ttlMillis or more ago (nodes stopped without removing theirs).
DELETE FROM ${table}
 WHERE name LIKE :prefix || '%'
   AND (name = :name OR expires_at < CURRENT_TIMESTAMP - :ttlMillis * INTERVAL '1 millisecond')
