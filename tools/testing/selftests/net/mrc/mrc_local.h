/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the programs of localuser.sh and conn_netem.sh:
 * namespaces by name, MRC addresses, a per-thread random generator,
 * failures counted and the first few shown.
 */
#ifndef MRC_LOCAL_H
#define MRC_LOCAL_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <linux/mrc.h>

#include "kselftest.h"

/* Failures: counted, the first MRC_SHOW_FAILURES printed on stderr. */
#define MRC_SHOW_FAILURES	10

static const char *mrc_prog = "mrc";
static int mrc_failures;

static __printf(1, 2) void mrc_fail(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	if (__atomic_fetch_add(&mrc_failures, 1, __ATOMIC_RELAXED) >=
	    MRC_SHOW_FAILURES)
		return;
	n = snprintf(msg, sizeof(msg), "%s: FAIL: ", mrc_prog);
	va_start(ap, fmt);
	n += vsnprintf(msg + n, sizeof(msg) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(msg) - 2)
		n = sizeof(msg) - 2;
	msg[n++] = '\n';
	if (write(STDERR_FILENO, msg, n) < 0)
		return;
}

static inline int mrc_failed(void)
{
	return __atomic_load_n(&mrc_failures, __ATOMIC_RELAXED);
}

static __printf(1, 2) __noreturn void mrc_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", mrc_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static inline double mrc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64*, one state per thread */
static inline unsigned long long mrc_rand(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* A number in [lo, hi]. */
static inline long long mrc_range(unsigned long long *s, long long lo,
				  long long hi)
{
	return lo + (long long)(mrc_rand(s) % (unsigned long long)(hi - lo + 1));
}

static inline unsigned long long mrc_seed(int salt)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_nsec ^ (unsigned long long)ts.tv_sec << 32) * 2654435761ULL +
	       (unsigned long long)salt * 0x9e3779b97f4a7c15ULL + 1;
}

/* A namespace made by "ip netns add NAME", open. */
static inline int mrc_ns_open(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/var/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		mrc_die("%s: %s", path, strerror(errno));
	return fd;
}

/* The calling thread moves to namespace @fd: sockets it opens live there. */
static inline void mrc_ns_enter(int fd)
{
	if (setns(fd, CLONE_NEWNET))
		mrc_die("setns: %s", strerror(errno));
}

static inline int mrc_parse_addr(const char *text, unsigned short port,
				 struct sockaddr_mrc *a)
{
	memset(a, 0, sizeof(*a));
	a->smrc_family = AF_MRC;
	a->smrc_port = htons(port);
	if (inet_pton(AF_INET, text, &a->smrc_addr4) == 1) {
		a->smrc_addr_family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, text, a->smrc_addr6) == 1) {
		a->smrc_addr_family = AF_INET6;
		return 0;
	}
	return -1;
}

/* A listener of @type on the wildcard address; its port in @port. */
static inline int mrc_listener(int type, unsigned short *port)
{
	struct sockaddr_mrc a = {
		.smrc_family = AF_MRC,
		.smrc_port = htons(*port),
	};
	socklen_t len = sizeof(a);
	int fd;

	fd = socket(AF_MRC, type, 0);
	if (fd < 0)
		mrc_die("socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
		mrc_die("bind to port %u: %s", *port, strerror(errno));
	if (listen(fd, 128))
		mrc_die("listen: %s", strerror(errno));
	if (getsockname(fd, (struct sockaddr *)&a, &len))
		mrc_die("getsockname: %s", strerror(errno));
	*port = ntohs(a.smrc_port);
	return fd;
}

/* A socket of @type connected to @a, or -1 with errno. */
static inline int mrc_dial(int type, const struct sockaddr_mrc *a)
{
	int fd, err;

	fd = socket(AF_MRC, type, 0);
	if (fd < 0)
		return -1;
	if (!connect(fd, (const struct sockaddr *)a, sizeof(*a)))
		return fd;
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

static inline int mrc_type(const char *name)
{
	if (!strcmp(name, "stream"))
		return SOCK_STREAM;
	if (!strcmp(name, "seqpacket"))
		return SOCK_SEQPACKET;
	mrc_die("unknown socket type %s", name);
}

/* A size with an optional K, M or G suffix. */
static inline unsigned long long mrc_size(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		mrc_die("bad number %s", s);
	switch (*end) {
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'G':
		v <<= 30;
		end++;
		break;
	}
	if (*end)
		mrc_die("bad number %s", s);
	return v;
}

#endif /* MRC_LOCAL_H */
