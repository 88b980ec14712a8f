/*
 * trace_session.c - create, open and share a session's trace file: the
 * header page, the session lock, and claims of file space (trace_writer.h).
 *
 * Nothing here allocates with malloc: the runtime calls it from inside the
 * traced program, possibly in a fork child or at exit.
 */
#include "trace_writer.h"
#include "../arch/arch.h"
#include "trace_writer_internal.h"
#include "trace_file.h"
#include "../utils/file_size_limit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HIGH_FD 1000 /* the session's descriptor lives at or above this */

/* Moves a fresh descriptor out of the low numbers a program may count on
 * (its first open() should still get 3), and remembers what file it is. */
static int adopt_fd(struct trace_session *s, int fd)
{
	if (fd < 0)
		return -1;
	int high = fcntl(fd, F_DUPFD_CLOEXEC, HIGH_FD);
	if (high >= 0) {
		close(fd);
		fd = high;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	s->fd = fd;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	return 0;
}

/* The session lock: byte 0 of the file, locked shared by every process of
 * the session (open file description locks, so that forked children share
 * their parent's), exclusively by a process creating a session. */
static int lock_session(int fd, short type)
{
	return trace_file_lock(fd, type);
}

/* A program that closes every descriptor (a daemon) may have closed ours,
 * or even reused its number for a file of its own: then the trace is opened
 * again by its path. */
static int check_fd(struct trace_session *s)
{
	struct stat st;
	if (fstat(s->fd, &st) == 0 && (uint64_t)st.st_dev == s->dev &&
	    (uint64_t)st.st_ino == s->ino) {
		if (st.st_size >= TRACE_HEADER_SIZE)
			return 0;
		/* Truncated under us: the header page is gone, and touching
		 * it would fault. */
		s->broken = 1;
		s->claim_errno = 0;
		return -1;
	}
	int fd = trace_file_reopen(s->path, s->dev, s->ino);
	if (fd < 0)
		return -1;
	lock_session(fd, F_RDLCK);
	return adopt_fd(s, fd);
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int map_header(struct trace_session *s)
{
	void *h = mmap(NULL, TRACE_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (h == MAP_FAILED)
		return -1;
	s->header = h;
	s->window_size = s->header->window_size;
	s->tick_shift = s->header->tick_shift;
	return 0;
}

/* Publishes the new trace (created as `temp`) under `path` or a numbered
 * name (trace_file.c); 0, or -1 with errno, `temp` still there. */
static int publish(struct trace_session *s, const char *temp, const char *path, int replace)
{
	char chosen[sizeof(s->path)];
	if (trace_file_publish(temp, path, replace, chosen, sizeof(chosen), &s->created) < 0)
		return -1;
	memcpy(s->path, chosen, sizeof(s->path));
	return 0;
}

/* The header page of a new trace.  Made before the file, so that a tool
 * killed meanwhile (the clock's calibration is a busy wait) leaves no
 * temporary file behind. */
static void fill_header(char *page, const char *command, size_t command_len, uint32_t window_size)
{
	struct trace_file_header h;
	if (window_size < TRACE_MIN_WINDOW || window_size > TRACE_MAX_WINDOW)
		window_size = TRACE_DEFAULT_WINDOW;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TRACE_FILE_MAGIC, sizeof(TRACE_FILE_MAGIC));
	h.version = TRACE_FILE_VERSION;
	h.header_size = TRACE_HEADER_SIZE;
	h.window_size = window_size & ~7u;
	h.machine = ARCH_ELF_MACHINE;
	h.clock = (uint32_t)trace_clock_init();
	h.tick_hz = trace_clock_calibrate(250);
	while (h.tick_shift < 8 && (h.tick_hz >> (h.tick_shift + 1)) >= 1000000000u)
		h.tick_shift++; /* a time unit of about a nanosecond keeps deltas small */
	trace_clock_anchor(&h.start_mono_ns, &h.start_tick);
	h.start_real_ns = realtime_ns();
	h.next_offset = TRACE_HEADER_SIZE;
	if (command_len > sizeof(h.command))
		command_len = sizeof(h.command);
	memcpy(h.command, command, command_len);
	h.command_len = (uint32_t)command_len;
	memset(page, 0, TRACE_HEADER_SIZE);
	memcpy(page, &h, sizeof(h));
}

static int create_session(struct trace_session *s, const char *path, const char *command,
			  size_t command_len, uint32_t window_size, int replace)
{
	char temp[sizeof(s->path)], page[TRACE_HEADER_SIZE];
	memset(s, 0, sizeof(*s));
	fill_header(page, command, command_len, window_size);
	int fd = trace_file_create_temp(path, temp, sizeof(temp));
	if (fd < 0)
		return -1;
	if (adopt_fd(s, fd) < 0) {
		unlink(temp);
		return -1;
	}
	if (pwrite(s->fd, page, sizeof(page), 0) != (ssize_t)sizeof(page) || map_header(s) < 0 ||
	    publish(s, temp, path, replace) < 0) {
		int e = errno;
		if (s->header)
			munmap(s->header, TRACE_HEADER_SIZE);
		s->header = NULL;
		close(s->fd);
		unlink(temp);
		errno = e;
		return -1;
	}
	lock_session(s->fd, F_RDLCK); /* from exclusive: at once, no gap */
	return 0;
}

int trace_session_create(struct trace_session *s, const char *path, const char *command,
			 size_t command_len, uint32_t window_size)
{
	return create_session(s, path, command, command_len, window_size, 0);
}

int trace_session_create_replacing(struct trace_session *s, const char *path, const char *command,
				   size_t command_len, uint32_t window_size)
{
	return create_session(s, path, command, command_len, window_size, 1);
}

void trace_session_note_filters(struct trace_session *s, const char *filters)
{
	char *to = s->header->filters;
	size_t n = strlen(filters);
	if (n >= sizeof(s->header->filters))
		n = sizeof(s->header->filters) - 1;
	memcpy(to, filters, n);
	to[n] = '\0';
}

const char *trace_session_refusal(const struct trace_session *s, int err)
{
	return s->created.refused ? s->created.refused : strerror(err);
}

void trace_session_placement(const struct trace_session *s, const char *asked, char *out,
			     size_t len)
{
	char kept[sizeof(s->path)];
	int n = 0;
	out[0] = '\0';
	if (s->created.kept_previous) {
		trace_file_numbered_name(kept, sizeof(kept), asked, s->created.kept_previous);
		n = snprintf(out, len, "the previous %s is now %s", asked, kept);
	}
	if (strcmp(s->path, asked) != 0 && n >= 0 && (size_t)n < len)
		snprintf(out + n, len - (size_t)n,
			 "%s%s is in use by another recording; writing %s", n ? "; " : "", asked,
			 s->path);
}

int trace_session_open(struct trace_session *s, const char *path)
{
	return trace_session_open_fd(s, path, trace_file_reopen(path, 0, 0));
}

int trace_session_open_fd(struct trace_session *s, const char *path, int fd)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (adopt_fd(s, fd) < 0)
		return -1;
	lock_session(s->fd, F_RDLCK);
	struct stat st;
	if (fstat(s->fd, &st) < 0 || st.st_size < TRACE_HEADER_SIZE || map_header(s) < 0 ||
	    memcmp(s->header->magic, TRACE_FILE_MAGIC, sizeof(TRACE_FILE_MAGIC)) != 0 ||
	    trace_ring_map(s) < 0) {
		if (s->header)
			munmap(s->header, TRACE_HEADER_SIZE);
		close(s->fd);
		s->header = NULL;
		errno = EINVAL;
		return -1;
	}
	/* The session's clock, as its creator chose it (no cpuid here: each
	 * costs microseconds in a virtual machine, in every process). */
	trace_clock_kind = (int)s->header->clock;
	return 0;
}

void trace_session_close(struct trace_session *s)
{
	trace_ring_unmap(s);
	if (s->header)
		munmap(s->header, TRACE_HEADER_SIZE);
	if (s->fd >= 0)
		close(s->fd);
	s->header = NULL;
	s->fd = -1;
}

int trace_session_lock_again(const struct trace_session *s)
{
	int fd = trace_file_reopen(s->path, s->dev, s->ino);
	if (fd >= 0)
		lock_session(fd, F_RDLCK);
	return fd;
}

int trace_session_adopt_lock(struct trace_session *s, int fd)
{
	int old = s->fd;
	if (adopt_fd(s, fd) < 0)
		return -1;
	close(old);
	return 0;
}

int trace_session_last_out(struct trace_session *s)
{
	struct flock fl = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	if (fcntl(s->fd, F_OFD_SETLK, &fl) < 0)
		return 0;
	return lock_session(s->fd, F_WRLCK) == 0;
}

void trace_session_reserve_ahead(struct trace_session *s)
{
	uint64_t end = __atomic_load_n(&s->header->next_offset, __ATOMIC_SEQ_CST);
	if (!s->header->ring_slots)
		__atomic_store_n(&s->header->reserved_end, end, __ATOMIC_SEQ_CST);
}

void trace_session_trim(struct trace_session *s)
{
	struct stat st;
	/* Not a file someone cut short: its header would fault, or be gone. */
	if (!s->header || s->broken || fstat(s->fd, &st) < 0 || st.st_size < TRACE_HEADER_SIZE ||
	    !__atomic_load_n(&s->header->reserved_end, __ATOMIC_SEQ_CST))
		return;
	/* Reserving ahead stops first: a claim that comes after the end is
	 * read below backs itself alone.  (One that backs itself before the
	 * truncation below is cut: its process stops recording, crash.c; only
	 * a process that joins in these microseconds can.) */
	__atomic_store_n(&s->header->reserved_end, 0, __ATOMIC_SEQ_CST);
	uint64_t end = __atomic_load_n(&s->header->next_offset, __ATOMIC_SEQ_CST);
	if ((uint64_t)st.st_size > end && ftruncate(s->fd, (off_t)end) < 0)
		return; /* the zeros past the end stay: readers skip them */
}

uint32_t trace_session_new_image(struct trace_session *s, uint32_t pid)
{
	s->image = __atomic_add_fetch(&s->header->next_image, 1, __ATOMIC_RELAXED);
	s->pid = pid;
	trace_ring_reclaim(s, 1); /* after an exec: the windows the old image left */
	return s->image;
}

/* Gives [off, off+len) disk blocks, so that a window mapped over it never
 * faults: fallocate, or zeros written where the file system has no
 * fallocate.  0, or -1 with errno. */
int trace_session_reserve(int fd, uint64_t off, uint64_t len)
{
	if (fallocate(fd, 0, (off_t)off, len) == 0)
		return 0;
	if (errno != EOPNOTSUPP && errno != ENOSYS)
		return -1;
	static const char zeros[16384];
	for (uint64_t done = 0; done < len;) {
		size_t n = len - done < sizeof(zeros) ? (size_t)(len - done) : sizeof(zeros);
		ssize_t w = pwrite(fd, zeros, n, (off_t)(off + done));
		if (w <= 0)
			return -1;
		done += (uint64_t)w;
	}
	return 0;
}

const char *trace_session_broken_reason(const struct trace_session *s)
{
	if (!s->broken)
		return NULL;
	if (s->claim_errno == 0)
		return "the trace file was truncated";
	if (s->claim_errno == EFBIG)
		return "the trace file reached the file size limit (ulimit -f)";
	return strerror(s->claim_errno);
}

/* How far past a claim's end its fallocate reaches: a quarter of the file
 * so far, from 256 KiB to 4 MiB.  On ext4 every fallocate is a journal
 * update that the processes' page faults wait for: one a window (a short
 * process has one or two) made a shell script's recording 10% slower. */
static uint64_t reserve_ahead(uint64_t end)
{
	uint64_t ahead = end / 4;
	if (ahead < (256u << 10))
		ahead = 256u << 10;
	if (ahead > (4u << 20))
		ahead = 4u << 20;
	return within_file_size_limit(end + ahead) ? ahead : 0;
}

/* Gives the claim [off, off + len) its disk blocks, unless the space
 * reserved so far holds it.  In a session that does not reserve ahead
 * (reserved_end 0), its own blocks.  Else the reservation grows past it,
 * from where it ended (metadata records in between are written with
 * pwrite, not backed), so that everything below reserved_end has its
 * blocks: fallocate over blocks there already changes nothing.  Only with
 * fallocate: zeros written ahead would overwrite those records.  When the
 * disk has no room for more, the claim's own blocks are enough. */
static int back_claim(struct trace_session *s, uint64_t off, uint32_t len)
{
	uint64_t end = off + len;
	uint64_t now = __atomic_load_n(&s->header->reserved_end, __ATOMIC_SEQ_CST);
	while (now != 0 && end > now) { /* a failed exchange reads it again */
		uint64_t ahead = reserve_ahead(end);
		if (!ahead || fallocate(s->fd, 0, (off_t)now, (off_t)(end + ahead - now)) < 0)
			return trace_session_reserve(s->fd, off, len);
		if (__atomic_compare_exchange_n(&s->header->reserved_end, &now, end + ahead, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return 0;
	}
	/* 0: the session does not reserve ahead (any more) */
	return now == 0 ? trace_session_reserve(s->fd, off, len) : 0;
}

/* Claims [off, off + len), with its disk blocks when `backed`. */
static uint64_t claim(struct trace_session *s, uint32_t len, int backed)
{
	len = (len + 7) & ~7u;
	if (s->broken || check_fd(s) < 0)
		return 0;
	uint64_t off = __atomic_fetch_add(&s->header->next_offset, len, __ATOMIC_SEQ_CST);
	if (!within_file_size_limit(off + len))
		errno = EFBIG;
	else if (!backed || back_claim(s, off, len) == 0)
		return off;
	s->claim_errno = errno;
	s->broken = 1;
	/* Give the space back if nobody claimed after us: no hole is left. */
	uint64_t end = off + len;
	__atomic_compare_exchange_n(&s->header->next_offset, &end, off, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->header->lost_windows, 1, __ATOMIC_RELAXED);
	return 0;
}

uint64_t trace_session_claim(struct trace_session *s, uint32_t len)
{
	return claim(s, len, 1);
}

uint64_t trace_session_claim_written(struct trace_session *s, uint32_t len)
{
	return claim(s, len, 0);
}

void trace_session_write_failed(struct trace_session *s)
{
	s->claim_errno = errno;
	s->broken = 1;
	__atomic_add_fetch(&s->header->lost_windows, 1, __ATOMIC_RELAXED);
}

uint64_t trace_session_claim_sparse(struct trace_session *s, uint64_t len)
{
	len = (len + 7) & ~(uint64_t)7;
	if (s->broken || check_fd(s) < 0)
		return 0;
	uint64_t off = __atomic_fetch_add(&s->header->next_offset, len, __ATOMIC_RELAXED);
	struct stat st;
	if (!within_file_size_limit(off + len))
		errno = EFBIG;
	else if (fstat(s->fd, &st) == 0 &&
		 ((uint64_t)st.st_size >= off + len || ftruncate(s->fd, (off_t)(off + len)) == 0))
		return off;
	s->claim_errno = errno;
	s->broken = 1;
	return 0;
}
