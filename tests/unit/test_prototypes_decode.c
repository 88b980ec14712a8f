/*
 * test_prototypes_decode.c - unit test of src/symbols/prototypes_decode.c
 * and prototypes_errno.c: every decoder's exact text, as strace writes it,
 * for x86-64 and where aarch64 differs.
 */
#include <elf.h>
#include <string.h>
#include "../../src/symbols/prototypes_decode.h"
#include "check.h"

static void expect(uint8_t type, uint64_t value, uint32_t machine, const char *want)
{
	char buf[160] = "untouched";
	bool ok = proto_decode(type, value, machine, buf, sizeof(buf));
	CHECK(ok && strcmp(buf, want) == 0, "type %u, %#llx: \"%s\", not \"%s\"", type,
	      (unsigned long long)value, buf, want);
}

static void test_open_flags(void)
{
	expect(PT_OPEN_FLAGS, 0, 0, "O_RDONLY");
	expect(PT_OPEN_FLAGS, 02000000, EM_X86_64, "O_RDONLY|O_CLOEXEC");
	expect(PT_OPEN_FLAGS, 01 | 0100 | 01000, EM_X86_64, "O_WRONLY|O_CREAT|O_TRUNC");
	expect(PT_OPEN_FLAGS, 02 | 0100 | 0200 | 02000000, EM_X86_64,
	       "O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC");
	expect(PT_OPEN_FLAGS, 04000 | 0200000 | 02000000, EM_X86_64,
	       "O_RDONLY|O_NONBLOCK|O_DIRECTORY|O_CLOEXEC");
	expect(PT_OPEN_FLAGS, 01 | 02000 | 04010000, EM_X86_64, "O_WRONLY|O_APPEND|O_SYNC");
	expect(PT_OPEN_FLAGS, 02 | 020200000, EM_X86_64, "O_RDWR|O_TMPFILE");
	expect(PT_OPEN_FLAGS, 010000000 | 0400000, EM_X86_64, "O_RDONLY|O_NOFOLLOW|O_PATH");
	expect(PT_OPEN_FLAGS, 03 | 0x40000000, EM_X86_64, "O_ACCMODE|0x40000000");
	/* aarch64 numbers O_DIRECTORY, O_NOFOLLOW, O_DIRECT, O_LARGEFILE apart */
	expect(PT_OPEN_FLAGS, 040000 | 02000000, EM_AARCH64, "O_RDONLY|O_DIRECTORY|O_CLOEXEC");
	expect(PT_OPEN_FLAGS, 040000, EM_X86_64, "O_RDONLY|O_DIRECT");
	expect(PT_OPEN_FLAGS, 0xffffffff00000000ull, EM_X86_64, "O_RDONLY"); /* an int */
	expect(PT_FILE_FLAGS, 02000000, EM_X86_64, "O_CLOEXEC");	     /* dup3, pipe2 */
	expect(PT_FILE_FLAGS, 04000 | 02000000, EM_X86_64, "O_NONBLOCK|O_CLOEXEC");
	expect(PT_FILE_FLAGS, 0, EM_X86_64, "0");
	expect(PT_FILE_FLAGS, 1 | 02000000, EM_X86_64, "O_CLOEXEC|0x1"); /* EFD_SEMAPHORE */
	expect(PT_MSG_FLAGS, 0, 0, "0");
	expect(PT_MSG_FLAGS, 0x40 | 0x4000, 0, "MSG_DONTWAIT|MSG_NOSIGNAL");
	expect(PT_MSG_FLAGS, 0x20 | 0x40000000 | 0x80000000, 0,
	       "MSG_TRUNC|MSG_CMSG_CLOEXEC|0x80000000");
	CHECK(proto_open_flags_create(0100, EM_X86_64), "O_CREAT creates");
	CHECK(proto_open_flags_create(020200000, EM_X86_64), "O_TMPFILE creates");
	CHECK(!proto_open_flags_create(020000000, EM_X86_64), "__O_TMPFILE alone does not");
	CHECK(!proto_open_flags_create(02000000, EM_X86_64), "O_CLOEXEC does not");
	CHECK(proto_open_flags_create(020040000, EM_AARCH64), "aarch64's O_TMPFILE");
}

static void test_modes_and_memory(void)
{
	expect(PT_MODE, 0644, 0, "0644");
	expect(PT_MODE, 0, 0, "000");
	expect(PT_MODE, 022, 0, "022");
	expect(PT_MODE, 04755, 0, "04755");
	expect(PT_MODE, 0100644, 0, "S_IFREG|0644");
	expect(PT_MODE, 010600, 0, "S_IFIFO|0600");
	expect(PT_PROT, 0, 0, "PROT_NONE");
	expect(PT_PROT, 3, 0, "PROT_READ|PROT_WRITE");
	expect(PT_PROT, 5, 0, "PROT_READ|PROT_EXEC");
	expect(PT_PROT, 0x11, 0, "PROT_READ|0x10");
	expect(PT_MAP_FLAGS, 0x22, 0, "MAP_PRIVATE|MAP_ANONYMOUS");
	expect(PT_MAP_FLAGS, 0x812, 0, "MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE");
	expect(PT_MAP_FLAGS, 0x1, 0, "MAP_SHARED");
	expect(PT_MAP_FLAGS, 0x20022, 0, "MAP_PRIVATE|MAP_ANONYMOUS|MAP_STACK");
	expect(PT_MAP_FLAGS, 0x100022, 0, "MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED_NOREPLACE");
	expect(PT_MAP_FLAGS, 0, 0, "0");
}

static void test_signals_and_processes(void)
{
	expect(PT_SIGNAL, 2, 0, "SIGINT");
	expect(PT_SIGNAL, 9, 0, "SIGKILL");
	expect(PT_SIGNAL, 11, 0, "SIGSEGV");
	expect(PT_SIGNAL, 31, 0, "SIGSYS");
	expect(PT_SIGNAL, 32, 0, "SIGRTMIN");
	expect(PT_SIGNAL, 34, 0, "SIGRT_2");
	expect(PT_SIGNAL, 0, 0, "0");
	expect(PT_SIGNAL, 65, 0, "65");
	expect(PT_SIGNAL, (uint64_t)-1, 0, "-1");
	expect(PT_CLOCK_ID, 0, 0, "CLOCK_REALTIME");
	expect(PT_CLOCK_ID, 1, 0, "CLOCK_MONOTONIC");
	expect(PT_CLOCK_ID, 7, 0, "CLOCK_BOOTTIME");
	expect(PT_CLOCK_ID, 11, 0, "CLOCK_TAI");
	expect(PT_CLOCK_ID, 10, 0, "10");
	expect(PT_CLOCK_ID, (uint64_t)-6, 0, "-6");
}

static void test_files(void)
{
	expect(PT_FD, 3, 0, "3");
	/* AT_FDCWD is a directory's descriptor only: close(-100) is plain. */
	expect(PT_FD, (uint64_t)-100, 0, "-100");
	expect(PT_DIRFD, 3, 0, "3");
	expect(PT_DIRFD, (uint64_t)-100, 0, "AT_FDCWD");
	expect(PT_DIRFD, 0xffffff9c, 0, "AT_FDCWD"); /* an int in the low half */
	expect(PT_FD, (uint64_t)-1, 0, "-1");
	expect(PT_WHENCE, 0, 0, "SEEK_SET");
	expect(PT_WHENCE, 2, 0, "SEEK_END");
	expect(PT_WHENCE, 4, 0, "SEEK_HOLE");
	expect(PT_WHENCE, 9, 0, "9");
	expect(PT_ACCESS_MODE, 0, 0, "F_OK");
	expect(PT_ACCESS_MODE, 4, 0, "R_OK");
	expect(PT_ACCESS_MODE, 7, 0, "R_OK|W_OK|X_OK");
	expect(PT_ACCESS_MODE, 6, 0, "R_OK|W_OK");
	expect(PT_ACCESS_MODE, 0x18, 0, "0x18");
	expect(PT_FCNTL_CMD, 1, 0, "F_GETFD");
	expect(PT_FCNTL_CMD, 4, 0, "F_SETFL");
	expect(PT_FCNTL_CMD, 1030, 0, "F_DUPFD_CLOEXEC");
	expect(PT_FCNTL_CMD, 999, 0, "999");
}

static void test_sockets(void)
{
	expect(PT_ADDRESS_FAMILY, 2, 0, "AF_INET");
	expect(PT_ADDRESS_FAMILY, 10, 0, "AF_INET6");
	expect(PT_ADDRESS_FAMILY, 1, 0, "AF_UNIX");
	expect(PT_ADDRESS_FAMILY, 16, 0, "AF_NETLINK");
	expect(PT_ADDRESS_FAMILY, 200, 0, "200");
	expect(PT_SOCKET_TYPE, 1, 0, "SOCK_STREAM");
	expect(PT_SOCKET_TYPE, 1 | 02000000, 0, "SOCK_STREAM|SOCK_CLOEXEC");
	expect(PT_SOCKET_TYPE, 2 | 04000 | 02000000, 0, "SOCK_DGRAM|SOCK_NONBLOCK|SOCK_CLOEXEC");
	expect(PT_SOCKET_TYPE, 02000000, 0, "SOCK_CLOEXEC"); /* accept4's flags */
	expect(PT_SOCKET_TYPE, 0, 0, "0");
	expect(PT_SOCKET_TYPE, 7, 0, "0x7");
	CHECK(proto_family_name(2) && strcmp(proto_family_name(2), "AF_INET") == 0, "AF_INET");
	CHECK(proto_family_name(1000) == NULL, "unknown family");
}

static void test_errno(void)
{
	expect(PT_ERRNO, 2, 0, "ENOENT");
	expect(PT_ERRNO, 111, 0, "ECONNREFUSED");
	expect(PT_ERRNO, 0, 0, "0");
	expect(PT_ERRNO, 100000, 0, "100000");
	CHECK(strcmp(proto_errno_name(2), "ENOENT") == 0, "ENOENT");
	CHECK(strcmp(proto_errno_text(2), "No such file or directory") == 0, "ENOENT's text");
	CHECK(strcmp(proto_errno_name(111), "ECONNREFUSED") == 0, "ECONNREFUSED");
	CHECK(strcmp(proto_errno_text(111), "Connection refused") == 0, "ECONNREFUSED's text");
	CHECK(strcmp(proto_errno_name(11), "EAGAIN") == 0, "EAGAIN");
	CHECK(strcmp(proto_errno_name(16), "EBUSY") == 0, "EBUSY");
	CHECK(strcmp(proto_errno_name(110), "ETIMEDOUT") == 0, "ETIMEDOUT");
	CHECK(strcmp(proto_errno_name(133), "EHWPOISON") == 0, "EHWPOISON, the last");
	CHECK(strcmp(proto_errno_name(512), "ERESTARTSYS") == 0, "ERESTARTSYS");
	CHECK(proto_errno_name(0) == NULL && proto_errno_name(-2) == NULL, "no error");
	CHECK(proto_errno_name(41) == NULL, "41 is no error number");
	CHECK(proto_errno_name(4000) == NULL && proto_errno_text(4000) == NULL, "4000");
}

static void test_small_buffer_and_other_types(void)
{
	char buf[8] = "x";
	CHECK(proto_decode(PT_OPEN_FLAGS, 02 | 0100 | 02000000, 0, buf, sizeof(buf)) &&
		  strcmp(buf, "O_RDWR|") == 0,
	      "cut to the buffer: \"%s\"", buf);
	char one[1] = {'x'};
	CHECK(proto_decode(PT_SIGNAL, 2, 0, one, 1) && one[0] == '\0', "a one-byte buffer");
	CHECK(!proto_decode(PT_SIGNAL, 2, 0, NULL, 0), "no buffer");
	strcpy(buf, "same");
	CHECK(!proto_decode(PT_INT, 2, 0, buf, sizeof(buf)) && strcmp(buf, "same") == 0,
	      "PT_INT is not decoded here");
	CHECK(!proto_decode(PT_TYPES, 2, 0, buf, sizeof(buf)), "past the types");
	CHECK(!proto_decode(250, 2, 0, buf, sizeof(buf)), "no type");
}

int main(void)
{
	test_open_flags();
	test_modes_and_memory();
	test_signals_and_processes();
	test_files();
	test_sockets();
	test_errno();
	test_small_buffer_and_other_types();
	return CHECK_SUMMARY("test_prototypes_decode");
}
