-- cluster-singleton: expire a job's lease now, whoever holds it. The meta hash (fencing
-- token, last slot) is kept.
--
-- KEYS[1]  the lease hash {<prefix>:<name>}:lease
--
-- Returns {1} when a live lease was deleted, else {0}.
return {redis.call('DEL', KEYS[1])}
