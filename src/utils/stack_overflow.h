/*
 * stack_overflow.h - whether a fault is a stack overflow, decided from the
 * memory map of the crashed process (/proc/PID/maps, fed line by line) and
 * the crashing thread's stack pointer.
 *
 * A thread's stack is a read-write mapping; below it lies either its guard
 * (a mapping with no access, as threads of the C library have) or nothing
 * (the main thread's stack, which the kernel grows down until its limit).
 * The fault is a stack overflow when it lies in that guard or in that gap
 * just below a read-write mapping, the stack pointer is on that stack (or
 * past its end, in the same guard or gap), and the fault no farther below
 * the stack pointer than a push or a probe of the next frame reaches.
 *
 * Header only, without the C library: the runtime calls it inside its
 * crash handler, the ptrace engine from the tool.
 */
#ifndef CALLTRACE_STACK_OVERFLOW_H
#define CALLTRACE_STACK_OVERFLOW_H

#include <stdint.h>

/* How far below the stack pointer a fault still counts (a push, the red
 * zone, a probe of the next page). */
#define STACK_FAULT_SLACK (64u << 10)

struct maps_range {
	uint64_t start, end;
	char perms[4]; /* "rwxp" as /proc/PID/maps has it */
};

struct stack_fault_scan {
	uint64_t fault, sp;
	struct maps_range prev;	 /* the last mapping below the fault so far */
	struct maps_range above; /* the first mapping above the fault */
	int have_prev, have_above;
};

static inline uint64_t maps_parse_hex(const char **p)
{
	uint64_t v = 0;
	for (;; (*p)++) {
		char c = **p;
		if (c >= '0' && c <= '9')
			v = v * 16 + (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uint64_t)(c - 'a' + 10);
		else
			return v;
	}
}

/* "start-end perms ..." into *r; 0 when the line is not one. */
static inline int maps_parse_range(const char *line, struct maps_range *r)
{
	const char *p = line;
	r->start = maps_parse_hex(&p);
	if (*p++ != '-')
		return 0;
	r->end = maps_parse_hex(&p);
	if (*p++ != ' ')
		return 0;
	for (int i = 0; i < 4; i++) {
		if (!p[i])
			return 0;
		r->perms[i] = p[i];
	}
	return 1;
}

static inline void stack_fault_begin(struct stack_fault_scan *s, uint64_t fault, uint64_t sp)
{
	*s = (struct stack_fault_scan){.fault = fault, .sp = sp};
}

/* One line of the map, in the map's order (by address). */
static inline void stack_fault_line(struct stack_fault_scan *s, const char *line)
{
	struct maps_range r;
	if (s->have_above || !maps_parse_range(line, &r))
		return;
	if (r.start > s->fault) {
		s->above = r;
		s->have_above = 1;
		return;
	}
	s->prev = r;
	s->have_prev = 1;
}

static inline int maps_range_no_access(const struct maps_range *r)
{
	return r->perms[0] == '-' && r->perms[1] == '-' && r->perms[2] == '-';
}

/* After the last line: 1 when the fault is a stack overflow. */
static inline int stack_fault_is_overflow(const struct stack_fault_scan *s)
{
	if (!s->have_above)
		return 0;
	const struct maps_range *stack = &s->above;
	uint64_t low = s->have_prev ? s->prev.end : 0; /* where the gap below it starts */
	if (s->have_prev && s->prev.end > s->fault) {
		/* In a mapping: only a guard right below the stack counts. */
		if (!maps_range_no_access(&s->prev) || s->prev.end != stack->start)
			return 0;
		low = s->prev.start;
	}
	if (stack->perms[0] != 'r' || stack->perms[1] != 'w')
		return 0;
	/* The stack pointer on this stack (or past its end, in the gap or
	 * the guard), and the fault near it. */
	return s->sp >= low && s->sp < stack->end && s->fault + STACK_FAULT_SLACK >= s->sp;
}

#endif
