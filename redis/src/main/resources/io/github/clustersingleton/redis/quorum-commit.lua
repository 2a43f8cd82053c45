-- cluster-singleton, Redis quorum, phase 2 on one member: record the fence (and the
-- claimed slot) the acquirer picked, by max(), so that neither ever goes down.
--
-- KEYS[1]  the lease hash {<prefix>:<name>}:lease
-- KEYS[2]  the meta hash {<prefix>:<name>}:meta
-- ARGV[1]  the lease token of the acquisition
-- ARGV[2]  the fence the acquirer picked
-- ARGV[3]  the claimed cron slot in epoch milliseconds, or '' for none
--
-- The fence and the last slot are raised on every member that gets this call, whether or
-- not it granted the lease: a larger value never harms, and a member that did not grant
-- (or lost its data) learns them too. Returns {confirmed}: 1 when this member still holds
-- the lease for ARGV[1] (the write happened while that lease was live, which the
-- acquirer counts towards its majority), else 0.
local fence = tonumber(ARGV[2])
local stored = tonumber(redis.call('HGET', KEYS[2], 'fence') or '0')
if fence > stored then
  redis.call('HSET', KEYS[2], 'fence', ARGV[2])
end
if ARGV[3] ~= '' then
  local last_slot = tonumber(redis.call('HGET', KEYS[2], 'last_slot') or '')
  if not last_slot or tonumber(ARGV[3]) > last_slot then
    redis.call('HSET', KEYS[2], 'last_slot', ARGV[3])
  end
end
if redis.call('HGET', KEYS[1], 'token') == ARGV[1] then
  return {1}
end
return {0}
