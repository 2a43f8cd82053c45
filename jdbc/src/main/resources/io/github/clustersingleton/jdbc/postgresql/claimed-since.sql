-- Which of jobs :names were claimed for slot :slot or a later one: a plain read, which
-- takes no row lock.
SELECT name
  FROM ${table}
 WHERE name IN (:names)
   AND last_slot >= :slot
