/*
 * prototypes_decode.h - integers that C programmers read by name, written
 * as strace writes them: open flags (O_RDONLY|O_CLOEXEC, the access mode
 * first), modes (0644), mmap protections and flags, signals (SIGINT),
 * address families, socket types (SOCK_STREAM|SOCK_CLOEXEC), lseek's
 * whence, access modes (R_OK|W_OK), clock ids, fcntl commands, AT_FDCWD
 * and the AT_* flags (AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH),
 * error numbers (ENOENT, "No such file or directory").
 *
 * The numbers are Linux's, fixed here rather than taken from this
 * machine's headers, since a trace may come from another machine; where
 * x86-64 and aarch64 differ (a few open flags) the ELF machine says which.
 * No dependency beyond the C library.
 */
#ifndef CALLTRACE_PROTOTYPES_DECODE_H
#define CALLTRACE_PROTOTYPES_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "prototypes.h"

/* Writes `value` (the argument register's 8 bytes) of the proto_type
 * `type` into buf (NUL-terminated, cut to size) and returns true; false,
 * with buf untouched, when `type` is not one these decoders name (PT_FD,
 * PT_DIRFD, PT_AT_FLAGS and PT_OPEN_FLAGS...PT_FILE_FLAGS are).  Bits no name covers are written
 * as hex (O_RDONLY|0x40000000); an unknown number as decimal. */
bool proto_decode(uint8_t type, uint64_t value, uint32_t machine, char *buf, size_t size);

/* "ENOENT" and "No such file or directory" for 2; NULL when unknown. */
const char *proto_errno_name(int err);
const char *proto_errno_text(int err);
/* "AF_INET" for 2; NULL when unknown. */
const char *proto_family_name(unsigned family);
/* Whether the open flags create a file (O_CREAT, O_TMPFILE), so that the
 * mode after them means something. */
bool proto_open_flags_create(uint64_t flags, uint32_t machine);

#endif
