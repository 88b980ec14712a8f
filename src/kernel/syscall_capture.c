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

/* What is copied of an argument of each type, at the call or the
 * return, and the size of a struct (0: the length is an argument's). */
static const struct {
	uint8_t type, enter, exit, size;
} copies[] = {
    {PT_STRING, CAP_PATH, CAP_NONE, 0},
    {PT_ARGV, CAP_ARGV, CAP_NONE, 0},
    {PT_SOCKADDR, CAP_SOCKADDR, CAP_NONE, 0},
    {PT_BUF_IN, CAP_BUF, CAP_NONE, 0},
    {PT_TIMESPEC, CAP_FIXED, CAP_NONE, 16},
    {PT_BUF_OUT, CAP_NONE, CAP_BUF, 0},
    {PT_SOCKADDR_OUT, CAP_NONE, CAP_SOCKADDR, 0},
    {PT_STAT_OUT, CAP_NONE, CAP_FIXED, 0},
    {PT_PIPE_FDS, CAP_NONE, CAP_FIXED, 8},
    {PT_SOCKLEN_IO, CAP_FIXED, CAP_FIXED, CAPTURE_SIZE_4},
    {PT_ENVP, CAP_COUNT, CAP_NONE, 0},
    {PT_IOV_IN, CAP_IOV, CAP_NONE, 0},
    {PT_IOV_OUT, CAP_NONE, CAP_IOV, 0},
    {PT_MSGHDR_IN, CAP_MSGHDR, CAP_NONE, 0},
    {PT_MSGHDR_OUT, CAP_NONE, CAP_MSGHDR, 0},
};

static void plan_arg(struct capture_plan *plan, unsigned i, const struct proto_arg *a,
		     uint32_t machine)
{
	for (size_t k = 0; k < sizeof(copies) / sizeof(copies[0]); k++) {
		if (copies[k].type != a->type)
			continue;
		plan->enter[i] = copies[k].enter;
		plan->exit[i] = copies[k].exit;
		plan->len_arg[i] = copies[k].size ? copies[k].size : a->len_arg;
		if (a->type == PT_STAT_OUT)
			plan->len_arg[i] =
			    machine == EM_X86_64 ? STAT_SIZE_X86_64 : STAT_SIZE_GENERIC;
	}
}

bool syscall_capture_plan(uint32_t machine, uint32_t nr, struct capture_plan *plan)
{
	const struct prototype *p;
	memset(plan, 0, sizeof(*plan));
	const char *name = syscall_name(machine, nr, &p);
	if (!p)
		return false;
	for (unsigned i = 0; i < p->nargs && i < 6; i++) {
		plan_arg(plan, i, &p->args[i], machine);
		plan->at_enter |= plan->enter[i] != CAP_NONE;
		plan->exit_copies |= plan->exit[i] != CAP_NONE;
	}
	/* After an exec the pointers are the new image's: never read again. */
	plan->no_retry = strncmp(name, "execve", 6) == 0;
	plan->at_exit = plan->exit_copies || (plan->at_enter && !plan->no_retry);
	return plan->at_enter || plan->exit_copies;
}

static uint8_t tag_of(const struct capture_item *it)
{
	if (it->status == CAPTURE_FAULT)
		return VALUE_UNREADABLE;
	if (it->status == CAPTURED_MORE)
		return VALUE_UNAVAILABLE;
	if (it->kind == CAP_SOCKADDR || it->kind == CAP_FIXED || it->kind == CAP_COUNT ||
	    it->kind == CAP_MSGHDR)
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
		if (it.kind == CAP_ARGV || it.kind == CAP_IOV || it.kind == CAP_MSGHDR)
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
