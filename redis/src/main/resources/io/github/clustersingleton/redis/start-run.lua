-- cluster-singleton: start another run under a lease this node still holds (a recovery
-- attempt or a catch-up run), atomically.
--
-- KEYS[1]  the lease hash {<prefix>:<name>}:lease
-- KEYS[2]  the meta hash {<prefix>:<name>}:meta
-- ARGV[1]  the lease token
-- ARGV[2]  the slot of the run in epoch milliseconds
-- ARGV[3]  the attempt of the run
-- KEYS[3]  optional: the pause-all hash <prefix>:controls, passed where it shares the
--          server with the job's keys (not in a Redis Cluster)
--
-- Only when the lease hash still carries the token (it exists only while the lease has
-- not expired by this server's clock, and a release removes or replaces the token):
-- fence + 1, run_slot = slot, attempt, run_state = 'running', no retry_at, no recover_at,
-- and last_slot = max(last_slot, slot); run_token stays this lease's token.
-- The claims index <prefix>:claims (see acquire.lua) is not written: a score may lag
-- behind last_slot, which only makes the preferred-node sweep claim a slot that the claim
-- then finds done; only a score ahead of last_slot could lose a slot.
-- Refused, writing nothing, while the job is paused (the meta hash's paused_at, or
-- all_paused_at that a pause of every job marked, or the pause-all hash KEYS[3]'s
-- paused_at), as acquire.lua refuses a claim: a sequence of recovery and catch-up runs
-- under a lease claimed before the pause stops at its next run. In a Redis Cluster the
-- held lease means the meta hash exists (its claim incremented fence), so a pause of
-- every job, which writes the pause-all hash before it scans, marks it.
-- Refused too for a slot before run_slot: the runs of a sequence go up by slot from the
-- current run (a retry of the current run has its slot, so it is equal and allowed),
-- and a resume without catch-up while the lease is live moves run_slot along with
-- last_slot to the resume time, so a run of a slot that passed while the job was paused
-- is not started after it.
-- Returns {1, fence} when the run started, else {0}.
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return {0}
end
local meta = redis.call('HMGET', KEYS[2], 'paused_at', 'all_paused_at', 'run_slot')
if meta[1] ~= false or meta[2] ~= false then
  return {0}
end
if KEYS[3] and redis.call('HEXISTS', KEYS[3], 'paused_at') == 1 then
  return {0}
end
local run_slot = tonumber(meta[3])
if run_slot and tonumber(ARGV[2]) < run_slot then
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
