-- Rabbit's deltas (`hopnet_codec::delta`): a value read against a baseline, the node of the
-- same type decoded earlier. What did not change is the baseline's node itself, shared, so a
-- delta costs the memory of its changes only. Each reader below is one rule of the codec's
-- table; the generated `D[type]` (a delta) and `C[type]` (its changes after the changed bit)
-- call them.

local bxor = bit32.bxor

local function absent(r)
  local n = leaf("null", nil, r.pos, r.pos)
  n.none = true
  return n
end

-- The changed bit, then the changes, or the baseline as it was.
local function delta_bit(r, b, changes)
  if bits(r, 1) == 1 then return changes(r, b) end
  return b
end

-- A float's changes: the XOR of its bits with the baseline's, as its count of leading zero
-- bits (5 bits for an f32, 6 for an f64), then the bits below its highest set bit.
local function float_changes(r, b, wide)
  local from = r.pos
  if not b.lo then fail(r, "a float delta against a baseline that is not a float") end
  local zeros = bits(r, wide and 6 or 5)
  local below = (wide and 63 or 31) - zeros
  local lo, hi = 0, 0
  if below < 32 then
    lo = bits(r, below) + 2 ^ below
  else
    lo = bits(r, 32)
    hi = bits(r, below - 32) + 2 ^ (below - 32)
  end
  return float_bits(bxor(b.lo, lo), bxor(b.hi or 0, hi), wide, from, r.pos)
end
local function f32_changes(r, b) return float_changes(r, b, false) end
local function f64_changes(r, b) return float_changes(r, b, true) end

-- An option's changes: against `None`, the value whole; against `Some`, `1` and the value's
-- changes, or `0` for `None`.
local function option_changes(r, b, whole, changes)
  if b.none then return whole(r) end
  if bits(r, 1) == 1 then return changes(r, b) end
  return absent(r)
end

-- New items must fit in the bits left, as the Rust decoder checks before it allocates.
local function check_new(r, n, item_min_bits)
  if item_min_bits > 0 and n * item_min_bits > r.len - r.pos then
    fail(r, "a count of " .. n .. " new items that the rest of the message cannot hold")
  end
  if item_min_bits == 0 and n > 65536 then fail(r, "a count of " .. n .. " empty items") end
end

-- A list's changes: its new length, the delta of each item the baseline has at its position,
-- then the new items whole.
local function list_changes(r, b, item_min_bits, whole, delta)
  local a = array(r.pos)
  local n = varint_raw(r, 4)
  local have = #b.items
  if n > have then check_new(r, n - have, item_min_bits) end
  for i = 1, n do
    if i <= have then a.items[i] = delta(r, b.items[i]) else a.items[i] = whole(r) end
  end
  a.to = r.pos
  return a
end

-- An array's (or a tuple's) changes: every item's delta.
local function fixed_changes(r, b, n, delta)
  local a = array(r.pos)
  for i = 1, n do a.items[i] = delta(r, b.items[i]) end
  a.to = r.pos
  return a
end

-- Ascending positions as gaps from the one after the previous, each below `limit`.
local function positions(r, count, limit, why)
  local set, next = {}, 0
  for _ = 1, count do
    local at = next + varint_raw(r, 4)
    if at >= limit then fail(r, why) end
    set[at] = true
    next = at + 1
  end
  return set
end

-- A keyed list's changes (`hopnet_codec::delta::keyed`): whether anything came or went; the
-- baseline's positions that are gone; the new list's positions that are new; then every item,
-- a new one whole and a kept one as its delta against the baseline's kept items, in order.
local function keyed_changes(r, b, item_min_bits, whole, delta)
  local a = array(r.pos)
  local have = #b.items
  local edits = bits(r, 1) == 1
  local gone_count = edits and varint_raw(r, 4) or 0
  if gone_count > have then fail(r, "it removes more items than the baseline has") end
  local gone = positions(r, gone_count, have, "it removes an item the baseline does not have")
  local new_count = edits and varint_raw(r, 4) or 0
  -- Each new item takes its position's gap (a varint, at least 10 bits) and the item.
  check_new(r, new_count, 10 + item_min_bits)
  local len = have - gone_count + new_count
  local fresh = positions(r, new_count, len, "it places a new item past the end of the list")
  local kept = 1
  for at = 0, len - 1 do
    if fresh[at] then
      a.items[at + 1] = whole(r)
    else
      while gone[kept - 1] do kept = kept + 1 end
      if kept > have then fail(r, "the list holds more kept items than the baseline") end
      a.items[at + 1] = delta(r, b.items[kept])
      kept = kept + 1
    end
  end
  a.to = r.pos
  return a
end

-- An `if` field's delta: the changed bit, then the value if it changed and is present; the
-- baseline's only if its presence agrees with the condition on the fields decoded.
local function cond_delta(r, b, present, whole, label)
  if bits(r, 1) == 1 then
    if present then return whole(r) end
    return absent(r)
  end
  if present == (b.none == true) then
    fail(r, label .. ": the baseline's presence disagrees with its condition")
  end
  return b
end

local function cond_changes(r, present, whole)
  if present then return whole(r) end
  return absent(r)
end

local D = {}
local C = {}
