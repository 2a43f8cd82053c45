-- Which of the leases a renewal carried are still ours and live (and so were renewed).
SELECT lease_token
  FROM ${table}
 WHERE name IN (:names)
   AND lease_token IN (:leaseTokens)
   AND expires_at > UTC_TIMESTAMP(6)
