-- wrk script: POST /v1/render with the seed event.
local token = os.getenv("PUSHGW_TOKEN")
local file = io.open(os.getenv("PUSHGW_EVENT"), "rb")
local body = file:read("*a")
file:close()
wrk.method = "POST"
wrk.body = body
wrk.headers["Authorization"] = "Bearer " .. token
wrk.headers["Content-Type"] = "application/json"
