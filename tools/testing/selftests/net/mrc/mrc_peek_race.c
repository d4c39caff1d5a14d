// SPDX-License-Identifier: GPL-2.0
/*
 * Threads reading one MRC socket at once, some with MSG_PEEK, for
 * localuser.sh.
 *
 * mrc_peek_race -c CLIENT_NS -s SERVER_NS -a SERVER_ADDR
 *               [-t stream|seqpacket] [-d SECONDS] [-P PEEKERS] [-R READERS]
 *               [-m MAXMSG] [-W SECONDS]
 *
 * One connection from CLIENT_NS to SERVER_ADDR in SERVER_NS.  A sender
 * thread writes a known stream into the client's end, in small pieces
 * (stream) or messages of 4 to MAXMSG bytes (seqpacket, default 1400: one
 * packet each) with pauses, for SECONDS (default 8).  On the server's end,
 * READERS threads (default 2) call recv() and PEEKERS threads (default 3)
 * recv(MSG_PEEK | MSG_WAITALL) with lengths of 16 KiB to 256 KiB.
 *
 * The stream is made of 32-bit words, word k being (k + 1) * 0x9e3779b1:
 * any word names its place in the stream.  Every length is a multiple of
 * four (and so is the MSS on a 1500-byte MTU), so that reads start on a
 * word.  Checked:
 *  - each plain read is a run of consecutive words, each word read once,
 *    and together they are the whole stream;
 *  - seqpacket: each plain read is one whole message, with MSG_EOR;
 *  - each word a peek returns is a word of the stream that was sent and
 *    not yet read when the peek began (a peek that slept while others
 *    read may go on from where they left, skipping or seeing again some
 *    words, as TCP's does), and a seqpacket peek is the start of one
 *    message;
 *  - a stream peek with MSG_WAITALL returns all it asked for, unless the
 *    data ended, and within -W SECONDS (default 5) of the start once four
 *    times its length was sent since: TCP's take milliseconds here.
 *
 * Prints a summary line; failures go to stderr; exits 1 on any.
 */

#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/uio.h>

#include "mrc_local.h"

#define WORD_MUL	0x9e3779b1U
#define MAX_WORDS	(64ULL << 20)	/* 256 MiB of stream at most */
#define MAX_THREADS	16
#define PEEK_MAX_LEN	(256 << 10)

static const char *client_ns, *server_ns, *server_addr;
static int type = SOCK_STREAM;
static double duration = 8;
static int npeekers = 3, nreaders = 2;
static unsigned int maxmsg = 1400;
static double peek_wait = 5;

static unsigned int word_inv;		/* WORD_MUL^-1 modulo 2^32 */
static int rfd, sfd;			/* the receiving and sending ends */
static unsigned long *seen;		/* bit per word read */
static unsigned long long started;	/* words handed to send() */
static unsigned long long consumed;	/* end of what readers returned */
static bool sending_done;		/* the sender shut down */
static bool stop;

/* Seqpacket: the end word of each message, published before it is sent. */
static unsigned long long *msg_end;
static unsigned long long nmsgs, max_msgs;

/* What the peekers do, for the watchdog and the summary. */
struct peeker {
	pthread_t thread;
	long long call_start;		/* in us, 0 outside recv() */
	unsigned long long call_sent;	/* words started at that time */
	size_t call_len;
	unsigned long long calls;
	unsigned long long bytes;
	unsigned long long short_end;	/* short, the data having ended */
	double longest;
	bool reported;
};

static struct peeker peekers[MAX_THREADS];

struct reader {
	pthread_t thread;
	unsigned long long calls;
	unsigned long long bytes;
};

static struct reader readers[MAX_THREADS];

static unsigned long long sender_writes;

static inline unsigned int word(unsigned long long k)
{
	return (unsigned int)(k + 1) * WORD_MUL;
}

static inline unsigned long long word_pos(unsigned int v)
{
	return (unsigned int)(v * word_inv - 1);
}

static void fill(unsigned int *buf, unsigned long long k, size_t nwords)
{
	size_t i;

	for (i = 0; i < nwords; i++)
		buf[i] = word(k + i);
}

static unsigned long long load(unsigned long long *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void on_signal(int sig)
{
}

static void on_alarm(int sig)
{
	static const char msg[] = "mrc_peek_race: FAIL: timed out\n";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

/* The message that starts at word @k: its index, or -1. */
static long long msg_at(unsigned long long k)
{
	unsigned long long lo = 0, hi = load(&nmsgs), mid, start;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (msg_end[mid] <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == load(&nmsgs))
		return -1;
	start = lo ? msg_end[lo - 1] : 0;
	return start == k ? (long long)lo : -1;
}

static unsigned long long msg_words(long long i)
{
	return msg_end[i] - (i ? msg_end[i - 1] : 0);
}

/* Sending */

static void send_all(const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = send(sfd, p, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			mrc_fail("send of %zu bytes: %s", len, strerror(errno));
			__atomic_store_n(&stop, true, __ATOMIC_RELEASE);
			return;
		}
		if (type == SOCK_SEQPACKET && (size_t)n != len)
			mrc_fail("send of a %zu-byte message returned %zd",
				 len, n);
		p += n;
		len -= n;
	}
}

static void *sender_thread(void *arg)
{
	unsigned long long s = mrc_seed(1000), k = 0;
	unsigned int *buf = malloc(PEEK_MAX_LEN);
	double end = mrc_now() + duration;
	size_t nwords;

	if (!buf)
		mrc_die("out of memory");
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE) && mrc_now() < end) {
		if (type == SOCK_STREAM) {
			/* Mostly small pieces, now and then a larger one. */
			if (mrc_range(&s, 0, 15))
				nwords = mrc_range(&s, 1, 1024);
			else
				nwords = mrc_range(&s, 1024, 16384);
		} else {
			nwords = mrc_range(&s, 1, maxmsg / 4);
		}
		if (k + nwords > MAX_WORDS ||
		    (type == SOCK_SEQPACKET && nmsgs == max_msgs))
			break;
		fill(buf, k, nwords);
		if (type == SOCK_SEQPACKET) {
			msg_end[nmsgs] = k + nwords;
			__atomic_store_n(&nmsgs, nmsgs + 1, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&started, k + nwords, __ATOMIC_RELEASE);
		send_all(buf, nwords * 4);
		k += nwords;
		sender_writes++;
		/* Pauses: the readers empty the queue and wait. */
		if (!mrc_range(&s, 0, 3))
			usleep(mrc_range(&s, 20, 2000));
	}
	/* Before the end reaches the peekers: a short peek is fine then. */
	__atomic_store_n(&sending_done, true, __ATOMIC_RELEASE);
	if (shutdown(sfd, SHUT_WR))
		mrc_fail("shutdown: %s", strerror(errno));
	free(buf);
	return NULL;
}

/* Reading */

/* Mark words [k, k + n) read; each must be read once. */
static void mark(unsigned long long k, size_t n, const char *who)
{
	unsigned long bit, old;
	size_t i;

	for (i = 0; i < n; i++, k++) {
		bit = 1UL << (k % 64);
		old = __atomic_fetch_or(&seen[k / 64], bit, __ATOMIC_RELAXED);
		if (old & bit) {
			mrc_fail("%s: word %llu read twice", who, k);
			return;
		}
	}
}

/* A run of consecutive words starting at the first one; its position. */
static int check_run(const unsigned int *buf, size_t n, const char *who,
		     unsigned long long *first)
{
	unsigned long long k = word_pos(buf[0]), ub = load(&started);
	size_t i;

	if (k >= ub) {
		mrc_fail("%s: %zu words, the first (%#x) is no word sent (%llu sent)",
			 who, n, buf[0], ub);
		return -1;
	}
	for (i = 1; i < n; i++) {
		if (buf[i] != word(k + i)) {
			mrc_fail("%s: %zu words from word %llu: word %zu is %#x, not %#x",
				 who, n, k, i, buf[i], word(k + i));
			return -1;
		}
	}
	*first = k;
	return 0;
}

static void advance_consumed(unsigned long long end)
{
	unsigned long long cur = load(&consumed);

	while (cur < end &&
	       !__atomic_compare_exchange_n(&consumed, &cur, end, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

static void *reader_thread(void *arg)
{
	struct reader *r = arg;
	unsigned long long s = mrc_seed(r - readers), k;
	size_t bufsize = type == SOCK_STREAM ? 8192 : maxmsg + 64;
	unsigned int *buf = malloc(bufsize);
	struct msghdr msg = { 0 };
	struct iovec iov;
	long long i;
	ssize_t n;

	if (!buf)
		mrc_die("out of memory");
	for (;;) {
		iov.iov_base = buf;
		iov.iov_len = type == SOCK_STREAM ?
			      4 * mrc_range(&s, 1, bufsize / 4) : bufsize;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_flags = 0;
		n = recvmsg(rfd, &msg, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			mrc_fail("reader: recv: %s", strerror(errno));
			break;
		}
		if (!n && (type == SOCK_STREAM || !(msg.msg_flags & MSG_EOR)))
			break;
		r->calls++;
		r->bytes += n;
		if (n % 4) {
			mrc_fail("reader: recv returned %zd bytes, not whole words", n);
			continue;
		}
		if (check_run(buf, n / 4, "reader", &k))
			continue;
		mark(k, n / 4, "reader");
		advance_consumed(k + n / 4);
		if (type == SOCK_STREAM)
			continue;
		i = msg_at(k);
		if (i < 0)
			mrc_fail("reader: %zd bytes from word %llu: not the start of a message",
				 n, k);
		else if (msg_words(i) != (unsigned long long)n / 4)
			mrc_fail("reader: message %lld has %llu bytes, recv returned %zd",
				 i, msg_words(i) * 4, n);
		if (!(msg.msg_flags & MSG_EOR) || (msg.msg_flags & MSG_TRUNC))
			mrc_fail("reader: %zd bytes from word %llu: flags %#x, not MSG_EOR",
				 n, k, msg.msg_flags);
	}
	free(buf);
	return NULL;
}

/* A stream peek: words of the stream that were not read before. */
static void check_peek_stream(const unsigned int *buf, size_t nwords,
			      unsigned long long lb)
{
	unsigned long long ub = load(&started), k;
	size_t i;

	for (i = 0; i < nwords; i++) {
		k = word_pos(buf[i]);
		if (k < lb || k >= ub) {
			mrc_fail("peek: word %zu of %zu is %#x, word %llu, not in %llu-%llu",
				 i, nwords, buf[i], k, lb, ub);
			return;
		}
	}
}

static void check_peek_message(const unsigned int *buf, size_t n, int flags,
			       size_t len)
{
	unsigned long long k;
	long long i;

	if (!n)
		return;
	if (n % 4) {
		mrc_fail("peek: %zu bytes, not whole words", n);
		return;
	}
	if (check_run(buf, n / 4, "peek", &k))
		return;
	i = msg_at(k);
	if (i < 0) {
		mrc_fail("peek: %zu bytes from word %llu: not the start of a message",
			 n, k);
		return;
	}
	if (n / 4 > msg_words(i))
		mrc_fail("peek: %zu bytes of message %lld of %llu bytes", n, i,
			 msg_words(i) * 4);
	else if ((flags & MSG_EOR) && len >= msg_words(i) * 4 &&
		 n != msg_words(i) * 4)
		mrc_fail("peek: MSG_EOR with %zu bytes of message %lld of %llu bytes",
			 n, i, msg_words(i) * 4);
}

static void *peeker_thread(void *arg)
{
	static const size_t lens[] = { 16 << 10, 64 << 10, 256 << 10 };
	struct peeker *p = arg;
	unsigned long long s = mrc_seed(100 + (p - peekers)), lb;
	unsigned int *buf = malloc(PEEK_MAX_LEN);
	struct msghdr msg = { 0 };
	struct iovec iov;
	double t;
	bool done;
	ssize_t n;
	size_t len;
	int flags;

	if (!buf)
		mrc_die("out of memory");
	for (;;) {
		if (type == SOCK_STREAM) {
			len = lens[mrc_range(&s, 0, 2)];
			flags = MSG_PEEK | MSG_WAITALL;
		} else {
			len = 4 * mrc_range(&s, 1, maxmsg / 4 + 4);
			flags = MSG_PEEK | (mrc_range(&s, 0, 1) ? MSG_WAITALL : 0);
		}
		iov.iov_base = buf;
		iov.iov_len = len;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_flags = 0;
		lb = load(&consumed);
		p->call_len = len;
		p->call_sent = load(&started);
		t = mrc_now();
		__atomic_store_n(&p->call_start, (long long)(t * 1e6), __ATOMIC_RELEASE);
		n = recvmsg(rfd, &msg, flags);
		t = mrc_now() - t;
		__atomic_store_n(&p->call_start, 0, __ATOMIC_RELEASE);
		done = __atomic_load_n(&sending_done, __ATOMIC_ACQUIRE);
		if (n < 0) {
			if (errno == EINTR && !__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
				continue;
			if (errno != EINTR)
				mrc_fail("peek: recv: %s", strerror(errno));
			break;
		}
		if (t > p->longest)
			p->longest = t;
		p->calls++;
		p->bytes += n;
		if (type == SOCK_SEQPACKET) {
			if (!n && !(msg.msg_flags & MSG_EOR) && done)
				break;
			check_peek_message(buf, n, msg.msg_flags, len);
			continue;
		}
		if (n % 4) {
			mrc_fail("peek: %zd bytes, not whole words", n);
			continue;
		}
		check_peek_stream(buf, n / 4, lb);
		if ((size_t)n < len) {
			if (!done)
				mrc_fail("peek with MSG_WAITALL of %zu bytes: %zd, data to come",
					 len, n);
			else
				p->short_end++;
		}
		if (!n)
			break;
		/* Once the data ended, peeks see the same bytes again. */
		if (done)
			usleep(1000);
	}
	free(buf);
	return NULL;
}

/*
 * A stream peek that still waits long after four times its length was
 * sent: it lost its place in the receive queue.
 */
static void watch_peekers(void)
{
	unsigned long long sent = load(&started);
	double now = mrc_now(), start;
	long long us;
	struct peeker *p;
	int i;

	if (type != SOCK_STREAM)
		return;
	for (i = 0; i < npeekers; i++) {
		p = &peekers[i];
		us = __atomic_load_n(&p->call_start, __ATOMIC_ACQUIRE);
		start = us / 1e6;
		if (!us || p->reported || now - start < peek_wait)
			continue;
		if ((sent - p->call_sent) * 4 < 4 * p->call_len)
			continue;
		p->reported = true;
		mrc_fail("peeker %d: a peek of %zu bytes waits for %.1f s, %llu bytes sent since",
			 i, p->call_len, now - start, (sent - p->call_sent) * 4);
	}
}

static __noreturn void bad_usage(void)
{
	fprintf(stderr,
		"usage: mrc_peek_race -c CLIENT_NS -s SERVER_NS -a SERVER_ADDR\n"
		"                     [-t stream|seqpacket] [-d SECONDS] [-P PEEKERS]\n"
		"                     [-R READERS] [-m MAXMSG] [-W SECONDS]\n");
	exit(2);
}

static void setup(void)
{
	struct sockaddr_mrc a;
	unsigned short port = 0;
	int cns, sns, lfd;

	cns = mrc_ns_open(client_ns);
	sns = mrc_ns_open(server_ns);
	mrc_ns_enter(sns);
	lfd = mrc_listener(type, &port);
	mrc_ns_enter(cns);
	if (mrc_parse_addr(server_addr, port, &a))
		mrc_die("bad address %s", server_addr);
	sfd = mrc_dial(type, &a);
	if (sfd < 0)
		mrc_die("connect to %s port %u: %s", server_addr, port,
			strerror(errno));
	rfd = accept(lfd, NULL, NULL);
	if (rfd < 0)
		mrc_die("accept: %s", strerror(errno));
	close(lfd);
	close(cns);
	close(sns);
}

int main(int argc, char **argv)
{
	unsigned long long total, rbytes = 0, rcalls = 0, pcalls = 0, pbytes = 0;
	unsigned long long missing = 0, first_missing = 0, k;
	struct sigaction sa = { .sa_handler = on_signal };
	double end, longest = 0, t0;
	int opt, i, rc;

	mrc_prog = "mrc_peek_race";
	while ((opt = getopt(argc, argv, "c:s:a:t:d:P:R:m:W:")) != -1) {
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
		case 't':
			type = mrc_type(optarg);
			break;
		case 'd':
			duration = atof(optarg);
			break;
		case 'P':
			npeekers = atoi(optarg);
			break;
		case 'R':
			nreaders = atoi(optarg);
			break;
		case 'm':
			maxmsg = mrc_size(optarg);
			break;
		case 'W':
			peek_wait = atof(optarg);
			break;
		default:
			bad_usage();
		}
	}
	if (!client_ns || !server_ns || !server_addr || optind != argc ||
	    npeekers < 0 || npeekers > MAX_THREADS || nreaders < 1 ||
	    nreaders > MAX_THREADS || maxmsg < 4 || maxmsg > PEEK_MAX_LEN ||
	    duration <= 0)
		bad_usage();

	/* Newton's iteration for the inverse of an odd number modulo 2^32. */
	word_inv = WORD_MUL;
	for (i = 0; i < 5; i++)
		word_inv *= 2 - WORD_MUL * word_inv;

	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	alarm(duration + 120);

	seen = calloc(MAX_WORDS / 64, sizeof(*seen));
	max_msgs = MAX_WORDS / 4;
	if (type == SOCK_SEQPACKET)
		msg_end = malloc(max_msgs * sizeof(*msg_end));
	if (!seen || (type == SOCK_SEQPACKET && !msg_end))
		mrc_die("out of memory");
	setup();

	t0 = mrc_now();
	total = 0;
	for (i = 0; i < nreaders; i++)
		if (pthread_create(&readers[i].thread, NULL, reader_thread, &readers[i]))
			mrc_die("pthread_create");
	for (i = 0; i < npeekers; i++)
		if (pthread_create(&peekers[i].thread, NULL, peeker_thread, &peekers[i]))
			mrc_die("pthread_create");
	if (pthread_create(&peekers[MAX_THREADS - 1].thread, NULL, sender_thread, NULL))
		mrc_die("pthread_create");

	while (!__atomic_load_n(&sending_done, __ATOMIC_ACQUIRE)) {
		usleep(100000);
		watch_peekers();
	}
	pthread_join(peekers[MAX_THREADS - 1].thread, NULL);
	total = load(&started);

	/* The readers drain the rest and see the end; then the peekers. */
	end = mrc_now() + 30;
	for (i = 0; i < nreaders; i++) {
		while (pthread_tryjoin_np(readers[i].thread, NULL)) {
			if (mrc_now() > end)
				mrc_die("reader %d does not see the end of data", i);
			watch_peekers();
			usleep(50000);
		}
		rbytes += readers[i].bytes;
		rcalls += readers[i].calls;
	}
	__atomic_store_n(&stop, true, __ATOMIC_RELEASE);
	end = mrc_now() + 10;
	for (i = 0; i < npeekers; i++) {
		while (pthread_tryjoin_np(peekers[i].thread, NULL)) {
			if (mrc_now() > end) {
				mrc_fail("peeker %d does not return after the end of data",
					 i);
				goto summary;
			}
			pthread_kill(peekers[i].thread, SIGUSR1);
			usleep(50000);
		}
		pcalls += peekers[i].calls;
		pbytes += peekers[i].bytes;
		if (peekers[i].longest > longest)
			longest = peekers[i].longest;
	}

	for (k = 0; k < total; k++) {
		if (seen[k / 64] & (1UL << (k % 64)))
			continue;
		if (!missing++)
			first_missing = k;
	}
	if (missing)
		mrc_fail("%llu of %llu words never read, the first at word %llu",
			 missing, total, first_missing);
	if (rbytes != total * 4)
		mrc_fail("%llu bytes sent, readers got %llu", total * 4, rbytes);

summary:
	printf("%s: %.1f s, %llu bytes sent in %llu %s; ",
	       type == SOCK_STREAM ? "stream" : "seqpacket", mrc_now() - t0,
	       total * 4, sender_writes,
	       type == SOCK_STREAM ? "writes" : "messages");
	printf("readers: %llu bytes in %llu calls; peekers: %llu calls, %llu bytes, ",
	       rbytes, rcalls, pcalls, pbytes);
	printf("longest %.0f ms; %d failures\n", longest * 1e3, mrc_failed());
	fflush(stdout);
	rc = mrc_failed() ? 1 : 0;
	/* Threads may still be stuck in the kernel: do not wait for them. */
	_exit(rc);
}
