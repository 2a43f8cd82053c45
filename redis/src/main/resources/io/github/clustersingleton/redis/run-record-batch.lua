-- cluster-singleton: insert or replace several runs in their jobs' run ledgers, and trim
-- those ledgers.
--
-- KEYS[i]      the ledger {<prefix>:<name>}:runs of the i-th run (a sorted set: score =
--              fencing token, member = the run as a JSON object, see RedisRunLedger); in a
--              Redis Cluster all of one hash slot
-- ARGV[1]      how many runs of each job to keep (the newest, by fencing token)
-- ARGV[2i]     the fencing token of the i-th run, prefixed with '+' when this is the first
--              record of the run anyone writes (its start was replaced by its end before
--              either was sent): no earlier record of it can be in the ledger, so it is
--              added without removing one (sent again with the same JSON, it stays one
--              member); and with '#' when the caller asks for its ledger to be trimmed
-- ARGV[2i + 1] the JSON of the i-th run
--
-- Runs are written in their order, so a later run with the same key and fencing token
-- replaces an earlier one. A ledger is trimmed to the newest ARGV[1] runs when a run written
-- to it asks for it ('#': the caller asks at its first write of a job and then at every
-- tenth of ARGV[1] writes) or has a fencing token that is a multiple of a tenth of ARGV[1]
-- (at least 1): one trim every tenth of ARGV[1] runs instead of one per write. Returns
-- {number of runs trimmed}.
local keep = tonumber(ARGV[1])
local every = math.max(1, math.floor(keep / 10))
local trim = {}
local ledgers = {}
for i = 1, #KEYS do
  local fence = ARGV[2 * i]
  local first = false
  local asked = false
  while true do
    local flag = string.sub(fence, 1, 1)
    if flag == '+' then
      first = true
    elseif flag == '#' then
      asked = true
    else
      break
    end
    fence = string.sub(fence, 2)
  end
  if not first then
    redis.call('ZREMRANGEBYSCORE', KEYS[i], fence, fence)
  end
  redis.call('ZADD', KEYS[i], fence, ARGV[2 * i + 1])
  if (asked or (tonumber(fence) or 0) % every == 0) and not trim[KEYS[i]] then
    trim[KEYS[i]] = true
    ledgers[#ledgers + 1] = KEYS[i]
  end
end
local trimmed = 0
for _, ledger in ipairs(ledgers) do
  trimmed = trimmed + redis.call('ZREMRANGEBYRANK', ledger, 0, -(keep + 1))
end
return {trimmed}
