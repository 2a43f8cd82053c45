-- cluster-singleton: insert or replace one run in a job's run ledger, and trim it.
--
-- KEYS[1]  the ledger {<prefix>:<name>}:runs, a sorted set: score = fencing token,
--          member = the run as a JSON object (see RedisRunLedger)
-- ARGV[1]  the fencing token of the run
-- ARGV[2]  the JSON of the run
-- ARGV[3]  how many runs of the job to keep (the newest, by fencing token)
--
-- Returns {number of runs trimmed}.
redis.call('ZREMRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
return {redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[3]) + 1))}
