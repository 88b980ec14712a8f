/*
 * sysargs.c - a program whose system calls' arguments the kernel tests
 * compare with strace's: it opens a file it is given and reads it, writes
 * known bytes, stats the file, makes a pipe (and vmsplices an iovec into it), connects to a port
 * nobody listens on (refused) and to a local socket that accepts, sleeps 40 ms, opens a path longer
 * than the copies keep, a NULL path and a bad pointer (EFAULT), reads the file again into two
 * iovecs (readv) and stats it by its descriptor (AT_EMPTY_PATH), writes two iovecs (writev), sends
 * and receives messages (sendmsg with two iovecs, a datagram cut short by recvmsg: MSG_TRUNC, a
 * sendmsg to an address with MSG_DONTWAIT), and forks a child that execs /bin/true with one
 * environment variable.
 *
 * usage: sysargs FILE SOCKET
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void files(const char *path)
{
	char buf[4096];
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (read(fd, buf, sizeof(buf)) < 0)
		_exit(1);
	close(fd);
	if (write(1, "hello, \"world\"\t\001\n", 17) != 17)
		_exit(1);
	struct stat st;
	syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0);
	int p[2];
	if (pipe2(p, O_CLOEXEC) == 0) {
		struct iovec gift = {"abc", 3};
		if (vmsplice(p[1], &gift, 1, 0) != 3)
			_exit(1);
		close(p[0]);
		close(p[1]);
	}
	char long_path[400];
	memset(long_path, 'a', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = 0;
	syscall(SYS_openat, AT_FDCWD, long_path, O_RDONLY);
	syscall(SYS_openat, AT_FDCWD, NULL, O_RDONLY);
	syscall(SYS_openat, AT_FDCWD, (char *)-1, O_RDONLY);
}

static void iovecs(const char *path)
{
	char head[4], rest[40];
	struct iovec in[2] = {{head, sizeof(head)}, {rest, sizeof(rest)}};
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
	if (readv(fd, in, 2) != 44)
		_exit(1);
	struct stat st;
	syscall(SYS_newfstatat, fd, "", &st, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH);
	close(fd);
	struct iovec out[2] = {{"abc", 3}, {"de\n", 3}};
	if (writev(1, out, 2) != 6)
		_exit(1);
}

static void sockets(const char *name)
{
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(1)};
	inet_pton(AF_INET, "127.0.0.1", &in.sin_addr);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	connect(s, (struct sockaddr *)&in, sizeof(in));
	close(s);
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	strncpy(un.sun_path, name, sizeof(un.sun_path) - 1);
	unlink(name);
	int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
	bind(l, (struct sockaddr *)&un, sizeof(un));
	listen(l, 1);
	connect(c, (struct sockaddr *)&un, sizeof(un));
	struct sockaddr_un peer;
	socklen_t len = sizeof(peer);
	int a = accept(l, (struct sockaddr *)&peer, &len);
	close(a);
	close(c);
	close(l);
	unlink(name);
}

static void messages(void)
{
	int pair[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) < 0)
		_exit(1);
	struct iovec out[2] = {{"hello", 5}, {" world", 6}};
	struct msghdr m = {.msg_iov = out, .msg_iovlen = 2};
	if (sendmsg(pair[0], &m, 0) != 11)
		_exit(1);
	char a[4], b[3];
	struct iovec in[2] = {{a, sizeof(a)}, {b, sizeof(b)}};
	struct msghdr r = {.msg_iov = in, .msg_iovlen = 2};
	if (recvmsg(pair[1], &r, 0) != 7 || !(r.msg_flags & MSG_TRUNC))
		_exit(1);
	close(pair[0]);
	close(pair[1]);
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(9)};
	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	struct msghdr k = {
	    .msg_name = &to, .msg_namelen = sizeof(to), .msg_iov = out, .msg_iovlen = 1};
	sendmsg(u, &k, MSG_DONTWAIT);
	close(u);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	files(argv[1]);
	iovecs(argv[1]);
	sockets(argv[2]);
	messages();
	struct timespec ts = {0, 40000000};
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	pid_t pid = fork();
	if (pid == 0) {
		/* The system call itself: a runtime preloaded into the program
		 * may give a libc execve an environment of its own.  Its
		 * strings on the stack, in memory: an exec's copies are not
		 * read again at its return (a literal's page may not be yet). */
		char path[] = "/bin/true", name[] = "true", var[] = "A=1";
		char *args[] = {name, NULL}, *env[] = {var, NULL};
		syscall(SYS_execve, path, args, env);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	return 0;
}
