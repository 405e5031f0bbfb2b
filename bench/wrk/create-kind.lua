-- wrk script: durable creates with unique names of the kind named by the
-- environment: WRK_PATH (collection path), WRK_KIND, WRK_API (apiVersion),
-- WRK_BODY (the rest of the object after metadata, JSON), WRK_PREFIX (names:
-- PREFIX-THREAD-N, default "w"). A counter per wrk
-- thread ("tid" set in each thread's state by setup()).
local counter = 0
local next_tid = 0
local path = os.getenv("WRK_PATH")
local kind = os.getenv("WRK_KIND")
local api = os.getenv("WRK_API")
local rest = os.getenv("WRK_BODY")
local prefix = os.getenv("WRK_PREFIX") or "w"

function setup(thread)
  next_tid = next_tid + 1
  thread:set("tid", next_tid)
end

function init(args)
  wrk.headers["Content-Type"] = "application/json"
end

request = function()
  counter = counter + 1
  local name = string.format("%s-%d-%d", prefix, tid, counter)
  local body = '{"apiVersion":"' .. api .. '","kind":"' .. kind .. '","metadata":{"name":"' .. name ..
    '","labels":{"app":"wrk"}},' .. rest .. '}'
  return wrk.format("POST", path, nil, body)
end

response = function(status, headers, body)
  if status ~= 201 then
    print("create failed: HTTP " .. status .. " " .. body)
    wrk.thread:stop()
  end
end
