-- hopnet's wire: the spec's 4-byte header and its handshake, the extended wire's frames, the
-- offer and accept, and netcode 1.02's packets; chunks reassembled into messages in capture
-- order, each message's body decoded by the readers above.

local hopnet = Proto("hopnet", "hopnet")

local pf = {
  kind = ProtoField.string("hopnet.kind", "Datagram"),
  batch = ProtoField.uint16("hopnet.gso_batch", "Datagrams in this GSO batch"),
  segment = ProtoField.uint16("hopnet.gso_segment", "Datagram of the batch"),
  flags = ProtoField.uint8("hopnet.flags", "Flags", base.HEX),
  rel = ProtoField.bool("hopnet.flags.rel", "REL", 8, nil, 0x01),
  ack = ProtoField.bool("hopnet.flags.ack", "ACK", 8, nil, 0x02),
  fin = ProtoField.bool("hopnet.flags.fin", "FIN", 8, nil, 0x04),
  fin_end = ProtoField.bool("hopnet.flags.end", "END", 8, nil, 0x08),
  reserved = ProtoField.uint8("hopnet.flags.reserved", "Reserved", base.HEX, nil, 0xf0),
  chunk = ProtoField.uint8("hopnet.chunk", "Chunk"),
  sequence = ProtoField.uint16("hopnet.sequence", "Sequence"),
  handshake = ProtoField.string("hopnet.handshake", "Handshake"),
  handshake_value = ProtoField.uint32("hopnet.handshake.value", "Value", base.HEX),
  nx_version = ProtoField.uint8("hopnet.negotiation.version", "Version"),
  nx_kind = ProtoField.string("hopnet.negotiation.kind", "Kind"),
  nx_features = ProtoField.uint16("hopnet.negotiation.features", "Features", base.HEX),
  nx_size = ProtoField.uint16("hopnet.negotiation.max_datagram", "Max datagram size"),
  crc = ProtoField.uint32("hopnet.crc", "CRC-32", base.HEX),
  frame = ProtoField.string("hopnet.frame", "Frame"),
  frame_type = ProtoField.uint8("hopnet.frame.type", "Type", base.HEX),
  delivery = ProtoField.string("hopnet.frame.delivery", "Delivery"),
  compressed = ProtoField.bool("hopnet.frame.compressed", "Compressed"),
  frame_fin = ProtoField.bool("hopnet.frame.fin", "Last chunk"),
  frame_len = ProtoField.uint16("hopnet.frame.length", "Length"),
  index = ProtoField.uint16("hopnet.frame.index", "Reliable index"),
  after = ProtoField.uint16("hopnet.frame.after", "After"),
  ack_delay = ProtoField.uint16("hopnet.ack.delay", "Delay (microseconds)"),
  ack_count = ProtoField.uint8("hopnet.ack.count", "Entries"),
  ack_range = ProtoField.string("hopnet.ack.range", "Range"),
  data = ProtoField.bytes("hopnet.data", "Chunk data"),
  nc_type = ProtoField.string("hopnet.netcode.type", "netcode packet"),
  nc_sequence = ProtoField.uint64("hopnet.netcode.sequence", "Sequence"),
  nc_version = ProtoField.string("hopnet.netcode.version", "Version"),
  nc_protocol = ProtoField.uint64("hopnet.netcode.protocol_id", "Protocol id", base.HEX),
  nc_expire = ProtoField.uint64("hopnet.netcode.expire", "Expire timestamp"),
  nc_nonce = ProtoField.bytes("hopnet.netcode.nonce", "Token nonce"),
  nc_encrypted = ProtoField.bytes("hopnet.netcode.encrypted", "Encrypted"),
  message = ProtoField.string("hopnet.message", "Message"),
  message_type = ProtoField.string("hopnet.message.type", "Type"),
  message_delivery = ProtoField.string("hopnet.message.delivery", "Delivery"),
  message_sequence = ProtoField.uint16("hopnet.message.sequence", "Sequence"),
  message_chunks = ProtoField.uint16("hopnet.message.chunks", "Chunks"),
  message_frames = ProtoField.string("hopnet.message.frames", "Chunks in frames"),
  message_length = ProtoField.uint32("hopnet.message.length", "Length"),
  json = ProtoField.string("hopnet.json", "JSON"),
  error = ProtoField.string("hopnet.error", "Error"),
  value = ProtoField.string("hopnet.value", "Value"),
  item = ProtoField.string("hopnet.item", "Item"),
  delta_channel = ProtoField.uint32("hopnet.delta.channel", "Channel"),
  delta_time = ProtoField.uint32("hopnet.delta.time", "Time"),
  delta_base = ProtoField.uint32("hopnet.delta.base", "Baseline tick"),
  -- A decoded delta's value, as `rabbit-msg pcap` prints it, member by member.
  delta_value_channel = ProtoField.string("hopnet.SnapshotDelta.channel", "channel"),
  delta_value_time = ProtoField.string("hopnet.SnapshotDelta.time", "time"),
  delta_value_base = ProtoField.string("hopnet.SnapshotDelta.base", "base"),
  delta_value_snapshot = ProtoField.string("hopnet.SnapshotDelta.snapshot", "snapshot"),
  -- A scoped update's envelope (`hopnet_snow_fight::scoped`).
  scoped_update_bytes = ProtoField.uint32("hopnet.scoped.update_bytes", "Update bytes"),
}
local fields = {}
for _, f in pairs(pf) do fields[#fields + 1] = f end
for _, f in pairs(F) do fields[#fields + 1] = f end
hopnet.fields = fields

local DELIVERY = { [0] = "unreliable", "sequenced", "reliable", "reliable ordered", "semi-ordered",
  "tracked" }
local NETCODE = { [0] = "connection request", "connection denied", "connection challenge",
  "connection response", "keep-alive", "payload", "disconnect" }

-- State built in capture order on the first pass, and what each frame showed then (Wireshark
-- dissects a frame again when it is looked at, after later frames changed the state).
local partial, delivered, convs, seen, baselines

local function reset()
  partial, delivered, convs, seen = {}, {}, {}, {}
  baselines = { flows = {}, count = 0, clock = 0 }
end
reset()
hopnet.init = reset

local function conv(pinfo, to_server)
  local client = to_server and (tostring(pinfo.src) .. ":" .. pinfo.src_port)
    or (tostring(pinfo.dst) .. ":" .. pinfo.dst_port)
  local server = to_server and (tostring(pinfo.dst) .. ":" .. pinfo.dst_port)
    or (tostring(pinfo.src) .. ":" .. pinfo.src_port)
  local key = client .. ">" .. server
  local c = convs[key]
  if not c then
    c = { key = key, connected = false, challenged = false }
    convs[key] = c
  end
  return c
end

local function b(bytes, i) return bytes:byte(i) end
local function be16(bytes, i) return b(bytes, i) * 256 + b(bytes, i + 1) end
local function be32(bytes, i) return be16(bytes, i) * 65536 + be16(bytes, i + 2) end

-- A chunk of a message: stored until every chunk is in, then the message, once.
local function chunk(info, c, to_server, seq, index, fin, data, delivery, compressed)
  local key = c.key .. (to_server and ">" or "<") .. seq
  local done = delivered[key]
  if done then
    info.notes[#info.notes + 1] = "chunk " .. index .. " of message " .. seq ..
      " again (delivered in frame " .. done .. ")"
    return
  end
  local p = partial[key]
  if not p then
    p = { chunks = {}, frames = {}, count = 0 }
    partial[key] = p
  end
  if not p.chunks[index] then
    p.chunks[index] = data
    p.count = p.count + 1
    p.frames[#p.frames + 1] = info.number
  end
  if fin then p.last = index end
  if delivery then p.delivery = delivery end
  if compressed then p.compressed = true end
  if not p.last or p.count ~= p.last + 1 then return end
  local parts = {}
  for i = 0, p.last do parts[i + 1] = p.chunks[i] end
  partial[key] = nil
  delivered[key] = info.number
  -- Sequence ids wrap: forget the one half the space away, as a receiver's window does.
  delivered[c.key .. (to_server and ">" or "<") .. ((seq + 32768) % 65536)] = nil
  info.messages[#info.messages + 1] = {
    bytes = table.concat(parts), sequence = seq, chunks = p.last + 1, delivery = p.delivery,
    compressed = p.compressed, frames = p.frames, to_server = to_server, flow = c.key,
  }
end

local function spec_packet(info, c, to_server, bytes)
  local flags = b(bytes, 1)
  local seq = be16(bytes, 3)
  info.header = { flags = flags, chunk = b(bytes, 2), sequence = seq }
  if #bytes > 4 then c.connected = true end
  if bit32.band(flags, 0x02) ~= 0 then
    info.notes[#info.notes + 1] = "acknowledgement of chunk " .. b(bytes, 2) .. " of message " .. seq
    return
  end
  if bit32.band(flags, 0x08) ~= 0 then
    info.notes[#info.notes + 1] = "the connection ends"
    return
  end
  local rel = bit32.band(flags, 0x01) ~= 0
  chunk(info, c, to_server, seq, b(bytes, 2), bit32.band(flags, 0x04) ~= 0, bytes:sub(5),
    rel and "reliable" or "unreliable", false)
end

-- A 4-byte datagram: a handshake datagram or a header, by the connection's state (PROTOCOL.md,
-- "The 4-byte rule").
local function four_bytes(info, c, to_server, bytes)
  local flags, chunk_index = b(bytes, 1), b(bytes, 2)
  local value = be32(bytes, 1)
  if to_server then
    if flags == 0x05 and chunk_index == 0xff then
      info.handshake = { name = c.responded and "probe (salt)" or "Init (salt)", value = value }
      c.challenged = false
      return
    end
    if bit32.band(flags, 0xf0) ~= 0 or not c.connected then
      local name = "Init (salt)"
      if c.challenged then
        name = "ChallengeResponse (seasoning)"
        c.responded = true
      elseif c.connected then
        name = "ChallengeResponse again (seasoning)"
      end
      info.handshake = { name = name, value = value }
      c.challenged = false
      return
    end
  else
    if bit32.band(flags, 0x02) ~= 0 and bit32.band(flags, 0xf8) == 0 and chunk_index == 0xff then
      c.connected = true
      info.header = { flags = flags, chunk = chunk_index, sequence = be16(bytes, 3) }
      info.notes[#info.notes + 1] = "acknowledgement of a probe: the connection is confirmed"
      return
    end
    if bit32.band(flags, 0xf0) ~= 0 or not c.connected then
      info.handshake = { name = "Challenge (pepper)", value = value }
      c.challenged = true
      return
    end
  end
  spec_packet(info, c, to_server, bytes)
end

local function frames(info, c, to_server, bytes, stop)
  local at = 2
  local list = {}
  while at <= stop do
    local ty = b(bytes, at)
    local f = { at = at, ty = ty }
    if ty == 0 then
      f.name, f.len = "padding", 1
    elseif ty == 1 then
      f.name, f.len = "ping", 1
    elseif ty == 2 then
      f.name, f.len = "close", 1
    elseif ty == 4 then
      f.name, f.len = "ACK now", 1
    elseif ty == 3 then
      if at + 3 > stop then return nil end
      local n = b(bytes, at + 3)
      f.name, f.len, f.delay, f.ranges = "ACK", 4 + 6 * n, be16(bytes, at + 1), {}
      if n == 0 or at + f.len - 1 > stop then return nil end
      for i = 0, n - 1 do
        local e = at + 4 + 6 * i
        f.ranges[#f.ranges + 1] = string.format("sequences %d to %d, chunks %d to %d",
          be16(bytes, e), (be16(bytes, e) + be16(bytes, e + 2)) % 65536, b(bytes, e + 4), b(bytes, e + 5))
      end
    elseif bit32.band(ty, 0xc0) == 0x40 then
      local mode = bit32.rshift(bit32.band(ty, 0x0e), 1)
      if mode > 5 then return nil end
      f.name, f.delivery = "data", DELIVERY[mode]
      f.compressed, f.fin = bit32.band(ty, 0x10) ~= 0, bit32.band(ty, 0x20) ~= 0
      local p = at + 1
      if p + 1 > stop then return nil end
      f.sequence = be16(bytes, p)
      p = p + 2
      f.chunk = 0
      if bit32.band(ty, 0x01) ~= 0 then
        if p > stop then return nil end
        f.chunk = b(bytes, p)
        p = p + 1
      end
      if p > stop then return nil end
      local len = b(bytes, p)
      if len >= 0x80 then
        if p + 1 > stop then return nil end
        len = be16(bytes, p) - 0x8000
        p = p + 2
      else
        p = p + 1
      end
      if f.chunk == 0 and mode >= 2 and mode <= 4 then
        if p + 1 > stop then return nil end
        f.index = be16(bytes, p)
        p = p + 2
        if mode == 3 then
          if p + 1 > stop then return nil end
          f.after = be16(bytes, p)
          p = p + 2
        end
      end
      if p + len - 1 > stop then return nil end
      f.data_at, f.data_len = p, len
      f.len = p + len - at
    else
      return nil
    end
    list[#list + 1] = f
    at = at + f.len
  end
  return list
end

local function extended(info, c, to_server, bytes)
  c.connected = true
  local list, crc
  if c.crc ~= true then list = frames(info, c, to_server, bytes, #bytes) end
  if not list and #bytes >= 6 then
    list = frames(info, c, to_server, bytes, #bytes - 4)
    crc = list and be32(bytes, #bytes - 3)
  end
  if not list then
    info.error = "an extended datagram whose frames do not parse"
    return
  end
  info.frames, info.crc = list, crc
  for _, f in ipairs(list) do
    if f.name == "data" then
      chunk(info, c, to_server, f.sequence, f.chunk, f.fin,
        bytes:sub(f.data_at, f.data_at + f.data_len - 1), f.delivery, f.compressed)
    elseif f.name == "close" then
      info.notes[#info.notes + 1] = "the connection ends"
    end
  end
end

local function negotiation(info, c, bytes)
  local kind = b(bytes, 8)
  info.negotiation = {
    version = b(bytes, 7), kind = kind == 1 and "offer" or (kind == 2 and "accept" or "unknown"),
    features = be16(bytes, 9), size = be16(bytes, 11), crc = be32(bytes, #bytes - 3),
    header = { flags = b(bytes, 1), chunk = b(bytes, 2), sequence = be16(bytes, 3) },
  }
  if kind == 2 then c.crc = bit32.band(be16(bytes, 9), 0x0004) ~= 0 end
end

-- netcode 1.02: the prefix byte's low nibble is the type, its high one the sequence's length.
local function netcode_shape(bytes)
  local prefix = b(bytes, 1)
  if prefix == 0 then
    return #bytes == 1078 and bytes:sub(2, 14) == "NETCODE 1.02\0"
  end
  local ty, n = prefix % 16, math.floor(prefix / 16)
  return ty >= 1 and ty <= 6 and n >= 1 and n <= 8 and #bytes >= 1 + n + 16
end

local function classify(bytes, pinfo, to_server)
  local info = { notes = {}, messages = {}, number = pinfo.number }
  local c = conv(pinfo, to_server)
  if #bytes >= 18 and netcode_shape(bytes) then
    info.netcode = true
  elseif #bytes == 4 then
    four_bytes(info, c, to_server, bytes)
  elseif #bytes >= 16 and b(bytes, 1) == 0x06 and b(bytes, 2) == 0xff and bytes:sub(5, 6) == "NX" then
    negotiation(info, c, bytes)
  elseif #bytes >= 5 and b(bytes, 1) == 0xe2 then
    extended(info, c, to_server, bytes)
  elseif #bytes > 4 then
    spec_packet(info, c, to_server, bytes)
  else
    info.error = "a datagram of " .. #bytes .. " bytes, shorter than a header"
  end
  return info
end

local function add_header(tree, tvb, h)
  local ft = tree:add(pf.flags, tvb(0, 1))
  ft:add(pf.rel, tvb(0, 1))
  ft:add(pf.ack, tvb(0, 1))
  ft:add(pf.fin, tvb(0, 1))
  ft:add(pf.fin_end, tvb(0, 1))
  ft:add(pf.reserved, tvb(0, 1))
  tree:add(pf.chunk, tvb(1, 1))
  tree:add(pf.sequence, tvb(2, 2))
end

local function flag_names(flags)
  local names = {}
  for _, f in ipairs({ { 1, "REL" }, { 2, "ACK" }, { 4, "FIN" }, { 8, "END" } }) do
    if bit32.band(flags, f[1]) ~= 0 then names[#names + 1] = f[2] end
  end
  return table.concat(names, "|")
end

local function bit_range(tvb, node)
  local from = math.floor(node.from / 8)
  local to = math.ceil(node.to / 8)
  if to > tvb:len() then to = tvb:len() end
  if from >= tvb:len() or to <= from then return nil end
  return tvb(from, to - from)
end

-- One node of a decoded value in the tree: `label: json` for a value, `label` above its parts.
local function add_value(tree, tvb, node, label, field)
  local text = json(node)
  local rng = tvb and bit_range(tvb, node)
  local item
  if rng then item = tree:add(field, rng, text) else item = tree:add(field, text) end
  if node.j then
    item:set_text(label .. ": " .. node.j)
    return
  end
  item:set_text(label)
  if node.names then
    for i, name in ipairs(node.names) do
      add_value(item, tvb, node.items[i], name, node.fields[i] or pf.value)
    end
  else
    for i, child in ipairs(node.items) do
      add_value(item, tvb, child, "[" .. (i - 1) .. "]", pf.item)
    end
  end
end

-- Snow Fight's snapshot delta (`hopnet_snow_fight::delta`): a `ServerMessage::Response` whose
-- `ResponseKind` index is 3, which the spec leaves unused; its header, or nil.
local function delta_header(bytes)
  local ok, h = pcall(function()
    local r = reader(bytes)
    if bits(r, 1) ~= 1 then return nil end
    local channel = varint_raw(r, 4)
    if bits(r, 2) ~= 3 then return nil end
    local time = varint_raw(r, 4)
    local since = varint_raw(r, 4)
    return { channel = channel, time = time, base = (time - since) % 2 ^ 32, after = r.pos }
  end)
  if ok then return h end
  return nil
end

-- The snapshots each flow (server to one client) carried, by tick: a delta is decoded
-- against the one its client was sent, as `rabbit-msg pcap` does, bounded both ways (ticks per
-- flow, and flows) so that a hostile capture cannot grow it. Built in the first pass, in
-- capture order; each delta keeps what it decoded, so a second pass (`-2`) or a frame looked
-- at again shows the same.
local TICKS_PER_FLOW, FLOWS = 256, 1024

local function baseline(flow, tick)
  local f = baselines.flows[flow]
  return f and f.ticks[tick]
end

local function keep(flow, time, node)
  local all = baselines
  all.clock = all.clock + 1
  local f = all.flows[flow]
  if not f then
    if all.count >= FLOWS then
      -- The flow used longest ago gives way.
      local oldest, used
      for key, g in pairs(all.flows) do
        if not used or g.used < used then oldest, used = key, g.used end
      end
      all.flows[oldest] = nil
      all.count = all.count - 1
    end
    f = { ticks = {}, count = 0 }
    all.flows[flow] = f
    all.count = all.count + 1
  end
  f.used = all.clock
  if f.ticks[time] == nil then f.count = f.count + 1 end
  f.ticks[time] = node
  -- Ticks wrap: the ones furthest behind `time` (wrapping) give way first.
  while f.count > TICKS_PER_FLOW do
    local furthest, behind
    for tick in pairs(f.ticks) do
      local d = (time - tick) % 2 ^ 32
      if not behind or d > behind then furthest, behind = tick, d end
    end
    f.ticks[furthest] = nil
    f.count = f.count - 1
  end
end

-- The tick and snapshot of a full snapshot event (`ServerMessage::Event` of kind `Snapshot`).
local function snapshot_event(node)
  if not node.names or node.names[1] ~= "Event" then return nil end
  local event = node.items[1]
  if not event.names then return nil end
  local time, kind
  for i, name in ipairs(event.names) do
    if name == "time" then time = event.items[i] elseif name == "kind" then kind = event.items[i] end
  end
  if not time or not kind or not kind.names or kind.names[1] ~= "Snapshot" then return nil end
  return time.raw, kind.items[1]
end

-- An address as Rust prints a socket address.
local function address(addr, port)
  local text = tostring(addr)
  if text:find(":") then text = "[" .. text .. "]" end
  return text .. ":" .. port
end

-- A delta's snapshot: after the header's bits, the `Snapshot`'s generated delta reader.
local function read_delta(base)
  return function(r)
    bits(r, 1)
    varint_raw(r, 4)
    bits(r, 2)
    varint_raw(r, 4)
    varint_raw(r, 4)
    local read = D["Snapshot"]
    if not read then fail(r, "the schema has no delta reader for Snapshot") end
    return read(r, base)
  end
end

-- A scoped update (`hopnet_snow_fight::scoped`): a delta's header whose baseline is its own
-- tick, which no delta has, then the update's bytes (a `Vec<u8>`); what they hold is the
-- game's. Its length, or the error that kept it from being read (`h`: its header, read).
local function scoped_update(bytes, h)
  local ok, len = pcall(decode, bytes, function(r)
    r.pos = h.after
    local n = varint_raw(r, 4)
    if n * 8 > r.len - r.pos then fail(r, "the message ends early") end
    r.pos = r.pos + n * 8
    return n
  end)
  if ok then return len end
  return nil, "cannot decode: " .. (type(len) == "table" and len.msg or tostring(len))
end

-- A message of the server's, in capture order (the first pass only): a full snapshot is kept
-- as its flow's baseline of its tick; a delta is decoded against its flow's baseline, and
-- what it decoded is kept too (a decoded delta is a snapshot); a scoped update needs none.
local function follow(m, pinfo)
  local h = delta_header(m.bytes)
  if h and h.base == h.time then
    local len, why = scoped_update(m.bytes, h)
    m.delta = { header = h, scoped = true, update_bytes = len, error = why }
    return
  end
  if not h then
    local read = READERS[MESSAGES.to_client]
    if not read then return end
    local ok, node = pcall(decode, m.bytes, read)
    if not ok then return end
    local time, snapshot = snapshot_event(node)
    if time then keep(m.flow, time, snapshot) end
    return
  end
  local d = { header = h }
  m.delta = d
  local base = baseline(m.flow, h.base)
  if not base then
    d.error = "cannot decode: the baseline, the snapshot of tick " .. decimal(h.base) .. " sent to " ..
      address(pinfo.dst, pinfo.dst_port) .. ", is not in the capture"
    return
  end
  local ok, node = pcall(decode, m.bytes, read_delta(base))
  if not ok then
    d.error = "cannot decode: " .. (type(node) == "table" and node.msg or tostring(node))
    return
  end
  if nonfinite(node) then
    d.error = "the snapshot holds a NaN or infinite float, which JSON cannot express"
    return
  end
  d.snapshot = node
  keep(m.flow, h.time, node)
end

-- A delta's header, and its snapshot as `rabbit-msg pcap` prints it (the value's JSON and
-- its tree, whose nodes are not tied to bytes: most of them are the baseline's), or the error
-- that kept it from being decoded.
local function add_scoped(mt, d)
  local h = d.header
  mt:add(pf.message_type, "ScopedUpdate")
  mt:add(pf.delta_channel, h.channel)
  mt:add(pf.delta_time, h.time)
  local summary = "ScopedUpdate time " .. decimal(h.time)
  local value = object(nil)
  member(value, "channel", leaf(decimal(h.channel)))
  member(value, "time", leaf(decimal(h.time)))
  if not d.update_bytes then
    mt:add(pf.error, d.error)
    mt:add_expert_info(PI_MALFORMED, PI_WARN, d.error)
    return summary .. " (cannot decode)"
  end
  mt:add(pf.scoped_update_bytes, d.update_bytes)
  member(value, "update_bytes", leaf(decimal(d.update_bytes)))
  mt:add(pf.json, json(value))
  return summary .. ", " .. decimal(d.update_bytes) .. " bytes of update"
end

local function add_delta(mt, d)
  local h = d.header
  if d.scoped then return add_scoped(mt, d) end
  mt:add(pf.message_type, "SnapshotDelta")
  mt:add(pf.delta_channel, h.channel)
  mt:add(pf.delta_time, h.time)
  mt:add(pf.delta_base, h.base)
  local summary = "SnapshotDelta time " .. decimal(h.time) .. " base " .. decimal(h.base)
  if not d.snapshot then
    mt:add(pf.error, d.error)
    mt:add_expert_info(PI_UNDECODED, PI_WARN, d.error)
    return summary .. " (cannot decode)"
  end
  local value = object(nil)
  member(value, "channel", leaf(decimal(h.channel)), pf.delta_value_channel)
  member(value, "time", leaf(decimal(h.time)), pf.delta_value_time)
  member(value, "base", leaf(decimal(h.base)), pf.delta_value_base)
  member(value, "snapshot", d.snapshot, pf.delta_value_snapshot)
  mt:add(pf.json, json(value))
  add_value(mt, nil, value, "SnapshotDelta", pf.value)
  return summary
end

local function add_message(tree, m)
  local name = m.to_server and MESSAGES.to_server or MESSAGES.to_client
  local delta = m.delta
  -- A delta is shown as `rabbit-msg pcap` types it.
  local shown = delta and (delta.scoped and "ScopedUpdate" or "SnapshotDelta") or name
  local mt = tree:add(pf.message, shown)
  mt:set_text(shown .. ", message " .. m.sequence .. " (" .. m.chunks .. " chunk" ..
    (m.chunks == 1 and "" or "s") .. ", " .. #m.bytes .. " bytes, " .. (m.delivery or "?") .. ")")
  if not delta then mt:add(pf.message_type, name) end
  mt:add(pf.message_sequence, m.sequence)
  mt:add(pf.message_chunks, m.chunks)
  if m.chunks > 1 then
    local frames = {}
    for i, n in ipairs(m.frames) do frames[i] = tostring(n) end
    mt:add(pf.message_frames, table.concat(frames, ", "))
  end
  mt:add(pf.message_length, #m.bytes)
  if m.delivery then mt:add(pf.message_delivery, m.delivery) end
  if m.compressed then
    mt:add(pf.error, "LZ4-compressed: not decoded here (rabbit-msg pcap decodes it)")
    return name .. " (compressed)"
  end
  if delta then return add_delta(mt, delta) end
  local read = READERS[name]
  if not read then return name end
  local ok, node = pcall(decode, m.bytes, read)
  if not ok then
    local why = type(node) == "table" and node.msg or tostring(node)
    mt:add(pf.error, "cannot decode: " .. why)
    return name .. " (cannot decode)"
  end
  local tvb = ByteArray.new(m.bytes, true):tvb(name)
  if nonfinite(node) then
    mt:add(pf.error, "the message holds a NaN or infinite float, which JSON cannot express")
  else
    mt:add(pf.json, json(node))
  end
  add_value(mt, tvb, node, name, pf.value)
  local summary = node.j or (node.names and node.names[1]) or name
  return name .. " " .. summary
end

-- A GSO batch captured on the sender's loopback is one datagram to the capture (the kernel
-- splits it on the receiving side): it is read whole when it is one datagram of hopnet's shape
-- whose whole message (if any) decodes, else split at the smallest segment size at which every
-- segment is one (PROTOCOL.md, "Reading the wire from outside").
local function spec_packet_ok(seg, to_server)
  local n = #seg
  if n < 4 or n > 508 or bit32.band(b(seg, 1), 0xf0) ~= 0 then return false end
  local flags, chunk_index = b(seg, 1), b(seg, 2)
  if bit32.band(flags, 0x0a) ~= 0 then return n == 4 end
  if bit32.band(flags, 0x04) == 0 then return n == 508 end
  if chunk_index ~= 0 then return true end
  -- A delta's end cannot be told without its baseline: its header is taken for the message.
  if SNAPSHOT_DELTAS and not to_server and delta_header(seg:sub(5)) then return true end
  local read = READERS[to_server and MESSAGES.to_server or MESSAGES.to_client]
  return read == nil or (pcall(decode, seg:sub(5), read))
end

local function extended_parses(seg)
  if #seg < 5 or b(seg, 1) ~= 0xe2 then return false end
  return frames(nil, nil, nil, seg, #seg) ~= nil or (#seg >= 6 and frames(nil, nil, nil, seg, #seg - 4) ~= nil)
end

local function split(bytes, min, valid)
  for size = min, #bytes - 1 do
    local segs, ok = {}, true
    for at = 1, #bytes, size do
      local seg = bytes:sub(at, at + size - 1)
      if not valid(seg) then
        ok = false
        break
      end
      segs[#segs + 1] = { at = at, bytes = seg }
    end
    if ok and #segs >= 2 then return segs end
  end
  return nil
end

local function segments(bytes, to_server)
  local whole = { { at = 1, bytes = bytes } }
  local negotiation_shape = #bytes >= 16 and b(bytes, 1) == 0x06 and b(bytes, 2) == 0xff and bytes:sub(5, 6) == "NX"
  if #bytes < 8 or netcode_shape(bytes) or negotiation_shape then return whole end
  if b(bytes, 1) == 0xe2 then
    if extended_parses(bytes) then return whole end
    return split(bytes, 5, function(seg) return b(seg, 1) == 0xe2 and extended_parses(seg) end) or whole
  end
  if spec_packet_ok(bytes, to_server) then return whole end
  local first = be16(bytes, 3)
  return split(bytes, 4, function(seg)
    if not spec_packet_ok(seg, to_server) then return false end
    local d = (be16(seg, 3) - first) % 65536
    return d < 64 or d > 65536 - 64
  end) or whole
end

local function render(t, tvb, bytes, info, summary)
  if info.netcode then
    local prefix = b(bytes, 1)
    local ty = prefix % 16
    t:add(pf.kind, tvb(0, 1), "netcode")
    t:add(pf.nc_type, tvb(0, 1), NETCODE[ty])
    summary[#summary + 1] = "netcode " .. NETCODE[ty]
    if prefix == 0 then
      t:add(pf.nc_version, tvb(1, 13), "NETCODE 1.02")
      t:add_le(pf.nc_protocol, tvb(14, 8))
      t:add_le(pf.nc_expire, tvb(22, 8))
      t:add(pf.nc_nonce, tvb(30, 24))
      t:add(pf.nc_encrypted, tvb(54))
    else
      local n = math.floor(prefix / 16)
      t:add_le(pf.nc_sequence, tvb(1, n))
      t:add(pf.nc_encrypted, tvb(1 + n))
      summary[#summary + 1] = "(encrypted)"
    end
  elseif info.handshake then
    t:add(pf.kind, tvb(0, 4), "handshake")
    t:add(pf.handshake, tvb(0, 4), info.handshake.name)
    t:add(pf.handshake_value, tvb(0, 4))
    summary[#summary + 1] = info.handshake.name
  elseif info.negotiation then
    local n = info.negotiation
    t:add(pf.kind, tvb(0, 1), "negotiation")
    add_header(t, tvb, n.header)
    t:add(pf.nx_version, tvb(6, 1))
    t:add(pf.nx_kind, tvb(7, 1), n.kind)
    t:add(pf.nx_features, tvb(8, 2))
    t:add(pf.nx_size, tvb(10, 2))
    t:add(pf.crc, tvb(tvb:len() - 4, 4))
    summary[#summary + 1] = "extensions " .. n.kind
  elseif info.frames then
    t:add(pf.kind, tvb(0, 1), "extended")
    for _, f in ipairs(info.frames) do
      local ft = t:add(pf.frame, tvb(f.at - 1, f.len), f.name)
      ft:add(pf.frame_type, tvb(f.at - 1, 1))
      if f.name == "ACK" then
        ft:add(pf.ack_delay, tvb(f.at, 2))
        ft:add(pf.ack_count, tvb(f.at + 2, 1))
        for i, r in ipairs(f.ranges) do ft:add(pf.ack_range, tvb(f.at + 3 + 6 * (i - 1), 6), r) end
        summary[#summary + 1] = "ACK"
      elseif f.name == "data" then
        ft:set_text("data: message " .. f.sequence .. ", chunk " .. f.chunk ..
          (f.fin and " (last)" or "") .. ", " .. f.delivery)
        ft:add(pf.delivery, tvb(f.at - 1, 1), f.delivery)
        ft:add(pf.compressed, tvb(f.at - 1, 1), f.compressed)
        ft:add(pf.frame_fin, tvb(f.at - 1, 1), f.fin)
        ft:add(pf.sequence, tvb(f.at, 2))
        ft:add(pf.chunk, f.chunk)
        ft:add(pf.frame_len, f.data_len)
        if f.index then ft:add(pf.index, f.index) end
        if f.after then ft:add(pf.after, f.after) end
        if f.data_len > 0 then ft:add(pf.data, tvb(f.data_at - 1, f.data_len)) end
      else
        summary[#summary + 1] = f.name
      end
    end
    if info.crc then t:add(pf.crc, tvb(tvb:len() - 4, 4)) end
  elseif info.header then
    local h = info.header
    t:add(pf.kind, tvb(0, 1), "packet")
    add_header(t, tvb, h)
    summary[#summary + 1] = "[" .. flag_names(h.flags) .. "] chunk " .. h.chunk .. " of " .. h.sequence
    if tvb:len() > 4 and bit32.band(h.flags, 0x02) == 0 then t:add(pf.data, tvb(4)) end
  end
  for _, note in ipairs(info.notes) do t:add_expert_info(PI_SEQUENCE, PI_NOTE, note) end
  if info.error then
    t:add(pf.error, info.error)
    summary[#summary + 1] = info.error
  end
  for _, m in ipairs(info.messages) do summary[#summary + 1] = add_message(t, m) end
end

local function dissect(tvb, pinfo, tree, to_server)
  local bytes = tvb:raw()
  local infos = seen[pinfo.number]
  if not infos then
    infos = {}
    for _, seg in ipairs(segments(bytes, to_server)) do
      local info = classify(seg.bytes, pinfo, to_server)
      info.at, info.bytes = seg.at, seg.bytes
      infos[#infos + 1] = info
      for _, m in ipairs(info.messages) do
        if SNAPSHOT_DELTAS and not m.to_server and not m.compressed then follow(m, pinfo) end
      end
    end
    seen[pinfo.number] = infos
  end
  pinfo.cols.protocol = "hopnet"
  local t = tree:add(hopnet, tvb(), "hopnet (" .. (to_server and "to the server" or "to the client") .. ")")
  local summary = {}
  if #infos == 1 then
    render(t, tvb, bytes, infos[1], summary)
  else
    t:add(pf.batch, #infos)
    for i, info in ipairs(infos) do
      local rng = tvb(info.at - 1, #info.bytes)
      local st = t:add(pf.segment, rng, i)
      st:set_text("datagram " .. i .. " of " .. #infos .. " (" .. #info.bytes .. " bytes)")
      render(st, rng:tvb(), info.bytes, info, summary)
    end
  end
  pinfo.cols.info = table.concat(summary, "; ")
end

function hopnet.dissector(tvb, pinfo, tree)
  local to_server = PORT_SET[pinfo.dst_port] == true
  dissect(tvb, pinfo, tree, to_server)
end

local udp = DissectorTable.get("udp.port")
for _, port in ipairs(PORTS) do udp:add(port, hopnet) end
