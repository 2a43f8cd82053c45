-- cluster-singleton: when each job last ended a run successfully, in one call for
-- several jobs (in a Redis Cluster, jobs of one hash slot).
--
-- KEYS[i]  the ledger {<prefix>:<name>}:runs of the i-th job
--
-- Scans each (capped) ledger for the latest finished_at of a 'succeeded' run.
-- Returns pairs {i, finished_at in epoch milliseconds} for the jobs that have one.
local reply = {}
for i = 1, #KEYS do
  local latest = nil
  for _, run in ipairs(redis.call('ZRANGE', KEYS[i], 0, -1)) do
    local ok, r = pcall(cjson.decode, run)
    if ok and type(r) == 'table' and r['state'] == 'succeeded' and type(r['finished_at']) == 'number' then
      if latest == nil or r['finished_at'] > latest then
        latest = r['finished_at']
      end
    end
  end
  if latest ~= nil then
    reply[#reply + 1] = i
    reply[#reply + 1] = string.format('%.0f', latest)
  end
end
return reply
