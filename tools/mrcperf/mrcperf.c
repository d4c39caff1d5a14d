// SPDX-License-Identifier: GPL-2.0
/*
 * mrcperf: the same workloads over AF_MRC, TCP and MPTCP, with the same
 * code path, for the MRC for Linux benchmarks.  See mrcperf.1.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <linux/mrc.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP	262
#endif

#define MRCPERF_MAGIC	0x4d525046	/* "MRPF" */
#define DEFAULT_PORT	5201
#define BUF_SIZE	(128 * 1024)
#define SAMPLE_MS	100
#define MAX_SAMPLES	6000		/* 10 minutes of samples */
#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_MSEC	1000000ULL

enum transport { T_MRC, T_TCP, T_MPTCP };
enum workload { W_BULK = 1, W_PINGPONG, W_CONNS };

static const char * const tnames[] = { "mrc", "tcp", "mptcp" };
static const char * const wnames[] = { "", "bulk", "pingpong", "conns" };

/* What the client tells the server first on every connection (big endian). */
struct hello {
	__u32 magic;
	__u32 workload;
	__u32 duration_ms;
	__u32 msg_size;
};

/* What the server sends back after a bulk transfer (big endian). */
struct summary {
	__u64 bytes;
	__u64 span_ns;
	__u64 stall_ns;
	__u64 utime_ns;
	__u64 stime_ns;
	__u64 reads;
	__u64 complete;
};

/* The long formats of the results, one line each. */
static const char * const fmts[] = {
	"{\"role\":\"server\",\"transport\":\"%s\",\"workload\":\"bulk\",\"label\":\"%s\",",
	"{\"role\":\"client\",\"transport\":\"%s\",\"workload\":\"%s\",\"label\":\"%s\",",
	"\"server\":{\"bytes\":%llu,\"span_s\":%.6f,\"goodput_mbps\":%.3f,\"stall_ms\":%.3f,\"reads\":%llu,\"cpu_s\":%.6f},\"cpu_ns_per_byte\":%.3f,\"busy_ns_per_byte\":%.3f}\n",
	", received %llu, %.2f Mbit/s, stall %.2f ms, cpu %.2f ns/B (client %.3f s, server %.3f s, softirq %.3f s, busy %.2f ns/B)",
	"\"msg_size\":%u,\"round_trips\":%zu,\"rate\":%.1f,\"p50_us\":%.1f,\"p99_us\":%.1f,\"p999_us\":%.1f,\"max_us\":%.1f}\n",
	" %u B, %zu round trips, %.0f/s, p50 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us\n",
	"\"conns\":%u,\"connect_s\":%.6f,\"connect_rate\":%.1f,\"slab_before\":%llu,\"slab_after\":%llu,\"slab_per_pair\":%.1f}\n",
	" %u connected pairs in %.3f s (%.0f/s), slab %llu -> %llu kB, %.0f B per pair\n",
};

/* Options. */
static enum transport transport = T_MRC;
static enum workload workload = W_BULK;
static int server;
static const char *peer;
static int port = DEFAULT_PORT;
static int sock_type = SOCK_STREAM;
static unsigned int duration_ms = 10000;
static unsigned long long max_bytes;
static unsigned int msg_size = 64;
static unsigned int nconns = 100;
static unsigned int hold_ms = 1000;
static unsigned int grace_ms = 5000;
static int json;
static const char *label = "";

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mrcperf: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static unsigned long long tv_ns(const struct timeval *tv)
{
	return tv->tv_sec * NSEC_PER_SEC + tv->tv_usec * 1000ULL;
}

static void rusage_ns(unsigned long long *utime, unsigned long long *stime)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*utime = tv_ns(&ru.ru_utime);
	*stime = tv_ns(&ru.ru_stime);
}

/* System-wide CPU time from /proc/stat, in nanoseconds. */
struct cpustat {
	unsigned long long softirq;
	unsigned long long busy;
};

static void cpustat_read(struct cpustat *cs)
{
	unsigned long long v[10] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	int i;

	memset(cs, 0, sizeof(*cs));
	f = fopen("/proc/stat", "r");
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
		   &v[7]) == 8) {
		for (i = 0; i < 8; i++)
			v[i] = v[i] * NSEC_PER_SEC / hz;
		cs->softirq = v[6];
		/* user, nice, system, irq, softirq, steal */
		cs->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	}
	fclose(f);
}

/* Slab memory in bytes, from /proc/meminfo. */
static unsigned long long slab_bytes(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

static int new_socket(int family)
{
	int fd, one = 1;

	switch (transport) {
	case T_MRC:
		fd = socket(AF_MRC, sock_type, 0);
		break;
	case T_TCP:
		fd = socket(family, SOCK_STREAM, IPPROTO_TCP);
		break;
	default:
		fd = socket(family, SOCK_STREAM, IPPROTO_MPTCP);
		break;
	}
	if (fd < 0)
		die("socket %s: %s", tnames[transport], strerror(errno));
	if (transport != T_MRC)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* The address to connect to or to listen on (wildcard without @host). */
static socklen_t make_addr(struct sockaddr_storage *ss, const char *host,
			   int *family)
{
	struct sockaddr_mrc *m = (struct sockaddr_mrc *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct in6_addr a6;
	struct in_addr a4;
	int fam = AF_INET6;

	memset(ss, 0, sizeof(*ss));
	if (host) {
		if (inet_pton(AF_INET, host, &a4) == 1)
			fam = AF_INET;
		else if (inet_pton(AF_INET6, host, &a6) == 1)
			fam = AF_INET6;
		else
			die("bad address %s", host);
	}
	*family = fam;
	if (transport == T_MRC) {
		m->smrc_family = AF_MRC;
		m->smrc_port = htons(port);
		if (host) {
			m->smrc_addr_family = fam;
			if (fam == AF_INET)
				m->smrc_addr4 = a4.s_addr;
			else
				memcpy(m->smrc_addr6, &a6, sizeof(a6));
		}
		return sizeof(*m);
	}
	if (fam == AF_INET) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		s4->sin_addr = a4;
		return sizeof(*s4);
	}
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	s6->sin6_addr = host ? a6 : in6addr_any;
	return sizeof(*s6);
}

/* Read exactly @len bytes; 0 on success, -1 on EOF or error. */
static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Wait up to @ms for @events on @fd: 1 ready, 0 timeout. */
static int wait_fd(int fd, short events, long long ms)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int r;

	if (ms < 0)
		ms = 0;
	do {
		r = poll(&pfd, 1, ms > 60000 ? 60000 : (int)ms);
	} while (r < 0 && errno == EINTR);
	return r > 0;
}

static void set_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

static double mbps(unsigned long long bytes, unsigned long long ns)
{
	return ns ? bytes * 8.0 * 1000.0 / ns : 0.0;
}

/*
 * Server side of a bulk transfer: read to the end (or to the deadline,
 * the client's duration plus the grace time), recording the longest gap
 * between reads that returned data and the bytes of every 100 ms.
 */
static void serve_bulk(int fd, const struct hello *h)
{
	const char *fmt;

	unsigned long long start, first = 0, last = 0, t, gap, stall = 0;
	unsigned long long deadline, bytes = 0, reads = 0, end, ut, st;
	unsigned long long *samples;
	unsigned int nsamples = 0, i, idx;
	struct summary sum;
	int complete = 0;
	ssize_t n;
	char *buf;

	buf = malloc(BUF_SIZE);
	samples = calloc(MAX_SAMPLES, sizeof(*samples));
	if (!buf || !samples)
		die("out of memory");
	start = now_ns();
	deadline = start + (h->duration_ms + grace_ms) * NSEC_PER_MSEC;
	set_nonblock(fd, 1);
	for (;;) {
		t = now_ns();
		if (t >= deadline)
			break;
		n = read(fd, buf, BUF_SIZE);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			wait_fd(fd, POLLIN, (deadline - t) / NSEC_PER_MSEC + 1);
			continue;
		}
		if (n == 0) {
			complete = 1;
			break;
		}
		if (n < 0)
			break;
		t = now_ns();
		if (!first)
			first = t;
		else if (t - last > stall)
			stall = t - last;
		last = t;
		bytes += n;
		reads++;
		idx = (t - start) / (SAMPLE_MS * NSEC_PER_MSEC);
		if (idx < MAX_SAMPLES) {
			samples[idx] += n;
			if (idx + 1 > nsamples)
				nsamples = idx + 1;
		}
	}
	end = last;
	if (!complete) {
		/* A transfer cut by the deadline stalled from its last byte. */
		end = start + h->duration_ms * NSEC_PER_MSEC;
		if (last > end)
			end = last;
		gap = now_ns() - (last ? last : start);
		if (gap > stall)
			stall = gap;
		nsamples = h->duration_ms / SAMPLE_MS;
	}
	rusage_ns(&ut, &st);
	if (!first)
		first = start;

	sum.bytes = htobe64(bytes);
	sum.span_ns = htobe64(end - first);
	sum.stall_ns = htobe64(stall);
	sum.utime_ns = htobe64(ut);
	sum.stime_ns = htobe64(st);
	sum.reads = htobe64(reads);
	sum.complete = htobe64(complete);
	set_nonblock(fd, 0);
	if (complete)
		write_full(fd, &sum, sizeof(sum));

	if (json) {
		fmt = fmts[0];
		printf(fmt,
		       tnames[transport], label);
		printf("\"bytes\":%llu,\"span_s\":%.6f,\"goodput_mbps\":%.3f,\"stall_ms\":%.3f,",
		       bytes, (end - first) / 1e9, mbps(bytes, end - first),
		       stall / 1e6);
		printf("\"reads\":%llu,\"complete\":%s,\"utime_s\":%.6f,\"stime_s\":%.6f,",
		       reads, complete ? "true" : "false", ut / 1e9, st / 1e9);
		printf("\"sample_ms\":%d,\"samples_mbps\":[", SAMPLE_MS);
		for (i = 0; i < nsamples && i < MAX_SAMPLES; i++)
			printf("%s%.3f", i ? "," : "",
			       mbps(samples[i], SAMPLE_MS * NSEC_PER_MSEC));
		printf("]}\n");
	} else {
		printf("server %s bulk%s%s: %llu bytes in %.3f s, %.2f Mbit/s, stall %.2f ms%s\n",
		       tnames[transport], *label ? " " : "", label, bytes,
		       (end - first) / 1e9, mbps(bytes, end - first),
		       stall / 1e6, complete ? "" : " (incomplete)");
	}
	fflush(stdout);
	free(samples);
	free(buf);
}

static void serve_pingpong(int fd, const struct hello *h)
{
	char *buf;

	buf = malloc(h->msg_size ? h->msg_size : 1);
	if (!buf)
		die("out of memory");
	while (read_full(fd, buf, h->msg_size) == 0)
		if (write_full(fd, buf, h->msg_size))
			break;
	free(buf);
}

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_max < 2 * nconns + 64)
		rl.rlim_max = 2 * nconns + 64;
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

/*
 * The server: accepts connections forever.  Bulk and ping-pong
 * connections each get a process; idle ones (the connection-count
 * workload) are held by the main process until their peer closes them.
 */
static int run_server(void)
{
	struct sockaddr_storage ss;
	struct pollfd *pfds;
	unsigned int nfds = 1, i, cap;
	struct hello h;
	socklen_t len;
	int lfd, fd, fam, one = 1;
	pid_t pid;

	raise_nofile();
	cap = 2 * nconns + 16;
	if (cap < 8192)
		cap = 8192;
	pfds = calloc(cap, sizeof(*pfds));
	if (!pfds)
		die("out of memory");
	signal(SIGCHLD, SIG_IGN);
	len = make_addr(&ss, NULL, &fam);
	lfd = new_socket(fam);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&ss, len))
		die("bind to port %d: %s", port, strerror(errno));
	if (listen(lfd, 4096))
		die("listen: %s", strerror(errno));
	printf("%s\n", json ? "{\"ready\":true}" : "ready");
	fflush(stdout);
	pfds[0].fd = lfd;
	pfds[0].events = POLLIN;
	for (;;) {
		if (poll(pfds, nfds, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		/* Held connections that ended. */
		for (i = 1; i < nfds; i++) {
			if (!pfds[i].revents)
				continue;
			close(pfds[i].fd);
			pfds[i--] = pfds[--nfds];
		}
		if (!(pfds[0].revents & POLLIN))
			continue;
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			continue;
		if (read_full(fd, &h, sizeof(h)) ||
		    be32toh(h.magic) != MRCPERF_MAGIC) {
			close(fd);
			continue;
		}
		h.workload = be32toh(h.workload);
		h.duration_ms = be32toh(h.duration_ms);
		h.msg_size = be32toh(h.msg_size);
		if (h.workload == W_CONNS) {
			if (nfds < cap) {
				pfds[nfds].fd = fd;
				pfds[nfds].events = POLLIN;
				pfds[nfds++].revents = 0;
			} else {
				close(fd);
			}
			continue;
		}
		pid = fork();
		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (pid) {
			close(fd);
			continue;
		}
		for (i = 0; i < nfds; i++)
			close(pfds[i].fd);
		if (h.workload == W_BULK)
			serve_bulk(fd, &h);
		else if (h.workload == W_PINGPONG)
			serve_pingpong(fd, &h);
		close(fd);
		_exit(0);
	}
	return 0;
}

static int client_connect(void)
{
	struct sockaddr_storage ss;
	struct hello h;
	socklen_t len;
	int fd, fam;

	len = make_addr(&ss, peer, &fam);
	fd = new_socket(fam);
	if (connect(fd, (struct sockaddr *)&ss, len))
		die("connect %s to %s port %d: %s", tnames[transport], peer,
		    port, strerror(errno));
	h.magic = htobe32(MRCPERF_MAGIC);
	h.workload = htobe32(workload);
	h.duration_ms = htobe32(duration_ms);
	h.msg_size = htobe32(msg_size);
	if (write_full(fd, &h, sizeof(h)))
		die("send hello: %s", strerror(errno));
	return fd;
}

static void print_head(void)
{
	const char *fmt;

	if (json) {
		fmt = fmts[1];
		printf(fmt,
		       tnames[transport], wnames[workload], label);
	} else {
		printf("%s %s%s%s:", tnames[transport], wnames[workload],
		       *label ? " " : "", label);
	}
}

static void client_bulk(void)
{
	const char *fmt;

	unsigned long long start, end, sent = 0, writes = 0, ut, st, t;
	unsigned long long cpu_c, cpu_s, busy, bytes;
	struct cpustat cs0, cs1;
	struct summary sum;
	int fd, have = 0;
	ssize_t n;
	char *buf;

	buf = malloc(BUF_SIZE);
	if (!buf)
		die("out of memory");
	memset(buf, 0x5a, BUF_SIZE);
	cpustat_read(&cs0);
	fd = client_connect();
	set_nonblock(fd, 1);
	start = now_ns();
	end = start + duration_ms * NSEC_PER_MSEC;
	for (;;) {
		t = now_ns();
		if (t >= end || (max_bytes && sent >= max_bytes))
			break;
		n = BUF_SIZE;
		if (max_bytes && max_bytes - sent < (unsigned long long)n)
			n = max_bytes - sent;
		n = write(fd, buf, n);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			wait_fd(fd, POLLOUT, (end - t) / NSEC_PER_MSEC + 1);
			continue;
		}
		if (n < 0)
			die("write: %s", strerror(errno));
		sent += n;
		writes++;
	}
	t = now_ns();
	shutdown(fd, SHUT_WR);
	set_nonblock(fd, 0);
	if (wait_fd(fd, POLLIN, grace_ms) &&
	    read_full(fd, &sum, sizeof(sum)) == 0)
		have = 1;
	rusage_ns(&ut, &st);
	cpustat_read(&cs1);
	close(fd);

	cpu_c = ut + st;
	cpu_s = have ? be64toh(sum.utime_ns) + be64toh(sum.stime_ns) : 0;
	busy = cs1.busy - cs0.busy;
	bytes = have ? be64toh(sum.bytes) : 0;
	print_head();
	if (json) {
		printf("\"sent\":%llu,\"send_s\":%.6f,\"writes\":%llu,\"write_rate\":%.1f,",
		       sent, (t - start) / 1e9, writes,
		       writes * 1e9 / (t - start));
		printf("\"client_cpu_s\":%.6f,\"softirq_s\":%.6f,\"busy_s\":%.6f,",
		       cpu_c / 1e9, (cs1.softirq - cs0.softirq) / 1e9,
		       busy / 1e9);
		if (have) {
			fmt = fmts[2];
			printf(fmt,
			       bytes, be64toh(sum.span_ns) / 1e9,
			       mbps(bytes, be64toh(sum.span_ns)),
			       be64toh(sum.stall_ns) / 1e6,
			       (unsigned long long)be64toh(sum.reads),
			       cpu_s / 1e9,
			       bytes ? (double)(cpu_c + cpu_s) / bytes : 0,
			       bytes ? (double)busy / bytes : 0);
		} else {
			printf("\"server\":null}\n");
		}
	} else {
		printf(" sent %llu bytes in %.3f s", sent, (t - start) / 1e9);
		if (have) {
			fmt = fmts[3];
			printf(fmt,
			       bytes, mbps(bytes, be64toh(sum.span_ns)),
			       be64toh(sum.stall_ns) / 1e6,
			       bytes ? (double)(cpu_c + cpu_s) / bytes : 0,
			       cpu_c / 1e9, cpu_s / 1e9,
			       (cs1.softirq - cs0.softirq) / 1e9,
			       bytes ? (double)busy / bytes : 0);
		} else {
			printf(", no result from the server (see its output)");
		}
		printf("\n");
	}
	free(buf);
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static double pct(const unsigned long long *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return 0;
	i = (size_t)(p / 100.0 * (n - 1) + 0.5);
	return v[i] / 1e3;
}

static void client_pingpong(void)
{
	const char *fmt;

	unsigned long long start, end, t, *rtt = NULL;
	size_t n = 0, cap = 0, skip = 10;
	char *buf;
	int fd;

	buf = malloc(msg_size ? msg_size : 1);
	if (!buf)
		die("out of memory");
	memset(buf, 0xa5, msg_size);
	fd = client_connect();
	start = now_ns();
	end = start + duration_ms * NSEC_PER_MSEC;
	while ((t = now_ns()) < end) {
		if (write_full(fd, buf, msg_size) ||
		    read_full(fd, buf, msg_size))
			die("ping-pong: %s", errno ? strerror(errno) : "EOF");
		if (skip) {
			skip--;
			continue;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			rtt = realloc(rtt, cap * sizeof(*rtt));
			if (!rtt)
				die("out of memory");
		}
		rtt[n++] = now_ns() - t;
	}
	t = now_ns();
	close(fd);
	qsort(rtt, n, sizeof(*rtt), cmp_ull);
	print_head();
	if (json) {
		fmt = fmts[4];
		printf(fmt,
		       msg_size, n, n * 1e9 / (t - start), pct(rtt, n, 50),
		       pct(rtt, n, 99), pct(rtt, n, 99.9), pct(rtt, n, 100));
	} else {
		fmt = fmts[5];
		printf(fmt,
		       msg_size, n, n * 1e9 / (t - start), pct(rtt, n, 50),
		       pct(rtt, n, 99), pct(rtt, n, 99.9), pct(rtt, n, 100));
	}
	free(rtt);
	free(buf);
}

static void client_conns(void)
{
	const char *fmt;

	unsigned long long before, after, t0, t1;
	unsigned int i;
	int *fds;

	raise_nofile();
	fds = calloc(nconns, sizeof(*fds));
	if (!fds)
		die("out of memory");
	sleep(1);
	before = slab_bytes();
	t0 = now_ns();
	for (i = 0; i < nconns; i++)
		fds[i] = client_connect();
	t1 = now_ns();
	usleep(hold_ms * 1000);
	after = slab_bytes();
	for (i = 0; i < nconns; i++)
		close(fds[i]);
	print_head();
	if (json) {
		fmt = fmts[6];
		printf(fmt,
		       nconns, (t1 - t0) / 1e9, nconns * 1e9 / (t1 - t0),
		       before, after,
		       ((double)after - (double)before) / nconns);
	} else {
		fmt = fmts[7];
		printf(fmt,
		       nconns, (t1 - t0) / 1e9, nconns * 1e9 / (t1 - t0),
		       before / 1024, after / 1024,
		       ((double)after - (double)before) / nconns);
	}
	free(fds);
}

static void print_usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: mrcperf -s [-t mrc|tcp|mptcp] [-p PORT] [-S] [-j] [-G MS]\n"
		"       mrcperf -c ADDR [-t mrc|tcp|mptcp] [-p PORT] [-S] [-j]\n"
		"               [-w bulk|pingpong|conns] [-d SECONDS] [-n BYTES]\n"
		"               [-m MSGSIZE] [-N CONNS] [-H MS] [-G MS] [-L LABEL]\n");
	exit(status);
}

static unsigned long long parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	v = strtoull(s, &end, 0);
	switch (*end) {
	case 'k': case 'K':
		v <<= 10;
		break;
	case 'm': case 'M':
		v <<= 20;
		break;
	case 'g': case 'G':
		v <<= 30;
		break;
	}
	return v;
}

int main(int argc, char **argv)
{
	int c, i;

	while ((c = getopt(argc, argv, "sc:t:p:Sw:d:n:m:N:H:G:L:jh")) != -1) {
		switch (c) {
		case 's':
			server = 1;
			break;
		case 'c':
			peer = optarg;
			break;
		case 't':
			for (i = 0; i < 3; i++)
				if (!strcmp(optarg, tnames[i]))
					transport = i;
			if (strcmp(optarg, tnames[transport]))
				print_usage(2);
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'S':
			sock_type = SOCK_SEQPACKET;
			break;
		case 'w':
			for (i = 1; i < 4; i++)
				if (!strcmp(optarg, wnames[i]))
					workload = i;
			if (strcmp(optarg, wnames[workload]))
				print_usage(2);
			break;
		case 'd':
			duration_ms = atof(optarg) * 1000;
			break;
		case 'n':
			max_bytes = parse_size(optarg);
			if (max_bytes)
				duration_ms = 600000;
			break;
		case 'm':
			msg_size = parse_size(optarg);
			break;
		case 'N':
			nconns = atoi(optarg);
			break;
		case 'H':
			hold_ms = atoi(optarg);
			break;
		case 'G':
			grace_ms = atoi(optarg);
			break;
		case 'L':
			label = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			print_usage(0);
			break;
		default:
			print_usage(2);
		}
	}
	if (server == !!peer || optind != argc)
		print_usage(2);
	if (sock_type == SOCK_SEQPACKET && transport != T_MRC)
		die("-S is for -t mrc only");
	signal(SIGPIPE, SIG_IGN);
	if (server)
		return run_server();
	switch (workload) {
	case W_BULK:
		client_bulk();
		break;
	case W_PINGPONG:
		client_pingpong();
		break;
	default:
		client_conns();
		break;
	}
	return 0;
}
