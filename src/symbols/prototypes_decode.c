/*
 * prototypes_decode.c - integers by name (see prototypes_decode.h): a
 * table of names per kind of value, and the writer of flag sets.
 */
#include "prototypes_decode.h"

#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct name_of {
	uint64_t value;
	const char *name;
};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Text appended to a fixed buffer, cut (and still NUL-terminated) when full. */
struct text {
	char *buf;
	size_t size, len;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	if (t->len + 1 >= t->size)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len = t->len + (size_t)n < t->size ? t->len + (size_t)n : t->size - 1;
}

static const char *name_in(const struct name_of *names, size_t n, uint64_t value)
{
	for (size_t i = 0; i < n; i++)
		if (names[i].value == value)
			return names[i].name;
	return NULL;
}

/* An enumerated value: its name, else the number in decimal. */
static void put_enum(struct text *t, const struct name_of *names, size_t n, int64_t value)
{
	const char *name = name_in(names, n, (uint64_t)value);
	if (name)
		put(t, "%s", name);
	else
		put(t, "%lld", (long long)value);
}

/* The names of the flags set in `value`, in the table's order, after
 * what `t` holds already (joined with '|'); the bits left as hex.  With
 * nothing written at all: "0". */
static void put_flags(struct text *t, const struct name_of *flags, size_t n, uint64_t value)
{
	size_t start = t->len;
	for (size_t i = 0; i < n; i++) {
		if (flags[i].value && (value & flags[i].value) == flags[i].value) {
			put(t, "%s%s", t->len ? "|" : "", flags[i].name);
			value &= ~flags[i].value;
		}
	}
	if (value)
		put(t, "%s%#llx", t->len ? "|" : "", (unsigned long long)value);
	else if (t->len == start && start == 0)
		put(t, "0");
}

/* --- open flags and modes --- */

#define O_ACCMODE_ 03
#define O_CREAT_ 0100
#define O_DIRECTORY_X86 0200000
#define O_DIRECTORY_ARM 040000
#define O_TMPFILE_ 020000000

static const struct name_of open_flags_x86[] = {
    {0100, "O_CREAT"},	      {0200, "O_EXCL"},		{0400, "O_NOCTTY"},
    {01000, "O_TRUNC"},	      {02000, "O_APPEND"},	{04000, "O_NONBLOCK"},
    {04010000, "O_SYNC"},     {010000, "O_DSYNC"},	{020000, "O_ASYNC"},
    {040000, "O_DIRECT"},     {0100000, "O_LARGEFILE"}, {020200000, "O_TMPFILE"},
    {0200000, "O_DIRECTORY"}, {0400000, "O_NOFOLLOW"},	{01000000, "O_NOATIME"},
    {02000000, "O_CLOEXEC"},  {010000000, "O_PATH"},
};
static const struct name_of open_flags_arm[] = {
    {0100, "O_CREAT"},	     {0200, "O_EXCL"},	       {0400, "O_NOCTTY"},
    {01000, "O_TRUNC"},	     {02000, "O_APPEND"},      {04000, "O_NONBLOCK"},
    {04010000, "O_SYNC"},    {010000, "O_DSYNC"},      {020000, "O_ASYNC"},
    {0200000, "O_DIRECT"},   {0400000, "O_LARGEFILE"}, {020040000, "O_TMPFILE"},
    {040000, "O_DIRECTORY"}, {0100000, "O_NOFOLLOW"},  {01000000, "O_NOATIME"},
    {02000000, "O_CLOEXEC"}, {010000000, "O_PATH"},
};

bool proto_open_flags_create(uint64_t flags, uint32_t machine)
{
	uint64_t directory = machine == EM_AARCH64 ? O_DIRECTORY_ARM : O_DIRECTORY_X86;
	return (flags & O_CREAT_) || (flags & (O_TMPFILE_ | directory)) == (O_TMPFILE_ | directory);
}

static void put_open_flags(struct text *t, uint64_t value, uint32_t machine)
{
	static const char *const access[] = {"O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE"};
	value &= 0xffffffffu; /* an int */
	put(t, "%s", access[value & O_ACCMODE_]);
	value &= ~(uint64_t)O_ACCMODE_;
	if (machine == EM_AARCH64)
		put_flags(t, open_flags_arm, COUNT(open_flags_arm), value);
	else
		put_flags(t, open_flags_x86, COUNT(open_flags_x86), value);
}

/* Flags of the open flags' bits alone (dup3, pipe2, epoll_create1...). */
static void put_file_flags(struct text *t, uint64_t value, uint32_t machine)
{
	value &= 0xffffffffu;
	if (machine == EM_AARCH64)
		put_flags(t, open_flags_arm, COUNT(open_flags_arm), value);
	else
		put_flags(t, open_flags_x86, COUNT(open_flags_x86), value);
}

static void put_mode(struct text *t, uint64_t value)
{
	static const struct name_of types[] = {
	    {0140000, "S_IFSOCK"}, {0120000, "S_IFLNK"}, {0100000, "S_IFREG"}, {060000, "S_IFBLK"},
	    {040000, "S_IFDIR"},   {020000, "S_IFCHR"},	 {010000, "S_IFIFO"},
	};
	value &= 0xffffffffu;
	const char *type = name_in(types, COUNT(types), value & 0170000);
	if (type) {
		put(t, "%s|", type);
		value &= ~(uint64_t)0170000;
	}
	put(t, "%#03llo", (unsigned long long)value);
}

/* --- memory --- */

static void put_prot(struct text *t, uint64_t value)
{
	static const struct name_of prot[] = {
	    {1, "PROT_READ"},
	    {2, "PROT_WRITE"},
	    {4, "PROT_EXEC"},
	    {8, "PROT_SEM"},
	    {0x01000000, "PROT_GROWSDOWN"},
	    {0x02000000, "PROT_GROWSUP"},
	};
	value &= 0xffffffffu;
	if (value == 0)
		put(t, "PROT_NONE");
	else
		put_flags(t, prot, COUNT(prot), value);
}

static void put_map_flags(struct text *t, uint64_t value)
{
	static const char *const sharing[] = {NULL, "MAP_SHARED", "MAP_PRIVATE",
					      "MAP_SHARED_VALIDATE"};
	static const struct name_of flags[] = {
	    {0x10, "MAP_FIXED"},
	    {0x20, "MAP_ANONYMOUS"},
	    {0x40, "MAP_32BIT"},
	    {0x100, "MAP_GROWSDOWN"},
	    {0x800, "MAP_DENYWRITE"},
	    {0x1000, "MAP_EXECUTABLE"},
	    {0x2000, "MAP_LOCKED"},
	    {0x4000, "MAP_NORESERVE"},
	    {0x8000, "MAP_POPULATE"},
	    {0x10000, "MAP_NONBLOCK"},
	    {0x20000, "MAP_STACK"},
	    {0x40000, "MAP_HUGETLB"},
	    {0x80000, "MAP_SYNC"},
	    {0x100000, "MAP_FIXED_NOREPLACE"},
	    {0x4000000, "MAP_UNINITIALIZED"},
	};
	value &= 0xffffffffu;
	if (sharing[value & 3])
		put(t, "%s", sharing[value & 3]);
	put_flags(t, flags, COUNT(flags), value & ~(uint64_t)3);
}

/* --- signals, processes, time --- */

static void put_signal(struct text *t, uint64_t value)
{
	static const char *const names[] = {
	    NULL,	"SIGHUP",  "SIGINT",	"SIGQUIT", "SIGILL",  "SIGTRAP",   "SIGABRT",
	    "SIGBUS",	"SIGFPE",  "SIGKILL",	"SIGUSR1", "SIGSEGV", "SIGUSR2",   "SIGPIPE",
	    "SIGALRM",	"SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP",   "SIGTSTP",
	    "SIGTTIN",	"SIGTTOU", "SIGURG",	"SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF",
	    "SIGWINCH", "SIGIO",   "SIGPWR",	"SIGSYS",
	};
	int sig = (int)(int32_t)value;
	if (sig > 0 && (size_t)sig < COUNT(names))
		put(t, "%s", names[sig]);
	else if (sig == 32)
		put(t, "SIGRTMIN");
	else if (sig > 32 && sig <= 64)
		put(t, "SIGRT_%d", sig - 32);
	else
		put(t, "%d", sig);
}

static const struct name_of clock_ids[] = {
    {0, "CLOCK_REALTIME"},	    {1, "CLOCK_MONOTONIC"},	{2, "CLOCK_PROCESS_CPUTIME_ID"},
    {3, "CLOCK_THREAD_CPUTIME_ID"}, {4, "CLOCK_MONOTONIC_RAW"}, {5, "CLOCK_REALTIME_COARSE"},
    {6, "CLOCK_MONOTONIC_COARSE"},  {7, "CLOCK_BOOTTIME"},	{8, "CLOCK_REALTIME_ALARM"},
    {9, "CLOCK_BOOTTIME_ALARM"},    {11, "CLOCK_TAI"},
};

/* --- files --- */

static const struct name_of whences[] = {
    {0, "SEEK_SET"}, {1, "SEEK_CUR"}, {2, "SEEK_END"}, {3, "SEEK_DATA"}, {4, "SEEK_HOLE"},
};

static void put_access_mode(struct text *t, uint64_t value)
{
	static const struct name_of modes[] = {{4, "R_OK"}, {2, "W_OK"}, {1, "X_OK"}};
	value &= 0xffffffffu;
	if (value == 0)
		put(t, "F_OK");
	else
		put_flags(t, modes, COUNT(modes), value);
}

static const struct name_of fcntl_cmds[] = {
    {0, "F_DUPFD"},
    {1, "F_GETFD"},
    {2, "F_SETFD"},
    {3, "F_GETFL"},
    {4, "F_SETFL"},
    {5, "F_GETLK"},
    {6, "F_SETLK"},
    {7, "F_SETLKW"},
    {8, "F_SETOWN"},
    {9, "F_GETOWN"},
    {10, "F_SETSIG"},
    {11, "F_GETSIG"},
    {15, "F_SETOWN_EX"},
    {16, "F_GETOWN_EX"},
    {17, "F_GETOWNER_UIDS"},
    {36, "F_OFD_GETLK"},
    {37, "F_OFD_SETLK"},
    {38, "F_OFD_SETLKW"},
    {1024, "F_SETLEASE"},
    {1025, "F_GETLEASE"},
    {1026, "F_NOTIFY"},
    {1030, "F_DUPFD_CLOEXEC"},
    {1031, "F_SETPIPE_SZ"},
    {1032, "F_GETPIPE_SZ"},
    {1033, "F_ADD_SEALS"},
    {1034, "F_GET_SEALS"},
    {1035, "F_GET_RW_HINT"},
    {1036, "F_SET_RW_HINT"},
    {1037, "F_GET_FILE_RW_HINT"},
    {1038, "F_SET_FILE_RW_HINT"},
};

static void put_fd(struct text *t, uint64_t value, bool dirfd)
{
	int fd = (int)(int32_t)value;
	if (dirfd && fd == -100)
		put(t, "AT_FDCWD");
	else
		put(t, "%d", fd);
}

/* --- sockets --- */

static const char *const families[] = {
    "AF_UNSPEC",     "AF_UNIX",	     "AF_INET",	    "AF_AX25",	"AF_IPX",     "AF_APPLETALK",
    "AF_NETROM",     "AF_BRIDGE",    "AF_ATMPVC",   "AF_X25",	"AF_INET6",   "AF_ROSE",
    "AF_DECnet",     "AF_NETBEUI",   "AF_SECURITY", "AF_KEY",	"AF_NETLINK", "AF_PACKET",
    "AF_ASH",	     "AF_ECONET",    "AF_ATMSVC",   "AF_RDS",	"AF_SNA",     "AF_IRDA",
    "AF_PPPOX",	     "AF_WANPIPE",   "AF_LLC",	    "AF_IB",	"AF_MPLS",    "AF_CAN",
    "AF_TIPC",	     "AF_BLUETOOTH", "AF_IUCV",	    "AF_RXRPC", "AF_ISDN",    "AF_PHONET",
    "AF_IEEE802154", "AF_CAIF",	     "AF_ALG",	    "AF_NFC",	"AF_VSOCK",   "AF_KCM",
    "AF_QIPCRTR",    "AF_SMC",	     "AF_XDP",	    "AF_MCTP",
};

const char *proto_family_name(unsigned family)
{
	return family < COUNT(families) ? families[family] : NULL;
}

static void put_socket_type(struct text *t, uint64_t value)
{
	static const char *const types[] = {
	    NULL,	 "SOCK_STREAM", "SOCK_DGRAM", "SOCK_RAW", "SOCK_RDM",	"SOCK_SEQPACKET",
	    "SOCK_DCCP", NULL,		NULL,	      NULL,	  "SOCK_PACKET"};
	static const struct name_of flags[] = {{04000, "SOCK_NONBLOCK"},
					       {02000000, "SOCK_CLOEXEC"}};
	value &= 0xffffffffu;
	unsigned type = value & 0xf;
	if (type < COUNT(types) && types[type]) {
		put(t, "%s", types[type]);
		value &= ~(uint64_t)0xf;
	}
	put_flags(t, flags, COUNT(flags), value);
}

/* The *at calls' AT_* flags (0x200 is AT_REMOVEDIR here: unlinkat's). */
static const struct name_of at_flags[] = {
    {0x100, "AT_SYMLINK_NOFOLLOW"}, {0x200, "AT_REMOVEDIR"},   {0x400, "AT_SYMLINK_FOLLOW"},
    {0x800, "AT_NO_AUTOMOUNT"},	    {0x1000, "AT_EMPTY_PATH"}, {0x2000, "AT_STATX_FORCE_SYNC"},
    {0x4000, "AT_STATX_DONT_SYNC"}, {0x8000, "AT_RECURSIVE"},
};

/* send/recv flags, and a msghdr's msg_flags. */
static const struct name_of msg_flags[] = {
    {0x1, "MSG_OOB"},
    {0x2, "MSG_PEEK"},
    {0x4, "MSG_DONTROUTE"},
    {0x8, "MSG_CTRUNC"},
    {0x10, "MSG_PROXY"},
    {0x20, "MSG_TRUNC"},
    {0x40, "MSG_DONTWAIT"},
    {0x80, "MSG_EOR"},
    {0x100, "MSG_WAITALL"},
    {0x200, "MSG_FIN"},
    {0x400, "MSG_SYN"},
    {0x800, "MSG_CONFIRM"},
    {0x1000, "MSG_RST"},
    {0x2000, "MSG_ERRQUEUE"},
    {0x4000, "MSG_NOSIGNAL"},
    {0x8000, "MSG_MORE"},
    {0x10000, "MSG_WAITFORONE"},
    {0x40000, "MSG_BATCH"},
    {0x4000000, "MSG_ZEROCOPY"},
    {0x20000000, "MSG_FASTOPEN"},
    {0x40000000, "MSG_CMSG_CLOEXEC"},
};

static void put_errno(struct text *t, uint64_t value)
{
	int err = (int)(int32_t)value;
	const char *name = proto_errno_name(err);
	if (name)
		put(t, "%s", name);
	else
		put(t, "%d", err);
}

bool proto_decode(uint8_t type, uint64_t value, uint32_t machine, char *buf, size_t size)
{
	struct text t = {buf, size, 0};
	bool named = type == PT_FD || type == PT_DIRFD || type == PT_AT_FLAGS ||
		     type == PT_MSG_FLAGS || (type >= PT_OPEN_FLAGS && type <= PT_FILE_FLAGS);
	if (!buf || size == 0 || !named)
		return false;
	buf[0] = '\0';
	switch (type) {
	case PT_FD:
	case PT_DIRFD:
		put_fd(&t, value, type == PT_DIRFD);
		break;
	case PT_OPEN_FLAGS:
		put_open_flags(&t, value, machine);
		break;
	case PT_MODE:
		put_mode(&t, value);
		break;
	case PT_PROT:
		put_prot(&t, value);
		break;
	case PT_MAP_FLAGS:
		put_map_flags(&t, value);
		break;
	case PT_SIGNAL:
		put_signal(&t, value);
		break;
	case PT_ADDRESS_FAMILY: {
		const char *name = proto_family_name((unsigned)(value & 0xffffffffu));
		if (name)
			put(&t, "%s", name);
		else
			put(&t, "%d", (int)(int32_t)value);
		break;
	}
	case PT_SOCKET_TYPE:
		put_socket_type(&t, value);
		break;
	case PT_WHENCE:
		put_enum(&t, whences, COUNT(whences), (int32_t)value);
		break;
	case PT_ACCESS_MODE:
		put_access_mode(&t, value);
		break;
	case PT_CLOCK_ID:
		put_enum(&t, clock_ids, COUNT(clock_ids), (int32_t)value);
		break;
	case PT_FCNTL_CMD:
		put_enum(&t, fcntl_cmds, COUNT(fcntl_cmds), (int32_t)value);
		break;
	case PT_ERRNO:
		put_errno(&t, value);
		break;
	case PT_FILE_FLAGS:
		put_file_flags(&t, value, machine);
		break;
	case PT_AT_FLAGS:
		put_flags(&t, at_flags, COUNT(at_flags), value & 0xffffffffu);
		break;
	case PT_MSG_FLAGS:
		put_flags(&t, msg_flags, COUNT(msg_flags), value & 0xffffffffu);
		break;
	default:
		return false;
	}
	return true;
}
