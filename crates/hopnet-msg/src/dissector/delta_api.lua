-- A game whose deltas travel in an envelope of its own reads them with its own post-dissector
-- (or script) through this global: the value of type `type_name` decoded from `delta` (a Lua
-- string of bytes: the whole message is the delta) against the value decoded whole from
-- `base`, as its JSON text; or nil and why not. Wireshark gives each script an environment of
-- its own, so it goes in `_G`, which they share.
_G.hopnet_delta_json = function(type_name, base, delta)
  local whole, read = R[type_name], D[type_name]
  if not whole or not read then return nil, type_name .. " has no delta reader" end
  local ok, node = pcall(decode, base, whole)
  if not ok then return nil, "the baseline: " .. (type(node) == "table" and node.msg or tostring(node)) end
  local ok2, value = pcall(decode, delta, function(r) return read(r, node) end)
  if not ok2 then return nil, "the delta: " .. (type(value) == "table" and value.msg or tostring(value)) end
  if nonfinite(value) then return nil, "a NaN or infinite float, which JSON cannot express" end
  return json(value)
end

