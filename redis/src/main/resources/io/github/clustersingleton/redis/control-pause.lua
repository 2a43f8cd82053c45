-- cluster-singleton: pause a job, or every job, atomically.
--
-- KEYS[1]  the hash that carries the pause: a job's meta hash {<prefix>:<name>}:meta, or
--          the pause-all hash <prefix>:controls
-- ARGV[1]  who paused it
-- ARGV[2]  why, or '' for no reason
-- ARGV[3]  '1' to mark a job's meta hash as paused by a pause of every job (only
--          all_paused_at = now, and only when the hash exists), else '0' (paused_at = now,
--          paused_by, pause_reason)
--
-- acquire.lua refuses every claim while paused_at or all_paused_at is set.
-- Returns {1, now} when written, {0, now} when a mark found no hash.
local time = redis.call('TIME')
local now = string.format('%.0f', tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
if ARGV[3] == '1' then
  if redis.call('EXISTS', KEYS[1]) == 0 then
    return {0, now}
  end
  redis.call('HSET', KEYS[1], 'all_paused_at', now)
  return {1, now}
end
redis.call('HSET', KEYS[1], 'paused_at', now, 'paused_by', ARGV[1])
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 'pause_reason', ARGV[2])
else
  redis.call('HDEL', KEYS[1], 'pause_reason')
end
return {1, now}
