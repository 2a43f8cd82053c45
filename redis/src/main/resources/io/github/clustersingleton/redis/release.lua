-- cluster-singleton: record how a run ended, by its token, and release its lease if it
-- still carries that token.
--
-- KEYS[1]  the lease hash {<prefix>:<name>}:lease
-- KEYS[2]  the meta hash {<prefix>:<name>}:meta (optional without ARGV[3])
-- ARGV[1]  the lease token of the run
-- ARGV[2]  lockAtLeastFor in milliseconds
-- ARGV[3]  how the run ended: 'succeeded', 'failed', or '' (or missing) to leave the
--          run fields alone
-- ARGV[4]  for 'failed', the retry delay in milliseconds
-- ARGV[5]  the fencing token of the run (optional: without it, the run under the token is
--          recorded whatever its fence)
--
-- The run is recorded while the meta hash's run_token (set by every claim) is still the
-- run's token, even after the lease expired and its hash is gone: no other claim has taken
-- the job since. (A lease that still carries the token counts too: its claim was made
-- before run_token existed.) Then run_state becomes ARGV[3], with retry_at = now + ARGV[4]
-- for 'failed' and no retry_at for 'succeeded', and a recovery mark (recover_at) is
-- cleared. Otherwise the completion is superseded and nothing is recorded. Recording the
-- same completion again is harmless.
-- Only the run whose fencing token is ARGV[5] is recorded: when the meta hash's fence has
-- moved on to a later run under the same token (start-run.lua, whose reply the caller may
-- not have seen), that start already ended this run, and the later run must not be recorded
-- as ended by this one's completion: the run fields stay, and the answer is still recorded
-- (nothing left to record); the lease is released as below.
-- The lease itself, only if it still carries the token: when the acquisition was less than
-- lockAtLeastFor ago (this server's clock), it is kept until acquired_at + lockAtLeastFor,
-- without its token, so that a renewal still on its way (sent by the watchdog before the run
-- ended) cannot extend it; otherwise it is deleted. The fencing token and last slot are
-- never touched.
-- A lease kept for lockAtLeastFor is noted in the meta hash (kept_token = ARGV[1]).
-- A completion (ARGV[3] not '') without lockAtLeastFor whose token is still the meta hash's
-- run_token, and not its kept_token, does not read the lease: no claim has succeeded since
-- this run's (acquire.lua sets run_token at every successful claim, and nothing else writes
-- the lease hash of a job whose claims go through it) and no release of this run kept it,
-- so a live lease carries this run's token and is deleted; the answer is then 0 when there
-- was none left to delete.
-- Returns {released, recorded}: released is 0 when the lease was not ours, 1 when deleted,
-- 2 when kept; recorded is 1 when the completion was recorded (or had nothing to record),
-- 0 when it was superseded.
local now = nil
local function clock()
  if not now then
    local time = redis.call('TIME')
    now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  return now
end
local state = ARGV[3] or ''
local at_least = tonumber(ARGV[2])
local recorded = 1
local lease = nil
local meta = nil
if state ~= '' then
  -- one read of the meta hash: the run's token and fence, and which fields an HDEL finds
  meta = redis.call('HMGET', KEYS[2], 'run_token', 'fence', 'retry_at', 'recover_at', 'kept_token')
end
if meta and meta[1] == ARGV[1] and meta[5] ~= ARGV[1] and at_least <= 0 then
  -- no claim has succeeded since this run's (every successful claim sets run_token), and
  -- no release of this run kept its lease for lockAtLeastFor (kept_token): a live lease
  -- can only be this run's, with its token, so it is deleted without being read
  lease = {ARGV[1], false}
else
  lease = redis.call('HMGET', KEYS[1], 'token', 'acquired_at')
end
if state ~= '' then
  if lease[1] == ARGV[1] or meta[1] == ARGV[1] then
    local run_fence = tonumber(ARGV[5] or '')
    if run_fence and tonumber(meta[2]) ~= run_fence then
      -- a later run under this token has started: nothing of this run left to record
      state = ''
    end
    if state == 'succeeded' then
      redis.call('HSET', KEYS[2], 'run_state', 'succeeded')
      if meta[3] and meta[4] then
        redis.call('HDEL', KEYS[2], 'retry_at', 'recover_at')
      elseif meta[3] then
        redis.call('HDEL', KEYS[2], 'retry_at')
      elseif meta[4] then
        redis.call('HDEL', KEYS[2], 'recover_at')
      end
    elseif state == 'failed' then
      redis.call('HSET', KEYS[2], 'run_state', 'failed', 'retry_at',
        string.format('%.0f', clock() + (tonumber(ARGV[4]) or 0)))
      if meta[4] then
        redis.call('HDEL', KEYS[2], 'recover_at')
      end
    end
  else
    recorded = 0
  end
end
if lease[1] ~= ARGV[1] then
  return {0, recorded}
end
if at_least > 0 then
  local keep_until = (tonumber(lease[2]) or 0) + at_least
  if keep_until > clock() then
    redis.call('PEXPIREAT', KEYS[1], string.format('%.0f', keep_until))
    redis.call('HDEL', KEYS[1], 'token')
    if KEYS[2] then
      redis.call('HSET', KEYS[2], 'kept_token', ARGV[1])
    end
    return {2, recorded}
  end
end
if redis.call('DEL', KEYS[1]) == 0 and lease[2] == false then
  -- the unread lease had expired
  return {0, recorded}
end
return {1, recorded}
