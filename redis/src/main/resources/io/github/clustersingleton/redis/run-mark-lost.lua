-- cluster-singleton: mark every run still recorded as running before a claim as lost.
--
-- KEYS[1]  the ledger {<prefix>:<name>}:runs
-- ARGV[1]  the fencing token of the claim that took the job over: runs with a lower one
--          that are still running are lost
--
-- The JSON of a run is written with "state" right after "fencing_token", so the first
-- '"state":"running"' in it is the state (a quote inside a JSON string is escaped).
-- Returns {n}, the number of runs marked.
local runs = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'WITHSCORES')
local marked = 0
for i = 1, #runs, 2 do
  local run = runs[i]
  local score = runs[i + 1]
  local ok, decoded = pcall(cjson.decode, run)
  if ok and type(decoded) == 'table' and decoded['state'] == 'running' then
    local from, to = string.find(run, '"state":"running"', 1, true)
    if from then
      redis.call('ZREM', KEYS[1], run)
      redis.call('ZADD', KEYS[1], score, string.sub(run, 1, from - 1) .. '"state":"lost"' .. string.sub(run, to + 1))
      marked = marked + 1
    end
  end
end
return {marked}
