-- POST /v1/send as the SDK sends it, each request with its own idempotency key.
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("tag", "t" .. threads)
end

local counter = 0

request = function()
  counter = counter + 1
  local key = tag .. "-" .. counter
  local body = '{"template_id":"tpl_bench","template_params":{"bench_send_id":' .. counter ..
    ',"email":"jan@example.com","message":"Hello!"},"user_id":"pk_bench"}'
  return wrk.format("POST", "/v1/send", {
    ["Content-Type"] = "application/json",
    ["X-Frontmail-Public-Key"] = "pk_bench",
    ["X-Frontmail-Client"] = "frontmail-swift/wrk",
    ["Idempotency-Key"] = key,
  }, body)
end
