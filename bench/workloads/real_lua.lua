-- real_lua.lua - the Lua workload of bench/real_bench.sh: recursive calls,
-- string building and formatting, and table sorting with a comparator, so
-- that the interpreter's own C functions are called a few million times.
-- Prints checksums only: the output must be the same traced or not.
local scale = tonumber(arg and arg[1]) or 1

local function fib(n)
	if n < 2 then return n end
	return fib(n - 1) + fib(n - 2)
end

local function strings(n)
	local parts, total = {}, 0
	for i = 1, n do
		local s = string.format("%05d:%s", i, string.rep("ab", i % 7))
		s = s:upper():gsub("B", "c")
		total = total + #s + (s:find("C", 1, true) or 0)
		parts[#parts + 1] = s:sub(1, 4)
		if #parts == 64 then total = total + #table.concat(parts, ","); parts = {} end
	end
	return total
end

local function sorting(n, rounds)
	local sum = 0
	for r = 1, rounds do
		local t, seed = {}, r
		for i = 1, n do
			seed = (seed * 1103515245 + 12345) % 2147483648
			t[i] = { key = seed % 100000, name = tostring(seed) }
		end
		table.sort(t, function(a, b)
			if a.key ~= b.key then return a.key < b.key end
			return a.name < b.name
		end)
		sum = (sum + t[1].key + t[n].key + t[n // 2].key) % 1000000007
	end
	return sum
end

print("fib", fib(24 + scale))
print("strings", strings(30000 * scale))
print("sort", sorting(20000, scale))
