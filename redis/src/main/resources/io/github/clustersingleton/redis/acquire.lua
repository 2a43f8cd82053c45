-- cluster-singleton: acquire a job's lease, atomically: a first claim (of a cron slot,
-- or without one) or a recovery claim (take over an expired lease with pending work).
--
-- KEYS[1]  the lease hash {<prefix>:<name>}:lease (owner, token, acquired_at), which
--          expires by itself (PEXPIREAT, judged by this server's clock)
-- KEYS[2]  the meta hash {<prefix>:<name>}:meta (fence, last_slot, run_token, and once a
--          slot was claimed run_slot, attempt, run_state, retry_at, recover_at), which
--          never expires
-- ARGV[1]  the owner (node id)
-- ARGV[2]  the lease token of this acquisition
-- ARGV[3]  the TTL in milliseconds
-- ARGV[4]  the claimed cron slot in epoch milliseconds, or '' for none
-- ARGV[5]  the slot tolerance in milliseconds: a slot later than this server's clock plus
--          the tolerance is refused (the requesting node's clock runs ahead)
-- ARGV[6]  the policy's recoverLost, '1' or '0' (missing: '0')
-- ARGV[7]  the policy's recoverFailed, '1' or '0' (missing: '0')
-- ARGV[8]  the policy's maxAttempts (missing: 1)
-- ARGV[9]  the policy's catchUp, '1' or '0' (missing: '0')
-- ARGV[10] the cron slot before ARGV[4] in epoch milliseconds, or '' for none
-- ARGV[11] '1' for a recovery claim (ARGV[4] is then ''), else '0' (missing: '0')
-- ARGV[12] the recovery grace in milliseconds (missing: 0)
-- ARGV[13] '1' when the caller read the pause-all hash and found no pause, after this
--          script answered {3, now} (missing: '0'); only without KEYS[3]
-- ARGV[14] '1' for a claim that overrides the pause (a run-now request's: no slot, no
--          policy), which neither pause refuses (missing: '0')
-- KEYS[3]  optional: the pause-all hash <prefix>:controls (paused_at, ...), passed where
--          it shares the server with the job's keys (not in a Redis Cluster)
-- KEYS[4]  optional, only with KEYS[3]: the claims index <prefix>:claims, a sorted set of
--          job names scored by the slot (epoch ms) each one's last first claim of a slot
--          wrote into last_slot; the preferred-node sweep reads it
--          (claimed-since-index.lua) instead of every job's meta hash
-- ARGV[15] the job name, its member in KEYS[4] (read only with KEYS[4])
--
-- Work is pending on the row (predicate P, evaluated on the row as it is before the
-- claim, false while run_slot is unset) when
--   attempt < maxAttempts and (recoverLost and run_state = 'running'
--       or recoverFailed and run_state = 'failed' and (first claim or retry_at <= now)),
--   or (recoverLost or recoverFailed or catchUp) and run_slot < last_slot (slots a claim
--   took and nobody ran: its holder died, or gave the claim back, between the runs),
--   or catchUp and a first claim and last_slot < ARGV[10].
-- A first claim succeeds under today's rules alone (no live lease, slot after last_slot
-- and not ahead of this server's clock plus the tolerance). With a slot and nothing
-- pending (always so without an active policy, whose P is false), it makes the slot's
-- first attempt the current run (run_slot = slot, attempt = 1, run_state = 'running', no
-- retry_at), so that a later claim under an active policy does not take slots run
-- without one for unserved; with work pending the run fields stay for the new holder to
-- take over. A claim without a slot never touches the run fields. A recovery claim succeeds only
-- when there is no live lease and P holds (as for a later claim: a failed run needs
-- retry_at <= now); it never moves last_slot nor the run fields.
-- A run still recorded as running that recoverLost would run again (attempt < maxAttempts)
-- may have ended without its completion reaching Redis yet (release.lua records it by
-- run_token, which outlives the lease). The first recovery claim that finds it only marks
-- it (recover_at = now + ARGV[12]) and fails; a claim, first or recovery, takes it over
-- only at or after recover_at, and fails meanwhile, as while the lease is live.
-- Every successful claim sets run_token to its lease token and clears recover_at.
-- A first claim of a slot, in the same script as it writes last_slot = slot, also sets
-- the job's score in the claims index KEYS[4] to that slot (ZADD, which may lower a
-- score: so the score is the job's last_slot right after every such claim). As last_slot
-- never decreases, a score is never above the job's last_slot (unless the meta hash was
-- deleted by hand, see docs/redis.md): the index may say a slot is not claimed when it
-- is (last_slot raised by another script, or by a version that did not write the index),
-- never that it is claimed when it is not. An index that cannot be written (a key of
-- another type) is skipped: it is only a hint. A recovery claim, or a claim without a
-- slot, leaves it alone (last_slot does not move).
-- A paused job (the meta hash's paused_at, or all_paused_at that a pause of every job
-- marked, or the pause-all hash KEYS[3]'s paused_at) is not claimed: every claim, first
-- or recovery, is refused with {2, last_slot or '', now} before any other check (a
-- live lease, a done slot) and writes nothing (not even the recovery mark).
--
-- Returns {1, fence, now} when acquired without an active policy,
-- {1, fence, now, last_slot, run_slot, attempt, run_state} when acquired under one (the
-- values after the claim, '' standing for none), {2, last_slot or '', now} when refused
-- because the job is paused, {3, now} when the caller must read the pause-all hash first,
-- else {0, holder or '', last_slot or '', now}, with now this
-- server's clock in epoch milliseconds. Nothing is written unless
-- acquired, except a recovery claim's mark and the marker of a {3} answer.
-- TIME in a script is safe: Redis 5+ replicates a script's effects, not the script.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local meta = redis.call('HMGET', KEYS[2], 'last_slot', 'run_slot', 'attempt', 'run_state', 'retry_at',
  'recover_at', 'paused_at', 'all_paused_at', 'fence')
local last_slot = meta[1]
local overrides_pause = ARGV[14] == '1'
local paused = not overrides_pause and (meta[7] ~= false or meta[8] ~= false)
if not paused and not overrides_pause and KEYS[3] then
  paused = redis.call('HEXISTS', KEYS[3], 'paused_at') == 1
end
if paused then
  return {2, last_slot or '', now}
end
-- without KEYS[3] (a Redis Cluster), a job never claimed before (no fence) may not carry
-- the mark a pause of every job leaves: the caller reads the pause-all hash and asks again.
-- This answer first writes a marker (claim_seen_at) into the meta hash, so that the hash
-- exists before the caller reads the pause-all hash. A pause of every job writes that
-- hash first and scans for meta hashes after: either the caller's read sees the pause, or
-- the scan sees the meta hash and marks it (all_paused_at), which refuses the claim sent
-- again if the mark came first. The marker is not a claim: no fence, no slot.
if not KEYS[3] and not overrides_pause and ARGV[13] ~= '1' and redis.call('HEXISTS', KEYS[2], 'fence') == 0 then
  redis.call('HSET', KEYS[2], 'claim_seen_at', string.format('%.0f', now))
  return {3, now}
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {0, redis.call('HGET', KEYS[1], 'owner') or '', last_slot or '', now}
end
local slot = ARGV[4]
local recover_lost = ARGV[6] == '1'
local recover_failed = ARGV[7] == '1'
local max_attempts = tonumber(ARGV[8] or '1') or 1
local catch_up = ARGV[9] == '1'
local previous_slot = tonumber(ARGV[10] or '')
local recovery = ARGV[11] == '1'
local active = recover_lost or recover_failed or catch_up

local function pending(first)
  local run_slot = tonumber(meta[2])
  if not run_slot then
    return false
  end
  local last = tonumber(last_slot)
  local state = meta[4]
  if (tonumber(meta[3]) or 1) < max_attempts then
    if recover_lost and state == 'running' then
      return true
    end
    if recover_failed and state == 'failed' and (first or (tonumber(meta[5]) or 0) <= now) then
      return true
    end
  end
  if (recover_lost or recover_failed or catch_up) and last and run_slot < last then
    return true
  end
  return catch_up and first and previous_slot ~= nil and last ~= nil and last < previous_slot
end

-- a run that may have ended without its completion reaching Redis yet: taken over only
-- once a recovery claim marked it and the grace has passed
local function awaits_grace()
  if not (recover_lost and tonumber(meta[2]) and meta[4] == 'running'
      and (tonumber(meta[3]) or 1) < max_attempts) then
    return false
  end
  local recover_at = tonumber(meta[6])
  return recover_at == nil or recover_at > now
end

local is_pending = false
if recovery then
  if not (active and pending(false)) then
    return {0, '', last_slot or '', now}
  end
  if awaits_grace() then
    if not meta[6] then
      redis.call('HSET', KEYS[2], 'recover_at', string.format('%.0f', now + (tonumber(ARGV[12] or '0') or 0)))
    end
    return {0, '', last_slot or '', now}
  end
else
  if slot ~= '' then
    if tonumber(slot) > now + tonumber(ARGV[5]) then
      return {0, '', last_slot or '', now}
    end
    if last_slot and tonumber(slot) <= tonumber(last_slot) then
      return {0, '', last_slot, now}
    end
  end
  is_pending = active and pending(true)
  if is_pending and awaits_grace() then
    return {0, '', last_slot or '', now}
  end
end
-- the fence is raised from the value read above, which no command since has changed, as
-- HINCRBY would raise it. Only a plain decimal of at most 15 digits (which a Lua number
-- holds exactly) is raised here; any other value is left to HINCRBY, sent before anything
-- else is written, so that a value HINCRBY refuses fails the claim with nothing written.
local fence = nil
local fence_written = false
local stored_fence = meta[9]
if stored_fence == false then
  fence = 1
elseif stored_fence == '0' or (#stored_fence <= 15 and string.match(stored_fence, '^[1-9]%d*$')) then
  fence = tonumber(stored_fence) + 1
else
  fence = redis.call('HINCRBY', KEYS[2], 'fence', 1)
  fence_written = true
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'token', ARGV[2], 'acquired_at', string.format('%.0f', now))
redis.call('PEXPIREAT', KEYS[1], string.format('%.0f', now + tonumber(ARGV[3])))
-- the meta hash in one HSET and at most one HDEL (of the fields the HMGET above found)
local fields = {'run_token', ARGV[2]}
local absent = {}
if meta[6] then
  absent[#absent + 1] = 'recover_at'
end
if not recovery and slot ~= '' then
  fields[#fields + 1] = 'last_slot'
  fields[#fields + 1] = slot
  last_slot = slot
  if not is_pending then
    fields[#fields + 1] = 'run_slot'
    fields[#fields + 1] = slot
    fields[#fields + 1] = 'attempt'
    fields[#fields + 1] = '1'
    fields[#fields + 1] = 'run_state'
    fields[#fields + 1] = 'running'
    if meta[5] then
      absent[#absent + 1] = 'retry_at'
    end
    meta[2] = slot
    meta[3] = '1'
    meta[4] = 'running'
  end
end
if not fence_written then
  fields[#fields + 1] = 'fence'
  fields[#fields + 1] = string.format('%.0f', fence)
end
redis.call('HSET', KEYS[2], unpack(fields))
if #absent > 0 then
  redis.call('HDEL', KEYS[2], unpack(absent))
end
if KEYS[4] and not recovery and slot ~= '' then
  redis.pcall('ZADD', KEYS[4], slot, ARGV[15])
end
if not active then
  return {1, fence, now}
end
return {1, fence, now, last_slot or '', meta[2] or '', meta[3] or '', meta[4] or ''}
