-- cluster-singleton: acquire a job's lease, atomically.
--
-- KEYS[1]  the lease hash {<prefix>:<name>}:lease (owner, token, acquired_at), which
--          expires by itself (PEXPIREAT, judged by this server's clock)
-- KEYS[2]  the meta hash {<prefix>:<name>}:meta (fence, last_slot), which never expires
-- ARGV[1]  the owner (node id)
-- ARGV[2]  the lease token of this acquisition
-- ARGV[3]  the TTL in milliseconds
-- ARGV[4]  the claimed cron slot in epoch milliseconds, or '' for none
-- ARGV[5]  the slot tolerance in milliseconds: a slot later than this server's clock plus
--          the tolerance is refused (the requesting node's clock runs ahead)
--
-- Returns {1, fence, now} when acquired, else {0, holder or '', last_slot or '', now},
-- with now this server's clock in epoch milliseconds. Nothing is written unless acquired.
-- TIME in a script is safe: Redis 5+ replicates a script's effects, not the script.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local last_slot = redis.call('HGET', KEYS[2], 'last_slot')
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {0, redis.call('HGET', KEYS[1], 'owner') or '', last_slot or '', now}
end
local slot = ARGV[4]
if slot ~= '' then
  if tonumber(slot) > now + tonumber(ARGV[5]) then
    return {0, '', last_slot or '', now}
  end
  if last_slot and tonumber(slot) <= tonumber(last_slot) then
    return {0, '', last_slot, now}
  end
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'token', ARGV[2], 'acquired_at', string.format('%.0f', now))
redis.call('PEXPIREAT', KEYS[1], string.format('%.0f', now + tonumber(ARGV[3])))
if slot ~= '' then
  redis.call('HSET', KEYS[2], 'last_slot', slot)
end
return {1, redis.call('HINCRBY', KEYS[2], 'fence', 1), now}
