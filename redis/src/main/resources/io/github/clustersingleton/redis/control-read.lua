-- cluster-singleton: read the controls of several jobs, and the pause of every job.
--
-- KEYS[1..n]     the meta hash {<prefix>:<name>}:meta of each job
-- KEYS[n+1..2n]  the run-now requests {<prefix>:<name>}:manual of each job
-- KEYS[2n+1]     optional: the pause-all hash <prefix>:controls
-- ARGV[1]        n
--
-- Returns the pause of every job {paused_at, paused_by, pause_reason} ('' for none, and
-- all three '' without KEYS[2n+1]), then per job {paused_at, paused_by, pause_reason,
-- all_paused_at, cron, count} followed by count pending requests, oldest first, each
-- {id, requested_by, requested_at, state, owner, fence, finished_at, error}.
local n = tonumber(ARGV[1])
local reply = {'', '', ''}
if #KEYS > 2 * n then
  local all = redis.call('HMGET', KEYS[2 * n + 1], 'paused_at', 'paused_by', 'pause_reason')
  reply = {all[1] or '', all[2] or '', all[3] or ''}
end
local function text(value)
  if value == nil or value == cjson.null then
    return ''
  end
  return tostring(value)
end
for i = 1, n do
  local meta = redis.call('HMGET', KEYS[i], 'paused_at', 'paused_by', 'pause_reason', 'all_paused_at', 'cron')
  for j = 1, 5 do
    reply[#reply + 1] = meta[j] or ''
  end
  local pending = {}
  for _, json in ipairs(redis.call('HVALS', KEYS[n + i])) do
    local ok, r = pcall(cjson.decode, json)
    if ok and type(r) == 'table' and r['state'] == 'pending' then
      pending[#pending + 1] = r
    end
  end
  table.sort(pending, function(a, b) return tonumber(a['seq']) < tonumber(b['seq']) end)
  reply[#reply + 1] = #pending
  for _, r in ipairs(pending) do
    reply[#reply + 1] = text(r['id'])
    reply[#reply + 1] = text(r['requested_by'])
    reply[#reply + 1] = text(r['requested_at'])
    reply[#reply + 1] = text(r['state'])
    reply[#reply + 1] = text(r['owner'])
    reply[#reply + 1] = text(r['fence'])
    reply[#reply + 1] = text(r['finished_at'])
    reply[#reply + 1] = text(r['error'])
  end
end
return reply
