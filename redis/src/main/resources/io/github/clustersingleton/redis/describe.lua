-- cluster-singleton: read the stored state of a job's lease.
--
-- KEYS[1]  the lease hash {<prefix>:<name>}:lease
-- KEYS[2]  the meta hash {<prefix>:<name>}:meta
--
-- Returns {} for a job this server has never seen, else
-- {fence, last_slot, owner, acquired_at, expires_at}, '' standing for none; the owner,
-- acquired_at and expires_at (epoch milliseconds) are those of the live lease, if any.
local meta = redis.call('HMGET', KEYS[2], 'fence', 'last_slot')
local lease = redis.call('HMGET', KEYS[1], 'owner', 'acquired_at')
if not meta[1] and not meta[2] and not lease[1] then
  return {}
end
local expires_at = ''
if lease[1] then
  local at = redis.pcall('PEXPIRETIME', KEYS[1])
  if type(at) ~= 'number' then
    -- before Redis 7.0: this server's clock plus the remaining time to live
    local time = redis.call('TIME')
    local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    local pttl = redis.call('PTTL', KEYS[1])
    at = (pttl >= 0) and (now + pttl) or -1
  end
  if at >= 0 then
    expires_at = string.format('%.0f', at)
  end
end
return {meta[1] or '', meta[2] or '', lease[1] or '', lease[2] or '', expires_at}
