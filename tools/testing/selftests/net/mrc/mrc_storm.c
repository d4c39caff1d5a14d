// SPDX-License-Identifier: GPL-2.0
/*
 * A storm of socket calls on shared MRC sockets, for localuser.sh.
 *
 * mrc_storm -a NS_A -b NS_B -4 ADDR_A,ADDR_B [-6 ADDR_A,ADDR_B]
 *           [-d SECONDS] [-T THREADS] [-W]
 *
 * THREADS threads (default 6) for SECONDS (default 15) pick sockets from a
 * shared table at random, in either namespace, and call anything on them:
 * socket, close (with or without SO_LINGER), connect (to listeners in the
 * other namespace, to the socket's own address, to an address nobody
 * has, with broken addresses), bind (to a few ports, racing), listen
 * (also after connect), accept (also on sockets that do not listen),
 * send and recv of any size with any flags (MSG_PEEK, and MSG_WAITALL
 * with it unless -W), from and to unmapped memory, sendfile and splice,
 * shutdown, poll, ioctl, getsockname and getpeername, getsockopt and
 * setsockopt (SO_RCVBUF and SO_SNDBUF with 0, INT_MAX, negative values
 * and the rest), fcntl.  Two listeners in each namespace accept what
 * comes and put it in the table.  Each call works on its own dup() of the
 * table's descriptor, so that a close by one thread while another is
 * in a call releases the socket when that call ends, as for any program.
 *
 * Checked: no call returns more than it was given room for, and every
 * thread returns within 20 s of the end (blocked calls have 100 ms
 * timeouts; SIGUSR1 interrupts the rest).  The kernel's log is the
 * caller's to check.  Prints one line of counts; exits 1 on a failure.
 */

#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <linux/sockios.h>

#include "mrc_local.h"

#define NSLOTS		24
#define MAX_THREADS	32
#define PORT_BASE	7100	/* ports PORT_BASE to PORT_BASE + 7 */
#define NPORTS		8
#define BUF_SIZE	(256 << 10)

enum { NS_A, NS_B, NNS };

struct slot {
	pthread_mutex_t lock;
	int fd;
	int ns;
};

static struct slot slots[NSLOTS];
static int ns_fd[NNS];
static struct sockaddr_mrc addr4[NNS], addr6[NNS];
static bool have6;
static bool peek_waitall = true;
static double duration = 15;
static int nthreads = 6;
static bool stop;
static char *bad_mem;			/* a page that cannot be touched */
static int memfd = -1;

/* Listeners that stay, two per namespace: one of each type. */
static int listeners[NNS][2];
static unsigned short listen_port[NNS][2];

enum {
	OP_SOCKET, OP_CLOSE, OP_CONNECT, OP_BIND, OP_LISTEN, OP_ACCEPT,
	OP_SEND, OP_RECV, OP_SHUTDOWN, OP_POLL, OP_SETSOCKOPT, OP_GETSOCKOPT,
	OP_NAME, OP_IOCTL, OP_FCNTL, OP_SENDFILE, OP_SPLICE, NOPS
};

static const char * const op_names[NOPS] = {
	"socket", "close", "connect", "bind", "listen", "accept", "send",
	"recv", "shutdown", "poll", "setsockopt", "getsockopt", "name",
	"ioctl", "fcntl", "sendfile", "splice",
};

/* How often each call is picked, out of the sum. */
static const int op_weight[NOPS] = {
	8, 5, 10, 4, 3, 4, 14, 14, 3, 5, 8, 5, 2, 2, 2, 2, 2,
};

static unsigned long long op_calls[NOPS], op_ok[NOPS];
static unsigned long long established, sent_bytes, recv_bytes;

struct worker {
	pthread_t thread;
	int id;
	bool done;
	int ns;			/* the namespace the thread is in */
};

static struct worker workers[MAX_THREADS];
static pthread_t acceptor_threads[NNS][2];

static void count(int op, int ok)
{
	__atomic_fetch_add(&op_calls[op], 1, __ATOMIC_RELAXED);
	if (ok)
		__atomic_fetch_add(&op_ok[op], 1, __ATOMIC_RELAXED);
}

static void on_signal(int sig)
{
}

static void on_alarm(int sig)
{
	static const char msg[] = "mrc_storm: FAIL: timed out\n";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

/* The table */

/* A dup() of slot @i's socket, or -1; its namespace in @ns. */
static int slot_get(int i, int *ns)
{
	int fd = -1;

	pthread_mutex_lock(&slots[i].lock);
	if (slots[i].fd >= 0) {
		fd = fcntl(slots[i].fd, F_DUPFD_CLOEXEC, 0);
		*ns = slots[i].ns;
	}
	pthread_mutex_unlock(&slots[i].lock);
	return fd;
}

/* Put @fd in slot @i; what was there is closed. */
static void slot_put(int i, int fd, int ns)
{
	int old;

	pthread_mutex_lock(&slots[i].lock);
	old = slots[i].fd;
	slots[i].fd = fd;
	slots[i].ns = ns;
	pthread_mutex_unlock(&slots[i].lock);
	if (old >= 0)
		close(old);
}

static int slot_take(int i)
{
	int fd;

	pthread_mutex_lock(&slots[i].lock);
	fd = slots[i].fd;
	slots[i].fd = -1;
	pthread_mutex_unlock(&slots[i].lock);
	return fd;
}

static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_usec = 100000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static void enter(struct worker *w, int ns)
{
	if (w->ns != ns) {
		mrc_ns_enter(ns_fd[ns]);
		w->ns = ns;
	}
}

/* Addresses */

/* Where a socket of namespace @ns may connect or bind to, at random. */
static void pick_addr(unsigned long long *s, int ns, bool peer,
		      struct sockaddr_mrc *a, socklen_t *len)
{
	int side = peer ? !ns : ns;

	*a = have6 && mrc_range(s, 0, 1) ? addr6[side] : addr4[side];
	*len = sizeof(*a);
	switch (mrc_range(s, 0, 15)) {
	case 0:		/* the wildcard */
		a->smrc_addr_family = AF_UNSPEC;
		break;
	case 1:		/* nobody has it */
		a->smrc_addr_family = AF_INET;
		a->smrc_addr4 = htonl(0x0a636363);
		break;
	case 2:
		a->smrc_family = mrc_range(s, 0, 50);
		break;
	case 3:
		*len = mrc_range(s, 0, sizeof(*a) - 1);
		break;
	case 4:
		a->__smrc_pad = mrc_range(s, 1, 65535);
		break;
	case 5:
		a->smrc_addr_family = mrc_range(s, 0, 50);
		break;
	case 6:
		a->smrc_scope_id = mrc_rand(s);
		break;
	case 7:
		*len = mrc_range(s, sizeof(*a), 128);
		break;
	}
}

static void pick_port(unsigned long long *s, int ns, bool peer,
		      struct sockaddr_mrc *a)
{
	int side = peer ? !ns : ns;

	switch (mrc_range(s, 0, 7)) {
	case 0:
		a->smrc_port = 0;
		break;
	case 1:
	case 2:
	case 3:
		a->smrc_port = htons(listen_port[side][mrc_range(s, 0, 1)]);
		break;
	case 4:
		a->smrc_port = htons(mrc_range(s, 1, 65535));
		break;
	default:
		a->smrc_port = htons(PORT_BASE + mrc_range(s, 0, NPORTS - 1));
		break;
	}
}

/* The calls */

static int pick_sockbuf(unsigned long long *s)
{
	static const int vals[] = {
		0, 1, -1, INT_MAX, INT_MIN, INT_MAX / 2, 4096, 65536, 1 << 20,
		64 << 20, -4096,
	};

	if (mrc_range(s, 0, 3))
		return vals[mrc_range(s, 0, ARRAY_SIZE(vals) - 1)];
	return (int)mrc_rand(s);
}

/*
 * Options that turn on receive timestamps flip a static key on the receive
 * path of every packet (netstamp_needed_key): the code patching that
 * follows crashes guests under multi-threaded TCG ("Oops: int3" in
 * __netif_receive_skb_core).  Left out, as is SIOCGSTAMP.
 */
static bool is_timestamp_opt(int opt)
{
	return opt == SO_TIMESTAMP_OLD || opt == SO_TIMESTAMPNS_OLD ||
	       opt == SO_TIMESTAMPING_OLD || opt == SO_TIMESTAMP_NEW ||
	       opt == SO_TIMESTAMPNS_NEW || opt == SO_TIMESTAMPING_NEW;
}

static int op_setsockopt(unsigned long long *s, int fd)
{
	static const int bufopts[] = {
		SO_RCVBUF, SO_SNDBUF, SO_RCVBUFFORCE, SO_SNDBUFFORCE,
	};
	struct timeval tv;
	struct linger lg;
	char name[16];
	int val, opt, level;
	socklen_t len = sizeof(val);
	void *p = &val;

	switch (mrc_range(s, 0, 11)) {
	case 0: case 1: case 2: case 3:
		opt = bufopts[mrc_range(s, 0, 3)];
		val = pick_sockbuf(s);
		break;
	case 4:
		opt = SO_RCVLOWAT;
		val = pick_sockbuf(s);
		break;
	case 5:
		opt = SO_LINGER;
		lg.l_onoff = mrc_range(s, 0, 1);
		lg.l_linger = mrc_range(s, 0, 1);
		p = &lg;
		len = sizeof(lg);
		break;
	case 6:
		opt = mrc_range(s, 0, 1) ? SO_RCVTIMEO : SO_SNDTIMEO;
		tv.tv_sec = 0;
		tv.tv_usec = mrc_range(s, 1000, 200000);
		p = &tv;
		len = sizeof(tv);
		break;
	case 7:
		opt = SO_BINDTODEVICE;
		snprintf(name, sizeof(name), "%s",
			 mrc_range(s, 0, 1) ? "veth1" : mrc_range(s, 0, 1) ? "lo" : "");
		p = name;
		len = strlen(name) + mrc_range(s, 0, 1);
		break;
	case 8: {
		static const int misc[] = {
			SO_KEEPALIVE, SO_PRIORITY, SO_MARK, SO_RCVMARK,
			SO_PASSCRED, SO_PEEK_OFF, SO_ZEROCOPY, SO_INCOMING_CPU,
			SO_REUSEADDR, SO_REUSEPORT, SO_OOBINLINE, SO_BUSY_POLL,
			SO_MAX_PACING_RATE, SO_TXTIME, SO_DEBUG, SO_BROADCAST,
		};

		opt = misc[mrc_range(s, 0, ARRAY_SIZE(misc) - 1)];
		val = mrc_range(s, 0, 3) ? mrc_range(s, -1, 7) : (int)mrc_rand(s);
		break;
	}
	case 9:		/* levels with no options here */
		level = mrc_range(s, 0, 300);
		if (level == SOL_SOCKET)
			level = 0;
		val = (int)mrc_rand(s);
		return setsockopt(fd, level, mrc_range(s, 0, 100), &val,
				  mrc_range(s, 0, 8)) == 0;
	case 10:	/* short, long and unmapped option values */
		opt = bufopts[mrc_range(s, 0, 3)];
		len = mrc_range(s, 0, 3);
		if (mrc_range(s, 0, 1))
			p = bad_mem;
		val = pick_sockbuf(s);
		break;
	default:
		opt = mrc_range(s, 0, 80);
		val = (int)mrc_rand(s);
		len = mrc_range(s, 0, 8);
		if (opt == SO_RCVTIMEO_OLD || opt == SO_SNDTIMEO_OLD ||
		    opt == SO_RCVTIMEO_NEW || opt == SO_SNDTIMEO_NEW ||
		    opt == SO_LINGER || is_timestamp_opt(opt))
			opt = SO_KEEPALIVE;
		break;
	}
	return setsockopt(fd, SOL_SOCKET, opt, p, len) == 0;
}

static int op_getsockopt(unsigned long long *s, int fd)
{
	static const int opts[] = {
		SO_ERROR, SO_TYPE, SO_PROTOCOL, SO_DOMAIN, SO_ACCEPTCONN,
		SO_RCVBUF, SO_SNDBUF, SO_LINGER, SO_PEERNAME, SO_PEERCRED,
		SO_MEMINFO, SO_COOKIE, SO_RCVLOWAT, SO_PEEK_OFF,
		SO_INCOMING_NAPI_ID, SO_BINDTODEVICE, SO_PEERSEC, SO_PEERGROUPS,
		SO_RCVTIMEO, SO_SNDTIMEO, SO_MARK, SO_NETNS_COOKIE,
	};
	char buf[256];
	socklen_t len, given;
	int opt, level = SOL_SOCKET, ret;

	opt = opts[mrc_range(s, 0, ARRAY_SIZE(opts) - 1)];
	if (!mrc_range(s, 0, 9))
		level = mrc_range(s, 0, 300);
	if (!mrc_range(s, 0, 9))
		opt = mrc_range(s, 0, 100);
	given = mrc_range(s, 0, 3) ? sizeof(int) * mrc_range(s, 1, 16) :
		mrc_range(s, 0, sizeof(buf));
	len = given;
	if (!mrc_range(s, 0, 15))
		return getsockopt(fd, level, opt, bad_mem, &len) == 0;
	ret = getsockopt(fd, level, opt, buf, &len);
	if (!ret && len > sizeof(buf) && opt != SO_PEERSEC &&
	    opt != SO_PEERGROUPS)
		mrc_fail("getsockopt(%d, %d) with %u bytes of room says %u",
			 level, opt, given, len);
	return ret == 0;
}

static int op_connect(unsigned long long *s, int fd, int ns)
{
	struct sockaddr_mrc a;
	socklen_t len;
	int ret;

	if (mrc_range(s, 0, 4)) {
		pick_addr(s, ns, true, &a, &len);
		pick_port(s, ns, true, &a);
	} else {
		/* Itself: its own address and port, or another of its host. */
		struct sockaddr_mrc me;
		socklen_t mlen = sizeof(me);

		pick_addr(s, ns, false, &a, &len);
		if (!mrc_range(s, 0, 2) &&
		    !getsockname(fd, (struct sockaddr *)&me, &mlen))
			a.smrc_port = me.smrc_port;
		else
			pick_port(s, ns, false, &a);
	}
	ret = connect(fd, (struct sockaddr *)&a, len);
	if (!ret)
		__atomic_fetch_add(&established, 1, __ATOMIC_RELAXED);
	return ret == 0;
}

static int op_bind(unsigned long long *s, int fd, int ns)
{
	struct sockaddr_mrc a;
	socklen_t len;

	pick_addr(s, ns, !mrc_range(s, 0, 7), &a, &len);
	a.smrc_port = mrc_range(s, 0, 4) ?
		      htons(PORT_BASE + mrc_range(s, 0, NPORTS - 1)) :
		      htons(mrc_range(s, 0, 1100));
	return bind(fd, (struct sockaddr *)&a, len) == 0;
}

static int op_send(unsigned long long *s, int fd, const char *buf)
{
	static const int flag_set[] = {
		MSG_DONTWAIT, MSG_OOB, MSG_MORE, MSG_EOR, MSG_CONFIRM,
		MSG_ZEROCOPY, MSG_FASTOPEN, MSG_PROXY, MSG_TRUNC,
	};
	size_t len = mrc_range(s, 0, 3) ? mrc_range(s, 0, 20000) :
		     mrc_range(s, 0, BUF_SIZE);
	int flags = MSG_NOSIGNAL, i;
	struct msghdr msg = { 0 };
	struct iovec iov[3];
	ssize_t n;

	for (i = 0; i < (int)ARRAY_SIZE(flag_set); i++)
		if (!mrc_range(s, 0, 15))
			flags |= flag_set[i];
	switch (mrc_range(s, 0, 9)) {
	case 0:		/* from memory that cannot be read */
		n = send(fd, bad_mem, len ?: 1, flags);
		return n >= 0;
	case 1:		/* an iovec whose second part cannot be read */
		iov[0].iov_base = (void *)buf;
		iov[0].iov_len = mrc_range(s, 0, 8192);
		iov[1].iov_base = bad_mem;
		iov[1].iov_len = mrc_range(s, 1, 8192);
		iov[2].iov_base = (void *)buf;
		iov[2].iov_len = mrc_range(s, 0, 8192);
		msg.msg_iov = iov;
		msg.msg_iovlen = 3;
		n = sendmsg(fd, &msg, flags);
		return n >= 0;
	case 2:
		n = write(fd, buf, len);
		break;
	default:
		n = send(fd, buf, len, flags);
		break;
	}
	if (n > (ssize_t)len)
		mrc_fail("send of %zu bytes returned %zd", len, n);
	if (n > 0)
		__atomic_fetch_add(&sent_bytes, n, __ATOMIC_RELAXED);
	return n >= 0;
}

static int op_recv(unsigned long long *s, int fd, char *buf)
{
	static const int flag_set[] = {
		MSG_PEEK, MSG_WAITALL, MSG_DONTWAIT, MSG_TRUNC, MSG_OOB,
		MSG_ERRQUEUE, MSG_CMSG_CLOEXEC,
	};
	size_t len = mrc_range(s, 0, 3) ? mrc_range(s, 0, 20000) :
		     mrc_range(s, 0, BUF_SIZE);
	struct msghdr msg = { 0 };
	struct iovec iov[2];
	int flags = 0, i;
	ssize_t n;

	for (i = 0; i < (int)ARRAY_SIZE(flag_set); i++)
		if (!mrc_range(s, 0, 5))
			flags |= flag_set[i];
	if (!peek_waitall && (flags & MSG_PEEK))
		flags &= ~MSG_WAITALL;
	switch (mrc_range(s, 0, 9)) {
	case 0:
		n = recv(fd, bad_mem, len ?: 1, flags);
		return n >= 0;
	case 1:
		iov[0].iov_base = buf;
		iov[0].iov_len = mrc_range(s, 0, 4096);
		iov[1].iov_base = bad_mem;
		iov[1].iov_len = mrc_range(s, 1, 4096);
		msg.msg_iov = iov;
		msg.msg_iovlen = 2;
		n = recvmsg(fd, &msg, flags);
		return n >= 0;
	case 2:
		n = read(fd, buf, len);
		break;
	default:
		n = recv(fd, buf, len, flags);
		break;
	}
	if (n > (ssize_t)len && !(flags & MSG_TRUNC))
		mrc_fail("recv of %zu bytes, flags %#x, returned %zd", len,
			 flags, n);
	if (n > 0 && !(flags & MSG_PEEK))
		__atomic_fetch_add(&recv_bytes, n, __ATOMIC_RELAXED);
	return n >= 0;
}

static int op_poll(unsigned long long *s, int fd)
{
	struct pollfd pfd = {
		.fd = fd,
		.events = mrc_rand(s),
	};
	int ret;

	ret = poll(&pfd, 1, mrc_range(s, 0, 20));
	if (ret > 0 && (pfd.revents & POLLNVAL))
		mrc_fail("poll on a socket: POLLNVAL");
	return ret >= 0;
}

static int op_name(unsigned long long *s, int fd)
{
	char buf[256];
	socklen_t len = mrc_range(s, 0, sizeof(buf)), given = len;
	int ret;

	if (!mrc_range(s, 0, 7))
		return getsockname(fd, (struct sockaddr *)bad_mem, &len) == 0;
	if (mrc_range(s, 0, 1))
		ret = getsockname(fd, (struct sockaddr *)buf, &len);
	else
		ret = getpeername(fd, (struct sockaddr *)buf, &len);
	if (!ret && len != sizeof(struct sockaddr_mrc))
		mrc_fail("getsockname/getpeername with %u bytes of room: length %u",
			 given, len);
	return ret == 0;
}

static int op_ioctl(unsigned long long *s, int fd)
{
	static const unsigned long reqs[] = {
		SIOCINQ, SIOCOUTQ, SIOCOUTQNSD, FIONBIO, FIONREAD, SIOCATMARK,
		SIOCGIFINDEX, SIOCGIFNAME, SIOCGIFFLAGS,
	};
	char buf[64] = "lo";
	int val = mrc_range(s, 0, 1);

	if (!mrc_range(s, 0, 3))
		return ioctl(fd, reqs[mrc_range(s, 0, 4)], &val) == 0;
	return ioctl(fd, reqs[mrc_range(s, 0, ARRAY_SIZE(reqs) - 1)], buf) == 0;
}

static int op_sendfile(unsigned long long *s, int fd)
{
	off_t off = mrc_range(s, 0, 1 << 20);
	ssize_t n;

	n = sendfile(fd, memfd, &off, mrc_range(s, 0, 1 << 20));
	if (n > 0)
		__atomic_fetch_add(&sent_bytes, n, __ATOMIC_RELAXED);
	return n >= 0;
}

static int op_splice(unsigned long long *s, int fd, char *buf)
{
	int p[2], ok;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return 0;
	n = splice(fd, NULL, p[1], NULL, mrc_range(s, 1, 65536),
		   SPLICE_F_NONBLOCK | (mrc_range(s, 0, 1) ? SPLICE_F_MORE : 0));
	ok = n >= 0;
	if (n > 0) {
		__atomic_fetch_add(&recv_bytes, n, __ATOMIC_RELAXED);
		while (read(p[0], buf, BUF_SIZE) > 0)
			;
	}
	close(p[0]);
	close(p[1]);
	return ok;
}

static int op_socket(unsigned long long *s, struct worker *w)
{
	static const int types[] = { SOCK_STREAM, SOCK_SEQPACKET };
	int ns = mrc_range(s, 0, NNS - 1), type, proto = 0, fd;

	enter(w, ns);
	type = types[mrc_range(s, 0, 1)];
	if (!mrc_range(s, 0, 3))
		type |= SOCK_NONBLOCK;
	if (!mrc_range(s, 0, 31))
		type = mrc_range(s, 0, 11);
	if (!mrc_range(s, 0, 31))
		proto = mrc_range(s, -1, 300);
	fd = socket(AF_MRC, type | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return 0;
	set_timeouts(fd);
	slot_put(mrc_range(s, 0, NSLOTS - 1), fd, ns);
	return 1;
}

static int op_close(unsigned long long *s)
{
	struct linger lg = { .l_onoff = 1, .l_linger = mrc_range(s, 0, 1) };
	int fd = slot_take(mrc_range(s, 0, NSLOTS - 1));

	if (fd < 0)
		return 0;
	if (!mrc_range(s, 0, 3))
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	if (!mrc_range(s, 0, 7))
		shutdown(fd, SHUT_RDWR);
	return close(fd) == 0;
}

static void one_call(unsigned long long *s, struct worker *w, char *buf)
{
	int op, r, fd, ns = 0, ok = 0, total = 0, i;

	for (i = 0; i < NOPS; i++)
		total += op_weight[i];
	r = mrc_range(s, 0, total - 1);
	for (op = 0; r >= op_weight[op]; op++)
		r -= op_weight[op];

	if (op == OP_SOCKET) {
		count(op, op_socket(s, w));
		return;
	}
	if (op == OP_CLOSE) {
		count(op, op_close(s));
		return;
	}
	fd = slot_get(mrc_range(s, 0, NSLOTS - 1), &ns);
	if (fd < 0)
		return;
	switch (op) {
	case OP_CONNECT:
		ok = op_connect(s, fd, ns);
		break;
	case OP_BIND:
		ok = op_bind(s, fd, ns);
		break;
	case OP_LISTEN: {
		static const int backlogs[] = { 0, 1, -1, 128, INT_MAX, INT_MIN };

		ok = listen(fd, backlogs[mrc_range(s, 0, 5)]) == 0;
		break;
	}
	case OP_ACCEPT: {
		int nfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC |
				  (mrc_range(s, 0, 1) ? SOCK_NONBLOCK : 0));

		ok = nfd >= 0;
		if (ok) {
			set_timeouts(nfd);
			slot_put(mrc_range(s, 0, NSLOTS - 1), nfd, ns);
		}
		break;
	}
	case OP_SEND:
		ok = op_send(s, fd, buf);
		break;
	case OP_RECV:
		ok = op_recv(s, fd, buf);
		break;
	case OP_SHUTDOWN:
		ok = shutdown(fd, mrc_range(s, -1, 4)) == 0;
		break;
	case OP_POLL:
		ok = op_poll(s, fd);
		break;
	case OP_SETSOCKOPT:
		ok = op_setsockopt(s, fd);
		break;
	case OP_GETSOCKOPT:
		ok = op_getsockopt(s, fd);
		break;
	case OP_NAME:
		ok = op_name(s, fd);
		break;
	case OP_IOCTL:
		ok = op_ioctl(s, fd);
		break;
	case OP_FCNTL:
		ok = fcntl(fd, F_SETFL, mrc_range(s, 0, 1) ? O_NONBLOCK : 0) == 0;
		break;
	case OP_SENDFILE:
		ok = op_sendfile(s, fd);
		break;
	case OP_SPLICE:
		ok = op_splice(s, fd, buf);
		break;
	}
	close(fd);
	count(op, ok);
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	unsigned long long s = mrc_seed(w->id);
	char *buf = malloc(BUF_SIZE);

	if (!buf)
		mrc_die("out of memory");
	memset(buf, 'x', BUF_SIZE);
	w->ns = -1;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		one_call(&s, w, buf);
	free(buf);
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Accept on a listener that stays, and hand the connections out. */
static void *acceptor(void *arg)
{
	long which = (long)arg;
	int ns = which / 2, lfd = listeners[ns][which % 2], fd;
	unsigned long long s = mrc_seed(500 + which);

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		set_timeouts(fd);
		slot_put(mrc_range(&s, 0, NSLOTS - 1), fd, ns);
	}
	return NULL;
}

static void parse_pair(const char *arg, struct sockaddr_mrc *a)
{
	char text[128], *comma;

	snprintf(text, sizeof(text), "%s", arg);
	comma = strchr(text, ',');
	if (!comma)
		mrc_die("expected ADDR_A,ADDR_B: %s", arg);
	*comma = 0;
	if (mrc_parse_addr(text, 0, &a[NS_A]) ||
	    mrc_parse_addr(comma + 1, 0, &a[NS_B]))
		mrc_die("bad addresses %s", arg);
}

static __noreturn void bad_usage(void)
{
	fprintf(stderr,
		"usage: mrc_storm -a NS_A -b NS_B -4 ADDR_A,ADDR_B [-6 ADDR_A,ADDR_B]\n"
		"                 [-d SECONDS] [-T THREADS] [-W]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	const char *ns_name[NNS] = { NULL, NULL };
	unsigned long long total = 0;
	bool have4 = false;
	double t0, end;
	int opt, i, j, stuck = 0;
	struct timeval tv = { .tv_usec = 100000 };
	char line[1024];
	int n = 0;

	mrc_prog = "mrc_storm";
	while ((opt = getopt(argc, argv, "a:b:4:6:d:T:W")) != -1) {
		switch (opt) {
		case 'a':
			ns_name[NS_A] = optarg;
			break;
		case 'b':
			ns_name[NS_B] = optarg;
			break;
		case '4':
			parse_pair(optarg, addr4);
			have4 = true;
			break;
		case '6':
			parse_pair(optarg, addr6);
			have6 = true;
			break;
		case 'd':
			duration = atof(optarg);
			break;
		case 'T':
			nthreads = atoi(optarg);
			break;
		case 'W':
			peek_waitall = false;
			break;
		default:
			bad_usage();
		}
	}
	if (!ns_name[NS_A] || !ns_name[NS_B] || !have4 || optind != argc ||
	    nthreads < 1 || nthreads > MAX_THREADS || duration <= 0)
		bad_usage();

	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGALRM, on_alarm);
	alarm(duration + 90);

	bad_mem = mmap(NULL, 65536, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bad_mem == MAP_FAILED)
		mrc_die("mmap: %s", strerror(errno));
	memfd = memfd_create("mrc_storm", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, 1 << 20))
		mrc_die("memfd: %s", strerror(errno));
	for (i = 0; i < NSLOTS; i++) {
		pthread_mutex_init(&slots[i].lock, NULL);
		slots[i].fd = -1;
	}
	for (i = 0; i < NNS; i++) {
		ns_fd[i] = mrc_ns_open(ns_name[i]);
		mrc_ns_enter(ns_fd[i]);
		for (j = 0; j < 2; j++) {
			listen_port[i][j] = 0;
			listeners[i][j] = mrc_listener(j ? SOCK_SEQPACKET : SOCK_STREAM,
						       &listen_port[i][j]);
			setsockopt(listeners[i][j], SOL_SOCKET, SO_RCVTIMEO, &tv,
				   sizeof(tv));
		}
	}

	t0 = mrc_now();
	for (i = 0; i < NNS * 2; i++)
		if (pthread_create(&acceptor_threads[i / 2][i % 2], NULL, acceptor,
				   (void *)(long)i))
			mrc_die("pthread_create");
	for (i = 0; i < nthreads; i++) {
		workers[i].id = i;
		if (pthread_create(&workers[i].thread, NULL, worker, &workers[i]))
			mrc_die("pthread_create");
	}
	usleep(duration * 1e6);
	__atomic_store_n(&stop, true, __ATOMIC_RELEASE);

	/* Blocked calls end with their 100 ms timeouts; signals for the rest. */
	end = mrc_now() + 20;
	for (i = 0; i < nthreads; i++) {
		while (pthread_tryjoin_np(workers[i].thread, NULL)) {
			if (mrc_now() > end) {
				stuck++;
				break;
			}
			pthread_kill(workers[i].thread, SIGUSR1);
			usleep(20000);
		}
	}
	for (i = 0; i < NNS * 2; i++)
		pthread_join(acceptor_threads[i / 2][i % 2], NULL);
	if (stuck)
		mrc_fail("%d of %d threads still in a call 20 s after the end", stuck,
			 nthreads);

	for (i = 0; i < NOPS; i++) {
		total += op_calls[i];
		n += snprintf(line + n, sizeof(line) - n, " %s %llu/%llu",
			      op_names[i], op_ok[i], op_calls[i]);
	}
	printf("storm: %llu calls in %.1f s by %d threads, %llu connects, ",
	       total, mrc_now() - t0, nthreads, established);
	printf("%llu bytes sent, %llu received; ok/calls:%s\n", sent_bytes,
	       recv_bytes, line);
	fflush(stdout);
	if (!stuck) {
		for (i = 0; i < NSLOTS; i++)
			slot_put(i, -1, 0);
		for (i = 0; i < NNS; i++)
			for (j = 0; j < 2; j++)
				close(listeners[i][j]);
	}
	_exit(mrc_failed() ? 1 : 0);
}
