/*
 * syscall_capture.c - the tool's side of the argument copies (see
 * syscall_capture.h): a plan per system call from its built-in prototype,
 * and the BPF program's items as the tagged values the trace keeps.
 */
#include "syscall_capture.h"
#include "../format/event_encode.h"
#include "../format/trace_format.h"
#include "../symbols/prototypes.h"

#include <elf.h>
#include <string.h>

#define STAT_SIZE_X86_64 144
#define STAT_SIZE_GENERIC 128 /* aarch64 */
#define TIMESPEC_SIZE 16
#define PIPE_FDS_SIZE 8

/* What is copied of an argument of type `type`, at the call or the return
 * (`at_exit`), and the length its plan gives. */
static int kind_of(uint8_t type, int at_exit, uint32_t machine, uint8_t *len)
{
	switch (type) {
	case PT_STRING:
		return at_exit ? CAP_NONE : CAP_PATH;
	case PT_ARGV:
		return at_exit ? CAP_NONE : CAP_ARGV;
	case PT_SOCKADDR:
		return at_exit ? CAP_NONE : CAP_SOCKADDR;
	case PT_BUF_IN:
		return at_exit ? CAP_NONE : CAP_BUF;
	case PT_TIMESPEC:
		*len = TIMESPEC_SIZE;
		return at_exit ? CAP_NONE : CAP_FIXED;
	case PT_BUF_OUT:
		return at_exit ? CAP_BUF : CAP_NONE;
	case PT_SOCKADDR_OUT:
		return at_exit ? CAP_SOCKADDR : CAP_NONE;
	case PT_STAT_OUT:
		*len = machine == EM_X86_64 ? STAT_SIZE_X86_64 : STAT_SIZE_GENERIC;
		return at_exit ? CAP_FIXED : CAP_NONE;
	case PT_PIPE_FDS:
		*len = PIPE_FDS_SIZE;
		return at_exit ? CAP_FIXED : CAP_NONE;
	default:
		return CAP_NONE;
	}
}

bool syscall_capture_plan(uint32_t machine, uint32_t nr, struct capture_plan *plan)
{
	const struct prototype *p;
	bool any = false;
	memset(plan, 0, sizeof(*plan));
	const char *name = syscall_name(machine, nr, &p);
	if (!p)
		return false;
	for (unsigned i = 0; i < p->nargs && i < 6; i++) {
		uint8_t len = p->args[i].len_arg;
		plan->enter[i] = (unsigned char)kind_of(p->args[i].type, 0, machine, &len);
		plan->exit[i] = (unsigned char)kind_of(p->args[i].type, 1, machine, &len);
		plan->len_arg[i] = len;
		any |= plan->enter[i] || plan->exit[i];
	}
	/* After an exec the pointers are the new image's: never read again. */
	plan->pad[0] = strncmp(name, "execve", 6) == 0;
	return any;
}

static uint8_t tag_of(const struct capture_item *it)
{
	if (it->status == CAPTURE_FAULT)
		return VALUE_UNREADABLE;
	if (it->status == CAPTURED_MORE)
		return VALUE_UNAVAILABLE;
	if (it->kind == CAP_SOCKADDR || it->kind == CAP_FIXED)
		return VALUE_BYTES;
	return it->status == CAPTURED_CUT ? VALUE_STRING_CUT : VALUE_STRING;
}

uint32_t syscall_capture_values(uint8_t *out, uint32_t room, const uint8_t *items, uint32_t len)
{
	uint8_t *p = out;
	uint32_t at = 0;
	struct capture_item it;
	while (at + sizeof(it) <= len) {
		memcpy(&it, items + at, sizeof(it));
		at += sizeof(it);
		if (it.kind == CAP_NONE || it.len > len - at || it.arg > SYSCALL_VALUE_ARG)
			break; /* the sample's padding, or damage */
		const uint8_t *bytes = items + at;
		at += it.len;
		uint8_t tag = tag_of(&it);
		uint32_t n = tag == VALUE_UNREADABLE || tag == VALUE_UNAVAILABLE ? 0 : it.len;
		if ((uint32_t)(p - out) + 3 + 1 + 10 + n > room)
			break;
		uint8_t index = it.arg;
		if (it.kind == CAP_ARGV)
			index |=
			    it.status == CAPTURED_MORE ? SYSCALL_VALUE_MORE : SYSCALL_VALUE_ELEMENT;
		*p++ = VALUE_BYTES;
		*p++ = 1;
		*p++ = index;
		*p++ = tag;
		if (tag == VALUE_UNAVAILABLE)
			continue;
		p = encode_varint(p, n);
		memcpy(p, bytes, n);
		p += n;
	}
	return (uint32_t)(p - out);
}
