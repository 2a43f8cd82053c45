-- cluster-singleton: release a lease if it still carries its token.
--
-- KEYS[1]  the lease hash {<prefix>:<name>}:lease
-- ARGV[1]  the lease token
-- ARGV[2]  lockAtLeastFor in milliseconds
--
-- When the acquisition was less than lockAtLeastFor ago (this server's clock), the lease
-- is kept until acquired_at + lockAtLeastFor, without its token, so that a renewal still
-- on its way (sent by the watchdog before the run ended) cannot extend it; otherwise it is
-- deleted. The meta hash
-- (fencing token, last slot) is never touched.
-- Returns {0} when the lease was not ours, {1} when deleted, {2} when kept.
local lease = redis.call('HMGET', KEYS[1], 'token', 'acquired_at')
if lease[1] ~= ARGV[1] then
  return {0}
end
local at_least = tonumber(ARGV[2])
if at_least > 0 then
  local keep_until = (tonumber(lease[2]) or 0) + at_least
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  if keep_until > now then
    redis.call('PEXPIREAT', KEYS[1], string.format('%.0f', keep_until))
    redis.call('HDEL', KEYS[1], 'token')
    return {2}
  end
end
redis.call('DEL', KEYS[1])
return {1}
