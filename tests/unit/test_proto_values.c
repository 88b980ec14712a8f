/*
 * test_proto_values.c - unit test of src/views/proto_values.c and its use
 * by call_values.c: captured sets of tagged values of library calls and
 * system calls written as strace writes them, and as JSON; damaged
 * values give `?` (null), never a crash.
 */
#include <elf.h>
#include <string.h>
#include "../../src/format/trace_format.h"
#include "../../src/views/call_values.h"
#include "../../src/views/proto_values.h"
#include "check.h"

/* A buffer of tagged values, as EV_ARGS / EV_RETVAL hold them. */
struct values {
	uint8_t bytes[512];
	uint32_t len;
};

static void put_tagged(struct values *v, uint8_t tag, const void *p, size_t n)
{
	v->bytes[v->len++] = tag;
	v->bytes[v->len++] = (uint8_t)n; /* a one-byte varint: n < 128 */
	memcpy(v->bytes + v->len, p, n);
	v->len += (uint32_t)n;
}

static void reg(struct values *v, uint64_t x)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(x >> (8 * i));
	put_tagged(v, VALUE_BYTES, b, 8);
}

static void str(struct values *v, const char *s)
{
	put_tagged(v, VALUE_STRING, s, strlen(s));
}

static void err(struct values *v, int e)
{
	uint8_t b[4] = {(uint8_t)e, (uint8_t)(e >> 8), (uint8_t)(e >> 16), (uint8_t)(e >> 24)};
	put_tagged(v, VALUE_BYTES, b, 4);
}

static void null(struct values *v)
{
	v->bytes[v->len++] = VALUE_NULL;
}

enum what { ARGS_C, RET_C, ARGS_JSON, RET_JSON };

static void expect_call(const struct proto_call *call, enum what what, const struct values *v,
			const char *want, int line)
{
	struct value_out o;
	value_out_init_buffer(&o);
	if (what == ARGS_C)
		proto_values_args_c(&o, call, v ? v->bytes : NULL, v ? v->len : 0);
	else if (what == RET_C)
		proto_values_return_c(&o, call, v ? v->bytes : NULL, v ? v->len : 0);
	else if (what == ARGS_JSON)
		proto_values_args_json(&o, call, v ? v->bytes : NULL, v ? v->len : 0);
	else
		proto_values_return_json(&o, call, v ? v->bytes : NULL, v ? v->len : 0);
	const char *got = value_out_text(&o);
	CHECK(strcmp(got, want) == 0, "line %d: got [%s], want [%s]", line, got, want);
	value_out_free(&o);
}

static struct proto_call library(const char *name)
{
	struct proto_call call = {prototype_of_function(name), false, EM_X86_64, NULL, 0};
	CHECK(call.proto != NULL, "%s has a prototype", name);
	return call;
}

#define EXPECT(call, what, v, want) expect_call(&(call), what, v, want, __LINE__)

static void test_open(void)
{
	struct proto_call open = library("open64");
	struct values a = {0}, ok = {0}, failed = {0};
	str(&a, "/etc/passwd");
	reg(&a, 02000000);
	reg(&a, 0x7ffc1234); /* the mode register, left over: not shown */
	reg(&ok, 3);
	reg(&failed, 0xffffffffu); /* -1 as an int */
	err(&failed, 2);
	EXPECT(open, ARGS_C, &a, "\"/etc/passwd\", O_RDONLY|O_CLOEXEC");
	EXPECT(open, RET_C, &ok, "3");
	EXPECT(open, RET_C, &failed, "-1 ENOENT (No such file or directory)");
	EXPECT(open, ARGS_JSON, &a,
	       "[{\"name\": \"path\", \"type\": \"const char *\", \"value\": \"/etc/passwd\"}, "
	       "{\"name\": \"flags\", \"type\": \"int\", \"value\": \"O_RDONLY|O_CLOEXEC\"}]");
	EXPECT(open, RET_JSON, &ok, "{\"type\": \"int\", \"value\": 3}");
	EXPECT(open, RET_JSON, &failed,
	       "{\"type\": \"int\", \"value\": -1, \"errno\": \"ENOENT\"}");

	struct values create = {0};
	str(&create, "/tmp/out\n");
	reg(&create, 01 | 0100 | 01000);
	reg(&create, 0644);
	EXPECT(open, ARGS_C, &create, "\"/tmp/out\\n\", O_WRONLY|O_CREAT|O_TRUNC, 0644");
	EXPECT(open, ARGS_JSON, &create,
	       "[{\"name\": \"path\", \"type\": \"const char *\", \"value\": \"/tmp/out\\n\"}, "
	       "{\"name\": \"flags\", \"type\": \"int\", \"value\": \"O_WRONLY|O_CREAT|O_TRUNC\"}, "
	       "{\"name\": \"mode\", \"type\": \"mode_t\", \"value\": \"0644\"}]");

	struct values cut = {0}, nul = {0};
	put_tagged(&cut, VALUE_STRING_CUT, "/very/long", 10);
	reg(&cut, 0);
	null(&nul);
	reg(&nul, 0);
	EXPECT(open, ARGS_C, &cut, "\"/very/long\"..., O_RDONLY");
	EXPECT(open, ARGS_C, &nul, "NULL, O_RDONLY");
	struct values at = {0};
	reg(&at, (uint64_t)-100);
	str(&at, "x");
	reg(&at, 0200000);
	struct proto_call openat = library("openat");
	EXPECT(openat, ARGS_C, &at, "AT_FDCWD, \"x\", O_RDONLY|O_DIRECTORY");
}

static void test_read_and_malloc(void)
{
	struct proto_call read = library("read@GLIBC_2.2.5");
	struct values a = {0}, r = {0};
	reg(&a, 3);
	reg(&a, 0x7ffc5000);
	reg(&a, 4096);
	reg(&r, 1024);
	EXPECT(read, ARGS_C, &a, "3, 0x7ffc5000, 4096");
	EXPECT(read, RET_C, &r, "1024");
	EXPECT(
	    read, ARGS_JSON, &a,
	    "[{\"name\": \"fd\", \"type\": \"int\", \"value\": 3}, {\"name\": \"buf\", \"type\": "
	    "\"void *\", \"value\": \"0x7ffc5000\"}, {\"name\": \"count\", \"type\": \"unsigned "
	    "long\", \"value\": 4096}]");
	EXPECT(read, RET_JSON, &r, "{\"type\": \"long\", \"value\": 1024}");

	struct proto_call malloc = library("malloc");
	struct values size = {0}, p = {0}, none = {0};
	reg(&size, 64);
	reg(&p, 0x55d0c0de1260);
	reg(&none, 0);
	err(&none, 12);
	EXPECT(malloc, ARGS_C, &size, "64");
	EXPECT(malloc, RET_C, &p, "0x55d0c0de1260");
	EXPECT(malloc, RET_C, &none, "NULL ENOMEM (Cannot allocate memory)");
	EXPECT(malloc, RET_JSON, &p, "{\"type\": \"void *\", \"value\": \"0x55d0c0de1260\"}");
	EXPECT(malloc, RET_JSON, &none,
	       "{\"type\": \"void *\", \"value\": null, \"errno\": \"ENOMEM\"}");

	struct proto_call mmap = library("mmap64");
	struct values m = {0}, failed = {0};
	reg(&m, 0);
	reg(&m, 8192);
	reg(&m, 3);
	reg(&m, 0x22);
	reg(&m, (uint64_t)-1);
	reg(&m, 0);
	reg(&failed, UINT64_MAX); /* MAP_FAILED */
	err(&failed, 12);
	EXPECT(mmap, ARGS_C, &m,
	       "NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0");
	EXPECT(mmap, RET_C, &failed, "-1 ENOMEM (Cannot allocate memory)");

	struct proto_call free = library("free");
	struct values f = {0};
	reg(&f, 0x55d0c0de1260);
	EXPECT(free, RET_C, &f, "");
	EXPECT(free, RET_JSON, &f, "null");
}

static void sockaddr_values(struct values *v, const uint8_t *sa, size_t n)
{
	reg(v, 5);
	put_tagged(v, VALUE_BYTES, sa, n);
	reg(v, n);
}

static void test_connect(void)
{
	struct proto_call connect = library("connect");
	static const uint8_t in[16] = {2, 0, 0x18, 0xeb, 127, 0, 0, 1};
	static const uint8_t in6[28] = {10, 0, 0, 80, 0, 0, 0, 0, [23] = 1};
	static const uint8_t un[] = {1, 0, '/', 't', 'm', 'p', '/', 's', 0, 'x'};
	static const uint8_t abstract[] = {1, 0, 0, 'b', 'u', 's'};
	static const uint8_t netlink[12] = {16, 0};
	static const uint8_t short_in[4] = {2, 0, 0, 80};
	struct values a = {0}, b = {0}, c = {0}, d = {0}, e = {0}, f = {0}, g = {0}, r = {0};
	sockaddr_values(&a, in, sizeof(in));
	sockaddr_values(&b, in6, sizeof(in6));
	sockaddr_values(&c, un, sizeof(un));
	sockaddr_values(&d, abstract, sizeof(abstract));
	sockaddr_values(&e, netlink, sizeof(netlink));
	sockaddr_values(&f, short_in, sizeof(short_in));
	sockaddr_values(&g, in, 1);
	reg(&r, 0xffffffff);
	err(&r, 111);
	EXPECT(connect, ARGS_C, &a, "5, {AF_INET, 127.0.0.1:6379}, 16");
	EXPECT(connect, RET_C, &r, "-1 ECONNREFUSED (Connection refused)");
	EXPECT(connect, ARGS_C, &b, "5, {AF_INET6, [::1]:80}, 28");
	EXPECT(connect, ARGS_C, &c, "5, {AF_UNIX, \"/tmp/s\"}, 10");
	EXPECT(connect, ARGS_C, &d, "5, {AF_UNIX, @\"bus\"}, 6");
	EXPECT(connect, ARGS_C, &e, "5, {AF_NETLINK}, 12");
	EXPECT(connect, ARGS_C, &f, "5, {AF_INET, ?}, 4");
	EXPECT(connect, ARGS_C, &g, "5, ?, 1");
	EXPECT(connect, ARGS_JSON, &a,
	       "[{\"name\": \"sockfd\", \"type\": \"int\", \"value\": 5}, {\"name\": \"addr\", "
	       "\"type\": \"const struct sockaddr *\", \"value\": \"{AF_INET, 127.0.0.1:6379}\"}, "
	       "{\"name\": \"addrlen\", \"type\": \"unsigned int\", \"value\": 16}]");
	EXPECT(connect, ARGS_JSON, &c,
	       "[{\"name\": \"sockfd\", \"type\": \"int\", \"value\": 5}, {\"name\": \"addr\", "
	       "\"type\": \"const struct sockaddr *\", \"value\": \"{AF_UNIX, \\\"/tmp/s\\\"}\"}, "
	       "{\"name\": \"addrlen\", \"type\": \"unsigned int\", \"value\": 10}]");
	EXPECT(connect, RET_JSON, &r,
	       "{\"type\": \"int\", \"value\": -1, \"errno\": \"ECONNREFUSED\"}");
	struct proto_call socket = library("socket");
	struct values s = {0};
	reg(&s, 2);
	reg(&s, 1 | 02000000);
	reg(&s, 0);
	EXPECT(socket, ARGS_C, &s, "AF_INET, SOCK_STREAM|SOCK_CLOEXEC, 0");
	struct proto_call pipe2 = library("pipe2");
	struct values p2 = {0};
	reg(&p2, 0x7ffd4000);
	reg(&p2, 02000000);
	EXPECT(pipe2, ARGS_C, &p2, "0x7ffd4000, O_CLOEXEC");
}

static void test_pthread_and_others(void)
{
	struct proto_call lock = library("pthread_mutex_lock");
	struct values a = {0}, ok = {0}, busy = {0}, odd = {0};
	reg(&a, 0x55d0c0de2000);
	reg(&ok, 0);
	reg(&busy, 35);
	reg(&odd, 4000);
	EXPECT(lock, ARGS_C, &a, "0x55d0c0de2000");
	EXPECT(lock, RET_C, &ok, "0");
	EXPECT(lock, RET_C, &busy, "35 EDEADLK (Resource deadlock avoided)");
	EXPECT(lock, RET_C, &odd, "4000");
	EXPECT(lock, RET_JSON, &busy, "{\"type\": \"int\", \"value\": 35, \"errno\": \"EDEADLK\"}");
	EXPECT(lock, RET_JSON, &ok, "{\"type\": \"int\", \"value\": 0}");
	EXPECT(lock, RET_JSON, &odd, "{\"type\": \"int\", \"value\": 4000, \"errno\": 4000}");

	struct proto_call printf = library("__printf_chk");
	struct values p = {0};
	reg(&p, 1);
	str(&p, "%d\n");
	EXPECT(printf, ARGS_C, &p, "1, \"%d\\n\", ...");
	struct proto_call putchar = library("putchar");
	struct values c = {0}, eof = {0};
	reg(&c, 'x');
	reg(&eof, 0xffffffff);
	EXPECT(putchar, ARGS_C, &c, "'x'");
	EXPECT(putchar, RET_C, &c, "'x'");
	EXPECT(putchar, RET_C, &eof, "-1"); /* EOF, errno not captured */
	struct proto_call kill = library("kill");
	struct values k = {0};
	reg(&k, 1234);
	reg(&k, 15);
	EXPECT(kill, ARGS_C, &k, "1234, SIGTERM");
	struct proto_call getenv = library("getenv");
	struct values missing = {0};
	null(&missing);
	EXPECT(getenv, RET_C, &missing, "NULL");
	EXPECT(getenv, RET_JSON, &missing, "{\"type\": \"const char *\", \"value\": null}");
	struct proto_call strerror = library("strerror");
	struct values e = {0};
	reg(&e, 2);
	EXPECT(strerror, ARGS_C, &e, "ENOENT");
	struct proto_call sqrt = library("sqrt");
	struct values d = {0};
	reg(&d, 0x4004000000000000ull); /* 2.5 */
	EXPECT(sqrt, ARGS_C, &d, "2.5");
	EXPECT(sqrt, ARGS_JSON, &d, "[{\"name\": \"x\", \"type\": \"double\", \"value\": 2.5}]");
}

static void test_syscalls(void)
{
	struct proto_call openat = {NULL, true, EM_X86_64, NULL, 0};
	syscall_name(EM_X86_64, 257, &openat.proto);
	struct values a = {0}, r = {0}, ok = {0};
	reg(&a, (uint64_t)-100);
	reg(&a, 0x7ffd1000);
	reg(&a, 02000000);
	reg(&a, 0);
	reg(&a, 0xdead);
	reg(&a, 0xbeef);
	reg(&r, (uint64_t)-2);
	reg(&ok, 3);
	EXPECT(openat, ARGS_C, &a, "AT_FDCWD, 0x7ffd1000, O_RDONLY|O_CLOEXEC");
	EXPECT(openat, RET_C, &r, "-1 ENOENT (No such file or directory)");
	EXPECT(openat, RET_C, &ok, "3");
	EXPECT(openat, RET_JSON, &r, "{\"type\": \"int\", \"value\": -1, \"errno\": \"ENOENT\"}");
	EXPECT(openat, ARGS_JSON, &a,
	       "[{\"name\": \"dfd\", \"type\": \"int\", \"value\": \"AT_FDCWD\"}, {\"name\": "
	       "\"filename\", \"type\": \"const char *\", \"value\": \"0x7ffd1000\"}, {\"name\": "
	       "\"flags\", \"type\": \"int\", \"value\": \"O_RDONLY|O_CLOEXEC\"}]");

	/* close's descriptor is no directory's: -100 is a number. */
	struct proto_call close_call = {NULL, true, EM_X86_64, NULL, 0};
	syscall_name(EM_X86_64, 3, &close_call.proto);
	struct values minus100 = {0};
	reg(&minus100, (uint64_t)-100);
	EXPECT(close_call, ARGS_C, &minus100, "-100");
	EXPECT(close_call, ARGS_JSON, &minus100,
	       "[{\"name\": \"fd\", \"type\": \"int\", \"value\": -100}]");

	struct proto_call connect = {NULL, true, EM_AARCH64, NULL, 0};
	syscall_name(EM_AARCH64, 203, &connect.proto);
	struct values c = {0};
	reg(&c, 5);
	reg(&c, 0x7ffd2000);
	reg(&c, 16);
	EXPECT(connect, ARGS_C, &c, "5, 0x7ffd2000, 16"); /* no sockaddr bytes: the pointer */

	struct proto_call unknown = {NULL, true, EM_X86_64, NULL, 0};
	struct values u = {0}, nosys = {0}, big = {0};
	for (int i = 0; i < 6; i++)
		reg(&u, i == 1 ? 0x7ffd3000 : (uint64_t)i);
	reg(&nosys, (uint64_t)-38);
	reg(&big, 0x7f0000001000);
	EXPECT(unknown, ARGS_C, &u, "0, 0x7ffd3000, 0x2, 0x3, 0x4, 0x5");
	EXPECT(unknown, RET_C, &nosys, "-1 ENOSYS (Function not implemented)");
	EXPECT(unknown, RET_C, &big, "139637976731648");
	EXPECT(unknown, ARGS_JSON, &u,
	       "[{\"name\": \"arg1\", \"type\": \"long\", \"value\": \"0\"}, {\"name\": \"arg2\", "
	       "\"type\": \"long\", \"value\": \"0x7ffd3000\"}, {\"name\": \"arg3\", \"type\": "
	       "\"long\", \"value\": \"0x2\"}, {\"name\": \"arg4\", \"type\": \"long\", \"value\": "
	       "\"0x3\"}, {\"name\": \"arg5\", \"type\": \"long\", \"value\": \"0x4\"}, {\"name\": "
	       "\"arg6\", \"type\": \"long\", \"value\": \"0x5\"}]");
	EXPECT(unknown, RET_JSON, &nosys,
	       "{\"type\": \"long\", \"value\": -1, \"errno\": \"ENOSYS\"}");
}

static void test_damaged(void)
{
	struct proto_call read = library("read");
	struct values short_reg = {0}, wrong_tag = {0}, bad_tag = {0}, cut = {0}, empty = {0};
	put_tagged(&short_reg, VALUE_BYTES, "\x03\0\0\0", 4);
	reg(&short_reg, 0x1000);
	str(&wrong_tag, "three");
	reg(&wrong_tag, 0x1000);
	reg(&bad_tag, 3);
	bad_tag.bytes[bad_tag.len++] = 9; /* no such tag: the values end */
	reg(&cut, 3);
	cut.bytes[cut.len++] = VALUE_BYTES;
	cut.bytes[cut.len++] = 8; /* 8 bytes announced, 2 there */
	cut.bytes[cut.len++] = 1;
	cut.bytes[cut.len++] = 2;
	EXPECT(read, ARGS_C, &short_reg, "?, 0x1000");
	EXPECT(read, ARGS_C, &wrong_tag, "?, 0x1000");
	EXPECT(read, ARGS_C, &bad_tag, "3");
	EXPECT(read, ARGS_C, &cut, "3");
	EXPECT(read, ARGS_C, &empty, "");
	EXPECT(read, ARGS_C, NULL, "");
	EXPECT(read, ARGS_JSON, &short_reg,
	       "[{\"name\": \"fd\", \"type\": \"int\", \"value\": null}, {\"name\": \"buf\", "
	       "\"type\": \"void *\", \"value\": \"0x1000\"}]");
	EXPECT(read, RET_C, &short_reg, "?");
	EXPECT(read, RET_JSON, &short_reg, "{\"type\": \"long\", \"value\": null}");
	EXPECT(read, RET_C, &bad_tag, "3");
	EXPECT(read, RET_C, NULL, "");
	EXPECT(read, RET_JSON, NULL, "null");
	struct values only_bad = {0};
	only_bad.bytes[only_bad.len++] = 9;
	EXPECT(read, RET_C, &only_bad, "");
	EXPECT(read, RET_JSON, &only_bad, "null");
	/* A failed call whose errno value is damaged, or missing */
	struct values bad_errno = {0}, no_errno = {0};
	reg(&bad_errno, UINT64_MAX);
	put_tagged(&bad_errno, VALUE_BYTES, "\x02", 1);
	reg(&no_errno, UINT64_MAX);
	EXPECT(read, RET_C, &bad_errno, "-1 ?");
	EXPECT(read, RET_JSON, &bad_errno, "{\"type\": \"long\", \"value\": -1, \"errno\": null}");
	EXPECT(read, RET_C, &no_errno, "-1");
	/* A sockaddr of no bytes, a string where a number is */
	struct proto_call connect = library("connect");
	struct values sa = {0};
	reg(&sa, 5);
	put_tagged(&sa, VALUE_BYTES, "", 0);
	str(&sa, "16");
	EXPECT(connect, ARGS_C, &sa, "5, ?, ?");
}

static void test_through_call_values(void)
{
	struct call_values *cv = call_values_new();
	CHECK(cv != NULL, "call_values_new");
	if (!cv)
		return;
	struct symbol open = {.name = "open",
			      .module = "?",
			      .kind = CALL_LIBRARY,
			      .proto = prototype_of_function("open")};
	struct symbol syscall = {.name = "syscall_999", .module = "?", .kind = CALL_SYSCALL};
	struct values a = {0}, r = {0}, u = {0};
	str(&a, "/etc/passwd");
	reg(&a, 0);
	reg(&r, 0xffffffff);
	err(&r, 13);
	reg(&u, 1);
	reg(&u, 2);
	struct value_out o;
	value_out_init_buffer(&o);
	call_values_args_c(cv, &o, &open, a.bytes, a.len, NULL, 0);
	value_out_text_put(&o, " = ");
	call_values_return_c(cv, &o, &open, r.bytes, r.len);
	CHECK(strcmp(value_out_text(&o),
		     "\"/etc/passwd\", O_RDONLY = -1 EACCES (Permission denied)") == 0,
	      "open through call_values");
	value_out_reset(&o);
	call_values_set_machine(cv, EM_AARCH64);
	call_values_args_c(cv, &o, &syscall, u.bytes, u.len, NULL, 0);
	CHECK(strcmp(value_out_text(&o), "0x1, 0x2") == 0, "an unknown system call: raw hex");
	value_out_reset(&o);
	call_values_return_json(cv, &o, &open, r.bytes, r.len);
	CHECK(strcmp(value_out_text(&o),
		     "{\"type\": \"int\", \"value\": -1, \"errno\": \"EACCES\"}") == 0,
	      "open's JSON return through call_values");
	value_out_free(&o);
	call_values_free(cv);
}

int main(void)
{
	test_open();
	test_read_and_malloc();
	test_connect();
	test_pthread_and_others();
	test_syscalls();
	test_damaged();
	test_through_call_values();
	return CHECK_SUMMARY("test_proto_values");
}
