-- wrk script: etcd's own write rate through its JSON gateway, POST /v3/kv/put
-- of WRK_BODY (a PutRequest, keys and values base64) on every request.
local body = os.getenv("WRK_BODY")

function init(args)
  wrk.headers["Content-Type"] = "application/json"
end

request = function()
  return wrk.format("POST", "/v3/kv/put", nil, body)
end
