-- cluster-singleton: resume a job, or clear the pause of every job, atomically.
--
-- KEYS[1]  a job's meta hash {<prefix>:<name>}:meta, or the pause-all hash
--          <prefix>:controls
-- KEYS[2]  the job's lease hash {<prefix>:<name>}:lease (absent for the pause-all hash)
-- ARGV[1]  '1' to skip the slots that passed while paused (a job without catch-up), else
--          '0'
-- ARGV[2]  '1' for a resume of every job (clears the job's own pause and the mark of a
--          pause of every job), '0' for the job's own pause only
-- ARGV[3]  for a job's meta hash in a resume of every job: the resume time in epoch
--          milliseconds that clearing the pause-all hash answered, or '' (missing: '')
--
-- The pause-all hash: clearing its pause keeps resumed_at = now in it, and the answer
-- carries that time; when it is not paused, the answer carries the resumed_at of the
-- last clear ('' for none), so that a resume of every job that failed half-way and is
-- sent again passes every job the same resume time.
-- A job's meta hash that is not paused is left as it is, except in a resume of every job
-- with a resume time and ARGV[1] = '1': then a job the pause of every job did not mark
-- (its meta hash appeared while the pause scanned, or an earlier try already cleared the
-- mark) still has last_slot moved to max(last_slot, resume time), and its current run
-- removed or moved as below only when that run's slot is before the resume time; so a
-- repeated resume moves no slot past the time the first one cleared the pause-all hash.
-- Skipping, once the job is no longer paused at all (a job still marked as paused by a
-- pause of every job keeps its slots until that is resumed), moves last_slot to
-- max(last_slot, now, resume time), so that the slots that passed are done, and leaves
-- nothing to recover or catch up: without a live lease it removes the current run
-- (run_slot, attempt, run_state, retry_at, recover_at), so that the next claim starts a
-- first attempt; with one (a run that went on while paused) it moves run_slot to that
-- time when it was before it, and the holder records how the run ends; start-run.lua
-- refuses a slot before run_slot, so the holder's sequence starts no run of a slot that
-- passed while paused.
-- Moving last_slot leaves the claims index <prefix>:claims (see acquire.lua) as it is:
-- a score may lag behind last_slot, which only makes the preferred-node sweep claim a
-- slot that the claim then finds done; only a score ahead of last_slot could lose a slot.
-- Returns {1, time} when a pause was cleared, else {0, time}: time is now, or for the
-- pause-all hash the resume time described above.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local all = ARGV[2] == '1'
if not KEYS[2] then
  if redis.call('HEXISTS', KEYS[1], 'paused_at') == 0 then
    return {0, redis.call('HGET', KEYS[1], 'resumed_at') or ''}
  end
  local resumed = string.format('%.0f', now)
  redis.call('HDEL', KEYS[1], 'paused_at', 'paused_by', 'pause_reason')
  redis.call('HSET', KEYS[1], 'resumed_at', resumed)
  return {1, resumed}
end
local meta = redis.call('HMGET', KEYS[1], 'paused_at', 'all_paused_at', 'last_slot', 'run_slot')
local resume_at = nil
if all then
  resume_at = tonumber(ARGV[3] or '')
end
local was_paused = meta[1] ~= false or (all and meta[2] ~= false)
if not was_paused and not (resume_at and ARGV[1] == '1') then
  return {0, string.format('%.0f', now)}
end
if was_paused then
  redis.call('HDEL', KEYS[1], 'paused_at', 'paused_by', 'pause_reason')
  if all then
    redis.call('HDEL', KEYS[1], 'all_paused_at')
  end
end
local still_paused = not all and meta[2] ~= false
if ARGV[1] == '1' and not still_paused and (was_paused or meta[3] ~= false or meta[4] ~= false) then
  local target = 0
  if was_paused then
    target = now
  end
  if resume_at and resume_at > target then
    target = resume_at
  end
  local moved = string.format('%.0f', target)
  local last = tonumber(meta[3])
  if last == nil or last < target then
    redis.call('HSET', KEYS[1], 'last_slot', moved)
  end
  local run_slot = tonumber(meta[4])
  if redis.call('EXISTS', KEYS[2]) == 1 then
    if run_slot ~= nil and run_slot < target then
      redis.call('HSET', KEYS[1], 'run_slot', moved)
    end
  elseif was_paused or (run_slot ~= nil and run_slot < target) then
    redis.call('HDEL', KEYS[1], 'run_slot', 'attempt', 'run_state', 'retry_at', 'recover_at')
  end
end
if was_paused then
  return {1, string.format('%.0f', now)}
end
return {0, string.format('%.0f', now)}
