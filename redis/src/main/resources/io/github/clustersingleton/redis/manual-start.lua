-- cluster-singleton: start a pending run-now request, atomically, for the holder of the
-- job's live lease.
--
-- KEYS[1]  the job's lease hash {<prefix>:<name>}:lease
-- KEYS[2]  the job's meta hash {<prefix>:<name>}:meta
-- KEYS[3]  the job's run-now requests {<prefix>:<name>}:manual
-- ARGV[1]  the request id
-- ARGV[2]  the owner (node id) that runs it
-- ARGV[3]  the fencing token of the owner's lease
--
-- Only when the lease hash exists (not expired by this server's clock) with owner ARGV[2],
-- the meta hash's fence is ARGV[3] (no later claim or run raised it), and the request is
-- still pending: state = 'running', owner, fence, started_at = now.
-- Returns {1} when started by this call, else {0}.
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[2] then
  return {0}
end
if redis.call('HGET', KEYS[2], 'fence') ~= ARGV[3] then
  return {0}
end
local json = redis.call('HGET', KEYS[3], ARGV[1])
if not json then
  return {0}
end
local ok, r = pcall(cjson.decode, json)
if not ok or type(r) ~= 'table' or r['state'] ~= 'pending' then
  return {0}
end
local time = redis.call('TIME')
r['state'] = 'running'
r['owner'] = ARGV[2]
r['fence'] = ARGV[3]
r['started_at'] = string.format('%.0f', tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
redis.call('HSET', KEYS[3], ARGV[1], cjson.encode(r))
return {1}
