-- cluster-singleton: extend every given lease that still carries its token, in one call.
--
-- KEYS[i]      the lease hash {<prefix>:<name>}:lease of the i-th lease
-- ARGV[1]      the TTL in milliseconds
-- ARGV[i + 1]  the lease token of the i-th lease
--
-- Returns this server's clock in epoch milliseconds, followed by the (1-based) positions
-- of the leases that were extended; a lease that expired, was released, force-released or
-- taken over by another acquisition is left alone.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local expires_at = string.format('%.0f', now + tonumber(ARGV[1]))
local reply = {now}
for i = 1, #KEYS do
  if redis.call('HGET', KEYS[i], 'token') == ARGV[i + 1] then
    redis.call('PEXPIREAT', KEYS[i], expires_at)
    reply[#reply + 1] = i
  end
end
return reply
