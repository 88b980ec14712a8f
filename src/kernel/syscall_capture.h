/*
 * syscall_capture.h - what the BPF program (bpf/syscall_args.bpf.c) copies
 * of a traced thread's system call arguments, shared by the program, its
 * loader (syscall_bpf.c) and the collector that writes it into the trace
 * (syscall_capture.c).
 *
 * For each system call number a plan says, per argument, what to copy at
 * the call (a path, the first bytes of a buffer, a struct) and what at the
 * return (the data read, a struct filled).  The program sends one record
 * per call and per return that copied anything, into the CPU's perf ring,
 * in place of the tracepoint's own sample of it (one record, not two): a
 * capture_head with what the sample would say (the arguments, or the
 * return), then items (capture_item and its bytes).
 */
#ifndef CALLTRACE_SYSCALL_CAPTURE_H
#define CALLTRACE_SYSCALL_CAPTURE_H

#define CAPTURE_MAGIC 0xca11u /* first u16 of a record: no tracepoint id */
#define CAPTURE_NR_MAX 512    /* plans for numbers below */
#define CAPTURE_PATH_MAX 256  /* bytes of a path, its NUL included */
#define CAPTURE_BUF_MAX 32    /* bytes of a buffer (strace's -s 32) */
#define CAPTURE_STRUCT_MAX 160
#define CAPTURE_ARGV_MAX 8	/* elements of an argv */
#define CAPTURE_ELEMENT_MAX 64	/* bytes of one, its NUL included */
#define CAPTURE_IOV_MAX 8	/* iovecs of a readv / writev (their first CAPTURE_BUF_MAX bytes) */
#define CAPTURE_COUNT_MAX 1024	/* elements of an envp counted */
#define CAPTURE_SIZE_4 6	/* capture_plan.len_arg of a 4-byte value (a socklen_t) */
#define CAPTURE_RECORD_MAX 1400 /* no item starts past (then 2047 bytes at most) */
#define TRACED_WORDS 65536	/* the traced threads' bits: 2^22 tids (pid_max's limit) */

/* What to copy of an argument (capture_plan.enter[] / exit[]). */
enum capture_kind {
	CAP_NONE = 0,
	CAP_PATH,     /* a NUL-terminated string */
	CAP_BUF,      /* the first bytes; length: argument len_arg (call) or the return */
	CAP_SOCKADDR, /* length: argument len_arg (call), or *(socklen_t *) of it (return) */
	CAP_FIXED,    /* a struct of len_arg bytes */
	CAP_ARGV,     /* a NULL-terminated array of strings */
	CAP_COUNT,    /* the elements of a NULL-terminated array counted (u32) */
	/* iovecs (as many as argument len_arg says), each an item: its
	 * iov_len (u64), then the first bytes of its data; at the return, of
	 * the data the return says was read, spread over them in order. */
	CAP_IOV,
	/* A struct msghdr: an item of its 56 bytes (LP64's layout), then its
	 * msg_name (a CAP_SOCKADDR item of msg_namelen bytes) when it has
	 * one, then its iovecs as CAP_IOV's (the data: at the call all, at
	 * the return what the return says was read). */
	CAP_MSGHDR,
};

struct capture_plan {
	unsigned char enter[6], exit[6]; /* enum capture_kind */
	/* The argument giving the length (0..5), or a size: CAPTURE_SIZE_4
	 * for 4 bytes, else the size itself (8 and more). */
	unsigned char len_arg[6];
	unsigned char no_retry;	   /* an exec: the pointers are the new image's at the return */
	unsigned char at_enter;	   /* anything copied at the call */
	unsigned char exit_copies; /* anything copied at the return */
	/* Anything to do at the return: copies, or those of the call read
	 * again where they failed (at_enter, unless no_retry). */
	unsigned char at_exit;
};

enum capture_record_kind { CAPTURE_ENTER = 1, CAPTURE_EXIT = 2 };

struct capture_head {
	unsigned short magic; /* CAPTURE_MAGIC */
	unsigned short kind;  /* enum capture_record_kind */
	unsigned int nr;
	/* ENTER: the 6 argument registers; EXIT: the return, then the items
	 * (at CAPTURE_BODY(kind) bytes from the head's start). */
	unsigned long long regs[6];
};
#define CAPTURE_BODY(kind) (8u + 8u * ((kind) == CAPTURE_ENTER ? 6u : 1u))

/* An item's status. */
enum capture_status {
	CAPTURED = 0,  /* all of it */
	CAPTURED_CUT,  /* the first bytes of more */
	CAPTURE_FAULT, /* the memory could not be read (the pointer is the register) */
	CAPTURED_MORE, /* an argv or iovecs went on past their maximum, or an envp
			  past CAPTURE_COUNT_MAX (no bytes) */
};

struct capture_item {
	unsigned char arg;    /* 0..5 */
	unsigned char kind;   /* enum capture_kind */
	unsigned char status; /* enum capture_status */
	unsigned char pad;
	unsigned short len; /* bytes that follow */
} __attribute__((packed));

#ifndef __bpf__ /* the tool's side */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The plan of system call `nr` of `machine` from its built-in prototype;
 * false when nothing of it is copied. */
bool syscall_capture_plan(uint32_t machine, uint32_t nr, struct capture_plan *plan);

/* The items of a record's body (after its capture_head) as the tagged
 * values written after a system call's registers in EV_ARGS, or after its
 * return in EV_RETVAL (trace_format.h): per item, VALUE_BYTES of 1 byte
 * (SYSCALL_VALUE_ARG...) then the value.  Writes at most `room` bytes at
 * `out`, whole pairs only; returns the bytes written. */
uint32_t syscall_capture_values(uint8_t *out, uint32_t room, const uint8_t *items, uint32_t len);
#endif

#endif
