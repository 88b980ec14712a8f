/*
 * prototypes.c - finds a library function's built-in prototype by name
 * (see prototypes.h): a binary search of the generated, sorted table
 * (prototypes_table.c), first with the name as given and then with the
 * C library's other spellings of it taken off.  No allocation and no
 * dependency beyond the C library: the runtime links this file.
 */
#include <stdbool.h>
#include <string.h>
#include "prototypes_internal.h"

static const struct prototype *find_exact(const char *name, size_t len)
{
	unsigned low = 0, high = proto_function_count;
	while (low < high) {
		unsigned mid = low + (high - low) / 2;
		const char *candidate = proto_functions[mid].name;
		int order = strncmp(candidate, name, len);
		if (order == 0)
			order = candidate[len] != '\0';
		if (order == 0)
			return &proto_functions[mid];
		if (order < 0)
			low = mid + 1;
		else
			high = mid;
	}
	return NULL;
}

/* `name` (len bytes), or without a large-file suffix: open64 -> open. */
static const struct prototype *find_or_without_64(const char *name, size_t len)
{
	const struct prototype *p = find_exact(name, len);
	if (!p && len > 2 && memcmp(name + len - 2, "64", 2) == 0)
		p = find_exact(name, len - 2);
	return p;
}

static bool ends_with(const char *name, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len > n && memcmp(name + len - n, suffix, n) == 0;
}

/* The C library's internal and checking spellings of a public function:
 * __isoc99_sscanf, __libc_malloc, _IO_putc, __open64, __read_chk, __open_2.
 * (A checking function whose arguments differ from the plain one's, such
 * as __sprintf_chk, has its own entry, found before this.) */
static const struct prototype *find_without_prefix(const char *name, size_t len)
{
	static const char *const prefixes[] = {"__isoc99_", "__isoc23_", "__libc_", "_IO_", "__"};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);
		if (len <= n || memcmp(name, prefixes[i], n) != 0)
			continue;
		const char *rest = name + n;
		size_t rest_len = len - n;
		if (n == 2 && ends_with(rest, rest_len, "_chk"))
			rest_len -= 4;
		else if (n == 2 && ends_with(rest, rest_len, "_2"))
			rest_len -= 2;
		return find_or_without_64(rest, rest_len);
	}
	return NULL;
}

const struct prototype *prototype_of_function(const char *name)
{
	if (!name || !*name)
		return NULL;
	size_t len = strcspn(name, "@"); /* open@GLIBC_2.2.5, open@@GLIBC_2.2.5 */
	const struct prototype *p = find_or_without_64(name, len);
	return p ? p : find_without_prefix(name, len);
}

bool prototype_failed(const struct prototype *p, uint64_t ret)
{
	if (!p)
		return false;
	bool wide = p->ret == PT_LONG || p->ret == PT_ULONG || p->ret == PT_HEX ||
		    p->ret == PT_PTR || p->ret == PT_STRING;
	switch (p->failure) {
	case PF_NEG_ERRNO:
		return (int64_t)ret < 0 && (int64_t)ret >= -4095;
	case PF_MINUS_ONE:
		return wide ? ret == UINT64_MAX : (int32_t)ret == -1;
	case PF_NULL:
		return ret == 0;
	case PF_ERRNUM:
		return (int32_t)ret > 0;
	default:
		return false;
	}
}

unsigned prototype_function_count(void)
{
	return proto_function_count;
}

const struct prototype *prototype_function_at(unsigned i)
{
	return i < proto_function_count ? &proto_functions[i] : NULL;
}
