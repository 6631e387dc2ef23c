#!lua name=uno_tournaments
-- The tournaments' Redis Functions (FUNCTION LOAD REPLACE by the tournament store).
--
-- A tournament T has its keys under one hash tag:
--   P:t:{T}:rec    hash    v (version), b (the record's JSON), s (status)
--   P:t:{T}:lease  string  the process driving T's tables now (SET NX PX)
-- and two sets shared by every tournament (one slot, like P:wake; docs/architecture.md):
--   P:t:codes      set     every tournament's code (the idle sweep)
--   P:t:running    set     the codes of running tournaments (every process scans them)
--
-- KEYS: rec, codes, running.

local function index(keys, code, status)
  redis.call('SADD', keys[2], code)
  if status == 'running' then
    redis.call('SADD', keys[3], code)
  else
    redis.call('SREM', keys[3], code)
  end
end

-- ARGV: code, version, blob, status, ttl_ms -> 1 stored, 0 the code is taken
local function t_create(keys, args)
  if redis.call('EXISTS', keys[1]) == 1 then
    return 0
  end
  redis.call('HSET', keys[1], 'v', args[2], 'b', args[3], 's', args[4])
  redis.call('PEXPIRE', keys[1], args[5])
  index(keys, args[1], args[4])
  return 1
end

-- Compare-and-set. ARGV: code, expected version, blob, status, ttl_ms
-- -> {1, new version} or {0, the stored version (0: none)}
local function t_save(keys, args)
  local stored = tonumber(redis.call('HGET', keys[1], 'v') or '0')
  if stored ~= tonumber(args[2]) or stored == 0 then
    return {0, stored}
  end
  local version = stored + 1
  redis.call('HSET', keys[1], 'v', version, 'b', args[3], 's', args[4])
  redis.call('PEXPIRE', keys[1], args[5])
  index(keys, args[1], args[4])
  return {1, version}
end

-- ARGV: code
local function t_delete(keys, args)
  redis.call('DEL', keys[1])
  redis.call('SREM', keys[2], args[1])
  redis.call('SREM', keys[3], args[1])
  return 1
end

-- KEYS: lease. ARGV: owner, ms -> 1 held (taken or renewed), 0 another owner holds it
local function t_lease(keys, args)
  local holder = redis.call('GET', keys[1])
  if holder and holder ~= args[1] then
    return 0
  end
  redis.call('SET', keys[1], args[1], 'PX', args[2])
  return 1
end

-- KEYS: lease. ARGV: owner
local function t_release(keys, args)
  if redis.call('GET', keys[1]) == args[1] then
    redis.call('DEL', keys[1])
  end
  return 1
end

redis.register_function('uno_t_create', t_create)
redis.register_function('uno_t_save', t_save)
redis.register_function('uno_t_delete', t_delete)
redis.register_function('uno_t_lease', t_lease)
redis.register_function('uno_t_release', t_release)
