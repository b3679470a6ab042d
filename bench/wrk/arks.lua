-- wrk script for the caddy-ark load tests.
--
-- Each request picks a random key from a keys file (ids in normal form,
-- one per line, as written by `gentable -keys`) and, in mode "vary",
-- spells it in a random equivalent way. Options are wrk script arguments
-- (after --) of the form name=value, or environment variables ARKS_<NAME>:
--
--   keys=FILE     keys file (required)
--   mode=vary     random equivalent spelling: ark: / ark:/ / ARK:/ label,
--                 hyphens, upper-case NAAN letters, one %XX-encoded
--                 unreserved character, variant suffixes reordered
--   mode=canonical  the key as written, /ark:12345/x5wf6789 (Caddy map
--                 knows only this spelling)
--   mode=raw      the line is the request path itself (e.g. /objects/o1.html)
--   prefix=/p     path prefix before /ark:... (default empty)
--   seed=N        random seed (default: time)
--   check=1       count response statuses and print them at the end
--                 (parses every response: use for a short check run, not
--                 for the measured runs)
--   dump=FILE     also write dump_n (default 1000) request paths to FILE at
--                 start, e.g. to replay them with curl when a check fails
--   pregen=N      spell N requests at start and send them in random order
--                 (each repeats about duration x rate / N times): wrk then
--                 costs a fraction of the CPU per request, so that the
--                 server, not wrk's core, is the limit (default 0: spell
--                 every request as it is sent)
--
--   wrk -t1 -c50 -d10s --latency -s bench/wrk/arks.lua http://127.0.0.1:9080 -- keys=keys.txt mode=vary
--
-- done() prints one line "ARKS_RESULT key=value ..." for bench/run.sh.

local opts = {}

local function opt(name, default)
	local v = opts[name]
	if v == nil then v = os.getenv("ARKS_" .. string.upper(name)) end
	if v == nil or v == "" then return default end
	return v
end

local keys, nkeys = {}, 0
local mode, prefix = "vary", ""
local random, sub, find, upper, format = math.random, string.sub, string.find, string.upper, string.format
local byte = string.byte

-- statuses seen by this thread (check mode), read by done() via thread:get
counts = {}

local function load_keys(path)
	local f, err = io.open(path, "r")
	if not f then error("arks.lua: cannot open keys file: " .. tostring(err)) end
	for line in f:lines() do
		if line ~= "" then
			if mode ~= "raw" then
				-- keep NAAN/Name: strip the "ark:" label, stored without it
				local l = sub(line, 1, 4)
				if l == "ark:" or l == "ARK:" then line = sub(line, 5) end
				if sub(line, 1, 1) == "/" then line = sub(line, 2) end
			end
			nkeys = nkeys + 1
			keys[nkeys] = line
		end
	end
	f:close()
	if nkeys == 0 then error("arks.lua: no keys in " .. path) end
end

local labels = { "ark:", "ark:/", "ARK:/", "Ark:" }

local function is_alnum(c)
	return (c >= 48 and c <= 57) or (c >= 65 and c <= 90) or (c >= 97 and c <= 122)
end

-- reorder the variant suffixes of the last segment (".en.pdf" -> ".pdf.en")
local function reorder_variants(name)
	local slash = 0
	local s = 1
	while true do
		local i = find(name, "/", s, true)
		if not i then break end
		slash, s = i, i + 1
	end
	local dot = find(name, ".", slash + 1, true)
	if not dot then return name end
	local suffixes, n = {}, 0
	for part in string.gmatch(sub(name, dot + 1), "[^.]+") do
		n = n + 1
		suffixes[n] = part
	end
	if n < 2 then return name end
	-- rotate by a random amount (1..n-1): always a different order
	local r = random(n - 1)
	local out = {}
	for i = 1, n do out[i] = suffixes[(i + r - 1) % n + 1] end
	return sub(name, 1, dot) .. table.concat(out, ".")
end

-- an equivalent spelling of naan/name
local function vary(key)
	local slash = find(key, "/", 1, true)
	local naan, name = sub(key, 1, slash - 1), sub(key, slash + 1)
	if random(2) == 1 then name = reorder_variants(name) end
	if random(2) == 1 and find(naan, "%a") then naan = upper(naan) end
	local s = naan .. "/" .. name
	-- hyphens: 0 to 3, anywhere after the label
	for _ = 1, random(0, 3) do
		local p = random(0, #s)
		s = sub(s, 1, p) .. "-" .. sub(s, p + 1)
	end
	-- percent-encode one ASCII letter or digit, in upper- or lower-case hex
	if random(10) <= 3 then
		local p = random(#s)
		for _ = 1, 4 do
			if is_alnum(byte(s, p)) then break end
			p = random(#s)
		end
		local c = byte(s, p)
		if is_alnum(c) then
			local enc = format(random(2) == 1 and "%%%02X" or "%%%02x", c)
			s = sub(s, 1, p - 1) .. enc .. sub(s, p + 1)
		end
	end
	return labels[random(4)] .. s
end

local path_of
local pregen, npregen = {}, 0
-- the request around the path: wrk.format's output split at the path
-- (wrk.format walks the headers table each time: too slow per request)
local head, tail

function init(args)
	for _, a in ipairs(args) do
		local k, v = string.match(a, "^([%w_]+)=(.*)$")
		if not k then error("arks.lua: argument " .. a .. " is not name=value") end
		opts[k] = v
	end
	mode = opt("mode", "vary")
	if mode ~= "vary" and mode ~= "canonical" and mode ~= "raw" then
		error("arks.lua: mode must be vary, canonical or raw, not " .. mode)
	end
	prefix = opt("prefix", "")
	local path = opt("keys", nil)
	if not path then error("arks.lua: keys=FILE (or ARKS_KEYS) is required") end
	load_keys(path)
	local seed = tonumber(opt("seed", "")) or (os.time() + math.floor(os.clock() * 1e6))
	math.randomseed(seed + (tonumber(tostring(wrk.thread):match("0x(%x+)") or "0", 16) or 0) % 1000003)
	local t = wrk.format(nil, "/@PATH@")
	local i = find(t, "/@PATH@", 1, true)
	head, tail = sub(t, 1, i - 1), sub(t, i + 7)
	npregen = tonumber(opt("pregen", "0"))
	for j = 1, npregen do pregen[j] = head .. path_of(keys[random(nkeys)]) .. tail end
	local dump = opt("dump", nil)
	if dump then
		local f = assert(io.open(dump, "w"))
		for _ = 1, tonumber(opt("dump_n", "1000")) do f:write(path_of(keys[random(nkeys)]), "\n") end
		f:close()
	end
	if opt("check", "0") ~= "0" then
		response = function(status, headers, body)
			counts[status] = (counts[status] or 0) + 1
		end
	end
end

path_of = function(key)
	if mode == "vary" then
		return prefix .. "/" .. vary(key)
	elseif mode == "canonical" then
		return prefix .. "/ark:" .. key
	end
	return prefix .. key
end

function request()
	if npregen > 0 then return pregen[random(npregen)] end
	return head .. path_of(keys[random(nkeys)]) .. tail
end

local threads = {}

function setup(thread)
	table.insert(threads, thread)
end

function done(summary, latency, requests)
	local secs = summary.duration / 1e6
	local e = summary.errors
	local statuses = {}
	local all = {}
	for _, t in ipairs(threads) do
		local c = t:get("counts")
		if c then
			for s, n in pairs(c) do all[s] = (all[s] or 0) + n end
		end
	end
	local codes = {}
	for s in pairs(all) do table.insert(codes, s) end
	table.sort(codes)
	for _, s in ipairs(codes) do table.insert(statuses, s .. ":" .. all[s]) end
	io.write(format("ARKS_RESULT rps=%.1f requests=%d secs=%.3f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f "
		.. "err_connect=%d err_read=%d err_write=%d err_status=%d err_timeout=%d statuses=%s\n",
		summary.requests / secs, summary.requests, secs,
		latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
		e.connect, e.read, e.write, e.status, e.timeout,
		#statuses > 0 and table.concat(statuses, ",") or "-"))
end
