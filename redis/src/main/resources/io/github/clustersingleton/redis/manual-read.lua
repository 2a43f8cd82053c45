-- cluster-singleton: read one run-now request of a job, or its newest ones.
--
-- KEYS[1]  the job's run-now requests {<prefix>:<name>}:manual
-- ARGV[1]  the request id, or '' for the newest requests
-- ARGV[2]  how many at most (with ARGV[1] = '')
--
-- Returns the requests, newest first, each {id, requested_by, requested_at, state, owner,
-- fence, finished_at, error} ('' for none).
local function text(value)
  if value == nil or value == cjson.null then
    return ''
  end
  return tostring(value)
end
local runs = {}
local values
if ARGV[1] ~= '' then
  local json = redis.call('HGET', KEYS[1], ARGV[1])
  values = json and {json} or {}
else
  values = redis.call('HVALS', KEYS[1])
end
for _, json in ipairs(values) do
  local ok, r = pcall(cjson.decode, json)
  if ok and type(r) == 'table' then
    runs[#runs + 1] = r
  end
end
table.sort(runs, function(a, b) return tonumber(a['seq']) > tonumber(b['seq']) end)
local limit = tonumber(ARGV[2]) or #runs
local reply = {}
for i = 1, math.min(limit, #runs) do
  local r = runs[i]
  reply[#reply + 1] = text(r['id'])
  reply[#reply + 1] = text(r['requested_by'])
  reply[#reply + 1] = text(r['requested_at'])
  reply[#reply + 1] = text(r['state'])
  reply[#reply + 1] = text(r['owner'])
  reply[#reply + 1] = text(r['fence'])
  reply[#reply + 1] = text(r['finished_at'])
  reply[#reply + 1] = text(r['error'])
end
return reply
