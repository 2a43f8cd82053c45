-- cluster-singleton: write or renew this node's presence entry, and read the live ones.
--
-- KEYS[1]  the sorted set <prefix>:nodes: members are owner ids, scores their expiry in
--          epoch milliseconds of this server's clock
-- ARGV[1]  this node's owner id
-- ARGV[2]  the TTL in milliseconds
--
-- Sets this owner's expiry to now + TTL, removes the expired members, and keeps the key
-- for twice the TTL after the last heartbeat of any node. Returns the live owners.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], 2 * ttl)
return redis.call('ZRANGE', KEYS[1], 0, -1)
