/*
 * prototypes.h - built-in prototypes of well-known C library, POSIX and
 * Linux functions and of the system calls, so that library calls and
 * system calls show their arguments and results without any debug info:
 * `open("/etc/passwd", O_RDONLY|O_CLOEXEC) = 3`, `read(3, 0x7ffc..., 4096) = 1024`,
 * `connect(5, {AF_INET, 127.0.0.1:6379}, 16) = -1 ECONNREFUSED`.
 *
 * One table serves both sides: the runtime asks which values to capture
 * at a library call (a string's bytes, a sockaddr's bytes, a register),
 * and the views ask how to show what was captured.  This file has no
 * dependency beyond the C library, so the runtime links it too.
 */
#ifndef CALLTRACE_PROTOTYPES_H
#define CALLTRACE_PROTOTYPES_H

#include <stdbool.h>
#include <stdint.h>

/* What a value is: how it is captured and how it is shown. */
enum proto_type {
	PT_VOID = 0,
	PT_INT,	     /* int, as decimal */
	PT_UINT,     /* unsigned int */
	PT_LONG,     /* long, ssize_t, off_t */
	PT_ULONG,    /* unsigned long, size_t */
	PT_HEX,	     /* an integer best read in hex (masks) */
	PT_PTR,	     /* a pointer shown as an address (NULL by name) */
	PT_STRING,   /* const char *: the text (TRACE_STRING_MAX bytes at most) */
	PT_FD,	     /* a file descriptor, as decimal */
	PT_DOUBLE,   /* double (in a floating-point register) */
	PT_CHAR,     /* int holding a character: 'x' */
	PT_SOCKADDR, /* const struct sockaddr *: its bytes (length: len_arg) */
	/* Integers shown by name (prototypes_decode.h).  A PT_MODE right after
	 * a PT_OPEN_FLAGS is shown only when the flags create a file
	 * (O_CREAT, O_TMPFILE), as strace does. */
	PT_OPEN_FLAGS,
	PT_MODE,
	PT_PROT,
	PT_MAP_FLAGS,
	PT_SIGNAL,
	PT_ADDRESS_FAMILY,
	PT_SOCKET_TYPE,
	PT_WHENCE,
	PT_ACCESS_MODE,
	PT_CLOCK_ID,
	PT_FCNTL_CMD,
	PT_ERRNO,      /* an error number: ENOENT (strerror's argument) */
	PT_FILE_FLAGS, /* open flags without an access mode: O_CLOEXEC (dup3, pipe2,
			  epoll_create1, eventfd2...) */
	PT_DIRFD,      /* a directory's descriptor (openat's): AT_FDCWD by name */
	/* What a system call's pointer points to, copied by the kernel
	 * collector (kernel/syscall_capture.h) and shown as strace does; a
	 * pointer where nothing was copied. */
	PT_BUF_IN,	 /* data given (write): its first bytes; length: len_arg */
	PT_BUF_OUT,	 /* data filled (read): its first bytes, at the return */
	PT_SOCKADDR_OUT, /* a sockaddr filled (accept); len_arg: its socklen_t * */
	PT_TIMESPEC,	 /* const struct timespec * */
	PT_STAT_OUT,	 /* struct stat * filled */
	PT_PIPE_FDS,	 /* int[2] filled (pipe, pipe2) */
	PT_ARGV,	 /* char *const argv[] */
	PT_AT_FLAGS,	 /* AT_* flags by name: AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH */
	PT_SOCKLEN_IO,	 /* socklen_t * given and filled (accept): [110 => 2] */
	PT_ENVP,	 /* char *const envp[]: its address and how many (strace's count) */
	PT_IOV_IN,	 /* const struct iovec * (writev); len_arg: how many */
	PT_IOV_OUT,	 /* struct iovec * filled (readv); len_arg: how many */
	PT_MSG_FLAGS,	 /* send/recv flags by name: MSG_DONTWAIT|MSG_NOSIGNAL */
	PT_MSGHDR_IN,	 /* const struct msghdr * (sendmsg): its name, iovecs, sizes */
	PT_MSGHDR_OUT,	 /* struct msghdr * filled (recvmsg) */
	PT_TYPES	 /* count */
};

/* How a failed call shows, so that errno is captured and shown by name. */
enum proto_failure {
	PF_NONE = 0,  /* never fails, or not in a way errno tells */
	PF_MINUS_ONE, /* returns -1 (a pointer: (void *)-1, as MAP_FAILED) and sets errno */
	PF_NULL,      /* returns NULL and sets errno */
	PF_ERRNUM,    /* returns the error number itself (pthread_*, posix_*) */
	PF_NEG_ERRNO, /* a raw system call: returns -errno */
};

#define PROTO_MAX_ARGS 6
#define PROTO_NO_LEN 0xff

/* The names are arrays, not pointers: the built-in tables then need no
 * relocation when the runtime library is loaded (gen_prototypes.py checks
 * that every name fits). */
#define PROTO_NAME_MAX 58
#define PROTO_ARG_NAME_MAX 17

struct proto_arg {
	char name[PROTO_ARG_NAME_MAX]; /* "" for none */
	uint8_t type;		       /* enum proto_type */
	uint8_t len_arg; /* PT_SOCKADDR: the argument giving its length, or PROTO_NO_LEN */
};

struct prototype {
	char name[PROTO_NAME_MAX];
	uint8_t ret;	 /* enum proto_type of the return value */
	uint8_t failure; /* enum proto_failure */
	uint8_t nargs;
	uint8_t variadic; /* arguments after nargs are not shown ("...") */
	struct proto_arg args[PROTO_MAX_ARGS];
};

/* The prototype of the library function `name` (a versioned name
 * `open@GLIBC_2.2.5` is looked up without its version), or NULL.  The C
 * library's other names of a function find it too: `open64`, `__open64`,
 * `__open_2`, `__read_chk`, `__isoc99_sscanf`, `__libc_malloc`; C++
 * operators by mangled (`_Znwm`), demangled (`operator new(unsigned long)`)
 * and short (`operator new`) name. */
const struct prototype *prototype_of_function(const char *name);
/* Whether a call of `p` whose return register held `ret` failed the way
 * p->failure says (PF_NEG_ERRNO: -4095..-1; PF_MINUS_ONE: -1 of the
 * return type's width; PF_NULL: 0; PF_ERRNUM: a positive int).  errno is
 * worth capturing after a failed PF_MINUS_ONE or PF_NULL call. */
bool prototype_failed(const struct prototype *p, uint64_t ret);
/* The table's functions, in name order (i < prototype_function_count()). */
unsigned prototype_function_count(void);
const struct prototype *prototype_function_at(unsigned i);
/* The name and prototype of system call `nr` of the ELF machine `machine`
 * (EM_X86_64, EM_AARCH64; 0 is x86-64, as in trace_file_header); the name
 * is "syscall_NR" (valid until this thread's next call) and the prototype
 * NULL when unknown.  Every number the kernel headers name has its name;
 * the common calls have a prototype (failure PF_NEG_ERRNO). */
const char *syscall_name(uint32_t machine, uint64_t nr, const struct prototype **proto);

#endif
