-- cluster-singleton: store or clear a job's cron override.
--
-- KEYS[1]  the job's meta hash {<prefix>:<name>}:meta
-- ARGV[1]  the cron expression, stored as given, or '' to clear the override
--
-- Returns {1}.
if ARGV[1] == '' then
  redis.call('HDEL', KEYS[1], 'cron')
else
  redis.call('HSET', KEYS[1], 'cron', ARGV[1])
end
return {1}
