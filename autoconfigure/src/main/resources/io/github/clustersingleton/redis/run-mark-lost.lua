-- cluster-singleton: mark a run still recorded as running as lost.
--
-- KEYS[1]  the ledger {<prefix>:<name>}:runs
-- ARGV[1]  the fencing token of the run
--
-- The JSON of a run is written with "state" right after "fencing_token", so the first
-- '"state":"running"' in it is the state (a quote inside a JSON string is escaped).
-- Returns {1} when the run was marked, {0} when it is not recorded or has ended.
local runs = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])
local marked = 0
for _, run in ipairs(runs) do
  local ok, decoded = pcall(cjson.decode, run)
  if ok and type(decoded) == 'table' and decoded['state'] == 'running' then
    local from, to = string.find(run, '"state":"running"', 1, true)
    if from then
      redis.call('ZREM', KEYS[1], run)
      redis.call('ZADD', KEYS[1], ARGV[1], string.sub(run, 1, from - 1) .. '"state":"lost"' .. string.sub(run, to + 1))
      marked = 1
    end
  end
end
return {marked}
