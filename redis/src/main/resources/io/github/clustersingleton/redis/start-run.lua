-- cluster-singleton: start another run under a lease this node still holds (a recovery
-- attempt or a catch-up run), atomically.
--
-- KEYS[1]  the lease hash {<prefix>:<name>}:lease
-- KEYS[2]  the meta hash {<prefix>:<name>}:meta
-- ARGV[1]  the lease token
-- ARGV[2]  the slot of the run in epoch milliseconds
-- ARGV[3]  the attempt of the run
--
-- Only when the lease hash still carries the token (it exists only while the lease has
-- not expired by this server's clock, and a release removes or replaces the token):
-- fence + 1, run_slot = slot, attempt, run_state = 'running', no retry_at, no recover_at,
-- and last_slot = max(last_slot, slot); run_token stays this lease's token.
-- Returns {1, fence} when the run started, else {0}.
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return {0}
end
local fence = redis.call('HINCRBY', KEYS[2], 'fence', 1)
redis.call('HSET', KEYS[2], 'run_slot', ARGV[2], 'attempt', ARGV[3], 'run_state', 'running')
redis.call('HDEL', KEYS[2], 'retry_at', 'recover_at')
redis.call('HSET', KEYS[2], 'run_token', ARGV[1])
local last_slot = tonumber(redis.call('HGET', KEYS[2], 'last_slot'))
if not last_slot or tonumber(ARGV[2]) > last_slot then
  redis.call('HSET', KEYS[2], 'last_slot', ARGV[2])
end
return {1, fence}
