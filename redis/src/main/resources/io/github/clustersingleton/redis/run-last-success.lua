-- cluster-singleton: when each job last ended a run successfully, in one call for
-- several jobs (in a Redis Cluster, jobs of one hash slot).
--
-- KEYS[i]  the ledger {<prefix>:<name>}:runs of the i-th job
--
-- The latest finished_at of a 'succeeded' run. A job's newest records (highest fencing
-- tokens) nearly always hold it, so they are read first: only when none of the newest
-- eight succeeded is the rest of the (capped) ledger read. Decoding every record of
-- every job would hold the server for the whole ledger of every job at each call.
-- Returns pairs {i, finished_at in epoch milliseconds} for the jobs that have one.
local NEWEST = 8

local function latest_success(runs, latest)
  for _, run in ipairs(runs) do
    -- the writer puts "state" right after "fencing_token": skip a record that did not
    -- succeed without decoding it
    if string.find(run, '"state":"succeeded"', 1, true) then
      local ok, r = pcall(cjson.decode, run)
      if ok and type(r) == 'table' and r['state'] == 'succeeded' and type(r['finished_at']) == 'number' then
        if latest == nil or r['finished_at'] > latest then
          latest = r['finished_at']
        end
      end
    end
  end
  return latest
end

local reply = {}
for i = 1, #KEYS do
  local latest = latest_success(redis.call('ZREVRANGE', KEYS[i], 0, NEWEST - 1), nil)
  if latest == nil then
    latest = latest_success(redis.call('ZREVRANGE', KEYS[i], NEWEST, -1), nil)
  end
  if latest ~= nil then
    reply[#reply + 1] = i
    reply[#reply + 1] = string.format('%.0f', latest)
  end
end
return reply
