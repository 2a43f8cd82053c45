-- cluster-singleton: remove this node's presence entry, as it shuts down.
--
-- KEYS[1]  the sorted set <prefix>:nodes (see node-heartbeat.lua)
-- ARGV[1]  this node's owner id
--
-- Returns {removed}: 1 when the entry was there, else 0.
return { redis.call('ZREM', KEYS[1], ARGV[1]) }
