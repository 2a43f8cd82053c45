-- cluster-singleton: read the newest runs of a job's run ledger.
--
-- KEYS[1]  the ledger {<prefix>:<name>}:runs
-- ARGV[1]  the most runs to return
--
-- Returns nine elements per run, newest (highest fencing token) first: fencing_token,
-- slot, attempt, owner, trigger, state, started_at, finished_at, error ('' standing for
-- none; times in epoch milliseconds). Members that are not a JSON object are skipped.
local function text(value)
  if value == nil or value == cjson.null then
    return ''
  end
  if type(value) == 'number' then
    return string.format('%.0f', value)
  end
  return tostring(value)
end
local reply = {}
local limit = tonumber(ARGV[1])
if limit < 1 then
  return reply
end
for _, run in ipairs(redis.call('ZREVRANGE', KEYS[1], 0, limit - 1)) do
  local ok, r = pcall(cjson.decode, run)
  if ok and type(r) == 'table' then
    reply[#reply + 1] = text(r['fencing_token'])
    reply[#reply + 1] = text(r['slot'])
    reply[#reply + 1] = text(r['attempt'])
    reply[#reply + 1] = text(r['owner'])
    reply[#reply + 1] = text(r['trigger'])
    reply[#reply + 1] = text(r['state'])
    reply[#reply + 1] = text(r['started_at'])
    reply[#reply + 1] = text(r['finished_at'])
    reply[#reply + 1] = text(r['error'])
  end
end
return reply
