/*
 * test_syscall_values.c - unit test of src/views/syscall_values.c through
 * proto_values.c: a system call's registers and the copies the kernel
 * collector keeps after them (trace_format.h) written as strace writes
 * them; a trace without copies keeps its pointers.  And what strace
 * writes its own way: a socklen_t given and filled, an envp's count,
 * iovecs (cut, more of them, none read), AT_* flags.
 */
#include <elf.h>
#include <string.h>
#include "../../src/format/trace_format.h"
#include "../../src/views/proto_values.h"
#include "check.h"

struct values {
	uint8_t bytes[1024];
	uint32_t len;
};

static void put_tagged(struct values *v, uint8_t tag, const void *p, size_t n)
{
	v->bytes[v->len++] = tag;
	v->bytes[v->len++] = (uint8_t)n; /* a one-byte varint: n < 128 */
	if (n)
		memcpy(v->bytes + v->len, p, n);
	v->len += (uint32_t)n;
}

static void regs(struct values *v, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	uint64_t a[6] = {a0, a1, a2, a3, 0, 0};
	for (int r = 0; r < 6; r++) {
		uint8_t b[8];
		for (int i = 0; i < 8; i++)
			b[i] = (uint8_t)(a[r] >> (8 * i));
		put_tagged(v, VALUE_BYTES, b, 8);
	}
}

/* One copy of argument `index` (with its SYSCALL_VALUE_* bits). */
static void copy(struct values *v, uint8_t index, uint8_t tag, const void *p, size_t n)
{
	put_tagged(v, VALUE_BYTES, &index, 1);
	if (tag == VALUE_UNAVAILABLE)
		v->bytes[v->len++] = tag;
	else
		put_tagged(v, tag, p, n);
}

static void expect(const char *name, const struct values *args, const struct values *ret,
		   const char *want)
{
	struct proto_call call = {NULL, true, EM_X86_64, ret ? ret->bytes : NULL,
				  ret ? ret->len : 0};
	struct value_out o;
	for (unsigned nr = 0; nr < 512; nr++)
		if (strcmp(syscall_name(EM_X86_64, nr, &call.proto), name) == 0)
			break;
	value_out_init_buffer(&o);
	proto_values_args_c(&o, &call, args->bytes, args->len);
	CHECK(strcmp(value_out_text(&o), want) == 0, "%s: got '%s', want '%s'", name,
	      value_out_text(&o), want);
	value_out_free(&o);
}

static void test_strings(void)
{
	struct values a = {0};
	regs(&a, 1, 0x1000, 40, 0);
	copy(&a, 1, VALUE_STRING_CUT, "a\"\\\t\n\001\0012\377", 9);
	expect("write", &a, NULL, "1, \"a\\\"\\\\\\t\\n\\1\\0012\\377\"..., 40");
	struct values old = {0};
	regs(&old, (uint64_t)-100, 0x7000, 0, 0);
	expect("openat", &old, NULL, "AT_FDCWD, 0x7000, O_RDONLY");
	struct values bad = {0};
	regs(&bad, (uint64_t)-100, 0x10, 0, 0);
	copy(&bad, 1, VALUE_UNREADABLE, NULL, 0);
	expect("openat", &bad, NULL, "AT_FDCWD, 0x10, O_RDONLY");
	/* Unreadable at the call, read at the return. */
	struct values ret = {0};
	uint8_t zero[8] = {0};
	put_tagged(&ret, VALUE_BYTES, zero, 8);
	copy(&ret, 1, VALUE_STRING, "/x", 2);
	expect("openat", &bad, &ret, "AT_FDCWD, \"/x\", O_RDONLY");
}

static void test_structs(void)
{
	struct values a = {0}, ret = {0};
	uint8_t st[144] = {0}, zero[8] = {0}, fds[8] = {3, 0, 0, 0, 4, 0, 0, 0};
	st[24] = 0xb0, st[25] = 0x21; /* S_IFCHR|0660 */
	st[40] = 0x03, st[41] = 0x88; /* makedev(0x88, 0x3) */
	regs(&a, 1, 0x1000, 0, 0);
	put_tagged(&ret, VALUE_BYTES, zero, 8);
	copy(&ret, 1, VALUE_BYTES, st, 120); /* shorter than put_tagged's limit */
	expect("fstat", &a, &ret, "1, {st_mode=S_IFCHR|0660, st_rdev=makedev(0x88, 0x3), ...}");
	struct values p = {0}, pret = {0};
	regs(&p, 0x1000, 0x80000, 0, 0);
	put_tagged(&pret, VALUE_BYTES, zero, 8);
	copy(&pret, 0, VALUE_BYTES, fds, 8);
	expect("pipe2", &p, &pret, "[3, 4], O_CLOEXEC");
	expect("pipe2", &p, NULL, "0x1000, O_CLOEXEC");
	uint8_t in6[28] = {10, 0, 0, 80};
	in6[23] = 1; /* ::1 */
	struct values c = {0};
	regs(&c, 5, 0x1000, 28, 0);
	copy(&c, 1, VALUE_BYTES, in6, 28);
	expect("connect", &c, NULL,
	       "5, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), "
	       "inet_pton(AF_INET6, \"::1\", &sin6_addr), sin6_scope_id=0}, 28");
}

static void test_argv(void)
{
	struct values a = {0};
	regs(&a, 0x1000, 0x2000, 0x3000, 0);
	copy(&a, 0, VALUE_STRING, "/bin/ls", 7);
	copy(&a, 1 | SYSCALL_VALUE_ELEMENT, VALUE_STRING, "ls", 2);
	copy(&a, 1 | SYSCALL_VALUE_ELEMENT, VALUE_STRING_CUT, "-l", 2);
	copy(&a, 1 | SYSCALL_VALUE_MORE, VALUE_UNAVAILABLE, NULL, 0);
	expect("execve", &a, NULL, "\"/bin/ls\", [\"ls\", \"-l\"..., ...], 0x3000");
	uint8_t one[4] = {1}, many[4] = {23};
	struct values e = {0}, e1 = {0}, more = {0};
	regs(&e, 0x1000, 0, 0x7ffd0000, 0);
	copy(&e, 2, VALUE_BYTES, many, 4);
	expect("execve", &e, NULL, "0x1000, NULL, 0x7ffd0000 /* 23 vars */");
	regs(&e1, 0x1000, 0, 0x7ffd0000, 0);
	copy(&e1, 2, VALUE_BYTES, one, 4);
	expect("execve", &e1, NULL, "0x1000, NULL, 0x7ffd0000 /* 1 var */");
	/* More than were counted: the address alone. */
	regs(&more, 0x1000, 0, 0x7ffd0000, 0);
	copy(&more, 2, VALUE_UNAVAILABLE, NULL, 0);
	expect("execve", &more, NULL, "0x1000, NULL, 0x7ffd0000");
}

/* A socklen_t given (at the call) and filled (at the return). */
static void test_socklen(void)
{
	uint8_t given[4] = {110}, filled[4] = {2}, zero[8] = {0};
	struct values a = {0}, ret = {0}, same = {0}, failed = {0};
	regs(&a, 3, 0x1000, 0x2000, 0);
	copy(&a, 2, VALUE_BYTES, given, 4);
	put_tagged(&ret, VALUE_BYTES, zero, 8);
	copy(&ret, 1, VALUE_BYTES, "\1\0", 2);
	copy(&ret, 2, VALUE_BYTES, filled, 4);
	expect("accept", &a, &ret, "3, {sa_family=AF_UNIX}, [110 => 2]");
	put_tagged(&same, VALUE_BYTES, zero, 8);
	copy(&same, 2, VALUE_BYTES, given, 4);
	expect("getsockname", &a, &same, "3, 0x1000, [110]");
	/* Failed: nothing copied at the return, the pointers. */
	uint8_t einval[8] = {0xea, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	put_tagged(&failed, VALUE_BYTES, einval, 8);
	expect("accept", &a, &failed, "3, 0x1000, 0x2000");
}

/* An iovec's element: its iov_len, then the first bytes of its data. */
static void iov(struct values *v, uint8_t arg, uint8_t tag, uint64_t len, const char *data)
{
	uint8_t b[64];
	size_t n = strlen(data);
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(len >> (8 * i));
	memcpy(b + 8, data, n);
	copy(v, arg | SYSCALL_VALUE_ELEMENT, tag, b, 8 + n);
}

static void test_iovecs(void)
{
	struct values w = {0}, r = {0}, ret = {0}, many = {0};
	regs(&w, 1, 0x1000, 2, 0);
	iov(&w, 1, VALUE_STRING, 3, "abc");
	iov(&w, 1, VALUE_STRING_CUT, 100, "0123456789");
	expect("writev", &w, NULL,
	       "1, [{iov_base=\"abc\", iov_len=3}, {iov_base=\"0123456789\"..., iov_len=100}], 2");
	/* readv: at the return; an iovec past the data read is empty. */
	uint8_t five[8] = {5};
	regs(&r, 3, 0x1000, 2, 0);
	put_tagged(&ret, VALUE_BYTES, five, 8);
	iov(&ret, 1, VALUE_STRING, 5, "hello");
	iov(&ret, 1, VALUE_STRING, 10, "");
	expect("readv", &r, &ret,
	       "3, [{iov_base=\"hello\", iov_len=5}, {iov_base=\"\", iov_len=10}], 2");
	expect("readv", &r, NULL, "3, 0x1000, 2");
	regs(&many, 1, 0x1000, 9, 0);
	iov(&many, 1, VALUE_STRING, 1, "a");
	copy(&many, 1 | SYSCALL_VALUE_MORE, VALUE_UNAVAILABLE, NULL, 0);
	expect("writev", &many, NULL, "1, [{iov_base=\"a\", iov_len=1}, ...], 9");
}

static void test_at_flags(void)
{
	struct values a = {0}, none = {0};
	regs(&a, 3, 0, 0, 0x1100);
	expect("newfstatat", &a, NULL, "3, NULL, NULL, AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH");
	regs(&none, (uint64_t)-100, 0, 0x40000200, 0);
	expect("unlinkat", &none, NULL, "AT_FDCWD, NULL, AT_REMOVEDIR|0x40000000");
}

int main(void)
{
	test_strings();
	test_structs();
	test_argv();
	test_socklen();
	test_iovecs();
	test_at_flags();
	return CHECK_SUMMARY("test_syscall_values");
}
