// SPDX-License-Identifier: GPL-2.0
/*
 * Move data over MRC connections and tell what moved, for the shell tests.
 *
 * Server: mrc_xfer -l [-6] -p PORT [-t stream|seqpacket] [-n CONNS] [-P]
 *                  [-B BUFSIZE] [-r SIZE[,SIZE...] [-s SIZE]] [-b SOCKBUF]
 *                  [-g] [-v] [-T S]
 *   listens on the wildcard address (either family: -6 changes nothing),
 *   prints "ready PORT" once it does, accepts CONNS connections and reads
 *   each to its end into a buffer of BUFSIZE bytes (default 16 MiB + 1).
 *
 * Client: mrc_xfer -c ADDR -p PORT [-t stream|seqpacket] -s SIZE
 *                  [-m SIZE[,SIZE...]] [-n CONNS] [-S SEED] [-P] [-w]
 *                  [-b SOCKBUF] [-v] [-T S]
 *   opens CONNS connections to ADDR (an IPv4 or IPv6 address of any plane
 *   of the peer) and sends SIZE bytes of pseudo-random data on each, made
 *   from SEED and the connection's number, in messages (or, on a stream,
 *   writes) whose sizes cycle through the -m list; every size of the list
 *   is sent at least once, cut to what is left of SIZE.  Then it shuts the
 *   sending side down and closes (after the peer's end of data with -w).
 *   SIGUSR1 ends every connection early, as if SIZE had been reached at
 *   the end of the message being sent: a test that has seen what it
 *   looked for need not wait for the rest of a long transfer.
 *
 * Both print one line per connection when it is done:
 *   conn N bytes B msgs M sha256 HEX
 * N counts from 0 in the order of connect or accept, M counts messages on a
 * SOCK_SEQPACKET socket and reads or writes on a SOCK_STREAM one.  With -g
 * the server adds the longest stall of the connection to its line:
 *   conn N bytes B msgs M sha256 HEX stall_ms T
 * T being the longest time, in milliseconds, between two successive
 * receive calls that returned data, from the first byte to the last (0.0
 * with fewer than two such calls).  With -v
 * the server also prints the message sizes, runs of one size shortened:
 *   conn N sizes 0,1,1400x3,9000
 * and -r makes it fail unless a connection's messages have exactly the
 * sizes that a client sends with the same list as -m and the same -s
 * (without -s, one round of the list).  A zero-length message is told from
 * the end of data by MSG_EOR, which ends every message: a blocking
 * recvmsg must return whole messages, a non-blocking one (-P) may return
 * parts of one.  MSG_TRUNC on any message is a failure.
 *
 * Connections are served at once, one process each (blocking calls), or
 * with -P all in one process with non-blocking sockets and poll() (and
 * non-blocking connect on the client).  -b sets SO_SNDBUF and SO_RCVBUF.
 * Sizes take a K, M or G suffix (KiB, MiB, GiB).  Any failure prints what
 * failed and why on stderr and exits 1 (2 for a bad command line); after
 * -T seconds (default 120) the transfer fails as timed out.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <linux/mrc.h>

#include "kselftest.h"

#ifndef MSG_EOR
#define MSG_EOR 0x80
#endif

#define MAX_SIZES	256
#define MAX_CONNS	4096
#define BATCH		16

/* Options. */
static int server;
static const char *peer;
static int port = -1;
static int type = SOCK_STREAM;
static int nconns = 1;
static int use_poll;
static int verbose;
static int show_stall;
static int wait_eof;
static unsigned long long total;
static int total_given;
static size_t sizes[MAX_SIZES] = { 65536 };
static int nsizes = 1;
static size_t expect[MAX_SIZES];
static int nexpect;
static size_t bufsize = (16 << 20) + 1;
static unsigned long long seed = 1;
static unsigned int timeout = 120;
static int sockbuf;

static pid_t children[MAX_CONNS];
static int nchildren;

/* SHA-256 (FIPS 180-4) */

struct sha256 {
	__u32 h[8];
	__u64 len;
	__u8 buf[64];
	size_t fill;
};

static const __u32 sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline __u32 ror32(__u32 x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_init(struct sha256 *s)
{
	static const __u32 h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
	s->fill = 0;
}

static void sha256_block(struct sha256 *s, const __u8 *p)
{
	__u32 w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (__u32)p[4 * i] << 24 | (__u32)p[4 * i + 1] << 16 |
		       (__u32)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + w[i - 7] +
		       (ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^
			(w[i - 15] >> 3)) +
		       (ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^
			(w[i - 2] >> 10));

	a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3];
	e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) +
		     ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
		t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) +
		     ((a & b) ^ (a & c) ^ (b & c));
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

static void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const __u8 *p = data;
	size_t n;

	s->len += len;
	if (s->fill) {
		n = 64 - s->fill;
		if (n > len)
			n = len;
		memcpy(s->buf + s->fill, p, n);
		s->fill += n;
		p += n;
		len -= n;
		if (s->fill < 64)
			return;
		sha256_block(s, s->buf);
		s->fill = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		sha256_block(s, p);
	memcpy(s->buf, p, len);
	s->fill = len;
}

/* The digest as 64 hex digits and a NUL. */
static void sha256_hex(struct sha256 *s, char *hex)
{
	__u64 bits = s->len * 8;
	__u8 pad[72] = { 0x80 };
	size_t n;
	int i;

	n = (s->fill < 56 ? 56 : 120) - s->fill;
	for (i = 0; i < 8; i++)
		pad[n + i] = bits >> (56 - 8 * i);
	sha256_update(s, pad, n + 8);
	for (i = 0; i < 32; i++)
		sprintf(hex + 2 * i, "%02x", (s->h[i / 4] >> (24 - 8 * (i % 4))) &
			0xff);
}

/* The data: splitmix64 from the seed and the connection's number */

struct gen {
	__u64 state;
	__u8 left[8];
	int nleft;
};

static void gen_init(struct gen *g, unsigned long long seed, int conn)
{
	g->state = seed * 0x100000001b3ULL + (__u64)conn * 0x9e3779b97f4a7c15ULL;
	g->nleft = 0;
}

static __u64 gen_next(struct gen *g)
{
	__u64 z = (g->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void gen_fill(struct gen *g, __u8 *p, size_t len)
{
	__u64 v;
	size_t n;

	n = len < (size_t)g->nleft ? len : (size_t)g->nleft;
	memcpy(p, g->left + 8 - g->nleft, n);
	g->nleft -= n;
	p += n;
	len -= n;
	for (; len >= 8; p += 8, len -= 8) {
		v = gen_next(g);
		memcpy(p, &v, 8);
	}
	if (len) {
		v = gen_next(g);
		memcpy(g->left, &v, 8);
		memcpy(p, g->left, len);
		g->nleft = 8 - len;
	}
}

/*
 * Message sizes: the list cycled through until the total is reached, each
 * size cut to what is left, and every size of the list used at least once.
 * A stream makes no empty writes.
 */

struct cut {
	unsigned long long left;
	unsigned int next;
};

static int cut_next(struct cut *c, const size_t *list, int n, size_t *len)
{
	for (;;) {
		if (!c->left && c->next >= (unsigned int)n)
			return 0;
		*len = list[c->next % n];
		c->next++;
		if (*len > c->left)
			*len = c->left;
		if (*len || type == SOCK_SEQPACKET)
			break;
	}
	c->left -= *len;
	return 1;
}

/* Helpers */

static __printf(1, 2) void errmsg(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	n = snprintf(msg, sizeof(msg), "mrc_xfer: ");
	va_start(ap, fmt);
	n += vsnprintf(msg + n, sizeof(msg) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(msg) - 2)
		n = sizeof(msg) - 2;
	msg[n++] = '\n';
	if (write(STDERR_FILENO, msg, n) < 0)
		return;
}

static __noreturn void bad_usage(void)
{
	fprintf(stderr,
		"usage: mrc_xfer -l [-6] -p PORT [-t stream|seqpacket] [-n CONNS] [-P]\n"
		"                [-B BUFSIZE] [-r SIZE[,SIZE...] [-s SIZE]] [-b SOCKBUF]\n"
		"                [-g] [-v] [-T SECONDS]\n"
		"       mrc_xfer -c ADDR -p PORT [-t stream|seqpacket] -s SIZE\n"
		"                [-m SIZE[,SIZE...]] [-n CONNS] [-S SEED] [-P] [-w]\n"
		"                [-b SOCKBUF] [-v] [-T SECONDS]\n");
	exit(2);
}

/* Print a line with one write, so that processes' lines never mix. */
static __printf(1, 2) void say(const char *fmt, ...)
{
	va_list ap;
	char *line;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0) {
		errmsg("out of memory");
		exit(1);
	}
	if (write(STDOUT_FILENO, line, n) != n)
		errmsg("write to stdout: %s", strerror(errno));
	free(line);
}

static int parse_size(const char *s, unsigned long long *val)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*val = strtoull(s, &end, 0);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K':
		*val <<= 10;
		end++;
		break;
	case 'm': case 'M':
		*val <<= 20;
		end++;
		break;
	case 'g': case 'G':
		*val <<= 30;
		end++;
		break;
	}
	return *end ? -1 : 0;
}

static int parse_sizes(char *s, size_t *list)
{
	unsigned long long v;
	char *tok, *save;
	int n = 0;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_SIZES || parse_size(tok, &v) || v > (1ULL << 31))
			return -1;
		list[n++] = v;
	}
	return n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Set by SIGUSR1: lock-free, so safe to share with the handler. */
static atomic_bool stop_sending;

static void on_usr1(int sig)
{
	int i, err = errno;

	atomic_store(&stop_sending, true);
	for (i = 0; i < nchildren; i++)
		if (children[i] > 0)
			kill(children[i], SIGUSR1);
	errno = err;
}

static void on_alarm(int sig)
{
	int i;

	errmsg("timed out after %u s", timeout);
	for (i = 0; i < nchildren; i++)
		if (children[i] > 0)
			kill(children[i], SIGKILL);
	_exit(1);
}

static void set_sockbuf(int fd)
{
	if (!sockbuf)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sockbuf, sizeof(sockbuf)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sockbuf, sizeof(sockbuf))) {
		errmsg("setsockopt SO_SNDBUF/SO_RCVBUF %d: %s", sockbuf,
		       strerror(errno));
		exit(1);
	}
}

static void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p) {
		errmsg("cannot allocate %zu bytes", size);
		exit(1);
	}
	return p;
}

/* Wait for every child; false when one failed. */
static int reap(void)
{
	int status, ok = 1, i;

	for (i = 0; i < nchildren; i++) {
		if (waitpid(children[i], &status, 0) < 0) {
			errmsg("waitpid: %s", strerror(errno));
			ok = 0;
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			ok = 0;
		}
		children[i] = 0;
	}
	nchildren = 0;
	return ok;
}

static pid_t spawn(void)
{
	sigset_t usr1, old;
	pid_t pid;

	/*
	 * A SIGUSR1 waits until the child is in children[], so that the
	 * handler passes it on to that child too.
	 */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		errmsg("fork: %s", strerror(errno));
	} else if (!pid) {
		nchildren = 0;
		alarm(timeout);
	} else {
		children[nchildren++] = pid;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid < 0 ? -1 : pid;
}

/* Receiving */

struct rx {
	int fd;
	int id;
	int done;
	unsigned long long bytes;
	unsigned long long msgs;
	struct sha256 sha;
	__u32 *lens;
	size_t nlens, maxlens;
	struct cut cut;		/* the sizes of the messages expected */
	size_t part;		/* bytes of a message whose end is to come */
	double start;
	double last;		/* when data last came, 0 before the first */
	double stall;		/* the longest gap between data, in seconds */
};

static void rx_init(struct rx *rx, int fd, int id)
{
	memset(rx, 0, sizeof(*rx));
	rx->fd = fd;
	rx->id = id;
	rx->start = now();
	rx->cut.left = total;
	sha256_init(&rx->sha);
}

static void rx_len(struct rx *rx, size_t len)
{
	if (rx->nlens == rx->maxlens) {
		rx->maxlens = rx->maxlens ? 2 * rx->maxlens : 1024;
		rx->lens = realloc(rx->lens, rx->maxlens * sizeof(*rx->lens));
		if (!rx->lens) {
			errmsg("out of memory");
			exit(1);
		}
	}
	rx->lens[rx->nlens++] = len;
}

/* Data came: the gap since the data before is a stall. */
static void rx_data(struct rx *rx)
{
	double t = now();

	if (rx->last && t - rx->last > rx->stall)
		rx->stall = t - rx->last;
	rx->last = t;
}

/* A blocking recvmsg returned a part: say so, and what came next. */
static void rx_cut(struct rx *rx, void *buf, ssize_t n)
{
	const char *next = "nothing yet";
	ssize_t more;

	more = recv(rx->fd, buf, bufsize, MSG_DONTWAIT);
	if (more < 0 && errno != EAGAIN)
		next = strerror(errno);
	else if (!more)
		next = "the end of data";
	else if (more > 0)
		next = "more data";
	errmsg("conn %d: recvmsg returned %zd bytes of message %llu without MSG_EOR, then %s",
	       rx->id, n, rx->msgs, next);
}

/*
 * One recvmsg into buf: 1 when data or a message came, 0 at the end of
 * data, -1 on an error, -2 when nothing is there (non-blocking).
 */
static int rx_one(struct rx *rx, void *buf, int flags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = bufsize };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	size_t want;
	ssize_t n;
	int eor;

	n = recvmsg(rx->fd, &msg, flags);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return -2;
		errmsg("conn %d: recvmsg after %llu bytes: %s", rx->id,
		       rx->bytes, strerror(errno));
		return -1;
	}
	if (msg.msg_flags & MSG_TRUNC) {
		errmsg("conn %d: MSG_TRUNC set, message %llu of %zd bytes, buffer %zu",
		       rx->id, rx->msgs, n, bufsize);
		return -1;
	}
	eor = msg.msg_flags & MSG_EOR;
	if (!n && (type == SOCK_STREAM || !eor)) {
		if (!rx->part)
			return 0;
		errmsg("conn %d: end of data after %zu bytes of message %llu",
		       rx->id, rx->part, rx->msgs);
		return -1;
	}
	if (n > 0)
		rx_data(rx);
	sha256_update(&rx->sha, buf, n);
	rx->bytes += n;
	if (type == SOCK_STREAM) {
		rx->msgs++;
		if (verbose)
			rx_len(rx, n);
		return 1;
	}
	/* Only a non-blocking call may return a part of a message. */
	if (!eor && !(flags & MSG_DONTWAIT)) {
		rx_cut(rx, buf, n);
		return -1;
	}
	rx->part += n;
	if (!eor)
		return 1;
	n = rx->part;
	rx->part = 0;
	if (nexpect && !cut_next(&rx->cut, expect, nexpect, &want)) {
		errmsg("conn %d: message %llu of %zd bytes, expected none",
		       rx->id, rx->msgs, n);
		return -1;
	}
	if (nexpect && want != (size_t)n) {
		errmsg("conn %d: message %llu has %zd bytes, expected %zu",
		       rx->id, rx->msgs, n, want);
		return -1;
	}
	rx->msgs++;
	if (verbose)
		rx_len(rx, n);
	return 1;
}

/* The end of a connection: its lines; false when it went wrong. */
static int rx_end(struct rx *rx)
{
	char hex[65], *list = NULL, *p;
	double t = now() - rx->start;
	size_t i, j;
	int ok = 1;

	rx->done = 1;
	close(rx->fd);
	sha256_hex(&rx->sha, hex);
	if (show_stall)
		say("conn %d bytes %llu msgs %llu sha256 %s stall_ms %.1f\n",
		    rx->id, rx->bytes, rx->msgs, hex, rx->stall * 1e3);
	else
		say("conn %d bytes %llu msgs %llu sha256 %s\n", rx->id,
		    rx->bytes, rx->msgs, hex);
	if (verbose) {
		fprintf(stderr, "# conn %d: %llu bytes in %.2f s, %.1f Mbit/s\n",
			rx->id, rx->bytes, t, t > 0 ? rx->bytes * 8 / t / 1e6 : 0);
		list = xmalloc(rx->nlens * 24 + 1);
		p = list;
		*p = 0;
		for (i = 0; i < rx->nlens; i = j) {
			for (j = i + 1; j < rx->nlens; j++)
				if (rx->lens[j] != rx->lens[i])
					break;
			p += sprintf(p, "%s%u", i ? "," : "", rx->lens[i]);
			if (j - i > 1)
				p += sprintf(p, "x%zu", j - i);
		}
		say("conn %d sizes %s\n", rx->id, list);
		free(list);
	}
	if (nexpect && cut_next(&rx->cut, expect, nexpect, &i)) {
		errmsg("conn %d: ended after %llu messages, expected one of %zu bytes next",
		       rx->id, rx->msgs, i);
		ok = 0;
	}
	free(rx->lens);
	return ok;
}

/* A connection read to its end with blocking calls. */
static int serve_blocking(int fd, int id)
{
	struct rx rx;
	void *buf;
	int r;

	buf = xmalloc(bufsize);
	rx_init(&rx, fd, id);
	while ((r = rx_one(&rx, buf, 0)) != 0)
		if (r == -1)
			return 0;
	free(buf);
	return rx_end(&rx);
}

static int listen_socket(void)
{
	struct sockaddr_mrc addr = {
		.smrc_family = AF_MRC,
		.smrc_port = htons(port),
	};
	socklen_t len = sizeof(addr);
	int fd;

	fd = socket(AF_MRC, type | (use_poll ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0) {
		errmsg("socket: %s", strerror(errno));
		return -1;
	}
	set_sockbuf(fd);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		errmsg("bind to port %d: %s", port, strerror(errno));
		return -1;
	}
	if (listen(fd, nconns > 128 ? nconns : 128)) {
		errmsg("listen: %s", strerror(errno));
		return -1;
	}
	if (getsockname(fd, (struct sockaddr *)&addr, &len)) {
		errmsg("getsockname: %s", strerror(errno));
		return -1;
	}
	say("ready %u\n", ntohs(addr.smrc_port));
	return fd;
}

/* One process per connection. */
static int server_fork(int lfd)
{
	int ok = 1, i, fd;
	pid_t pid;

	for (i = 0; i < nconns; i++) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			errmsg("accept: %s", strerror(errno));
			ok = 0;
			break;
		}
		if (nconns == 1) {
			close(lfd);
			return serve_blocking(fd, i);
		}
		pid = spawn();
		if (pid < 0) {
			ok = 0;
			close(fd);
			break;
		}
		if (!pid) {
			close(lfd);
			exit(serve_blocking(fd, i) ? 0 : 1);
		}
		close(fd);
	}
	close(lfd);
	return reap() && ok;
}

/* All connections in this process, with poll(). */
static int server_poll(int lfd)
{
	struct pollfd *pfd = xmalloc((nconns + 1) * sizeof(*pfd));
	struct rx *rx = xmalloc(nconns * sizeof(*rx));
	int accepted = 0, finished = 0, ok = 1, i, k, r, fd;
	void *buf = xmalloc(bufsize);

	while (finished < nconns) {
		pfd[0].fd = accepted < nconns ? lfd : -1;
		pfd[0].events = POLLIN;
		for (i = 0; i < accepted; i++) {
			pfd[i + 1].fd = rx[i].done ? -1 : rx[i].fd;
			pfd[i + 1].events = POLLIN | POLLRDHUP;
		}
		if (poll(pfd, accepted + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			errmsg("poll: %s", strerror(errno));
			return 0;
		}
		if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			errmsg("listener: poll events %#x", pfd[0].revents);
			return 0;
		}
		if (pfd[0].revents & POLLIN) {
			while (accepted < nconns) {
				fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
				if (fd < 0 && errno == EAGAIN)
					break;
				if (fd < 0) {
					errmsg("accept4: %s", strerror(errno));
					return 0;
				}
				rx_init(&rx[accepted], fd, accepted);
				pfd[accepted + 1].revents = 0;
				accepted++;
			}
		}
		for (i = 0; i < accepted; i++) {
			if (rx[i].done || !pfd[i + 1].revents)
				continue;
			if (pfd[i + 1].revents & POLLNVAL) {
				errmsg("conn %d: POLLNVAL", i);
				return 0;
			}
			/* A few reads each, so that every connection moves. */
			for (k = 0; k < BATCH; k++) {
				r = rx_one(&rx[i], buf, MSG_DONTWAIT);
				if (r == -2)
					break;
				if (r == -1)
					return 0;
				if (r == 0) {
					ok &= rx_end(&rx[i]);
					finished++;
					break;
				}
			}
		}
	}
	close(lfd);
	free(buf);
	return ok;
}

/* Sending */

struct tx {
	int fd;
	int id;
	int state;		/* 0 connecting, 1 sending, 2 done */
	struct gen gen;
	struct sha256 sha;
	unsigned long long sent;
	unsigned long long msgs;
	struct cut cut;		/* the sizes of the messages to come */
	__u8 *buf;		/* the message or chunk being sent */
	size_t len, off;	/* its length, and how much of it went */
	int pending;
	double start;
};

/* The next message or chunk into tx->buf; false when all went. */
static int tx_next(struct tx *tx)
{
	size_t len;

	if (atomic_load(&stop_sending) ||
	    !cut_next(&tx->cut, sizes, nsizes, &len))
		return 0;
	gen_fill(&tx->gen, tx->buf, len);
	sha256_update(&tx->sha, tx->buf, len);
	tx->len = len;
	tx->off = 0;
	tx->pending = 1;
	return 1;
}

/*
 * Send what is pending: 1 when it all went, -2 when the socket is full
 * (non-blocking), -1 on an error.
 */
static int tx_pending(struct tx *tx, int flags)
{
	ssize_t n;

	while (tx->pending) {
		n = send(tx->fd, tx->buf + tx->off, tx->len - tx->off,
			 flags | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return -2;
			errmsg("conn %d: send of %zu bytes after %llu: %s",
			       tx->id, tx->len - tx->off, tx->sent,
			       strerror(errno));
			return -1;
		}
		if (type == SOCK_SEQPACKET && (size_t)n != tx->len) {
			errmsg("conn %d: send of a %zu-byte message returned %zd",
			       tx->id, tx->len, n);
			return -1;
		}
		tx->off += n;
		tx->sent += n;
		if (tx->off == tx->len) {
			tx->pending = 0;
			tx->msgs++;
		}
	}
	return 1;
}

static int tx_connect(struct tx *tx, int flags)
{
	struct sockaddr_mrc addr = {
		.smrc_family = AF_MRC,
		.smrc_port = htons(port),
	};

	if (inet_pton(AF_INET, peer, &addr.smrc_addr4) == 1) {
		addr.smrc_addr_family = AF_INET;
	} else if (inet_pton(AF_INET6, peer, addr.smrc_addr6) == 1) {
		addr.smrc_addr_family = AF_INET6;
	} else {
		errmsg("bad address %s", peer);
		return -1;
	}
	tx->fd = socket(AF_MRC, type | flags, 0);
	if (tx->fd < 0) {
		errmsg("socket: %s", strerror(errno));
		return -1;
	}
	set_sockbuf(tx->fd);
	tx->start = now();
	if (connect(tx->fd, (struct sockaddr *)&addr, sizeof(addr))) {
		if (errno == EINPROGRESS && flags)
			return 0;
		errmsg("conn %d: connect to %s port %d: %s", tx->id, peer,
		       port, strerror(errno));
		return -1;
	}
	tx->state = 1;
	return 0;
}

static void tx_init(struct tx *tx, int id, size_t maxlen)
{
	memset(tx, 0, sizeof(*tx));
	tx->id = id;
	tx->fd = -1;
	gen_init(&tx->gen, seed, id);
	tx->cut.left = total;
	sha256_init(&tx->sha);
	tx->buf = xmalloc(maxlen);
}

/* Shut down, wait for the peer's end with -w, close and tell. */
static int tx_end(struct tx *tx)
{
	double t;
	char hex[65], c;
	ssize_t n;

	tx->state = 2;
	if (shutdown(tx->fd, SHUT_WR)) {
		errmsg("conn %d: shutdown: %s", tx->id, strerror(errno));
		return 0;
	}
	if (wait_eof) {
		fcntl(tx->fd, F_SETFL, fcntl(tx->fd, F_GETFL) & ~O_NONBLOCK);
		n = recv(tx->fd, &c, 1, 0);
		if (n) {
			errmsg("conn %d: waiting for the peer's end: %s",
			       tx->id, n < 0 ? strerror(errno) : "data came");
			return 0;
		}
	}
	if (close(tx->fd)) {
		errmsg("conn %d: close: %s", tx->id, strerror(errno));
		return 0;
	}
	t = now() - tx->start;
	sha256_hex(&tx->sha, hex);
	say("conn %d bytes %llu msgs %llu sha256 %s\n", tx->id, tx->sent,
	    tx->msgs, hex);
	if (verbose)
		fprintf(stderr, "# conn %d: %llu bytes in %.2f s, %.1f Mbit/s\n",
			tx->id, tx->sent, t, t > 0 ? tx->sent * 8 / t / 1e6 : 0);
	free(tx->buf);
	return 1;
}

static int send_blocking(int id, size_t maxlen)
{
	struct tx tx;

	tx_init(&tx, id, maxlen);
	if (tx_connect(&tx, 0))
		return 0;
	while (tx_next(&tx))
		if (tx_pending(&tx, 0) < 0)
			return 0;
	return tx_end(&tx);
}

static int client_fork(size_t maxlen)
{
	int ok = 1, i;
	pid_t pid;

	if (nconns == 1)
		return send_blocking(0, maxlen);
	for (i = 0; i < nconns; i++) {
		pid = spawn();
		if (pid < 0) {
			ok = 0;
			break;
		}
		if (!pid)
			exit(send_blocking(i, maxlen) ? 0 : 1);
	}
	return reap() && ok;
}

static int client_poll(size_t maxlen)
{
	struct pollfd *pfd = xmalloc(nconns * sizeof(*pfd));
	struct tx *tx = xmalloc(nconns * sizeof(*tx));
	int finished = 0, i, k, r, err;
	socklen_t len;

	for (i = 0; i < nconns; i++) {
		tx_init(&tx[i], i, maxlen);
		if (tx_connect(&tx[i], SOCK_NONBLOCK))
			return 0;
	}
	while (finished < nconns) {
		for (i = 0; i < nconns; i++) {
			pfd[i].fd = tx[i].state == 2 ? -1 : tx[i].fd;
			pfd[i].events = POLLOUT;
			pfd[i].revents = 0;
		}
		if (poll(pfd, nconns, -1) < 0) {
			if (errno == EINTR)
				continue;
			errmsg("poll: %s", strerror(errno));
			return 0;
		}
		for (i = 0; i < nconns; i++) {
			if (!pfd[i].revents)
				continue;
			if (tx[i].state == 0) {
				len = sizeof(err);
				if (getsockopt(tx[i].fd, SOL_SOCKET, SO_ERROR,
					       &err, &len))
					err = errno;
				if (err) {
					errmsg("conn %d: connect to %s port %d: %s",
					       i, peer, port, strerror(err));
					return 0;
				}
				tx[i].state = 1;
			}
			if (pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL)) {
				errmsg("conn %d: poll events %#x after %llu bytes",
				       i, pfd[i].revents, tx[i].sent);
				return 0;
			}
			for (k = 0; k < BATCH; k++) {
				if (!tx[i].pending && !tx_next(&tx[i])) {
					if (!tx_end(&tx[i]))
						return 0;
					finished++;
					break;
				}
				r = tx_pending(&tx[i], MSG_DONTWAIT);
				if (r == -1)
					return 0;
				if (r == -2)
					break;
			}
		}
	}
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long long v;
	size_t maxlen = 0;
	int opt, i, ok, fd;

	while ((opt = getopt(argc, argv, "lc:6p:t:n:Ps:m:S:B:r:b:gvwT:h")) != -1) {
		switch (opt) {
		case 'l':
			server = 1;
			break;
		case 'c':
			peer = optarg;
			break;
		case '6':
			/* The wildcard address takes both families. */
			break;
		case 'p':
			if (parse_size(optarg, &v) || v > 65535)
				bad_usage();
			port = v;
			break;
		case 't':
			if (!strcmp(optarg, "stream"))
				type = SOCK_STREAM;
			else if (!strcmp(optarg, "seqpacket"))
				type = SOCK_SEQPACKET;
			else
				bad_usage();
			break;
		case 'n':
			if (parse_size(optarg, &v) || !v || v > MAX_CONNS)
				bad_usage();
			nconns = v;
			break;
		case 'P':
			use_poll = 1;
			break;
		case 's':
			if (parse_size(optarg, &total))
				bad_usage();
			total_given = 1;
			break;
		case 'm':
			nsizes = parse_sizes(optarg, sizes);
			if (nsizes <= 0)
				bad_usage();
			break;
		case 'r':
			nexpect = parse_sizes(optarg, expect);
			if (nexpect <= 0)
				bad_usage();
			break;
		case 'S':
			if (parse_size(optarg, &seed))
				bad_usage();
			break;
		case 'B':
			if (parse_size(optarg, &v) || !v || v > (1ULL << 31))
				bad_usage();
			bufsize = v;
			break;
		case 'b':
			if (parse_size(optarg, &v) || v > (1ULL << 30))
				bad_usage();
			sockbuf = v;
			break;
		case 'g':
			show_stall = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'w':
			wait_eof = 1;
			break;
		case 'T':
			if (parse_size(optarg, &v) || v > 86400)
				bad_usage();
			timeout = v;
			break;
		default:
			bad_usage();
		}
	}
	if (optind != argc || server == !!peer || port < 0 ||
	    (!server && !total_given) || (nexpect && type != SOCK_SEQPACKET))
		bad_usage();
	/* The server expects one round of the -r sizes unless told -s. */
	for (i = 0; !total_given && i < nexpect; i++)
		total += expect[i];

	signal(SIGALRM, on_alarm);
	signal(SIGUSR1, on_usr1);
	signal(SIGPIPE, SIG_IGN);
	alarm(timeout);

	if (server) {
		fd = listen_socket();
		if (fd < 0)
			return 1;
		ok = use_poll ? server_poll(fd) : server_fork(fd);
	} else {
		for (i = 0; i < nsizes; i++)
			if (sizes[i] > maxlen)
				maxlen = sizes[i];
		if (!maxlen && total) {
			errmsg("-s %llu with only empty messages", total);
			bad_usage();
		}
		ok = use_poll ? client_poll(maxlen) : client_fork(maxlen);
	}
	return ok ? 0 : 1;
}
