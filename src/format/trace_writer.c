/*
 * trace_writer.c - create and append to a trace file (see trace_writer.h).
 *
 * Nothing here allocates with malloc: the runtime calls it from inside the
 * traced program, possibly in a fork child or at exit.
 */
#include "trace_writer.h"
#include "own_work.h"
#include "trace_file.h"
#include "../arch/arch.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define PAGE_MASK_4K ((uint64_t)4095)
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
 * killed meanwhile (the clock's calibration takes milliseconds) leaves no
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
	h.tick_hz = trace_clock_calibrate(2);
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
	    memcmp(s->header->magic, TRACE_FILE_MAGIC, sizeof(TRACE_FILE_MAGIC)) != 0) {
		if (s->header)
			munmap(s->header, TRACE_HEADER_SIZE);
		close(s->fd);
		s->header = NULL;
		errno = EINVAL;
		return -1;
	}
	trace_clock_init();
	if (s->header->clock != (uint32_t)trace_clock_kind)
		trace_clock_kind = (int)s->header->clock;
	return 0;
}

void trace_session_close(struct trace_session *s)
{
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

uint32_t trace_session_new_image(struct trace_session *s, uint32_t pid)
{
	s->image = __atomic_add_fetch(&s->header->next_image, 1, __ATOMIC_RELAXED);
	s->pid = pid;
	return s->image;
}

/* Whether a file may grow to `end` bytes under RLIMIT_FSIZE (past it,
 * writing raises SIGXFSZ, which kills). */
static int within_size_limit(uint64_t end)
{
	struct rlimit rl;
	return getrlimit(RLIMIT_FSIZE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	       end <= (uint64_t)rl.rlim_cur;
}

/* Gives [off, off+len) disk blocks, so that a window mapped over it never
 * faults: fallocate, or zeros written where the file system has no
 * fallocate.  0, or -1 with errno. */
static int reserve_space(int fd, uint64_t off, uint32_t len)
{
	if (fallocate(fd, 0, (off_t)off, len) == 0)
		return 0;
	if (errno != EOPNOTSUPP && errno != ENOSYS)
		return -1;
	static const char zeros[16384];
	for (uint32_t done = 0; done < len;) {
		size_t n = len - done < sizeof(zeros) ? len - done : sizeof(zeros);
		ssize_t w = pwrite(fd, zeros, n, (off_t)(off + done));
		if (w <= 0)
			return -1;
		done += (uint32_t)w;
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

uint64_t trace_session_claim(struct trace_session *s, uint32_t len)
{
	len = (len + 7) & ~7u;
	if (s->broken || check_fd(s) < 0)
		return 0;
	uint64_t off = __atomic_fetch_add(&s->header->next_offset, len, __ATOMIC_RELAXED);
	if (!within_size_limit(off + len))
		errno = EFBIG;
	else if (reserve_space(s->fd, off, len) == 0)
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

static void fill_chunk(struct trace_chunk *c, uint32_t kind, uint32_t length,
		       const struct trace_session *s, uint32_t tid)
{
	memset(c, 0, sizeof(*c));
	c->magic = TRACE_CHUNK_MAGIC;
	c->kind = (uint16_t)kind;
	c->header_size = sizeof(*c);
	c->length = length;
	c->image = s->image;
	c->pid = s->pid;
	c->tid = tid;
	trace_clock_anchor(&c->clock_ns, &c->clock_tick);
	c->base_tick = c->clock_tick;
}

/* Writes one metadata chunk made of `n` pieces. */
static int write_chunk_now(struct trace_session *s, uint32_t kind, uint32_t tid,
			   const struct iovec *parts, int n)
{
	struct iovec iov[8];
	struct trace_chunk c;
	size_t payload = 0;
	static const char zeros[8];
	for (int i = 0; i < n; i++)
		payload += parts[i].iov_len;
	uint32_t length = (uint32_t)((sizeof(c) + payload + 7) & ~(size_t)7);
	uint64_t off = trace_session_claim(s, length);
	if (off == 0)
		return -1;
	fill_chunk(&c, kind, length, s, tid);
	c.used = (uint32_t)payload;
	iov[0].iov_base = &c;
	iov[0].iov_len = sizeof(c);
	memcpy(iov + 1, parts, (size_t)n * sizeof(*parts));
	iov[n + 1].iov_base = (void *)zeros;
	iov[n + 1].iov_len = length - sizeof(c) - payload;
	ssize_t want = length;
	return pwritev(s->fd, iov, n + 2, (off_t)off) == want ? 0 : -1;
}

/* The same, marked as the tracer's own work (own_work.h). */
static int write_chunk(struct trace_session *s, uint32_t kind, uint32_t tid,
		       const struct iovec *parts, int n)
{
	trace_own_begin();
	int rc = write_chunk_now(s, kind, tid, parts, n);
	trace_own_end();
	return rc;
}

int trace_write_process(struct trace_session *s, uint32_t event, uint32_t parent_image,
			uint32_t ppid, int32_t status, const char *exe, const char *command,
			size_t command_len)
{
	struct trace_process_record r = {event, parent_image, ppid, status, 0, 0};
	r.exe_len = exe ? (uint32_t)strlen(exe) : 0;
	r.command_len = (uint32_t)command_len;
	struct iovec parts[3] = {
	    {&r, sizeof(r)}, {(void *)exe, r.exe_len}, {(void *)command, command_len}};
	return write_chunk(s, CHUNK_PROCESS, s->pid, parts, 3);
}

int trace_write_exit_usage(struct trace_session *s, int32_t status,
			   const struct trace_process_usage *usage)
{
	struct trace_process_record r = {PROCESS_EXIT, 0, 0, status, 0, 0};
	struct iovec parts[2] = {{&r, sizeof(r)}, {(void *)usage, sizeof(*usage)}};
	return write_chunk(s, CHUNK_PROCESS, s->pid, parts, 2);
}

int trace_write_exit_of(struct trace_session *s, uint32_t pid, int32_t status)
{
	struct trace_session child = *s;
	child.image = 0; /* the reader gives it to pid's last image */
	child.pid = pid;
	int rc = trace_write_process(&child, PROCESS_EXIT, 0, 0, status, NULL, NULL, 0);
	if (child.broken) {
		s->broken = 1;
		s->claim_errno = child.claim_errno;
	}
	return rc;
}

int trace_write_module(struct trace_session *s, uint32_t event, uint64_t load_bias, uint64_t low,
		       uint64_t high, const void *build_id, uint32_t build_id_len, const char *path)
{
	struct trace_module_record r = {event, build_id_len, load_bias, low, high, 0, 0};
	r.path_len = (uint32_t)strlen(path);
	struct iovec parts[3] = {
	    {&r, sizeof(r)}, {(void *)build_id, build_id_len}, {(void *)path, r.path_len}};
	return write_chunk(s, CHUNK_MODULE, s->pid, parts, 3);
}

int trace_write_thread(struct trace_session *s, uint32_t tid, uint32_t event, const char *name)
{
	struct trace_thread_record r = {event, name ? (uint32_t)strlen(name) : 0};
	struct iovec parts[2] = {{&r, sizeof(r)}, {(void *)name, r.name_len}};
	return write_chunk(s, CHUNK_THREAD, tid, parts, 2);
}

int trace_write_crash(struct trace_session *s, uint32_t tid, int signal, int code,
		      uint64_t fault_address, const uint64_t *frames, uint32_t nframes,
		      uint32_t flags)
{
	struct trace_crash_record r = {signal, code, fault_address, nframes, flags};
	struct iovec parts[2] = {{&r, sizeof(r)}, {(void *)frames, nframes * sizeof(*frames)}};
	return write_chunk(s, CHUNK_CRASH, tid, parts, 2);
}

/* ---- event streams ------------------------------------------------------ */

static size_t fid_cache_size(void)
{
	return TRACE_FID_CACHE_SIZE * sizeof(struct trace_fid_slot);
}

static size_t open_calls_size(uint32_t cap)
{
	return (size_t)cap * sizeof(struct trace_open_call);
}

int trace_stream_init(struct trace_stream *st, struct trace_session *s, uint32_t tid)
{
	memset(st, 0, sizeof(*st));
	st->session = s;
	st->tid = tid;
	st->tick_shift = s->tick_shift;
	void *fids = mmap(NULL, fid_cache_size(), PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fids == MAP_FAILED)
		return -1;
	void *calls = mmap(NULL, open_calls_size(TRACE_OPEN_CALLS), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (calls == MAP_FAILED) {
		munmap(fids, fid_cache_size());
		return -1;
	}
	st->fids = fids;
	st->open_calls = calls;
	st->open_cap = TRACE_OPEN_CALLS;
	return 0;
}

/* The stack of open calls doubles when a call goes deeper than it: memory
 * in proportion to the depth, as the program's own stack is. */
int trace_stream_reserve_depth(struct trace_stream *st, uint32_t depth)
{
	if (depth < st->open_cap)
		return 0;
	if (!st->open_calls || st->open_cap >= (1u << 30))
		return -1;
	uint32_t cap = st->open_cap;
	while (cap <= depth && cap < (1u << 30))
		cap *= 2;
	void *calls = mremap(st->open_calls, open_calls_size(st->open_cap), open_calls_size(cap),
			     MREMAP_MAYMOVE);
	if (calls == MAP_FAILED)
		return -1;
	st->open_calls = calls;
	st->open_cap = cap;
	return 0;
}

void trace_stream_destroy(struct trace_stream *st)
{
	trace_stream_close(st);
	if (st->fids)
		munmap(st->fids, fid_cache_size());
	if (st->open_calls)
		munmap(st->open_calls, open_calls_size(st->open_cap));
	st->fids = NULL;
	st->open_calls = NULL;
	st->open_cap = 0;
}

void trace_stream_close(struct trace_stream *st)
{
	if (!st->map)
		return;
	uint8_t *data = (uint8_t *)(st->chunk + 1);
	__atomic_store_n(&st->chunk->used, (uint32_t)(st->pos - data), __ATOMIC_RELEASE);
	munmap(st->map, st->map_len);
	trace_stream_abandon(st);
}

void trace_stream_abandon(struct trace_stream *st)
{
	st->map = NULL;
	st->chunk = NULL;
	st->pos = st->limit = NULL;
}

/* Small first windows: a short-lived thread claims little space. */
static uint32_t next_window_size(const struct trace_stream *st)
{
	uint32_t size = st->session->window_size;
	if (st->seq < 2 && (TRACE_FIRST_WINDOW << (2 * st->seq)) < size)
		size = TRACE_FIRST_WINDOW << (2 * st->seq);
	return size;
}

/* Where events of the window `c` stop: room for one more is left. */
static uint8_t *window_limit(const struct trace_chunk *c)
{
	return (uint8_t *)c + c->length - EV_MAX_BYTES;
}

void trace_stream_forget_functions(struct trace_stream *st)
{
	if (st->fids)
		memset(st->fids, 0xff, TRACE_FID_CACHE_SIZE * sizeof(struct trace_fid_slot));
}

/* Starts the stream's next window in chunk `c`, whose payload is zeros.
 * The header goes in as CHUNK_SKIP and becomes CHUNK_EVENTS once whole. */
static void window_begin(struct trace_stream *st, struct trace_chunk *c, uint32_t size,
			 uint64_t tick)
{
	struct trace_session *s = st->session;
	struct trace_chunk h;
	fill_chunk(&h, CHUNK_SKIP, size, s, st->tid);
	h.seq = st->seq++;
	h.base_tick = tick >> s->tick_shift;
	h.magic = c->magic; /* a fresh chunk: 0 until the rest is there */
	memcpy(c, &h, sizeof(h));
	__atomic_store_n(&c->magic, TRACE_CHUNK_MAGIC, __ATOMIC_RELEASE);
	__atomic_store_n(&c->kind, (uint16_t)CHUNK_EVENTS, __ATOMIC_RELEASE);
	st->chunk = c;
	st->pos = (uint8_t *)(c + 1);
	st->limit = window_limit(c);
	st->last_unit = tick >> s->tick_shift;
	st->next_fid = 0;
	trace_stream_forget_functions(st);
}

/* Copies the full window into a chunk of just its used bytes, and frees the
 * window's pages for the next one.  Pages a thread keeps writing cost nothing
 * more, while each page of a fresh file mapping costs a write fault (about
 * 5 us on ext4, against 1 us a page for pwrite).  The copy's header goes
 * first, as CHUNK_SKIP, then the payload, then the kind that makes it count:
 * a writer killed before that leaves a copy the reader skips.  A writer
 * killed after it, before the original is marked CHUNK_SKIP, leaves the
 * window twice, and the reader keeps one.  0, or -1 when nothing could be
 * copied. */
static int window_copy_out(struct trace_stream *st)
{
	struct trace_session *s = st->session;
	struct trace_chunk *c = st->chunk;
	uint32_t used = (uint32_t)(st->pos - (uint8_t *)(c + 1));
	uint32_t length = (uint32_t)((sizeof(*c) + used + 7) & ~(size_t)7);
	uint64_t off = trace_session_claim(s, length);
	if (off == 0)
		return -1;
	struct trace_chunk h;
	memcpy(&h, c, sizeof(h));
	h.length = length;
	h.used = used;
	h.kind = CHUNK_SKIP;
	uint16_t kind = CHUNK_EVENTS;
	if (pwrite(s->fd, &h, sizeof(h), (off_t)off) != (ssize_t)sizeof(h) ||
	    pwrite(s->fd, c + 1, used, (off_t)(off + sizeof(h))) != (ssize_t)used ||
	    pwrite(s->fd, &kind, sizeof(kind), (off_t)(off + offsetof(struct trace_chunk, kind))) !=
		(ssize_t)sizeof(kind))
		return -1;
	__atomic_store_n(&c->kind, (uint16_t)CHUNK_SKIP, __ATOMIC_RELEASE);
	memset(c + 1, 0, used);
	return 0;
}

/* Signals wait while a window is written out and replaced: a handler that
 * siglongjmps would leave it half done (faults still come through). */
static void block_async_signals(sigset_t *saved)
{
	sigset_t all;
	sigfillset(&all);
	static const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS};
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&all, faults[i]);
	pthread_sigmask(SIG_BLOCK, &all, saved);
}

static int stream_refill(struct trace_stream *st, uint64_t tick);

int trace_stream_refill(struct trace_stream *st, uint64_t tick)
{
	sigset_t saved;
	trace_own_begin();
	block_async_signals(&saved);
	int rc = stream_refill(st, tick);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	trace_own_end();
	return rc;
}

static int stream_refill(struct trace_stream *st, uint64_t tick)
{
	struct trace_session *s = st->session;
	uint32_t size = next_window_size(st);
	if (st->map && st->chunk->length == size && window_copy_out(st) == 0) {
		window_begin(st, st->chunk, size, tick);
		return 0;
	}
	trace_stream_close(st);
	uint64_t off = trace_session_claim(s, size);
	if (off == 0)
		goto lost;
	uint64_t page_off = off & ~PAGE_MASK_4K;
	size_t map_len = (size_t)((off + size - page_off + PAGE_MASK_4K) & ~PAGE_MASK_4K);
	void *map = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, s->fd,
			 (off_t)page_off);
	if (map == MAP_FAILED)
		goto lost;
	st->map = map;
	st->map_len = map_len;
	window_begin(st, (struct trace_chunk *)((char *)map + (off - page_off)), size, tick);
	return 0;
lost:
	st->lost++;
	return -1;
}

uint8_t *trace_stream_exit_elsewhere(struct trace_stream *st, uint8_t *p, uint64_t address,
				     uint64_t tick)
{
	uint32_t top = st->depth + 1 < st->open_cap ? st->depth + 1 : st->open_cap;
	for (uint32_t i = top; i-- > 0;) {
		if (st->open_calls[i].address == address) {
			st->depth = i;
			break;
		}
	}
	uint32_t fid = trace_stream_fid(st, address, &p);
	return encode_exit_at(p, fid, trace_stream_delta(st, tick));
}

static int ensure_room(struct trace_stream *st, uint64_t tick)
{
	if (st->pos && st->pos < st->limit)
		return 0;
	return trace_stream_refill(st, tick);
}

int trace_stream_make_room(struct trace_stream *st, uint32_t len, uint64_t tick)
{
	if (st->pos && st->pos + len < st->limit)
		return 0;
	return trace_stream_refill(st, tick);
}

int trace_stream_values(struct trace_stream *st, unsigned kind, const uint8_t *values, uint32_t len)
{
	/* The limit keeps EV_MAX_BYTES of the window free past it. */
	if (!st->pos || len > TRACE_VALUES_MAX || st->pos + len + 8 > st->limit + EV_MAX_BYTES)
		return -1;
	st->pos = encode_values(st->pos, kind, values, len);
	return 0;
}

int trace_stream_enter(struct trace_stream *st, uint64_t address, uint64_t tick, uint64_t sp)
{
	if (ensure_room(st, tick) < 0)
		return -1;
	trace_stream_reserve_depth(st, st->depth);
	trace_stream_put_enter(st, address, tick, sp);
	return 0;
}

/* A call's recorded sp is its stack pointer when it called the enter hook:
 * the caller of setjmp has the jump's target there (or above it), every
 * call below it a lower one. */
uint32_t trace_stream_calls_kept(const struct trace_stream *st, uint64_t sp)
{
	if (st->depth > st->open_cap)
		return st->depth; /* deeper than remembered */
	uint32_t keep = st->depth;
	while (keep > 0 && st->open_calls[keep - 1].sp && st->open_calls[keep - 1].sp < sp)
		keep--;
	return keep;
}

int trace_stream_unwind_to(struct trace_stream *st, uint64_t sp, uint64_t tick,
			   uint32_t max_written)
{
	uint32_t keep = trace_stream_calls_kept(st, sp);
	uint32_t written = st->depth < max_written ? st->depth : max_written;
	uint32_t kept = keep < max_written ? keep : max_written;
	if (kept < written) {
		if (ensure_room(st, tick) < 0)
			return -1;
		uint32_t stay = kept > st->depth_base ? kept - st->depth_base : 0;
		st->pos = encode_unwind(st->pos, trace_stream_delta(st, tick), stay);
	}
	st->depth = keep;
	return 0;
}

int trace_stream_jump_stays_inside(const struct trace_stream *st, uint64_t sp)
{
	return st->depth > 0 && st->depth <= st->open_cap &&
	       trace_stream_calls_kept(st, sp) == st->depth;
}

void trace_stream_skip_enter(struct trace_stream *st, uint64_t sp)
{
	trace_stream_reserve_depth(st, st->depth);
	if (st->depth < st->open_cap)
		st->open_calls[st->depth] = (struct trace_open_call){0, sp};
	st->depth++;
}

void trace_stream_restore_limit(struct trace_stream *st)
{
	if (st->chunk && st->pos)
		st->limit = window_limit(st->chunk);
}

int trace_stream_close_interrupted(struct trace_stream *st)
{
	const struct trace_chunk *c = st->chunk;
	if (c && c->kind == CHUNK_EVENTS && st->pos >= (const uint8_t *)(c + 1) &&
	    st->pos < (const uint8_t *)c + c->length) {
		trace_stream_close(st);
		return 0;
	}
	trace_stream_abandon(st);
	return -1;
}

int trace_stream_exit(struct trace_stream *st, uint64_t address, uint64_t tick)
{
	if (st->depth == 0)
		return -1;
	if (ensure_room(st, tick) < 0)
		return -1;
	trace_stream_put_exit(st, address, tick);
	return 0;
}

int trace_stream_pause(struct trace_stream *st, uint64_t tick)
{
	uint32_t open = st->depth;
	st->depth = st->depth_base = 0;
	if (open == 0 || st->seq == 0)
		return 0; /* no call open, or none written: nothing to end */
	if (ensure_room(st, tick) < 0)
		return -1;
	st->pos = encode_pause(st->pos, trace_stream_delta(st, tick));
	return 0;
}

int trace_stream_mark(struct trace_stream *st, uint64_t tick, const char *text)
{
	size_t len = strnlen(text, TRACE_MARK_MAX);
	if (!st->pos || st->pos + len + 16 > st->limit) {
		if (trace_stream_refill(st, tick) < 0)
			return -1;
	}
	st->pos = encode_mark(st->pos, trace_stream_delta(st, tick), text, (uint32_t)len);
	return 0;
}
