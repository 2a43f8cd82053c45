-- cluster-singleton: insert or replace several runs in their jobs' run ledgers, and trim
-- each ledger once.
--
-- KEYS[i]      the ledger {<prefix>:<name>}:runs of the i-th run (a sorted set: score =
--              fencing token, member = the run as a JSON object, see RedisRunLedger); in a
--              Redis Cluster all of one hash slot
-- ARGV[1]      how many runs of each job to keep (the newest, by fencing token)
-- ARGV[2i]     the fencing token of the i-th run
-- ARGV[2i + 1] the JSON of the i-th run
--
-- Runs are written in their order, so a later run with the same key and fencing token
-- replaces an earlier one. Returns {number of runs trimmed}.
local keep = tonumber(ARGV[1])
local written = {}
local ledgers = {}
for i = 1, #KEYS do
  local fence = ARGV[2 * i]
  redis.call('ZREMRANGEBYSCORE', KEYS[i], fence, fence)
  redis.call('ZADD', KEYS[i], fence, ARGV[2 * i + 1])
  if not written[KEYS[i]] then
    written[KEYS[i]] = true
    ledgers[#ledgers + 1] = KEYS[i]
  end
end
local trimmed = 0
for _, ledger in ipairs(ledgers) do
  trimmed = trimmed + redis.call('ZREMRANGEBYRANK', ledger, 0, -(keep + 1))
end
return {trimmed}
