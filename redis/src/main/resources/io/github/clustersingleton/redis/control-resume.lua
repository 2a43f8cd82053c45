-- cluster-singleton: resume a job, or clear the pause of every job, atomically.
--
-- KEYS[1]  a job's meta hash {<prefix>:<name>}:meta, or the pause-all hash
--          <prefix>:controls
-- ARGV[1]  '1' to skip the slots that passed while paused (a job without catch-up), else
--          '0'
-- ARGV[2]  '1' for a resume of every job (clears the job's own pause and the mark of a
--          pause of every job), '0' for the job's own pause only
--
-- A hash that is not paused is left as it is. Skipping moves last_slot to
-- max(last_slot, now), and run_slot along with it when it was the last claimed slot (so
-- that no claimed slot looks unserved), once the job is no longer paused at all; a job
-- still marked as paused by a pause of every job keeps its slots until that is resumed.
-- Returns {1, now} when a pause was cleared, else {0, now}.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local meta = redis.call('HMGET', KEYS[1], 'paused_at', 'all_paused_at', 'last_slot', 'run_slot')
local all = ARGV[2] == '1'
local was_paused = meta[1] ~= false or (all and meta[2] ~= false)
if not was_paused then
  return {0, string.format('%.0f', now)}
end
redis.call('HDEL', KEYS[1], 'paused_at', 'paused_by', 'pause_reason')
if all then
  redis.call('HDEL', KEYS[1], 'all_paused_at')
end
local still_paused = not all and meta[2] ~= false
if ARGV[1] == '1' and not still_paused then
  local last = tonumber(meta[3])
  if last == nil or last < now then
    local moved = string.format('%.0f', now)
    redis.call('HSET', KEYS[1], 'last_slot', moved)
    if last ~= nil and tonumber(meta[4]) == last then
      redis.call('HSET', KEYS[1], 'run_slot', moved)
    end
  end
end
return {1, string.format('%.0f', now)}
