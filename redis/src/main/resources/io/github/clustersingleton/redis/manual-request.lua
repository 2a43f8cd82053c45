-- cluster-singleton: store a run-now request of a job.
--
-- KEYS[1]  the job's meta hash {<prefix>:<name>}:meta (manual_seq numbers the requests)
-- KEYS[2]  the job's run-now requests {<prefix>:<name>}:manual, a hash of JSON objects
--          by request id
-- ARGV[1]  who asked
--
-- The id is '<now>-<seq>', unique within the job. Every field is stored as a string.
-- Returns {id, now}.
local time = redis.call('TIME')
local now = string.format('%.0f', tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
local seq = redis.call('HINCRBY', KEYS[1], 'manual_seq', 1)
local id = now .. '-' .. seq
redis.call('HSET', KEYS[2], id, cjson.encode({id = id, seq = tostring(seq), requested_by = ARGV[1],
  requested_at = now, state = 'pending'}))
return {id, now}
