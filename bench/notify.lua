-- wrk script: POST /v1/notify with a fresh event_id per request (so dedup
-- never short-circuits), one APNs and one FCM recipient, like the seed event.
-- Kept cheap: wrk shares the cores with the gateway and the simulators, so
-- every microsecond spent here is taken from what is measured. There is no
-- `response` callback (with one, wrk parses every answer in Lua); wrk still
-- counts non-2xx answers, and the benchmark prints events by outcome.
local counter = 0
local token = os.getenv("PUSHGW_TOKEN")
-- PUSHGW_PATH=/v1/notify?mode=async queues each event (202) instead.
local path = os.getenv("PUSHGW_PATH") or "/v1/notify"
local platforms = os.getenv("PUSHGW_PLATFORMS") or "apns,fcm"
local withAPNs = string.find(platforms, "apns") ~= nil
local withFCM = string.find(platforms, "fcm") ~= nil

-- Every thread of every run gets its own event_id prefix: wrk seeds each
-- thread's math.random alike, so random ids alone repeat across threads and
-- runs (and then answer as duplicates instead of sending).
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("thread_number", threads)
end

local head, middle, tail, headers
function init(args)
  local urandom = io.open("/dev/urandom", "rb")
  local bytes = urandom:read(8)
  urandom:close()
  local prefix = string.format("bench-%s-%d", (bytes:gsub(".", function(c) return string.format("%02x", c:byte()) end)),
    thread_number or 0)
  head = '{"event_id":"' .. prefix .. '-'
  middle = '","conversation":{"id":"37791233165968","title":"🎧 Zalo - Tran Nghia"},' ..
    '"message":{"id":"537","text":"","kind":"video"},' ..
    '"sender":{"id":"6872016393687471","display_name":"Nghĩa"},"recipients":['
  tail = ']}'
  headers = {["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json"}
end

local apnsFormat = '{"platform":"apns","token":"%064x","badge":3,"locale":"vi"}'
local fcmFormat = '{"platform":"fcm","token":"bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1-%d","badge":3,"locale":"vi"}'

request = function()
  counter = counter + 1
  local recipients
  if withAPNs and withFCM then
    recipients = string.format(apnsFormat, counter) .. "," .. string.format(fcmFormat, counter)
  elseif withAPNs then
    recipients = string.format(apnsFormat, counter)
  else
    recipients = string.format(fcmFormat, counter)
  end
  return wrk.format("POST", path, headers, head .. counter .. middle .. recipients .. tail)
end
