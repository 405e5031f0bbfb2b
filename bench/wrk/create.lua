-- wrk script: durable pod creates with unique names (a counter per wrk
-- thread; "tid" is set in each thread's state by setup()).
local counter = 0
local next_tid = 0

function setup(thread)
  next_tid = next_tid + 1
  thread:set("tid", next_tid)
end

function init(args)
  wrk.headers["Content-Type"] = "application/json"
end

request = function()
  counter = counter + 1
  local name = string.format("w-%d-%d", tid, counter)
  local body = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"' .. name ..
    '","labels":{"app":"wrk"}},"spec":{"schedulerName":"api-bench","containers":[{"name":"c","image":"busybox:1.36"}]}}'
  return wrk.format("POST", "/api/v1/namespaces/default/pods", nil, body)
end

response = function(status, headers, body)
  if status ~= 201 then
    print("create failed: HTTP " .. status .. " " .. body)
    wrk.thread:stop()
  end
end
