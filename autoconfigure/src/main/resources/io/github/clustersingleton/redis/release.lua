-- cluster-singleton: release a lease if it still carries its token, and record how the
-- run under it ended.
--
-- KEYS[1]  the lease hash {<prefix>:<name>}:lease
-- KEYS[2]  the meta hash {<prefix>:<name>}:meta (optional without ARGV[3])
-- ARGV[1]  the lease token
-- ARGV[2]  lockAtLeastFor in milliseconds
-- ARGV[3]  how the run ended: 'succeeded', 'failed', or '' (or missing) to leave the
--          run fields alone
-- ARGV[4]  for 'failed', the retry delay in milliseconds
--
-- When the acquisition was less than lockAtLeastFor ago (this server's clock), the lease
-- is kept until acquired_at + lockAtLeastFor, without its token, so that a renewal still
-- on its way (sent by the watchdog before the run ended) cannot extend it; otherwise it is
-- deleted. Only when the token matched, run_state becomes ARGV[3], with retry_at = now +
-- ARGV[4] for 'failed' and no retry_at for 'succeeded'. The fencing token and last slot
-- are never touched.
-- Returns {0} when the lease was not ours, {1} when deleted, {2} when kept.
local lease = redis.call('HMGET', KEYS[1], 'token', 'acquired_at')
if lease[1] ~= ARGV[1] then
  return {0}
end
local now = nil
local function clock()
  if not now then
    local time = redis.call('TIME')
    now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  return now
end
local state = ARGV[3] or ''
if state == 'succeeded' then
  redis.call('HSET', KEYS[2], 'run_state', 'succeeded')
  redis.call('HDEL', KEYS[2], 'retry_at')
elseif state == 'failed' then
  redis.call('HSET', KEYS[2], 'run_state', 'failed', 'retry_at',
    string.format('%.0f', clock() + (tonumber(ARGV[4]) or 0)))
end
local at_least = tonumber(ARGV[2])
if at_least > 0 then
  local keep_until = (tonumber(lease[2]) or 0) + at_least
  if keep_until > clock() then
    redis.call('PEXPIREAT', KEYS[1], string.format('%.0f', keep_until))
    redis.call('HDEL', KEYS[1], 'token')
    return {2}
  end
end
redis.call('DEL', KEYS[1])
return {1}
