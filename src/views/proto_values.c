/*
 * proto_values.c - a call's values written with its built-in prototype
 * (see proto_values.h).  Scalars, pointers, strings and characters go
 * through value_format.c with a type descriptor made here, so they read
 * as every other value; names of flags and errno come from
 * symbols/prototypes_decode.c; sockaddrs are written here.
 */
#include "proto_values.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include "../format/trace_format.h"
#include "../symbols/prototypes_decode.h"
#include "syscall_values.h"

#define SCALAR(kind_, size_, signed_, text_)                                                       \
	{                                                                                          \
		.kind = kind_, .size = size_, .align = size_, .is_signed = signed_, .text = text_  \
	}
static const struct ctype t_int = SCALAR(CTYPE_INT, 4, true, "int");
static const struct ctype t_uint = SCALAR(CTYPE_INT, 4, false, "unsigned int");
static const struct ctype t_long = SCALAR(CTYPE_INT, 8, true, "long");
static const struct ctype t_ulong = SCALAR(CTYPE_INT, 8, false, "unsigned long");
static const struct ctype t_char = SCALAR(CTYPE_CHAR, 1, true, "char");
static const struct ctype t_double = SCALAR(CTYPE_FLOAT, 8, true, "double");
static const struct ctype t_pointer = SCALAR(CTYPE_POINTER, 8, false, "void *");
static const struct ctype t_string = SCALAR(CTYPE_STRING, 8, false, "const char *");

/* The C type a proto_type stands for, as JSON's "type" names it. */
static const char *type_text(uint8_t type)
{
	static const char *const texts[PT_TYPES] = {
	    [PT_VOID] = "void",
	    [PT_INT] = "int",
	    [PT_UINT] = "unsigned int",
	    [PT_LONG] = "long",
	    [PT_ULONG] = "unsigned long",
	    [PT_HEX] = "unsigned long",
	    [PT_PTR] = "void *",
	    [PT_STRING] = "const char *",
	    [PT_FD] = "int",
	    [PT_DIRFD] = "int",
	    [PT_DOUBLE] = "double",
	    [PT_CHAR] = "int",
	    [PT_SOCKADDR] = "const struct sockaddr *",
	    [PT_OPEN_FLAGS] = "int",
	    [PT_MODE] = "mode_t",
	    [PT_PROT] = "int",
	    [PT_MAP_FLAGS] = "int",
	    [PT_SIGNAL] = "int",
	    [PT_ADDRESS_FAMILY] = "int",
	    [PT_SOCKET_TYPE] = "int",
	    [PT_WHENCE] = "int",
	    [PT_ACCESS_MODE] = "int",
	    [PT_CLOCK_ID] = "clockid_t",
	    [PT_FCNTL_CMD] = "int",
	    [PT_ERRNO] = "int",
	    [PT_FILE_FLAGS] = "int",
	    [PT_BUF_IN] = "const void *",
	    [PT_BUF_OUT] = "void *",
	    [PT_SOCKADDR_OUT] = "struct sockaddr *",
	    [PT_TIMESPEC] = "const struct timespec *",
	    [PT_STAT_OUT] = "struct stat *",
	    [PT_PIPE_FDS] = "int *",
	    [PT_ARGV] = "char *const *",
	    [PT_AT_FLAGS] = "int",
	    [PT_SOCKLEN_IO] = "socklen_t *",
	    [PT_ENVP] = "char *const *",
	    [PT_IOV_IN] = "const struct iovec *",
	    [PT_IOV_OUT] = "struct iovec *",
	    [PT_MSG_FLAGS] = "int",
	    [PT_MSGHDR_IN] = "const struct msghdr *",
	    [PT_MSGHDR_OUT] = "struct msghdr *",
	};
	return type < PT_TYPES && texts[type] ? texts[type] : "?";
}

static const struct ctype *ctype_of(uint8_t type)
{
	switch (type) {
	case PT_INT:
		return &t_int;
	case PT_UINT:
		return &t_uint;
	case PT_LONG:
		return &t_long;
	case PT_ULONG:
		return &t_ulong;
	case PT_DOUBLE:
		return &t_double;
	case PT_PTR:
	case PT_SOCKADDR: /* a system call's: the pointer */
	case PT_BUF_IN:
	case PT_BUF_OUT:
	case PT_SOCKADDR_OUT:
	case PT_TIMESPEC:
	case PT_STAT_OUT:
	case PT_PIPE_FDS:
	case PT_ARGV:
	case PT_SOCKLEN_IO:
	case PT_ENVP:
	case PT_IOV_IN:
	case PT_IOV_OUT:
	case PT_MSGHDR_IN:
	case PT_MSGHDR_OUT:
		return &t_pointer;
	case PT_STRING:
		return &t_string;
	default:
		return NULL;
	}
}

struct writer {
	struct value_out *o;
	const struct proto_call *call;
	bool json;
	const char *shown; /* the value's text, when made already */
};

static void format(const struct writer *w, const struct ctype *type, const struct tagged_value *v)
{
	if (w->json)
		value_format_json(w->o, type, v);
	else
		value_format_c(w->o, type, v);
}

static void put_missing(const struct writer *w)
{
	value_out_text_put(w->o, w->json ? "null" : "?");
}

/* Text that is a name or an expression: as it is, or a JSON string. */
static void put_text(const struct writer *w, const char *text)
{
	if (w->json)
		value_out_json_text(w->o, text);
	else
		value_out_text_put(w->o, text);
}

/* A scalar's register: 8 little-endian bytes. */
static bool register_of(const struct tagged_value *v, uint64_t *x)
{
	if (v->tag != VALUE_BYTES || v->len != 8 || !v->bytes)
		return false;
	*x = 0;
	for (int i = 7; i >= 0; i--)
		*x = *x << 8 | v->bytes[i];
	return true;
}

/* --- sockaddr --- */

static unsigned read_u16(const uint8_t *p, bool big_endian)
{
	return big_endian ? (unsigned)p[0] << 8 | p[1] : (unsigned)p[1] << 8 | p[0];
}

/* {AF_INET, 127.0.0.1:6379}, {AF_INET6, [::1]:80}, {AF_UNIX, "/tmp/s"}
 * ("@" before an abstract name), {AF_NETLINK}. */
static void sockaddr_text(struct value_out *t, const uint8_t *p, size_t n)
{
	char addr[INET6_ADDRSTRLEN + 16], number[16];
	unsigned family = read_u16(p, false);
	const char *name = proto_family_name(family);
	snprintf(number, sizeof(number), "%u", family);
	value_out_text_put(t, "{");
	value_out_text_put(t, name ? name : number);
	if (family == 2 && n >= 8) {
		snprintf(addr, sizeof(addr), ", %u.%u.%u.%u:%u", p[4], p[5], p[6], p[7],
			 read_u16(p + 2, true));
		value_out_text_put(t, addr);
	} else if (family == 10 && n >= 24) {
		char ip[INET6_ADDRSTRLEN] = "?";
		inet_ntop(AF_INET6, p + 8, ip, sizeof(ip));
		snprintf(addr, sizeof(addr), ", [%s]:%u", ip, read_u16(p + 2, true));
		value_out_text_put(t, addr);
	} else if (family == 1 && n > 2) {
		bool abstract = p[2] == '\0';
		size_t start = abstract ? 3 : 2, end = start;
		while (end < n && (abstract || p[end] != '\0'))
			end++;
		struct tagged_value path = {VALUE_STRING, p + start, end - start};
		value_out_text_put(t, abstract ? ", @" : ", ");
		value_format_c(t, NULL, &path);
	} else if ((family == 2 || family == 10) && n > 2) {
		value_out_text_put(t, ", ?");
	}
	value_out_text_put(t, "}");
}

static void put_sockaddr(const struct writer *w, const uint8_t *p, size_t n)
{
	if (!p || n < 2) {
		put_missing(w);
		return;
	}
	struct value_out t;
	value_out_init_buffer(&t);
	sockaddr_text(&t, p, n);
	put_text(w, value_out_text(&t));
	value_out_free(&t);
}

/* --- one value --- */

static void put_register(const struct writer *w, uint8_t type, uint64_t x,
			 const struct tagged_value *v)
{
	char text[192];
	if (proto_decode(type, x, w->call->machine, text, sizeof(text))) {
		if (w->json && (type == PT_FD || (type == PT_DIRFD && (int32_t)x != -100)))
			value_out_text_put(w->o, text); /* a number */
		else
			put_text(w, text);
		return;
	}
	if (type == PT_HEX) {
		snprintf(text, sizeof(text), x ? "%#llx" : "0", (unsigned long long)x);
		put_text(w, text);
	} else if (type == PT_CHAR && (int32_t)x >= 0 && (int32_t)x <= 0xff) {
		struct tagged_value c = {VALUE_BYTES, v->bytes, 1};
		format(w, &t_char, &c);
	} else if (type == PT_CHAR) {
		format(w, &t_int, v);
	} else if (ctype_of(type)) {
		format(w, ctype_of(type), v);
	} else {
		put_missing(w);
	}
}

static void put_value(const struct writer *w, uint8_t type, const struct tagged_value *v)
{
	uint64_t x;
	if (w->shown) {
		put_text(w, w->shown);
	} else if (v->tag == VALUE_STRING || v->tag == VALUE_STRING_CUT) {
		if (type == PT_STRING)
			format(w, &t_string, v);
		else
			put_missing(w);
	} else if (v->tag != VALUE_BYTES) {
		format(w, &t_pointer, v); /* NULL, <unreadable 0x...>, <optimized out> */
	} else if (type == PT_SOCKADDR && !w->call->raw) {
		put_sockaddr(w, v->bytes, v->len);
	} else if (register_of(v, &x)) {
		put_register(w, type, x, v);
	} else {
		put_missing(w);
	}
}

/* --- arguments --- */

/* Calls `each` for the values the prototype describes (every value of an
 * unknown system call, as hex), leaving out a mode that flags before it
 * make meaningless; stops at bytes that are no value. */
typedef void (*arg_fn)(const struct writer *w, const char *name, uint8_t type,
		       const struct tagged_value *v, unsigned shown);

static void each_arg(const struct writer *w, const uint8_t *values, uint32_t len, arg_fn each)
{
	const struct prototype *p = w->call->proto;
	unsigned max = p ? p->nargs : PROTO_MAX_ARGS, shown = 0;
	uint64_t previous = 0;
	bool have_previous = false;
	size_t at = 0;
	for (unsigned i = 0; i < max && at < len; i++) {
		struct tagged_value v;
		size_t used = value_decode(values + at, len - at, &v);
		if (used == 0)
			return;
		at += used;
		uint8_t type = p ? p->args[i].type : PT_HEX;
		if (p && type == PT_MODE && i > 0 && p->args[i - 1].type == PT_OPEN_FLAGS &&
		    have_previous && !proto_open_flags_create(previous, w->call->machine))
			continue;
		have_previous = register_of(&v, &previous);
		char name[16];
		snprintf(name, sizeof(name), "arg%u", i + 1);
		struct writer copied = *w;
		struct value_out text;
		value_out_init_buffer(&text);
		struct syscall_recorded r = {values, w->call->ret, len, w->call->ret_len,
					     w->call->machine};
		if (w->call->raw && have_previous &&
		    syscall_value_text(&text, &r, i, type, previous))
			copied.shown = value_out_text(&text);
		each(&copied, p ? p->args[i].name : name, type, &v, shown++);
		value_out_free(&text);
	}
}

static void arg_c(const struct writer *w, const char *name, uint8_t type,
		  const struct tagged_value *v, unsigned shown)
{
	(void)name;
	if (shown)
		value_out_text_put(w->o, ", ");
	put_value(w, type, v);
}

void proto_values_args_c(struct value_out *o, const struct proto_call *call, const uint8_t *values,
			 uint32_t len)
{
	struct writer w = {o, call, false, NULL};
	if (!values)
		return;
	each_arg(&w, values, len, arg_c);
	if (call->proto && call->proto->variadic)
		value_out_text_put(o, call->proto->nargs ? ", ..." : "...");
}

static void arg_json(const struct writer *w, const char *name, uint8_t type,
		     const struct tagged_value *v, unsigned shown)
{
	value_out_text_put(w->o, shown ? ", {\"name\": " : "{\"name\": ");
	value_out_json_text(w->o, name);
	value_out_text_put(w->o, ", \"type\": ");
	value_out_json_text(w->o, w->call->proto ? type_text(type) : "long");
	value_out_text_put(w->o, ", \"value\": ");
	put_value(w, type, v);
	value_out_text_put(w->o, "}");
}

void proto_values_args_json(struct value_out *o, const struct proto_call *call,
			    const uint8_t *values, uint32_t len)
{
	struct writer w = {o, call, true, NULL};
	value_out_text_put(o, "[");
	if (values)
		each_arg(&w, values, len, arg_json);
	value_out_text_put(o, "]");
}

/* --- the return value --- */

struct result {
	uint8_t type;
	struct tagged_value value;
	bool failed;
	const char *shown; /* a failed call's value as strace writes it ("-1", "NULL") */
	int err;	   /* > 0: the error number */
	bool err_damaged;  /* an errno value that is none */
};

/* errno, the value after a failed library call's return value. */
static void read_errno(const uint8_t *p, size_t len, struct result *r)
{
	struct tagged_value v;
	if (len == 0)
		return; /* not captured */
	if (value_decode(p, len, &v) == 0 || v.tag != VALUE_BYTES || v.len != 4) {
		r->err_damaged = true;
		return;
	}
	r->err = (int)((uint32_t)v.bytes[0] | (uint32_t)v.bytes[1] << 8 |
		       (uint32_t)v.bytes[2] << 16 | (uint32_t)v.bytes[3] << 24);
}

/* Whether the call failed, the way its prototype says failure shows; a
 * system call fails as every system call does, with or without one. */
static void judge(const struct proto_call *call, const uint8_t *rest, size_t rest_len,
		  struct result *r)
{
	static const struct prototype raw = {.name = "", .ret = PT_LONG, .failure = PF_NEG_ERRNO};
	const struct prototype *p = call->raw ? &raw : call->proto;
	uint64_t x = 0;
	if (r->value.tag != VALUE_NULL && !register_of(&r->value, &x))
		return;
	r->failed = prototype_failed(p, x);
	if (!r->failed)
		return;
	if (p->failure == PF_ERRNUM) {
		r->err = (int32_t)x;
	} else if (p->failure == PF_NEG_ERRNO) {
		r->shown = "-1";
		r->err = (int)-(int64_t)x;
	} else {
		r->shown = p->failure == PF_NULL ? "NULL" : "-1";
		read_errno(rest, rest_len, r);
	}
}

static bool read_result(const struct proto_call *call, const uint8_t *values, uint32_t len,
			struct result *r)
{
	memset(r, 0, sizeof(*r));
	size_t used = values ? value_decode(values, len, &r->value) : 0;
	if (used == 0)
		return false;
	r->type = call->proto ? call->proto->ret : PT_LONG;
	if (call->raw || call->proto)
		judge(call, values + used, len - used, r);
	return true;
}

void proto_values_return_c(struct value_out *o, const struct proto_call *call,
			   const uint8_t *values, uint32_t len)
{
	struct writer w = {o, call, false, NULL};
	struct result r;
	if (!read_result(call, values, len, &r) || r.type == PT_VOID)
		return;
	if (r.failed && r.shown)
		value_out_text_put(o, r.shown);
	else
		put_value(&w, r.type, &r.value);
	if (!r.failed)
		return;
	const char *name = proto_errno_name(r.err), *text = proto_errno_text(r.err);
	char line[256];
	if (r.err_damaged)
		snprintf(line, sizeof(line), " ?");
	else if (name)
		snprintf(line, sizeof(line), " %s (%s)", name, text ? text : name);
	else if (r.err > 0 && r.shown)
		snprintf(line, sizeof(line), " errno %d", r.err);
	else
		line[0] = '\0';
	value_out_text_put(o, line);
}

void proto_values_return_json(struct value_out *o, const struct proto_call *call,
			      const uint8_t *values, uint32_t len)
{
	struct writer w = {o, call, true, NULL};
	struct result r;
	if (!read_result(call, values, len, &r) || r.type == PT_VOID) {
		value_out_text_put(o, "null");
		return;
	}
	value_out_text_put(o, "{\"type\": ");
	value_out_json_text(o, call->proto ? type_text(r.type) : "long");
	value_out_text_put(o, ", \"value\": ");
	if (r.failed && r.shown)
		value_out_text_put(o, strcmp(r.shown, "NULL") == 0 ? "null" : r.shown);
	else
		put_value(&w, r.type, &r.value);
	const char *name = proto_errno_name(r.err);
	if (r.failed && r.err_damaged) {
		value_out_text_put(o, ", \"errno\": null");
	} else if (r.failed && name) {
		value_out_text_put(o, ", \"errno\": ");
		value_out_json_text(o, name);
	} else if (r.failed && r.err > 0) {
		char number[32];
		snprintf(number, sizeof(number), ", \"errno\": %d", r.err);
		value_out_text_put(o, number);
	}
	value_out_text_put(o, "}");
}
