-- Rabbit's bit reading and the values it gives, in the canonical JSON form `rabbit-msg decode`
-- prints. Every value is a node: a leaf `{j = json text}` or an object or array of nodes, each
-- with the bits it came from (`from`, `to`), so that the tree can point at its bytes.

local floor, frexp, ldexp = math.floor, math.frexp, math.ldexp
local inf = 1 / 0

-- A reader over a Lua string of bytes, least significant bit first.
local function reader(bytes)
  return { bytes = bytes, pos = 0, len = #bytes * 8 }
end

local function fail(r, why)
  error({ rabbit = true, msg = why .. " (at bit " .. r.pos .. ")" }, 0)
end

-- `n` plain bits (at most 32) as a number.
local function bits(r, n)
  if r.pos + n > r.len then fail(r, "the message ends early") end
  local v, place = 0, 1
  local pos = r.pos
  local i = 0
  while i < n do
    local byte = r.bytes:byte(floor(pos / 8) + 1)
    local shift = pos % 8
    local take = math.min(8 - shift, n - i)
    local part = floor(byte / 2 ^ shift) % 2 ^ take
    v = v + part * place
    place = place * 2 ^ take
    pos = pos + take
    i = i + take
  end
  r.pos = pos
  return v
end

-- Up to 64 plain bits: a number below 2^53, else a UInt64.
local function wide_bits(r, n)
  if n <= 32 then return bits(r, n) end
  local lo = bits(r, 32)
  local hi = bits(r, n - 32)
  if hi < 2 ^ 21 then return lo + hi * 2 ^ 32 end
  return UInt64.new(lo, hi)
end

local function decimal(v)
  if type(v) == "number" then return string.format("%.0f", v) end
  return tostring(v)
end

local function leaf(j, raw, from, to)
  return { j = j, raw = raw, from = from, to = to }
end

-- The spec's variable-length integer of a `size`-byte type: the byte count less one in `k`
-- bits, then that many bytes, least significant first; the shortest form only.
local PREFIX = { [1] = 0, [2] = 1, [4] = 2, [8] = 3 }
local function varint_raw(r, size)
  local k = PREFIX[size]
  local m = (k > 0 and bits(r, k) or 0) + 1
  local bytes = {}
  for i = 1, m do bytes[i] = bits(r, 8) end
  if m > 1 and bytes[m] == 0 then fail(r, "a varint longer than it needs to be") end
  if m <= 6 then
    local v = 0
    for i = m, 1, -1 do v = v * 256 + bytes[i] end
    return v
  end
  local lo, hi = 0, 0
  for i = 4, 1, -1 do lo = lo * 256 + bytes[i] end
  for i = m, 5, -1 do hi = hi * 256 + bytes[i] end
  if hi < 2 ^ 21 then return lo + hi * 2 ^ 32 end
  return UInt64.new(lo, hi)
end

local function unzigzag(v)
  if type(v) == "number" then
    if v % 2 == 0 then return v / 2 end
    return -(v + 1) / 2
  end
  local half = v:rshift(1)
  if v:lower() % 2 == 0 then return half end
  return "-" .. tostring(half + 1)
end

local function varint(r, size, zigzag)
  local from = r.pos
  local v = varint_raw(r, size)
  if zigzag then v = unzigzag(v) end
  return leaf(decimal(v), v, from, r.pos)
end

local function uint(r, n)
  local from = r.pos
  local v = wide_bits(r, n)
  return leaf(decimal(v), v, from, r.pos)
end

-- `n`-bit two's complement.
local function sint(r, n)
  local from = r.pos
  local v = wide_bits(r, n)
  if type(v) == "number" then
    if v >= 2 ^ (n - 1) then v = v - 2 ^ n end
    return leaf(decimal(v), v, from, r.pos)
  end
  if n == 64 and v:higher() >= 2 ^ 31 then
    local neg = (v:bnot() + 1)
    return leaf("-" .. tostring(neg), nil, from, r.pos)
  end
  return leaf(tostring(v), nil, from, r.pos)
end

local function range(r, min, n)
  local from = r.pos
  local v = min + wide_bits(r, n)
  return leaf(decimal(v), v, from, r.pos)
end

local function boolean(r)
  local from = r.pos
  local v = bits(r, 1) == 1
  return leaf(tostring(v), v, from, r.pos)
end

-- The nearest f32 to a double, ties to even.
local function to_f32(y)
  if y ~= y or y == 0 or y == inf or y == -inf then return y end
  local a = math.abs(y)
  local m, e = frexp(a)
  local keep = 24
  if e - 1 < -126 then keep = 24 - (-126 - (e - 1)) end
  local scaled = ldexp(m, keep)
  local whole = floor(scaled)
  local frac = scaled - whole
  if frac > 0.5 or (frac == 0.5 and whole % 2 == 1) then whole = whole + 1 end
  local out = ldexp(whole, e - keep)
  if out >= 2 ^ 128 then out = inf end
  if y < 0 then return -out end
  return out
end

-- The shortest decimal that reads back as `v`, laid out as serde_json lays it out: `1.0`,
-- `0.001`, `1e-7`, `1.5e+20`. `small`/`large`: where the exponent form begins
-- (f32: 10^-6, 10^13; f64: 10^-5, 10^16).
local function shortest(v, same, small, large)
  if v == 0 then
    if 1 / v < 0 then return "-0.0" end
    return "0.0"
  end
  local sign = ""
  if v < 0 then sign, v = "-", -v end
  local text
  for p = 1, 17 do
    text = string.format("%." .. (p - 1) .. "e", v)
    if same(tonumber(text), v) then break end
  end
  local mantissa, exp = text:match("^([%d.]+)e([-+]%d+)$")
  local digits = mantissa:gsub("%.", ""):gsub("0+$", "")
  if digits == "" then digits = "0" end
  local length = #digits
  local kk = tonumber(exp) + 1
  local k = kk - length
  local out
  if k >= 0 and kk <= large then
    out = digits .. string.rep("0", k) .. ".0"
  elseif kk > 0 and kk <= large then
    out = digits:sub(1, kk) .. "." .. digits:sub(kk + 1)
  elseif kk > small and kk <= 0 then
    out = "0." .. string.rep("0", -kk) .. digits
  else
    local e = kk - 1
    local exponent = (e < 0 and "e" or "e+") .. e
    if length == 1 then
      out = digits .. exponent
    else
      out = digits:sub(1, 1) .. "." .. digits:sub(2) .. exponent
    end
  end
  return sign .. out
end

local function same32(x, v) return to_f32(x) == v end
local function same64(x, v) return x == v end

local function float_leaf(v, json, from, to)
  if v ~= v or v == inf or v == -inf then
    local n = leaf(v ~= v and "NaN" or (v > 0 and "inf" or "-inf"), v, from, to)
    n.nonfinite = true
    return n
  end
  return leaf(json, v, from, to)
end

-- An IEEE-754 float from its bits, `lo` (and `hi`, an f64's upper half): its mantissa,
-- exponent and sign fields follow one another from the least significant bit. The node keeps
-- the bits, which a delta's XOR changes.
local function float_bits(lo, hi, wide, from, to)
  local m, e, negative, man_bits, exp_bits, same, small, large
  if wide then
    m = lo + (hi % 2 ^ 20) * 2 ^ 32
    e = floor(hi / 2 ^ 20) % 2 ^ 11
    negative = hi >= 2 ^ 31
    man_bits, exp_bits, same, small, large = 52, 11, same64, -5, 16
  else
    m = lo % 2 ^ 23
    e = floor(lo / 2 ^ 23) % 2 ^ 8
    negative = lo >= 2 ^ 31
    man_bits, exp_bits, same, small, large = 23, 8, same32, -6, 13
  end
  local bias = 2 ^ (exp_bits - 1) - 1
  local v
  if e == 2 ^ exp_bits - 1 then
    v = (m == 0) and inf or (0 / 0)
  elseif e == 0 then
    v = ldexp(m, 1 - bias - man_bits)
  else
    v = ldexp(m + 2 ^ man_bits, e - bias - man_bits)
  end
  if negative then v = -v end
  local n = float_leaf(v, v == v and shortest(v, same, small, large), from, to)
  n.lo, n.hi = lo, hi
  return n
end

local function f32(r)
  local from = r.pos
  return float_bits(bits(r, 32), 0, false, from, r.pos)
end

local function f64(r)
  local from = r.pos
  local lo = bits(r, 32)
  return float_bits(lo, bits(r, 32), true, from, r.pos)
end

-- serde_json's string escapes.
local ESCAPES = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f',
  ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
local function quote(s)
  return '"' .. s:gsub('[%z\1-\31"\\]', function(c)
    return ESCAPES[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function valid_utf8(s)
  local i, n = 1, #s
  while i <= n do
    local c = s:byte(i)
    local extra, min
    if c < 0x80 then extra, min = 0, 0
    elseif c >= 0xc2 and c < 0xe0 then extra, min = 1, 0x80
    elseif c >= 0xe0 and c < 0xf0 then extra, min = 2, 0x800
    elseif c >= 0xf0 and c < 0xf5 then extra, min = 3, 0x10000
    else return false end
    local v = c % 2 ^ (6 - extra + (extra == 0 and 1 or 0))
    for j = 1, extra do
      local cc = s:byte(i + j)
      if not cc or cc < 0x80 or cc >= 0xc0 then return false end
      v = v * 64 + cc % 64
    end
    if v < min or v > 0x10ffff or (v >= 0xd800 and v < 0xe000) then return false end
    i = i + extra + 1
  end
  return true
end

-- A list's count, checked against the bits left (as the Rust decoder checks it), and its
-- `max_len`.
local function count(r, item_min_bits, max_len)
  local n = varint_raw(r, 4)
  if max_len and n > max_len then fail(r, "a list of " .. n .. " items, more than its " .. max_len) end
  if item_min_bits > 0 and n * item_min_bits > r.len - r.pos then
    fail(r, "a count of " .. n .. " that the rest of the message cannot hold")
  end
  if item_min_bits == 0 and n > 65536 then fail(r, "a count of " .. n .. " empty items") end
  return n
end

local function str(r, max_len)
  local from = r.pos
  local n = count(r, 8, max_len)
  local chars = {}
  for i = 1, n do chars[i] = string.char(bits(r, 8)) end
  local s = table.concat(chars)
  if not valid_utf8(s) then fail(r, "a string that is not UTF-8") end
  return leaf(quote(s), s, from, r.pos)
end

local function object(from)
  return { names = {}, items = {}, fields = {}, from = from }
end

local function member(o, name, node, field)
  o.names[#o.names + 1] = name
  o.items[#o.items + 1] = node
  o.fields[#o.fields + 1] = field or false
end

local function array(from)
  return { items = {}, from = from }
end

local function list(r, item_min_bits, max_len, item)
  local a = array(r.pos)
  local n = count(r, item_min_bits, max_len)
  for i = 1, n do a.items[i] = item(r) end
  a.to = r.pos
  return a
end

local function fixed(r, n, item)
  local a = array(r.pos)
  for i = 1, n do a.items[i] = item(r) end
  a.to = r.pos
  return a
end

local function option(r, inner)
  local from = r.pos
  if bits(r, 1) == 0 then
    local n = leaf("null", nil, from, r.pos)
    n.none = true
    return n
  end
  local n = inner(r)
  n.from = from
  return n
end

local function null(r)
  return leaf("null", nil, r.pos, r.pos)
end

-- The JSON text of a node, as serde_json writes it.
local function json(node)
  if node.j then return node.j end
  local parts = {}
  if node.names then
    for i, name in ipairs(node.names) do
      parts[i] = quote(name) .. ":" .. json(node.items[i])
    end
    return "{" .. table.concat(parts, ",") .. "}"
  end
  for i, item in ipairs(node.items) do parts[i] = json(item) end
  return "[" .. table.concat(parts, ",") .. "]"
end

local function nonfinite(node)
  if node.j then return node.nonfinite end
  for _, item in ipairs(node.items) do
    if nonfinite(item) then return true end
  end
  return false
end

-- Decodes a whole message with `read`, which must take every bit but the zero padding.
local function decode(bytes, read)
  local r = reader(bytes)
  local node = read(r)
  local rest = r.len - r.pos
  if rest >= 8 then fail(r, "bytes after the message") end
  if rest > 0 and bits(r, rest) ~= 0 then fail(r, "padding bits that are not zero") end
  return node
end
