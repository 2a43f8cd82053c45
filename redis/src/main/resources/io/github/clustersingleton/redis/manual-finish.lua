-- cluster-singleton: record how a started run-now request ended, and keep the newest
-- ended requests only.
--
-- KEYS[1]  the job's run-now requests {<prefix>:<name>}:manual
-- ARGV[1]  the request id
-- ARGV[2]  'succeeded' or 'failed'
-- ARGV[3]  the error, or ''
-- ARGV[4]  how many ended requests to keep
--
-- Only a running request changes: state, finished_at = now, error. Then the ended
-- requests beyond the newest ARGV[4] (by request order) are removed.
-- Returns {1} when the request was changed, else {0}.
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then
  return {0}
end
local ok, r = pcall(cjson.decode, json)
if not ok or type(r) ~= 'table' or r['state'] ~= 'running' then
  return {0}
end
local time = redis.call('TIME')
r['state'] = ARGV[2]
r['finished_at'] = string.format('%.0f', tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
if ARGV[3] ~= '' then
  r['error'] = ARGV[3]
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(r))
local ended = {}
for _, value in ipairs(redis.call('HVALS', KEYS[1])) do
  local decoded, e = pcall(cjson.decode, value)
  if decoded and type(e) == 'table' and (e['state'] == 'succeeded' or e['state'] == 'failed') then
    ended[#ended + 1] = e
  end
end
local keep = tonumber(ARGV[4])
if #ended > keep then
  table.sort(ended, function(a, b) return tonumber(a['seq']) > tonumber(b['seq']) end)
  for i = keep + 1, #ended do
    redis.call('HDEL', KEYS[1], ended[i]['id'])
  end
end
return {1}
