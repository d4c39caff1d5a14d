// SPDX-License-Identifier: GPL-2.0
/*
 * Connections that end badly, or whose end races the reader, one after the
 * other, for localuser.sh and conn_netem.sh.
 *
 * mrc_churn rst -c CLIENT_NS -s SERVER_NS -a SERVER_ADDR [-n CONNS]
 *               [-t stream|seqpacket] [-S SIZE] [-M MSGSIZE] [-R MAXREAD]
 *               [-u CONNS]
 *   CONNS times (default 20): a client in CLIENT_NS connects to SERVER_ADDR
 *   in SERVER_NS and a thread starts sending SIZE bytes (default 32 MiB;
 *   seqpacket: in messages of MSGSIZE, default 4 MiB) while the server
 *   reads a random 64 KiB to MAXREAD (4 MiB), then, every other time, stops reading
 *   for 100 ms so that the sender sleeps for room, and closes with
 *   SO_LINGER 0: the client's connection is reset in the middle of
 *   sendmsg().  The send must fail with ECONNRESET or EPIPE, or return
 *   less than SIZE.  Prints "rst: ..." with what the sends returned.
 *
 *   Then, with -u, CONNS times more, the reset comes at a chosen moment:
 *   sendmsg() of 1 MiB (one message for seqpacket) copies from a buffer
 *   whose first 64 KiB (seqpacket: 512 KiB) are there and whose rest
 *   faults into userfaultfd.  While the copy waits for the fault, halfway
 *   through cutting packets, the server resets the connection; 200 ms
 *   later the fault is resolved and sendmsg() finishes cutting, after the
 *   connection ended.  The packets it cut must not outlive the connection
 *   (the caller measures memory).  Prints "rst-uffd: ...", or
 *   "rst-uffd: skipped: ..." on a kernel without userfaultfd.
 *
 * mrc_churn eof -c CLIENT_NS -s SERVER_NS -a SERVER_ADDR [-n CONNS]
 *               [-t stream|seqpacket] [-S SIZE] [-M MSGSIZE]
 *   CONNS times (default 300): a client connects and a thread of it sends
 *   SIZE bytes (default 3000; seqpacket: in messages of MSGSIZE, default
 *   1000) and shuts its sending side down, while the server reads without
 *   ever sleeping (non-blocking calls in a loop) until the end of data:
 *   the last packets and the FIN come while the reader is between looking
 *   at its queue and looking for the end.  Every byte must come before
 *   the end.  Prints "eof: ..." with how many reads found nothing.
 *
 * mrc_churn orphan -c CLIENT_NS -s SERVER_NS -a SERVER_ADDR [-n CONNS]
 *                  [-S SIZE]
 *   CONNS times (default 8): a client connects, sends what it can of SIZE
 *   bytes (default 40 MiB) without blocking, until the connection takes
 *   nothing for half a second, and closes: an orphan with data queued.
 *   The server accepts and never reads.  Prints "closed CONNS bytes B",
 *   then keeps the server's sockets open until SIGTERM or SIGINT, and
 *   exits 0.
 *
 * Any failure prints what failed on stderr and exits 1.
 */

#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/userfaultfd.h>

#include "mrc_local.h"

static const char *client_ns, *server_ns, *server_addr;
static int type = SOCK_STREAM;
static int nconns = -1, nuffd;
static unsigned long long size, msgsize = 4 << 20, maxread = 4 << 20;
static char *data;

static int cns, sns, lfd;
static struct sockaddr_mrc peer;

struct send_job {
	int fd;
	const char *buf;	/* data, or the userfaultfd buffer */
	unsigned long long size;
	unsigned long long sent;
	int err;
};

static void *send_thread(void *arg)
{
	struct send_job *job = arg;
	unsigned long long left = job->size;
	ssize_t n;

	while (left) {
		size_t len = type == SOCK_SEQPACKET && left > msgsize ?
			     msgsize : left;

		n = send(job->fd, job->buf, len, MSG_NOSIGNAL);
		if (n < 0) {
			job->err = errno;
			break;
		}
		job->sent += n;
		left -= n;
	}
	return NULL;
}

static int connect_one(int *cfd)
{
	int fd;

	mrc_ns_enter(cns);
	*cfd = mrc_dial(type, &peer);
	if (*cfd < 0) {
		mrc_fail("connect to %s: %s", server_addr, strerror(errno));
		return -1;
	}
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		mrc_fail("accept: %s", strerror(errno));
		close(*cfd);
		return -1;
	}
	return fd;
}

/*
 * A new connection, and a thread that sends on it with @fn what @job
 * says: size bytes of data.  The server's socket, or -1.
 */
static int start_sending(struct send_job *job, pthread_t *thread,
			 void *(*fn)(void *))
{
	int fd;

	memset(job, 0, sizeof(*job));
	job->buf = data;
	job->size = size;
	fd = connect_one(&job->fd);
	if (fd < 0)
		return -1;
	if (pthread_create(thread, NULL, fn, job))
		mrc_die("pthread_create");
	return fd;
}

static int do_rst(void)
{
	unsigned long long s = mrc_seed(7), want, got, total = 0;
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	int reset = 0, pipe_err = 0, partial = 0, i, fd;
	struct send_job job;
	pthread_t thread;
	char *buf;
	ssize_t n;

	buf = malloc(1 << 20);
	if (!buf)
		mrc_die("out of memory");
	for (i = 0; i < nconns && !mrc_failed(); i++) {
		fd = start_sending(&job, &thread, send_thread);
		if (fd < 0)
			break;
		want = mrc_range(&s, 64 << 10, maxread);
		for (got = 0; got < want; got += n) {
			n = recv(fd, buf, 1 << 20, 0);
			if (n <= 0) {
				mrc_fail("conn %d: server recv after %llu bytes: %s", i,
					 got, n ? strerror(errno) : "end of data");
				break;
			}
		}
		if (i % 2)
			usleep(100000);
		if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
			mrc_fail("SO_LINGER: %s", strerror(errno));
		close(fd);
		pthread_join(thread, NULL);
		close(job.fd);
		total += job.sent;
		if (job.err == ECONNRESET)
			reset++;
		else if (job.err == EPIPE)
			pipe_err++;
		else if (!job.err && job.sent < size)
			partial++;
		else
			mrc_fail("conn %d: send of %llu bytes: %llu sent, then %s",
				 i, size, job.sent,
				 job.err ? strerror(job.err) : "no error");
	}
	printf("rst: %d connections reset while sending, %llu bytes sent; ", i, total);
	printf("sends ended with ECONNRESET %d, EPIPE %d, short count %d\n",
	       reset, pipe_err, partial);
	free(buf);
	return mrc_failed() ? 1 : 0;
}

/* Resets while sendmsg() waits for a page, halfway through cutting. */
static int do_rst_uffd(void)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	size_t len = 1 << 20, first;
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct uffdio_zeropage zp = { 0 };
	struct pollfd pfd = { .events = POLLIN };
	struct uffd_msg fault;
	int uffd, i, fd, cut = 0;
	struct send_job job;
	pthread_t thread;
	char *buf;

	first = type == SOCK_SEQPACKET ? 512 << 10 : 64 << 10;
	msgsize = len;
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (uffd < 0) {
		printf("rst-uffd: skipped: userfaultfd: %s\n", strerror(errno));
		return 0;
	}
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		mrc_die("userfaultfd: %s", strerror(errno));
	pfd.fd = uffd;
	for (i = 0; i < nuffd && !mrc_failed(); i++) {
		buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			mrc_die("mmap: %s", strerror(errno));
		memset(buf, 0x5a, first);
		reg.range.start = (unsigned long)buf;
		reg.range.len = len;
		reg.mode = UFFDIO_REGISTER_MODE_MISSING;
		if (ioctl(uffd, UFFDIO_REGISTER, &reg))
			mrc_die("UFFDIO_REGISTER: %s", strerror(errno));

		memset(&job, 0, sizeof(job));
		job.buf = buf;
		job.size = len;
		fd = connect_one(&job.fd);
		if (fd < 0)
			break;
		if (pthread_create(&thread, NULL, send_thread, &job))
			mrc_die("pthread_create");
		if (poll(&pfd, 1, 20000) != 1 ||
		    read(uffd, &fault, sizeof(fault)) != sizeof(fault) ||
		    fault.event != UFFD_EVENT_PAGEFAULT) {
			mrc_fail("conn %d: sendmsg() did not fault on the buffer", i);
		} else {
			cut++;
			/* The reset, and time for the connection to end. */
			if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
				mrc_fail("SO_LINGER: %s", strerror(errno));
			close(fd);
			fd = -1;
			usleep(200000);
		}
		zp.range.start = (unsigned long)buf + first;
		zp.range.len = len - first;
		if (ioctl(uffd, UFFDIO_ZEROPAGE, &zp) && errno != EEXIST)
			mrc_fail("UFFDIO_ZEROPAGE: %s", strerror(errno));
		pthread_join(thread, NULL);
		if (fd >= 0)
			close(fd);
		close(job.fd);
		ioctl(uffd, UFFDIO_UNREGISTER, &reg.range);
		munmap(buf, len);
	}
	printf("rst-uffd: %d of %d connections reset while sendmsg() waited for a page\n",
	       cut, nuffd);
	close(uffd);
	return mrc_failed() ? 1 : 0;
}

static void *send_end_thread(void *arg)
{
	struct send_job *job = arg;

	send_thread(job);
	if (!job->err && shutdown(job->fd, SHUT_WR))
		job->err = errno;
	return NULL;
}

/* Read @fd without sleeping until the end of data; the bytes, or -1. */
static long long read_spinning(int fd, int conn, char *buf, size_t len)
{
	double deadline = mrc_now() + 30;
	unsigned long empty = 0;
	long long got = 0;
	ssize_t n;

	for (;;) {
		n = recv(fd, buf, len, MSG_DONTWAIT);
		if (n > 0) {
			got += n;
			continue;
		}
		if (!n)
			return got;
		if (errno != EAGAIN && errno != EINTR) {
			mrc_fail("conn %d: recv after %lld bytes: %s", conn, got,
				 strerror(errno));
			return -1;
		}
		if (!(++empty % 4096) && mrc_now() > deadline) {
			mrc_fail("conn %d: no end of data after %lld bytes", conn,
				 got);
			return -1;
		}
	}
}

static int do_eof(void)
{
	unsigned long long short_conns = 0;
	struct send_job job;
	pthread_t thread;
	long long got;
	char buf[65536];
	int i, fd;

	for (i = 0; i < nconns && !mrc_failed(); i++) {
		fd = start_sending(&job, &thread, send_end_thread);
		if (fd < 0)
			break;
		got = read_spinning(fd, i, buf, sizeof(buf));
		pthread_join(thread, NULL);
		close(job.fd);
		close(fd);
		if (job.err || job.sent != size)
			mrc_fail("conn %d: sent %llu of %llu bytes: %s", i, job.sent,
				 size, strerror(job.err));
		else if (got >= 0 && (unsigned long long)got != size) {
			short_conns++;
			mrc_fail("conn %d: the end of data after %lld of %llu bytes",
				 i, got, size);
		}
	}
	printf("eof: %d connections of %llu bytes, %llu ended early\n", i, size,
	       short_conns);
	return mrc_failed() ? 1 : 0;
}

static int quit;

static void on_alarm(int sig)
{
	static const char msg[] = "mrc_churn: FAIL: timed out\n";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void on_term(int sig)
{
	__atomic_store_n(&quit, 1, __ATOMIC_RELAXED);
}

static int do_orphan(void)
{
	unsigned long long total = 0, sent;
	struct pollfd pfd;
	int *sfds, i, cfd;
	size_t len;
	ssize_t n;

	sfds = calloc(nconns, sizeof(*sfds));
	if (!sfds)
		mrc_die("out of memory");
	for (i = 0; i < nconns; i++) {
		sfds[i] = connect_one(&cfd);
		if (sfds[i] < 0)
			return 1;
		if (fcntl(cfd, F_SETFL, O_NONBLOCK))
			mrc_die("fcntl: %s", strerror(errno));
		for (sent = 0; sent < size;) {
			len = size - sent < (1 << 20) ? size - sent : 1 << 20;
			n = send(cfd, data, len, MSG_NOSIGNAL);
			if (n > 0) {
				sent += n;
				continue;
			}
			if (n < 0 && errno != EAGAIN) {
				mrc_fail("conn %d: send after %llu bytes: %s", i, sent,
					 strerror(errno));
				return 1;
			}
			pfd.fd = cfd;
			pfd.events = POLLOUT;
			if (poll(&pfd, 1, 500) <= 0)
				break;
		}
		total += sent;
		close(cfd);
	}
	alarm(0);
	printf("closed %d bytes %llu\n", nconns, total);
	fflush(stdout);
	while (!__atomic_load_n(&quit, __ATOMIC_RELAXED))
		pause();
	for (i = 0; i < nconns; i++)
		close(sfds[i]);
	free(sfds);
	return 0;
}

static __noreturn void bad_usage(void)
{
	fprintf(stderr,
		"usage: mrc_churn rst -c CLIENT_NS -s SERVER_NS -a SERVER_ADDR [-n CONNS]\n"
		"                     [-t stream|seqpacket] [-S SIZE] [-M MSGSIZE] [-R MAXREAD]\n"
		"                     [-u CONNS]\n"
		"       mrc_churn orphan -c CLIENT_NS -s SERVER_NS -a SERVER_ADDR [-n CONNS]\n"
		"                        [-S SIZE]\n"
		"       mrc_churn eof -c CLIENT_NS -s SERVER_NS -a SERVER_ADDR [-n CONNS]\n"
		"                     [-t stream|seqpacket] [-S SIZE] [-M MSGSIZE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	enum { RST, ORPHAN, EOF_RACE } mode;
	unsigned short port = 0;
	size_t len;
	int opt;

	mrc_prog = "mrc_churn";
	if (argc < 2)
		bad_usage();
	if (!strcmp(argv[1], "rst"))
		mode = RST;
	else if (!strcmp(argv[1], "orphan"))
		mode = ORPHAN;
	else if (!strcmp(argv[1], "eof"))
		mode = EOF_RACE;
	else
		bad_usage();
	if (mode == EOF_RACE)
		msgsize = 1000;
	optind = 2;
	while ((opt = getopt(argc, argv, "c:s:a:n:t:S:M:R:u:")) != -1) {
		switch (opt) {
		case 'c':
			client_ns = optarg;
			break;
		case 's':
			server_ns = optarg;
			break;
		case 'a':
			server_addr = optarg;
			break;
		case 'n':
			nconns = atoi(optarg);
			break;
		case 't':
			type = mrc_type(optarg);
			break;
		case 'S':
			size = mrc_size(optarg);
			break;
		case 'M':
			msgsize = mrc_size(optarg);
			break;
		case 'u':
			nuffd = atoi(optarg);
			break;
		case 'R':
			maxread = mrc_size(optarg);
			break;
		default:
			bad_usage();
		}
	}
	if (!client_ns || !server_ns || !server_addr || optind != argc ||
	    !msgsize || maxread < (64 << 10) ||
	    (mode == ORPHAN && type != SOCK_STREAM))
		bad_usage();
	if (nconns < 0)
		nconns = mode == RST ? 20 : mode == ORPHAN ? 8 : 300;
	if (!size)
		size = mode == RST ? 32 << 20 : mode == ORPHAN ? 40 << 20 : 3000;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGALRM, on_alarm);
	alarm(120 + (mode == EOF_RACE ? 1 : 15) * nconns + 5 * nuffd);
	len = mode != ORPHAN && type == SOCK_SEQPACKET ? msgsize : size;
	data = malloc(len);
	if (!data)
		mrc_die("out of memory");
	memset(data, 0x5a, len);

	cns = mrc_ns_open(client_ns);
	sns = mrc_ns_open(server_ns);
	mrc_ns_enter(sns);
	lfd = mrc_listener(type, &port);
	if (mrc_parse_addr(server_addr, port, &peer))
		mrc_die("bad address %s", server_addr);
	if (mode == ORPHAN)
		return do_orphan();
	if (mode == EOF_RACE)
		return do_eof();
	if (do_rst())
		return 1;
	return nuffd ? do_rst_uffd() : 0;
}
