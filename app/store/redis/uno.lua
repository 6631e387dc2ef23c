#!lua name=uno
-- The rooms' Redis Functions (loaded with FUNCTION LOAD REPLACE at start-up).
--
-- A room R has its keys under one hash tag so that they share a slot:
--   P:{R}:state  hash   v (version), rev (write counter), meta (members...), wake (ms or "")
--   P:{R}:events stream one entry per commit, id = "<last version>-0", f = first version,
--                       e = the commit's events; trimmed to about HISTORY_LIMIT events
--   P:{R}:snaps  hash   version -> state blob, for the newest commits (the current one included)
--   P:{R}:snapv  list   the versions held in snaps, oldest first
--   P:{R}:cmds   hash   "member|command id" -> the version its ack carried
--   P:{R}:cmdq   list   the cmds fields, oldest first (the cache is bounded)
-- and two keys shared by every room (one slot; see docs/architecture.md):
--   P:wake       zset   room -> when it must be woken (deadline or bot move), ms
--   P:rounds     stream completed rounds for the database writers (a consumer group)
--
-- Commit KEYS: state, events, snaps, snapv, cmds, cmdq, wake, rounds (the same for create).

local function expire_room(keys, ttl)
  for i = 1, 6 do
    redis.call('PEXPIRE', keys[i], ttl)
  end
end

-- A commit refreshes the six expiries only once a tenth of the TTL has passed since the last
-- refresh (the state hash's PTTL tells), or when it created a key that has none yet: an idle
-- room expires between 0.9 and 1 TTL after its last write, for one call instead of six.
-- A negative TTL is a commit nobody made (a timer's, a bot's): it only gives a key it created
-- the expiry of the others, so that a table nobody comes back to still expires.
local function refresh_room(keys, ttl, created)
  ttl = tonumber(ttl)
  if ttl < 0 then
    if created then
      local left = redis.call('PTTL', keys[1])
      expire_room(keys, left > 0 and left or -ttl)
    end
  elseif created or redis.call('PTTL', keys[1]) < ttl * 0.9 then
    expire_room(keys, ttl)
  end
end

local function set_wake(keys, room, wake)
  if wake == '' then
    redis.call('ZREM', keys[7], room)
  else
    redis.call('ZADD', keys[7], wake, room)
  end
end

local function keep_state(keys, version, blob, kept, new_version)
  redis.call('HSET', keys[3], version, blob)
  if new_version then
    local held = redis.call('RPUSH', keys[4], version)
    while held > kept do
      redis.call('HDEL', keys[3], redis.call('LPOP', keys[4]))
      held = held - 1
    end
  end
end

-- Returns whether the stream was created by this entry (it has no expiry yet).
local function add_events(keys, first, last, blob, limit)
  local created = redis.call('EXISTS', keys[2]) == 0
  redis.call('XADD', keys[2], last .. '-0', 'f', first, 'e', blob)
  local floor = tonumber(last) - tonumber(limit) + 1
  if floor > 1 then
    redis.call('XTRIM', keys[2], 'MINID', floor)
  end
  return created
end

-- ARGV: room, version, state blob, meta, wake, ttl ms, states kept, first, events blob
-- A state hash whose current snapshot is gone (an evicting `maxmemory-policy` removes a room's
-- keys one at a time) is no room: nobody can read it, so it is replaced (a restore from the
-- database), not reported as existing.
redis.register_function('uno_create', function(keys, args)
  local current = redis.call('HGET', keys[1], 'v')
  if current and redis.call('HEXISTS', keys[3], current) == 1 then
    return 0
  end
  local room, version = args[1], args[2]
  for i = 2, 6 do
    redis.call('DEL', keys[i])
  end
  redis.call('HSET', keys[1], 'v', version, 'rev', 1, 'meta', args[4], 'wake', args[5])
  keep_state(keys, version, args[3], tonumber(args[7]), true)
  if args[9] ~= '' then
    add_events(keys, args[8], version, args[9], 1000000000)
  end
  set_wake(keys, room, args[5])
  expire_room(keys, args[6])
  return 1
end)

-- ARGV: room, expected rev ("" = version only), expected version, new version, state blob,
--   meta, events blob ("" = no events), first version, wake ("" = none), ttl ms (negative:
--   a commit nobody made, see refresh_room),
--   history limit, states kept, ack cache size, channel, notice head, caller subscribed
--   ("1": the caller's pub/sub connection is subscribed to the channel), ack count, then
--   (field, version) per ack, then the completed rounds' blobs.
-- The notice (app/bus/notices.py) is the head the caller sent followed by the commit: the
-- new write counter, state, members and events; it is published only when a subscriber
-- other than the caller may hear it (the caller tells its own process's subscribers).
-- Returns {"ok", rev} | {"stale", version} | {"dup", version} | {"gone"}.
redis.register_function('uno_commit', function(keys, args)
  local room = args[1]
  local current = redis.call('HMGET', keys[1], 'v', 'rev')
  if not current[1] then
    return {'gone'}
  end
  local acks = tonumber(args[17])
  for i = 0, acks - 1 do
    local seen = redis.call('HGET', keys[5], args[18 + 2 * i])
    if seen then
      return {'dup', seen}
    end
  end
  if current[1] ~= args[3] or (args[2] ~= '' and current[2] ~= args[2]) then
    return {'stale', current[1]}
  end
  local version = args[4]
  local moved = version ~= args[3]
  local rev = tonumber(current[2]) + 1
  redis.call('HSET', keys[1], 'v', version, 'rev', rev, 'meta', args[6], 'wake', args[9])
  keep_state(keys, version, args[5], tonumber(args[12]), moved)
  local created = false
  if args[7] ~= '' then
    created = add_events(keys, args[8], version, args[7], args[11])
  end
  local cache = tonumber(args[13])
  local queued = 0
  for i = 0, acks - 1 do
    local field = args[18 + 2 * i]
    redis.call('HSET', keys[5], field, args[19 + 2 * i])
    queued = redis.call('RPUSH', keys[6], field)
  end
  if queued == acks and acks > 0 then
    created = true  -- the ack cache's first entries: its keys have no expiry yet
  end
  while queued > cache do
    redis.call('HDEL', keys[5], redis.call('LPOP', keys[6]))
    queued = queued - 1
  end
  for i = 18 + 2 * acks, #args do
    redis.call('XADD', keys[8], 'MAXLEN', '~', 100000, '*', 'r', args[i])
  end
  set_wake(keys, room, args[9])
  refresh_room(keys, args[10], created)
  if moved and (args[16] ~= '1' or redis.call('PUBSUB', 'NUMSUB', args[14])[2] > 1) then
    local events = args[7]
    if events == '' then
      events = '[]'
    end
    redis.call('PUBLISH', args[14], args[15] .. '"rev":' .. rev .. ',"state":' .. args[5]
      .. ',"meta":' .. args[6] .. ',"events":' .. events .. '}')
  end
  return {'ok', rev}
end)

-- KEYS: state, snaps, cmds. ARGV: cached rev ("" = none), ack field ("" = none).
-- Returns nil (no room) or {v, rev, wake, ack or nil, meta, state}; meta and state are
-- left out when the caller already holds this rev.
redis.register_function{
  function_name = 'uno_load',
  flags = {'no-writes'},
  callback = function(keys, args)
    local head = redis.call('HMGET', keys[1], 'v', 'rev', 'wake')
    if not head[1] then
      return nil
    end
    local ack = false
    if args[2] ~= '' then
      ack = redis.call('HGET', keys[3], args[2])
    end
    if head[2] == args[1] then
      return {head[1], head[2], head[3], ack}
    end
    local meta = redis.call('HGET', keys[1], 'meta')
    local state = redis.call('HGET', keys[2], head[1])
    return {head[1], head[2], head[3], ack, meta, state}
  end,
}

-- KEYS: state, events, snaps. ARGV: after version, states wanted (0/1), then versions the
-- caller already holds states of. Returns {current version, entries...}, each entry
-- {first, last, events blob, state blob or false}.
redis.register_function{
  function_name = 'uno_since',
  flags = {'no-writes'},
  callback = function(keys, args)
    local current = redis.call('HGET', keys[1], 'v')
    if not current then
      return nil
    end
    local out = {current}
    local held = {}
    for i = 3, #args do
      held[args[i]] = true
    end
    local entries = redis.call('XRANGE', keys[2], '(' .. args[1] .. '-0', '+')
    for _, entry in ipairs(entries) do
      local last = string.sub(entry[1], 1, string.find(entry[1], '-', 1, true) - 1)
      local fields = entry[2]
      local first, blob = nil, nil
      for i = 1, #fields, 2 do
        if fields[i] == 'f' then first = fields[i + 1] elseif fields[i] == 'e' then blob = fields[i + 1] end
      end
      local state = false
      if args[2] == '1' and not held[last] then
        state = redis.call('HGET', keys[3], last)
      end
      table.insert(out, {first, last, blob, state})
    end
    return out
  end,
}

-- KEYS: rooms' state keys. Returns each room's version (nil when gone): the pub/sub
-- watchdog's check of every room a process holds sockets of, one call for all of them.
-- (In a Redis Cluster these keys are in many slots: the caller would group them by slot.)
redis.register_function{
  function_name = 'uno_versions',
  flags = {'no-writes'},
  callback = function(keys, args)
    local out = {}
    for i, key in ipairs(keys) do
      out[i] = redis.call('HGET', key, 'v')
    end
    return out
  end,
}

-- KEYS: wake. ARGV: now, lease ms, limit, key prefix. Claims the due rooms by moving their
-- wake-up `lease` ms out (a claimer that dies only delays the timer); drops rooms gone.
redis.register_function('uno_claim', function(keys, args)
  local due = redis.call('ZRANGEBYSCORE', keys[1], '-inf', args[1], 'LIMIT', 0, tonumber(args[3]))
  local claimed = {}
  local later = tonumber(args[1]) + tonumber(args[2])
  for _, room in ipairs(due) do
    if redis.call('EXISTS', args[4] .. ':{' .. room .. '}:state') == 1 then
      redis.call('ZADD', keys[1], later, room)
      table.insert(claimed, room)
    else
      redis.call('ZREM', keys[1], room)
    end
  end
  return claimed
end)

-- KEYS: state, wake. ARGV: room, version, wake ("" = none). Re-plans a room's wake-up when
-- it is still at `version` (a wake-up that found nothing to do yet).
redis.register_function('uno_reschedule', function(keys, args)
  if redis.call('HGET', keys[1], 'v') ~= args[2] then
    return 0
  end
  redis.call('HSET', keys[1], 'wake', args[3])
  if args[3] == '' then
    redis.call('ZREM', keys[2], args[1])
  else
    redis.call('ZADD', keys[2], args[3], args[1])
  end
  return 1
end)
