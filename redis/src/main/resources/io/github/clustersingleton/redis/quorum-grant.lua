-- cluster-singleton, Redis quorum, phase 1 on one member: grant the lease if this member
-- has no live lease of the job, and tell the job's fence and last slot as this member
-- knows them. The fence and the last slot are not changed here: the acquirer picks them
-- from the answers of all members and writes them in phase 2 (quorum-commit.lua). A grant
-- sets the meta hash's run_token to its lease token, as every claim of acquire.lua does.
--
-- KEYS[1]  the lease hash {<prefix>:<name>}:lease (owner, token, acquired_at), with TTL
-- KEYS[2]  the meta hash {<prefix>:<name>}:meta (fence, last_slot), without TTL
-- ARGV[1]  the owner (node id)
-- ARGV[2]  the lease token of this acquisition
-- ARGV[3]  the TTL in milliseconds
-- ARGV[4]  the claimed cron slot in epoch milliseconds, or '' for none
-- ARGV[5]  the slot tolerance in milliseconds
--
-- Returns {granted, holder or '', last_slot or '', now, fence}: granted is 1 when this
-- member now holds the lease for ARGV[2], 0 when a live lease of another acquisition
-- exists (holder says whose), when the slot is at or before this member's last slot, or
-- when the slot lies ahead of this member's clock plus the tolerance. now is this
-- member's clock in epoch milliseconds; fence is '0' for a job this member never saw.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local meta = redis.call('HMGET', KEYS[2], 'fence', 'last_slot')
local fence = meta[1] or '0'
local last_slot = meta[2]
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {0, redis.call('HGET', KEYS[1], 'owner') or '', last_slot or '', now, fence}
end
local slot = ARGV[4]
if slot ~= '' then
  if tonumber(slot) > now + tonumber(ARGV[5]) then
    return {0, '', last_slot or '', now, fence}
  end
  if last_slot and tonumber(slot) <= tonumber(last_slot) then
    return {0, '', last_slot, now, fence}
  end
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'token', ARGV[2], 'acquired_at', string.format('%.0f', now))
redis.call('PEXPIREAT', KEYS[1], string.format('%.0f', now + tonumber(ARGV[3])))
-- as acquire.lua does at every grant: a completion whose token is no longer run_token reads
-- the lease before it deletes it (release.lua), also one sent by a single-server node to
-- keys this member shares with it
redis.call('HSET', KEYS[2], 'run_token', ARGV[2])
return {1, '', last_slot or '', now, fence}
