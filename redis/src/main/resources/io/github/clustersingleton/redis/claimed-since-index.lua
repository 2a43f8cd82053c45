-- cluster-singleton: which of several jobs were claimed for a cron slot or a later one,
-- in one call, from the claims index (standalone and Sentinel Redis only: in a Redis
-- Cluster the index lives on another hash slot than the jobs' keys, and
-- claimed-since.lua reads the meta hashes instead). Writes nothing.
--
-- KEYS[1]    the claims index <prefix>:claims: job names scored by the slot their last
--            first claim of a slot wrote into last_slot (acquire.lua)
-- KEYS[i+1]  the meta hash {<prefix>:<name>}:meta of the i-th job, read only before
--            Redis 6.2 (no ZMSCORE)
-- ARGV[1]    the slot in epoch milliseconds
-- ARGV[i+1]  the name of the i-th job
--
-- Returns the (1-based) positions of the jobs whose score is at or after the slot (with
-- ZMSCORE), else of those whose last_slot is (as claimed-since.lua).
-- The index is a hint that may lag behind last_slot, never run ahead of it (acquire.lua
-- writes both in one script, and last_slot never decreases): a job it leaves out is only
-- claimed again, and that claim is refused if its slot is done.
local slot = tonumber(ARGV[1])
local reply = {}
local scores = redis.pcall('ZMSCORE', KEYS[1], unpack(ARGV, 2))
if type(scores) == 'table' and not scores.err then
  for i = 1, #ARGV - 1 do
    local score = tonumber(scores[i])
    if score and score >= slot then
      reply[#reply + 1] = i
    end
  end
  return reply
end
-- before Redis 6.2 (or a claims key of another type): the meta hashes
for i = 2, #KEYS do
  local last = tonumber(redis.call('HGET', KEYS[i], 'last_slot'))
  if last and last >= slot then
    reply[#reply + 1] = i - 1
  end
end
return reply
