-- One benchmark arm for wrk (scripts/bench.sh): requests built from a file,
-- replies checked against the expected status, a JSON summary at the end.
--
--   wrk ... -s bench/wrk/arm.lua URL -- METHOD REQUEST_FILE EXPECT UNIQUE_PREFIX [ORDER]
--
-- REQUEST_FILE: "-" (no body) or one request per line, "HEADERS<TAB>BODY",
-- HEADERS being "" or "name: value|name: value" (a body is sent as
-- application/json unless HEADERS give a Content-Type). ORDER "random" (the
-- default): each request picks a random line. ORDER "once": the lines in
-- order, each once (refresh tokens that rotate: bench/pools.py); when
-- they run out the thread stops and "exhausted" in the summary says so: wrk
-- still waits out the duration, so such a run's rate is too low (invalid).
-- "once" assumes wrk -t1.
-- "{uniq}" in a body becomes a value unique within the run
-- (UNIQUE_PREFIX-thread-counter), for sign-ups and unknown e-mails.
-- EXPECT: "2xx" or an exact status code (e.g. 401 for unknown-user logins).
-- Every reply with another status is counted (reported as "unexpected"),
-- which is how an arm with non-2xx replies is found invalid.

local threads = {}

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

local function parse_headers(text)
  local h = {}
  for pair in text:gmatch("[^|]+") do
    local k, v = pair:match("^%s*(.-):%s*(.*)$")
    if k then h[k] = v end
  end
  return h
end

function init(args)
  method = args[1] or "GET"
  local file = args[2] or "-"
  expect = args[3] or "2xx"
  expect_code = tonumber(expect)
  prefix = (args[4] or "u") .. "-" .. tostring(tid) .. "-"
  once = args[5] == "once"
  next_line = 0
  exhausted = 0
  counter = 0
  unexpected = 0
  unexpected_list = ""
  unexpected_counts = {}
  math.randomseed(os.time() * 1000 + (tid or 0))
  reqs = {}
  if file == "-" then
    reqs[1] = wrk.format(method, wrk.path, {}, nil)
    return
  end
  for line in io.lines(file) do
    if line ~= "" then
      local hdrs, body = line:match("^(.-)\t(.*)$")
      if not hdrs then hdrs, body = "", line end
      local h = parse_headers(hdrs)
      if body ~= "" then h["Content-Type"] = h["Content-Type"] or "application/json" else body = nil end
      if body and body:find("{uniq}", 1, true) then
        table.insert(reqs, {h = h, body = body})
      else
        table.insert(reqs, wrk.format(method, wrk.path, h, body))
      end
    end
  end
end

local function pick()
  if not once then return reqs[math.random(#reqs)] end
  if next_line >= #reqs then
    -- Out of lines: stop sending; the requests still asked for before the loop ends repeat the last one.
    exhausted = exhausted + 1
    wrk.thread:stop()
    return reqs[#reqs]
  end
  next_line = next_line + 1
  return reqs[next_line]
end

function request()
  local r = pick()
  if type(r) == "string" then return r end
  counter = counter + 1
  local body = r.body:gsub("{uniq}", prefix .. counter)
  return wrk.format(method, wrk.path, r.h, body)
end

function response(status, headers, body)
  local ok
  if expect_code then ok = status == expect_code else ok = status >= 200 and status < 300 end
  if not ok then
    unexpected = unexpected + 1
    local key = tostring(status)
    unexpected_counts[key] = (unexpected_counts[key] or 0) + 1
    local parts = {}
    for k, v in pairs(unexpected_counts) do table.insert(parts, k .. "=" .. v) end
    unexpected_list = table.concat(parts, ",")
  end
end

function done(summary, latency, requests)
  local n, list, ex = 0, {}, 0
  for _, t in ipairs(threads) do
    n = n + (t:get("unexpected") or 0)
    ex = ex + (t:get("exhausted") or 0)
    local l = t:get("unexpected_list")
    if l and l ~= "" then table.insert(list, l) end
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests":%d,"duration_us":%d,"bytes":%d,"unexpected":%d,"unexpected_statuses":"%s","exhausted":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d},' ..
    '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
    summary.requests, summary.duration, summary.bytes, n, table.concat(list, ";"), ex,
    e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
