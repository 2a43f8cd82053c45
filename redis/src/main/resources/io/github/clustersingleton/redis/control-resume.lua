-- cluster-singleton: resume a job, or clear the pause of every job, atomically.
--
-- KEYS[1]  a job's meta hash {<prefix>:<name>}:meta, or the pause-all hash
--          <prefix>:controls
-- KEYS[2]  the job's lease hash {<prefix>:<name>}:lease (absent for the pause-all hash)
-- ARGV[1]  '1' to skip the slots that passed while paused (a job without catch-up), else
--          '0'
-- ARGV[2]  '1' for a resume of every job (clears the job's own pause and the mark of a
--          pause of every job), '0' for the job's own pause only
--
-- A hash that is not paused is left as it is. Skipping, once the job is no longer paused
-- at all (a job still marked as paused by a pause of every job keeps its slots until
-- that is resumed), moves last_slot to max(last_slot, now), so that the slots that
-- passed are done, and leaves nothing to recover or catch up: without a live lease it
-- removes the current run (run_slot, attempt, run_state, retry_at, recover_at), so that
-- the next claim starts a first attempt; with one (a run that went on while paused) it
-- moves run_slot along when it was the last claimed slot, and the holder records how
-- the run ends.
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
    if KEYS[2] and redis.call('EXISTS', KEYS[2]) == 1 then
      if last ~= nil and tonumber(meta[4]) == last then
        redis.call('HSET', KEYS[1], 'run_slot', moved)
      end
    end
  end
  if KEYS[2] and redis.call('EXISTS', KEYS[2]) == 0 then
    redis.call('HDEL', KEYS[1], 'run_slot', 'attempt', 'run_state', 'retry_at', 'recover_at')
  end
end
return {1, string.format('%.0f', now)}
