/*
 * world.c - a program that meets the world through the C library: between
 * two marks (each a calltrace_mark when the runtime is linked in, then
 * close(-100) or close(-101), which strace sees too) it opens and reads a
 * file, writes another, sleeps 40 ms, allocates, connects to a socket it
 * listens on at 127.0.0.1, and forks a child that execs this program again.
 * Every step is one function of its own, so that the library calls and the
 * system calls they make are found beneath it.
 *
 * usage: world DIR              runs the sequence in DIR (DIR/in.txt exists)
 *        world --wait DIR       writes its pid to DIR/pid, waits for DIR/go
 *                               to exist, then runs the sequence
 *        world --exec-target    what the forked child execs: one getppid()
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void calltrace_mark(const char *text) __attribute__((weak));

/* Above malloc's threshold for mmap: the same system calls in every run. */
#define ALLOC_SIZE (1 << 20)

static char path_in[4096], path_out[4096], path_go[4096];
static char *self;
static char buf[64];
/* What the calls returned, printed once the second mark has passed (a
 * printf between the marks would be one more library call). */
static int fd_in, fd_out, fd_server, fd_client, fd_peer, port, child;
static ssize_t got, put;

static void __attribute__((noinline)) mark(const char *text, int fd)
{
	if (calltrace_mark)
		calltrace_mark(text);
	close(fd);
}

static void __attribute__((noinline)) do_read(void)
{
	fd_in = open(path_in, O_RDONLY);
	got = read(fd_in, buf, sizeof(buf));
	close(fd_in);
}

static void __attribute__((noinline)) do_write(void)
{
	fd_out = open(path_out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	put = write(fd_out, buf, got);
	close(fd_out);
}

static void __attribute__((noinline)) do_sleep(void)
{
	struct timespec ts = {0, 40 * 1000 * 1000};
	nanosleep(&ts, NULL);
}

static void __attribute__((noinline)) do_alloc(void)
{
	char *p = malloc(ALLOC_SIZE);
	memset(p, 1, ALLOC_SIZE);
	free(p);
}

/* A listening socket at 127.0.0.1 (port chosen by the kernel), a second
 * socket connected to it (the kernel completes the handshake from the
 * backlog, no second thread needed), accepted, one byte through. */
static void __attribute__((noinline)) do_connect(void)
{
	struct sockaddr_in addr = {.sin_family = AF_INET};
	socklen_t len = sizeof(addr);
	char byte = 'x';
	addr.sin_addr.s_addr = __builtin_bswap32(0x7f000001); /* 127.0.0.1 */
	fd_server = socket(AF_INET, SOCK_STREAM, 0);
	bind(fd_server, (struct sockaddr *)&addr, sizeof(addr));
	listen(fd_server, 1);
	getsockname(fd_server, (struct sockaddr *)&addr, &len);
	port = __builtin_bswap16(addr.sin_port);
	fd_client = socket(AF_INET, SOCK_STREAM, 0);
	connect(fd_client, (struct sockaddr *)&addr, sizeof(addr));
	fd_peer = accept(fd_server, NULL, NULL);
	send(fd_client, &byte, 1, 0);
	recv(fd_peer, &byte, 1, 0);
	close(fd_peer);
	close(fd_client);
	close(fd_server);
}

static void __attribute__((noinline)) do_exec(void)
{
	child = fork();
	if (child == 0) {
		execl(self, self, "--exec-target", (char *)NULL);
		_exit(127);
	}
	waitpid(child, NULL, 0);
}

static void wait_for_go(const char *dir)
{
	char pid_path[4096];
	snprintf(pid_path, sizeof(pid_path), "%s/pid", dir);
	FILE *f = fopen(pid_path, "w");
	if (!f)
		exit(3);
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	struct timespec pause = {0, 2 * 1000 * 1000};
	while (access(path_go, F_OK) != 0)
		nanosleep(&pause, NULL);
}

int main(int argc, char **argv)
{
	self = argv[0];
	if (argc == 2 && strcmp(argv[1], "--exec-target") == 0)
		return getppid() > 0 ? 0 : 1;
	const char *dir = argv[argc - 1];
	if (argc < 2)
		return 2;
	snprintf(path_in, sizeof(path_in), "%s/in.txt", dir);
	snprintf(path_out, sizeof(path_out), "%s/out.txt", dir);
	snprintf(path_go, sizeof(path_go), "%s/go", dir);
	if (argc == 3 && strcmp(argv[1], "--wait") == 0)
		wait_for_go(dir);
	mark("begin", -100);
	do_read();
	do_write();
	do_sleep();
	do_alloc();
	do_connect();
	do_exec();
	mark("end", -101);
	printf("fd_in %d\nfd_out %d\ngot %zd\nput %zd\nfd_server %d\nfd_client %d\n"
	       "fd_peer %d\nport %d\nchild %d\n",
	       fd_in, fd_out, got, put, fd_server, fd_client, fd_peer, port, child);
	return got > 0 && put == got ? 0 : 1;
}
