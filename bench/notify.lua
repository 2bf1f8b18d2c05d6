-- wrk script: POST /v1/notify with a fresh event_id per request (so dedup
-- never short-circuits), one APNs and one FCM recipient, like the seed event.
local counter = 0
local token = os.getenv("PUSHGW_TOKEN")
local platforms = os.getenv("PUSHGW_PLATFORMS") or "apns,fcm"

-- Every thread of every run gets its own event_id prefix: wrk seeds each
-- thread's math.random alike, so random ids alone repeat across threads and
-- runs (and then answer as duplicates instead of sending).
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("thread_number", threads)
end

local prefix
function init(args)
  local urandom = io.open("/dev/urandom", "rb")
  local bytes = urandom:read(8)
  urandom:close()
  prefix = string.format("bench-%s-%d", (bytes:gsub(".", function(c) return string.format("%02x", c:byte()) end)),
    thread_number or 0)
end

request = function()
  counter = counter + 1
  local id = string.format("%s-%d", prefix, counter)
  local recipients = {}
  if string.find(platforms, "apns") then
    table.insert(recipients, string.format('{"platform":"apns","token":"%064x","badge":3,"locale":"vi"}', counter))
  end
  if string.find(platforms, "fcm") then
    table.insert(recipients, string.format('{"platform":"fcm","token":"bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1-%d","badge":3,"locale":"vi"}', counter))
  end
  local body = '{"event_id":"' .. id .. '","conversation":{"id":"37791233165968","title":"🎧 Zalo - Tran Nghia"},' ..
    '"message":{"id":"537","text":"","kind":"video"},' ..
    '"sender":{"id":"6872016393687471","display_name":"Nghĩa"},' ..
    '"recipients":[' .. table.concat(recipients, ",") .. ']}'
  return wrk.format("POST", "/v1/notify", {["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json"}, body)
end

response = function(status, headers, body)
  if status ~= 200 and not warned then
    warned = true
    io.stderr:write("first non-200 answer: " .. status .. " " .. body .. "\n")
  end
end
