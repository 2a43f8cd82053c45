-- cluster-singleton: which of several jobs were claimed for a cron slot or a later one,
-- in one call (in a Redis Cluster, jobs of one hash slot). Writes nothing. Used in a
-- Redis Cluster, where the claims index is not kept; elsewhere claimed-since-index.lua
-- reads the index instead of every job's meta hash.
--
-- KEYS[i]  the meta hash {<prefix>:<name>}:meta of the i-th job
-- ARGV[1]  the slot in epoch milliseconds
--
-- Returns the (1-based) positions of the jobs whose last_slot is at or after the slot.
local slot = tonumber(ARGV[1])
local reply = {}
for i = 1, #KEYS do
  local last = tonumber(redis.call('HGET', KEYS[i], 'last_slot'))
  if last and last >= slot then
    reply[#reply + 1] = i
  end
end
return reply
