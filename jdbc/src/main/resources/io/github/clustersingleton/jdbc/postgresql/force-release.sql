-- Expire job :name's live lease now, whoever holds it (an operator freeing a stuck
-- lease). The fencing token and the last slot stay.
UPDATE ${table}
   SET expires_at = CURRENT_TIMESTAMP
 WHERE name = :name
   AND expires_at > CURRENT_TIMESTAMP
