/*
 * remote_fd.c - hands an open file of calltrace to a held process, for a
 * process that may not open the file itself (another user's: root
 * attaching to a service), the file staying calltrace's user's.
 *
 * calltrace listens on an abstract unix socket of a name no one else
 * knows; a thread of the process (at a safe spot) is made to create a
 * socket and connect; calltrace takes the connection only from that
 * process (SO_PEERCRED) and sends the file over it (SCM_RIGHTS); the
 * thread receives it, and its socket is closed again.
 */
#include "inject.h"
#include "../ptrace/engine.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define CALL_TIMEOUT_MS 10000

struct fd_pass {
	struct held_process *p;
	struct held_thread *t;
	struct remote_stack s;
	char *why;
	size_t len;
};

/* libc's `name`(args) in the process; its result, or -1 after saying why. */
static long call_libc(struct fd_pass *f, const char *name, const uint64_t *args, int nargs)
{
	uint64_t fn = target_libc_symbol(f->p->pid, name), result = 0;
	char why[200];
	if (!fn) {
		snprintf(f->why, f->len, "no %s in the process", name);
		return -1;
	}
	if (remote_call(f->p, f->t, &f->s, fn, args, nargs, &result, CALL_TIMEOUT_MS, why,
			sizeof(why)) < 0) {
		snprintf(f->why, f->len, "%s: %s", name, why);
		return -1;
	}
	if ((long)result < 0)
		snprintf(f->why, f->len, "%s failed in the process", name);
	return (long)result;
}

/* A listening socket of a fresh abstract name, in *addr; or -1. */
static int listen_here(struct sockaddr_un *addr, socklen_t *addr_len)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	int n = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1, "calltrace-fd-%d-%lx-%lx",
			 (int)getpid(), (unsigned long)ts.tv_nsec, (unsigned long)ts.tv_sec);
	*addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ls < 0)
		return -1;
	if (bind(ls, (struct sockaddr *)addr, *addr_len) < 0 || listen(ls, 1) < 0) {
		close(ls);
		return -1;
	}
	return ls;
}

/* Sends `fd` over the connection waiting on `ls`, if it is the process's. */
static int send_fd(int ls, pid_t pid, int fd)
{
	int c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
	struct ucred cred;
	socklen_t cred_len = sizeof(cred);
	if (c < 0)
		return -1;
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) < 0 || cred.pid != pid) {
		close(c);
		return -1;
	}
	char byte = 'F';
	union {
		struct cmsghdr h;
		char room[CMSG_SPACE(sizeof(int))];
	} control;
	memset(&control, 0, sizeof(control));
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.room,
			     .msg_controllen = sizeof(control.room)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	int rc = sendmsg(c, &msg, MSG_NOSIGNAL) == 1 ? 0 : -1;
	close(c);
	return rc;
}

/* The process receives on its socket `rs`: the file's number there, or -1. */
static int receive_there(struct fd_pass *f, long rs)
{
	union {
		struct cmsghdr h;
		char room[CMSG_SPACE(sizeof(int))];
	} control;
	memset(&control, 0, sizeof(control));
	uint64_t rbyte = remote_stack_push(f->p, &f->s, "", 1);
	uint64_t rcontrol = remote_stack_push(f->p, &f->s, &control, sizeof(control));
	struct iovec iov = {(void *)(uintptr_t)rbyte, 1};
	uint64_t riov = remote_stack_push(f->p, &f->s, &iov, sizeof(iov));
	struct msghdr msg = {.msg_iov = (struct iovec *)(uintptr_t)riov,
			     .msg_iovlen = 1,
			     .msg_control = (void *)(uintptr_t)rcontrol,
			     .msg_controllen = sizeof(control.room)};
	uint64_t rmsg = remote_stack_push(f->p, &f->s, &msg, sizeof(msg));
	if (!rbyte || !rcontrol || !riov || !rmsg)
		return -1;
	uint64_t args[3] = {(uint64_t)rs, rmsg, MSG_CMSG_CLOEXEC};
	if (call_libc(f, "recvmsg", args, 3) != 1)
		return -1;
	struct iovec local = {&control, sizeof(control)};
	struct iovec remote = {(void *)(uintptr_t)rcontrol, sizeof(control)};
	if (process_vm_readv(f->p->pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(control) ||
	    control.h.cmsg_level != SOL_SOCKET || control.h.cmsg_type != SCM_RIGHTS)
		return -1;
	int there;
	memcpy(&there, CMSG_DATA(&control.h), sizeof(int));
	return there;
}

/* The user id process `pid` opens files as (its fsuid), or -1. */
static long fs_uid(pid_t pid)
{
	char path[64], line[256];
	long uid = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %*d %*d %*d %ld", &uid) == 1)
			break;
	fclose(f);
	return uid;
}

static int fd_needed(pid_t pid)
{
	long uid = fs_uid(pid);
	return uid > 0 && uid != (long)geteuid();
}

int remote_give_fd(struct held_process *p, struct held_thread *t, int fd, char *why, size_t len)
{
	struct fd_pass f = {.p = p, .t = t, .why = why, .len = len};
	struct sockaddr_un addr;
	socklen_t addr_len;
	int ls = listen_here(&addr, &addr_len);
	if (ls < 0) {
		snprintf(why, len, "cannot make a socket: %s", strerror(errno));
		return -1;
	}
	why[0] = '\0';
	remote_stack_begin(&f.s, t);
	uint64_t raddr = remote_stack_push(p, &f.s, &addr, addr_len);
	uint64_t socket_args[3] = {AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0};
	long rs = raddr ? call_libc(&f, "socket", socket_args, 3) : -1;
	int there = -1;
	if (rs >= 0) {
		uint64_t connect_args[3] = {(uint64_t)rs, raddr, addr_len};
		if (call_libc(&f, "connect", connect_args, 3) == 0 && send_fd(ls, p->pid, fd) == 0)
			there = receive_there(&f, rs);
		uint64_t close_args[1] = {(uint64_t)rs};
		call_libc(&f, "close", close_args, 1);
	}
	close(ls);
	if (there < 0 && !why[0])
		snprintf(why, len, "the file could not be handed over");
	return there;
}

int remote_hand_over_trace(struct held_process *p, struct held_thread *t, int fd, char *number,
			   size_t len)
{
	char why[256];
	number[0] = '\0';
	if (!fd_needed(p->pid))
		return 0;
	int there = remote_give_fd(p, t, fd, why, sizeof(why));
	if (there < 0) {
		engine_error("process %d runs as another user, and the trace cannot be handed to "
			     "it: %s",
			     (int)p->pid, why);
		return -1;
	}
	snprintf(number, len, "%d", there);
	return 0;
}
