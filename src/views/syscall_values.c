/*
 * syscall_values.c - a system call's copied arguments written as strace
 * writes them (see syscall_values.h).  The layouts are Linux's: struct
 * stat of x86-64 and of the generic ABI (aarch64), sockaddr_in/in6/un;
 * iovecs, an envp's count and a socklen_t given and filled as strace has
 * them too.
 */
#include "syscall_values.h"

#include <arpa/inet.h>
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "../format/trace_format.h"
#include "../symbols/prototypes.h"
#include "../symbols/prototypes_decode.h"

#define ELEMENTS_MAX 64

/* The copies of one argument: its values, in order. */
struct copied {
	struct tagged_value v[ELEMENTS_MAX];
	unsigned n;
	bool more;    /* an array that went on */
	bool element; /* an array's elements */
};

/* The copies of `arg` among the pairs after the first `skip` values. */
static void find(const uint8_t *p, uint32_t len, unsigned skip, unsigned arg, struct copied *c)
{
	size_t at = 0;
	struct tagged_value v, index;
	for (unsigned i = 0; i < skip; i++) {
		size_t used = p ? value_decode(p + at, len - at, &v) : 0;
		if (!used)
			return;
		at += used;
	}
	while (at < len) {
		size_t used = value_decode(p + at, len - at, &index);
		if (!used || index.tag != VALUE_BYTES || index.len != 1)
			return;
		at += used;
		if (!(used = value_decode(p + at, len - at, &v)))
			return;
		at += used;
		if ((index.bytes[0] & SYSCALL_VALUE_ARG) != arg)
			continue;
		c->element = (index.bytes[0] & (SYSCALL_VALUE_ELEMENT | SYSCALL_VALUE_MORE)) != 0;
		if (index.bytes[0] & SYSCALL_VALUE_MORE)
			c->more = true;
		else if (c->n < ELEMENTS_MAX)
			c->v[c->n++] = v;
	}
}

/* The copies at the call; those at the return where the call's could
 * not be read (or there are none). */
static bool copies_of(const struct syscall_recorded *r, unsigned arg, struct copied *c)
{
	memset(c, 0, sizeof(*c));
	find(r->args, r->args_len, 6, arg, c);
	if (c->n && !(c->n == 1 && c->v[0].tag == VALUE_UNREADABLE))
		return true;
	struct copied at_return;
	memset(&at_return, 0, sizeof(at_return));
	find(r->ret, r->ret_len, 1, arg, &at_return);
	if (at_return.n || at_return.more)
		*c = at_return;
	return c->n || c->more;
}

/* strace's quoting: \" \\ \t \n \v \f \r, printable ASCII as it is, any
 * other byte in octal (3 digits when a digit follows). */
static void quoted(struct value_out *t, const struct tagged_value *v)
{
	char out[8];
	value_out_text_put(t, "\"");
	for (size_t i = 0; i < v->len; i++) {
		unsigned char c = v->bytes[i];
		const char *esc = strchr("\"\\\t\n\v\f\r", c);
		if (c && esc) {
			out[0] = '\\';
			out[1] = "\"\\tnvfr"[esc - "\"\\\t\n\v\f\r"];
			out[2] = 0;
		} else if (c >= 0x20 && c < 0x7f) {
			out[0] = (char)c;
			out[1] = 0;
		} else {
			bool digit =
			    i + 1 < v->len && v->bytes[i + 1] >= '0' && v->bytes[i + 1] <= '7';
			snprintf(out, sizeof(out), digit ? "\\%03o" : "\\%o", c);
		}
		value_out_text_put(t, out);
	}
	value_out_text_put(t, v->tag == VALUE_STRING_CUT ? "\"..." : "\"");
}

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t x = 0;
	while (n--)
		x = x << 8 | p[n];
	return x;
}

static void put_fmt(struct value_out *t, const char *fmt, uint64_t a, uint64_t b)
{
	char text[96];
	snprintf(text, sizeof(text), fmt, a, b);
	value_out_text_put(t, text);
}

static void sockaddr_in(struct value_out *t, const uint8_t *p, size_t n, bool v6)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	unsigned port = (unsigned)p[2] << 8 | p[3];
	if (!v6 && n >= 8) {
		inet_ntop(AF_INET, p + 4, ip, sizeof(ip));
		put_fmt(t, ", sin_port=htons(%" PRIu64 "), sin_addr=inet_addr(\"", port, 0);
	} else if (v6 && n >= 28) {
		inet_ntop(AF_INET6, p + 8, ip, sizeof(ip));
		put_fmt(t, ", sin6_port=htons(%" PRIu64 "), sin6_flowinfo=htonl(%" PRIu64 ")", port,
			(uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 | (uint64_t)p[6] << 8 | p[7]);
		value_out_text_put(t, ", inet_pton(AF_INET6, \"");
	} else {
		return;
	}
	value_out_text_put(t, ip);
	value_out_text_put(t, v6 ? "\", &sin6_addr)" : "\")");
	if (v6)
		put_fmt(t, ", sin6_scope_id=%" PRIu64, le(p + 24, 4), 0);
}

static void sockaddr_text(struct value_out *t, const struct tagged_value *v)
{
	const uint8_t *p = v->bytes;
	unsigned family = v->len >= 2 ? (unsigned)le(p, 2) : 0;
	const char *name = proto_family_name(family);
	if (name)
		value_out_text_put(t, "{sa_family=");
	if (name)
		value_out_text_put(t, name);
	else
		put_fmt(t, "{sa_family=%" PRIu64, family, 0);
	if (family == 2 || family == 10) {
		sockaddr_in(t, p, v->len, family == 10);
	} else if (family == 1 && v->len > 2) {
		bool abstract = p[2] == '\0';
		size_t start = abstract ? 3 : 2, end = start;
		while (end < v->len && (abstract || p[end] != '\0'))
			end++;
		struct tagged_value path = {VALUE_STRING, p + start, end - start};
		value_out_text_put(t, abstract ? ", sun_path=@" : ", sun_path=");
		quoted(t, &path);
	}
	value_out_text_put(t, "}");
}

static void stat_text(struct value_out *t, const struct tagged_value *v, uint32_t machine)
{
	bool x86 = machine == 0 || machine == EM_X86_64;
	size_t mode_at = x86 ? 24 : 16, rdev_at = x86 ? 40 : 32, size_at = 48;
	static const char *const types[16] = {
	    [1] = "S_IFIFO", [2] = "S_IFCHR",  [4] = "S_IFDIR",	  [6] = "S_IFBLK",
	    [8] = "S_IFREG", [10] = "S_IFLNK", [12] = "S_IFSOCK",
	};
	if (v->len < size_at + 8)
		return;
	uint32_t mode = (uint32_t)le(v->bytes + mode_at, 4);
	const char *type = types[(mode >> 12) & 15];
	value_out_text_put(t, "{st_mode=");
	if (type) {
		value_out_text_put(t, type);
		value_out_text_put(t, "|");
	}
	put_fmt(t, "%#" PRIo64, mode & 07777, 0);
	if (type && (type[4] == 'C' || type[4] == 'B')) {
		uint64_t dev = le(v->bytes + rdev_at, 8);
		put_fmt(t, ", st_rdev=makedev(%#" PRIx64 ", %#" PRIx64 ")",
			((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfffull),
			(dev & 0xff) | ((dev >> 12) & ~0xffull));
	} else {
		put_fmt(t, ", st_size=%" PRId64, le(v->bytes + size_at, 8), 0);
	}
	value_out_text_put(t, ", ...}");
}

/* One copied value of type `type`. */
static bool one_text(struct value_out *t, const struct tagged_value *v, uint8_t type,
		     uint32_t machine)
{
	if (v->tag == VALUE_STRING || v->tag == VALUE_STRING_CUT) {
		quoted(t, v);
	} else if (v->tag != VALUE_BYTES) {
		return false;
	} else if (type == PT_SOCKADDR || type == PT_SOCKADDR_OUT) {
		sockaddr_text(t, v);
	} else if (type == PT_TIMESPEC && v->len == 16) {
		put_fmt(t, "{tv_sec=%" PRId64 ", tv_nsec=%" PRId64 "}", le(v->bytes, 8),
			le(v->bytes + 8, 8));
	} else if (type == PT_PIPE_FDS && v->len == 8) {
		put_fmt(t, "[%" PRId64 ", %" PRId64 "]",
			(uint64_t)(int64_t)(int32_t)le(v->bytes, 4),
			(uint64_t)(int64_t)(int32_t)le(v->bytes + 4, 4));
	} else if (type == PT_STAT_OUT) {
		stat_text(t, v, machine);
	} else {
		return false;
	}
	return true;
}

/* A socklen_t * given and filled: strace's [given => filled], or [len]
 * when the call left it as it was; false without both (a call that
 * failed: the pointer). */
static bool socklen_text(struct value_out *t, const struct syscall_recorded *r, unsigned arg)
{
	struct copied given = {0}, filled = {0};
	find(r->args, r->args_len, 6, arg, &given);
	find(r->ret, r->ret_len, 1, arg, &filled);
	if (given.n != 1 || filled.n != 1 || given.v[0].tag != VALUE_BYTES ||
	    filled.v[0].tag != VALUE_BYTES || given.v[0].len != 4 || filled.v[0].len != 4)
		return false;
	uint64_t a = le(given.v[0].bytes, 4), b = le(filled.v[0].bytes, 4);
	put_fmt(t, a == b ? "[%" PRIu64 "]" : "[%" PRIu64 " => %" PRIu64 "]", a, b);
	return true;
}

/* An envp as strace writes it: its address and how many variables. */
static bool envp_text(struct value_out *t, const struct copied *c, uint64_t reg)
{
	if (c->n != 1 || c->v[0].tag != VALUE_BYTES || c->v[0].len != 4)
		return false;
	uint64_t n = le(c->v[0].bytes, 4);
	put_fmt(t, "%#" PRIx64, reg, 0);
	put_fmt(t, n == 1 ? " /* %" PRIu64 " var */" : " /* %" PRIu64 " vars */", n, 0);
	return true;
}

/* iovecs: [{iov_base="abc", iov_len=3}, ...], each an element holding
 * its iov_len (8 bytes) then the first bytes of its data. */
static void iov_text(struct value_out *t, const struct copied *c)
{
	value_out_text_put(t, "[");
	for (unsigned i = 0; i < c->n; i++) {
		const struct tagged_value *v = &c->v[i];
		value_out_text_put(t, i ? ", {iov_base=" : "{iov_base=");
		if (v->tag != VALUE_STRING && v->tag != VALUE_STRING_CUT) {
			value_out_text_put(t, "?}");
			continue;
		}
		struct tagged_value data = *v;
		data.bytes += v->len >= 8 ? 8 : v->len;
		data.len = v->len >= 8 ? v->len - 8 : 0;
		quoted(t, &data);
		put_fmt(t, ", iov_len=%" PRIu64 "}", v->len >= 8 ? le(v->bytes, 8) : 0, 0);
	}
	value_out_text_put(t, c->more ? (c->n ? ", ...]" : "...]") : "]");
}

/* A struct msghdr as strace writes it: {msg_name=..., msg_namelen=16,
 * msg_iov=[...], msg_iovlen=1, msg_controllen=0, msg_flags=0}, from its
 * copies: the struct (56 bytes), its msg_name's bytes when it has one,
 * then its iovecs. */
static bool msghdr_text(struct value_out *t, const struct copied *c, uint32_t machine)
{
	const struct tagged_value *h = &c->v[0];
	if (h->tag != VALUE_BYTES || h->len != 56)
		return false;
	const uint8_t *m = h->bytes;
	uint64_t name = le(m, 8), namelen = le(m + 8, 4), iovlen = le(m + 24, 8);
	uint64_t control = le(m + 32, 8), controllen = le(m + 40, 8), flags = le(m + 48, 4);
	unsigned next = 1;
	value_out_text_put(t, "{msg_name=");
	if (!name)
		value_out_text_put(t, "NULL");
	else if (namelen && next < c->n && c->v[next].tag == VALUE_BYTES)
		sockaddr_text(t, &c->v[next++]);
	else
		put_fmt(t, "%#" PRIx64, name, 0);
	put_fmt(t, ", msg_namelen=%" PRIu64 ", msg_iov=", namelen, 0);
	if (le(m + 16, 8)) {
		struct copied iovs;
		memset(&iovs, 0, sizeof(iovs));
		for (unsigned i = next; i < c->n; i++)
			iovs.v[iovs.n++] = c->v[i];
		iovs.more = c->more;
		iov_text(t, &iovs);
	} else {
		value_out_text_put(t, "NULL");
	}
	put_fmt(t, ", msg_iovlen=%" PRIu64, iovlen, 0);
	if (controllen)
		put_fmt(t, ", msg_control=%#" PRIx64, control, 0);
	char names[256];
	put_fmt(t, ", msg_controllen=%" PRIu64 ", msg_flags=", controllen, 0);
	if (proto_decode(PT_MSG_FLAGS, flags, machine, names, sizeof(names)))
		value_out_text_put(t, names);
	value_out_text_put(t, "}");
	return true;
}

bool syscall_value_text(struct value_out *t, const struct syscall_recorded *r, unsigned arg,
			uint8_t type, uint64_t reg)
{
	struct copied c;
	if (reg && type == PT_SOCKLEN_IO)
		return socklen_text(t, r, arg);
	if (!reg || !copies_of(r, arg, &c))
		return false;
	if (c.n == 1 && c.v[0].tag == VALUE_UNREADABLE) {
		put_fmt(t, "%#" PRIx64, reg, 0); /* strace: the address it could not read */
		return true;
	}
	if (type == PT_ENVP)
		return envp_text(t, &c, reg);
	if (type == PT_IOV_IN || type == PT_IOV_OUT) {
		iov_text(t, &c);
		return true;
	}
	if (type == PT_MSGHDR_IN || type == PT_MSGHDR_OUT)
		return msghdr_text(t, &c, r->machine);
	if (!c.element)
		return one_text(t, &c.v[0], type, r->machine);
	value_out_text_put(t, "[");
	for (unsigned i = 0; i < c.n; i++) {
		if (i)
			value_out_text_put(t, ", ");
		if (!one_text(t, &c.v[i], PT_STRING, r->machine))
			value_out_text_put(t, "?");
	}
	value_out_text_put(t, c.more ? (c.n ? ", ...]" : "...]") : "]");
	return true;
}
