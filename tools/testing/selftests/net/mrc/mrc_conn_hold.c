// SPDX-License-Identifier: GPL-2.0
/*
 * Open MRC connections, move some data over them and keep them open until
 * killed: lets shell tests look at live connections.
 *
 * Server: mrc_conn_hold -l -p PORT [-t stream|seqpacket] [-n CONNS] [-s SIZE]
 *                       [-w]
 *   listens on the wildcard address, prints "ready PORT", accepts CONNS
 *   connections (default 1), prints "accepted CONNS", reads SIZE bytes
 *   (default 0) from each in turn and prints "received BYTES" (the total).
 *
 * Client: mrc_conn_hold -c ADDR -p PORT [-t stream|seqpacket] [-n CONNS]
 *                       [-s SIZE] [-w] [-g]
 *   opens CONNS connections to ADDR (default 1), printing "conn N port P"
 *   with the local port of each, then sends SIZE bytes on each in turn and
 *   prints "sent BYTES" (the total).  With -g, it prints "connected CONNS"
 *   first and sends only once it got SIGUSR1, so that a test may change
 *   the network between the handshakes and the data.
 *
 * -k IDLE,INTVL,CNT turns keepalive on (SO_KEEPALIVE and MRC_KEEPIDLE,
 * MRC_KEEPINTVL, MRC_KEEPCNT) and -Q DSCP sets MRC_TCLASS, on the
 * client's sockets before connect(), on the server's listener (whence the
 * accepted connections take them).
 *
 * Then both hold their connections, without reading or writing, until
 * SIGTERM or SIGINT, close them and exit 0.  With -w, they wait in recv()
 * on the first connection instead, until it ends, print "end eof" or
 * "end ERRNO" (the error's name: ECONNRESET...) and exit 0.  Sizes take a
 * K or M suffix (KiB, MiB).  Any failure prints what failed and why on
 * stderr and exits 1; SIGTERM or SIGINT before the data is through kill
 * it; after -T seconds (default 120) before holding, it fails as timed
 * out.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <linux/mrc.h>

#define MAX_CONNS	1024
#define CHUNK		65536

static void on_alarm(int sig)
{
	static const char msg[] = "timed out\n";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void die(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, strerror(errno));
	exit(1);
}

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: mrc_conn_hold -l -p PORT [-t TYPE] [-n CONNS] [-s SIZE] [-w] [-T S]\n"
		"                     [-k IDLE,INTVL,CNT] [-Q DSCP]\n"
		"       mrc_conn_hold -c ADDR -p PORT [-t TYPE] [-n CONNS] [-s SIZE] [-w]\n"
		"                     [-g]\n"
		"                     [-T S] [-k IDLE,INTVL,CNT] [-Q DSCP]\n");
	exit(2);
}

static unsigned long long parse_size(const char *arg)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg)
		bad_usage();
	if (!strcmp(end, "K"))
		return v << 10;
	if (!strcmp(end, "M"))
		return v << 20;
	if (*end)
		bad_usage();
	return v;
}

static int parse_addr(const char *text, struct sockaddr_mrc *addr)
{
	if (inet_pton(AF_INET, text, &addr->smrc_addr4) == 1) {
		addr->smrc_addr_family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, text, addr->smrc_addr6) == 1) {
		addr->smrc_addr_family = AF_INET6;
		return 0;
	}
	return -1;
}

static void send_all(int fd, unsigned long long size)
{
	static char buf[CHUNK];
	unsigned long long left = size;
	size_t len;
	ssize_t n;

	memset(buf, 0x5a, sizeof(buf));
	while (left) {
		len = left < sizeof(buf) ? left : sizeof(buf);
		n = send(fd, buf, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("send");
		left -= n;
	}
}

static void recv_all(int fd, unsigned long long size)
{
	static char buf[CHUNK];
	unsigned long long left = size;
	size_t len;
	ssize_t n;

	while (left) {
		len = left < sizeof(buf) ? left : sizeof(buf);
		n = recv(fd, buf, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("recv");
		if (n == 0) {
			fprintf(stderr, "recv: end of data, %llu bytes missing\n",
				left);
			exit(1);
		}
		left -= n;
	}
}

static int keep[3] = { -1 }, tclass = -1;

static void set_mrc(int fd, int opt, int val, const char *what)
{
	if (setsockopt(fd, SOL_MRC, opt, &val, sizeof(val)))
		die(what);
}

/* The options of -k and -Q, on a socket not yet connected or listening. */
static void set_options(int fd)
{
	int on = 1;

	if (keep[0] >= 0) {
		if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on)))
			die("SO_KEEPALIVE");
		set_mrc(fd, MRC_KEEPIDLE, keep[0], "MRC_KEEPIDLE");
		set_mrc(fd, MRC_KEEPINTVL, keep[1], "MRC_KEEPINTVL");
		set_mrc(fd, MRC_KEEPCNT, keep[2], "MRC_KEEPCNT");
	}
	if (tclass >= 0)
		set_mrc(fd, MRC_TCLASS, tclass, "MRC_TCLASS");
}

/* Wait in recv() for the end of the connection, and tell how it ended. */
static void wait_end(int fd)
{
	char buf[CHUNK];
	ssize_t n;

	do {
		n = recv(fd, buf, sizeof(buf), 0);
	} while (n > 0 || (n < 0 && errno == EINTR));
	if (n < 0)
		printf("end %s\n", strerrorname_np(errno) ?: "unknown");
	else
		printf("end eof\n");
}

int main(int argc, char **argv)
{
	struct sockaddr_mrc addr = { .smrc_family = AF_MRC };
	unsigned long long size = 0;
	static int fds[MAX_CONNS];
	const char *peer = NULL;
	unsigned int timeout = 120;
	int type = SOCK_STREAM;
	int server = 0, port = -1, nconns = 1, wait = 0, go = 0;
	struct sigaction sa = { 0 };
	sigset_t stop, usr1;
	socklen_t len;
	int opt, lfd, i, sig;

	while ((opt = getopt(argc, argv, "lc:p:t:n:s:wgT:k:Q:")) != -1) {
		switch (opt) {
		case 'l':
			server = 1;
			break;
		case 'c':
			peer = optarg;
			break;
		case 'p':
			port = atoi(optarg);
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
			nconns = atoi(optarg);
			break;
		case 's':
			size = parse_size(optarg);
			break;
		case 'w':
			wait = 1;
			break;
		case 'g':
			go = 1;
			break;
		case 'T':
			timeout = atoi(optarg);
			break;
		case 'k':
			if (sscanf(optarg, "%d,%d,%d", &keep[0], &keep[1],
				   &keep[2]) != 3 || keep[0] < 0)
				bad_usage();
			break;
		case 'Q':
			tclass = strtol(optarg, NULL, 0);
			break;
		default:
			bad_usage();
		}
	}
	if (server == !!peer || port < 0 || port > 65535 || nconns < 1 ||
	    nconns > MAX_CONNS || optind != argc || (go && server))
		bad_usage();
	/* Blocked from the start: a SIGUSR1 sent early waits for sigwait(). */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (go)
		sigprocmask(SIG_BLOCK, &usr1, NULL);

	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm(timeout);
	setvbuf(stdout, NULL, _IOLBF, 0);

	addr.smrc_port = htons(port);
	if (server) {
		lfd = socket(AF_MRC, type, 0);
		if (lfd < 0)
			die("socket");
		set_options(lfd);
		if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)))
			die("bind");
		if (listen(lfd, nconns))
			die("listen");
		printf("ready %d\n", port);
		for (i = 0; i < nconns; i++) {
			fds[i] = accept(lfd, NULL, NULL);
			if (fds[i] < 0)
				die("accept");
		}
		printf("accepted %d\n", nconns);
		for (i = 0; i < nconns; i++)
			recv_all(fds[i], size);
		printf("received %llu\n", size * nconns);
	} else {
		if (parse_addr(peer, &addr)) {
			fprintf(stderr, "bad address %s\n", peer);
			return 2;
		}
		for (i = 0; i < nconns; i++) {
			struct sockaddr_mrc local;

			fds[i] = socket(AF_MRC, type, 0);
			if (fds[i] < 0)
				die("socket");
			set_options(fds[i]);
			if (connect(fds[i], (struct sockaddr *)&addr,
				    sizeof(addr)))
				die("connect");
			len = sizeof(local);
			if (getsockname(fds[i], (struct sockaddr *)&local, &len))
				die("getsockname");
			printf("conn %d port %u\n", i, ntohs(local.smrc_port));
		}
		if (go) {
			printf("connected %d\n", nconns);
			sigwait(&usr1, &sig);
		}
		for (i = 0; i < nconns; i++)
			send_all(fds[i], size);
		printf("sent %llu\n", size * nconns);
	}

	/* Until now, SIGTERM and SIGINT kill; from here, they end the hold. */
	alarm(0);
	if (wait) {
		wait_end(fds[0]);
		return 0;
	}
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	sigwait(&stop, &sig);
	for (i = 0; i < nconns; i++)
		close(fds[i]);
	return 0;
}
