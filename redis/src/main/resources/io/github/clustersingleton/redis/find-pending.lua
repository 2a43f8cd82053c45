-- cluster-singleton: find the jobs whose expired lease a recovery claim would take over
-- now, in one call for several jobs (in a Redis Cluster, jobs of one hash slot).
--
-- KEYS[2i-1]  the lease hash {<prefix>:<name>}:lease of the i-th job
-- KEYS[2i]    the meta hash {<prefix>:<name>}:meta of the i-th job
-- ARGV[4i-3]  the i-th job's recoverLost, '1' or '0'
-- ARGV[4i-2]  the i-th job's recoverFailed, '1' or '0'
-- ARGV[4i-1]  the i-th job's maxAttempts
-- ARGV[4i]    the i-th job's catchUp, '1' or '0'
--
-- A job is pending when its meta hash has a run (run_slot), its lease hash does not
-- exist (expired, released or never taken; the same test as acquire.lua), and
--   attempt < maxAttempts and (recoverLost and run_state = 'running'
--       or recoverFailed and run_state = 'failed' and retry_at <= now),
--   or (recoverLost or recoverFailed or catchUp) and run_slot < last_slot
-- (acquire.lua's predicate for a recovery claim; the catch-up of slots nobody claimed
-- applies to first claims only).
-- Returns the (1-based) positions of the pending jobs. Writes nothing.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local reply = {}
for i = 1, #KEYS / 2 do
  local recover_lost = ARGV[4 * i - 3] == '1'
  local recover_failed = ARGV[4 * i - 2] == '1'
  local max_attempts = tonumber(ARGV[4 * i - 1]) or 1
  local catch_up = ARGV[4 * i] == '1'
  if (recover_lost or recover_failed or catch_up) and redis.call('EXISTS', KEYS[2 * i - 1]) == 0 then
    local meta = redis.call('HMGET', KEYS[2 * i], 'last_slot', 'run_slot', 'attempt', 'run_state', 'retry_at')
    local run_slot = tonumber(meta[2])
    if run_slot then
      local last = tonumber(meta[1])
      local state = meta[4]
      local pending = false
      if (tonumber(meta[3]) or 1) < max_attempts then
        pending = (recover_lost and state == 'running')
          or (recover_failed and state == 'failed' and (tonumber(meta[5]) or 0) <= now)
      end
      if pending or (last and run_slot < last) then
        reply[#reply + 1] = i
      end
    end
  end
end
return reply
