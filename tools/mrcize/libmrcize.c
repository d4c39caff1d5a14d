// SPDX-License-Identifier: GPL-2.0
/*
 * libmrcize.so: preloaded into a program (LD_PRELOAD) by "mrcize run", it
 * turns the program's TCP sockets into AF_MRC sockets.  See mrcize.1.
 *
 * socket() makes a TCP socket as asked, and the options set on it are
 * remembered.  At bind(), connect() or listen(), if the policy sends the
 * socket over MRC, an AF_MRC socket with the same flags and options takes
 * its file descriptor number (dup2), and the call goes on with the address
 * translated into a struct sockaddr_mrc.  Addresses that come back are
 * translated into the family of the program's socket, and TCP- and IP-level
 * options, which AF_MRC does not have, are mapped onto SOL_MRC ones or
 * emulated.  read(), write(), send() and recv() are not interposed: the
 * data path costs nothing.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/tcp.h>

#include <linux/mrc.h>
#include <linux/mrc_netlink.h>

#include "mrcize.h"

#ifndef RTLD_NEXT
#define RTLD_NEXT	((void *)-1L)	/* glibc's, declared only for _GNU_SOURCE */
#endif
#ifndef SO_DOMAIN
#define SO_DOMAIN	39
#endif
#ifndef SO_PROTOCOL
#define SO_PROTOCOL	38
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN	0x20000000
#endif

/* File descriptors at or above this number are left alone. */
#define MRCIZE_FDS	1048576
/* Options remembered per socket, and the largest value kept. */
#define MRCIZE_OPTS	24
#define MRCIZE_OPT_SIZE	32
/* TCP's defaults, for options read before being set. */
#define TCP_DEF_KEEPIDLE	7200
#define TCP_DEF_KEEPINTVL	75
#define TCP_DEF_KEEPCNT		9
#define TCP_DEF_MSS		536
/* What a socket was doing when the policy decided, for messages. */
#define WHAT_BIND	"bind to"
#define WHAT_CONNECT	"connect to"
#define WHAT_LISTEN	"listen on"
#ifndef TCP_CA_NAME_MAX
#define TCP_CA_NAME_MAX		16
#endif

enum {
	FD_UNKNOWN,	/* not made by socket() or accept() since loaded */
	FD_NATIVE,	/* not a TCP socket, or AF_MRC asked for by the program */
	FD_CANDIDATE,	/* TCP, not yet bound or connected */
	FD_TCP,		/* TCP, and stays so */
	FD_MRC,		/* an AF_MRC socket the program takes for TCP */
};

struct mrcize_opt {
	int level;
	int name;
	socklen_t len;
	unsigned char val[MRCIZE_OPT_SIZE];
};

/*
 * One per file descriptor number, allocated the first time a socket takes
 * that number and never freed, so that a racing reader never sees freed
 * memory.  @state is read without the lock; the rest under it.
 */
struct mrcize_sock {
	int state;
	int family;		/* the program's: AF_INET or AF_INET6 */
	bool listening;
	/* A bind() to port 0 that the policy could not decide on (TCP's). */
	socklen_t bind_len;
	struct sockaddr_in6 bind_addr;
	unsigned int nr_opts;
	struct mrcize_opt opts[MRCIZE_OPTS];
};

static struct mrcize_sock *socks[MRCIZE_FDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct mrcize_policy policy;
static bool debug;

static int (*real_socket)(int, int, int);
static int (*real_bind)(int, const struct sockaddr *, socklen_t);
static int (*real_connect)(int, const struct sockaddr *, socklen_t);
static int (*real_listen)(int, int);
static int (*real_accept)(int, struct sockaddr *, socklen_t *);
static int (*real_accept4)(int, struct sockaddr *, socklen_t *, int);
static int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
static int (*real_getpeername)(int, struct sockaddr *, socklen_t *);
static int (*real_setsockopt)(int, int, int, const void *, socklen_t);
static int (*real_getsockopt)(int, int, int, void *, socklen_t *);
static ssize_t (*real_sendto)(int, const void *, size_t, int,
			      const struct sockaddr *, socklen_t);
static ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *,
				socklen_t *);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static ssize_t (*real_recvfrom_chk)(int, void *, size_t, size_t, int,
				    struct sockaddr *, socklen_t *);

/* One line on stderr, written at once so that lines of threads do not mix. */
static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n, err = errno;

	n = snprintf(buf, sizeof(buf), "mrcize[%d]: ", (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, n) < 0)
		n = 0;
	errno = err;
}

#define dbg(...) do { if (debug) say(__VA_ARGS__); } while (0)

static void *sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p && strcmp(name, "__recvfrom_chk")) {
		say("cannot find %s in the C library", name);
		abort();
	}
	return p;
}

static void resolve(void)
{
	real_socket = sym("socket");
	real_bind = sym("bind");
	real_connect = sym("connect");
	real_listen = sym("listen");
	real_accept = sym("accept");
	real_accept4 = sym("accept4");
	real_getsockname = sym("getsockname");
	real_getpeername = sym("getpeername");
	real_setsockopt = sym("setsockopt");
	real_getsockopt = sym("getsockopt");
	real_sendto = sym("sendto");
	real_recvfrom = sym("recvfrom");
	real_sendmsg = sym("sendmsg");
	real_recvmsg = sym("recvmsg");
	real_recvfrom_chk = sym("__recvfrom_chk");
}

/* A constructor that ran before ours may call us already. */
#define NEED(fn) do { if (!(fn)) resolve(); } while (0)

/* fork() in another thread must not leave the child with the lock held. */
static void fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void fork_done(void)
{
	pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void mrcize_init(void)
{
	const struct mrcize_policy_text text = {
		.ports = getenv(MRCIZE_ENV_PORTS),
		.addrs = getenv(MRCIZE_ENV_ADDRS),
		.tcp_ports = getenv(MRCIZE_ENV_TCP_PORTS),
	};
	const char *d = getenv(MRCIZE_ENV_DEBUG);
	const char *bad = "";

	resolve();
	debug = d && *d && strcmp(d, "0");
	if (!mrcize_policy_parse(&policy, &text, &bad)) {
		/* Nothing goes over MRC rather than more than was asked. */
		say("cannot parse the policy (%s, %s, %s) at \"%s\": every socket stays on TCP",
		    MRCIZE_ENV_PORTS, MRCIZE_ENV_ADDRS, MRCIZE_ENV_TCP_PORTS,
		    bad);
		memset(&policy, 0, sizeof(policy));
		policy.ports.nr = 1;	/* one empty range: nothing matches */
		policy.ports.range[0].first = 1;
	}
	pthread_atfork(fork_prepare, fork_done, fork_done);
}

static struct mrcize_sock *sock_get(int fd)
{
	if (fd < 0 || fd >= MRCIZE_FDS)
		return NULL;
	return __atomic_load_n(&socks[fd], __ATOMIC_ACQUIRE);
}

static int sock_state(int fd)
{
	struct mrcize_sock *s = sock_get(fd);

	return s ? __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) : FD_UNKNOWN;
}

static void sock_set_state(struct mrcize_sock *s, int state)
{
	__atomic_store_n(&s->state, state, __ATOMIC_RELEASE);
}

/* The entry of @fd, made if needed and reset to @state; under the lock. */
static struct mrcize_sock *sock_reset(int fd, int state, int family)
{
	struct mrcize_sock *s = sock_get(fd);

	if (!s) {
		if (fd < 0 || fd >= MRCIZE_FDS)
			return NULL;
		s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
		__atomic_store_n(&socks[fd], s, __ATOMIC_RELEASE);
	}
	s->family = family;
	s->listening = false;
	s->bind_len = 0;
	s->nr_opts = 0;
	sock_set_state(s, state);
	return s;
}

static int fd_sockopt_int(int fd, int name)
{
	socklen_t len = sizeof(int);
	int v;

	if (real_getsockopt(fd, SOL_SOCKET, name, &v, &len) < 0)
		return -1;
	return v;
}

/*
 * A socket of the program that is AF_MRC though it was not made here
 * (inherited through exec, or a dup()): taken as one of ours, in the family
 * of its local address.
 */
static struct mrcize_sock *sock_adopt(int fd)
{
	struct sockaddr_mrc smrc;
	socklen_t len = sizeof(smrc);
	struct mrcize_sock *s = NULL;
	int family = AF_INET6;

	if (sock_state(fd) != FD_UNKNOWN || fd_sockopt_int(fd, SO_DOMAIN) != AF_MRC)
		return NULL;
	if (!real_getsockname(fd, (struct sockaddr *)&smrc, &len) &&
	    smrc.smrc_addr_family == AF_INET)
		family = AF_INET;
	pthread_mutex_lock(&lock);
	if (sock_state(fd) == FD_UNKNOWN)
		s = sock_reset(fd, FD_MRC, family);
	pthread_mutex_unlock(&lock);
	return s;
}

/* The socket of @fd is still the AF_MRC one we put there. */
static bool fd_is_mrc(int fd)
{
	return fd_sockopt_int(fd, SO_DOMAIN) == AF_MRC;
}

/* ------------------------------------------------------------------ */
/* Addresses */

/* An IPv4 or IPv6 socket address of the program, as an IPv6 one. */
struct inaddr {
	struct in6_addr addr;	/* IPv4-mapped for IPv4 */
	unsigned int port;
	unsigned int scope_id;
	bool v4;
};

static bool is_v4mapped(const struct in6_addr *a)
{
	static const unsigned char prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	return !memcmp(a->s6_addr, prefix, sizeof(prefix));
}

/*
 * Read a program's address as the kernel's TCP would accept it on a socket
 * of @family; false for anything else (the TCP socket gives the error).
 */
static bool inaddr_from(int family, const struct sockaddr *sa, socklen_t len,
			struct inaddr *ia)
{
	memset(ia, 0, sizeof(*ia));
	if (!sa || family != sa->sa_family)
		return false;
	if (family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)sa;

		if (len < sizeof(*sin))
			return false;
		ia->addr.s6_addr[10] = 0xff;
		ia->addr.s6_addr[11] = 0xff;
		memcpy(&ia->addr.s6_addr[12], &sin->sin_addr, 4);
		ia->port = ntohs(sin->sin_port);
		ia->v4 = true;
		return true;
	}
	if (family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)sa;

		if (len < 24)	/* SIN6_LEN_RFC2133, as TCP */
			return false;
		ia->addr = sin6->sin6_addr;
		ia->port = ntohs(sin6->sin6_port);
		ia->scope_id = len >= sizeof(*sin6) ? sin6->sin6_scope_id : 0;
		ia->v4 = is_v4mapped(&ia->addr);
		return true;
	}
	return false;
}

static bool inaddr_any(const struct inaddr *ia)
{
	static const unsigned char zero[16];

	if (ia->v4)
		return !memcmp(&ia->addr.s6_addr[12], zero, 4);
	return !memcmp(ia->addr.s6_addr, zero, 16);
}

static bool inaddr_loopback(const struct inaddr *ia)
{
	if (ia->v4)
		return ia->addr.s6_addr[12] == 127;
	return IN6_IS_ADDR_LOOPBACK(&ia->addr);
}

static void inaddr_to_mrc(const struct inaddr *ia, struct sockaddr_mrc *smrc)
{
	memset(smrc, 0, sizeof(*smrc));
	smrc->smrc_family = AF_MRC;
	smrc->smrc_port = htons(ia->port);
	if (inaddr_any(ia))
		return;		/* smrc_addr_family 0: the wildcard */
	if (ia->v4) {
		smrc->smrc_addr_family = AF_INET;
		memcpy(&smrc->smrc_addr4, &ia->addr.s6_addr[12], 4);
	} else {
		smrc->smrc_addr_family = AF_INET6;
		memcpy(smrc->smrc_addr6, ia->addr.s6_addr, 16);
		smrc->smrc_scope_id = ia->scope_id;
	}
}

static const char *inaddr_str(const struct inaddr *ia, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];

	if (ia->v4)
		inet_ntop(AF_INET, &ia->addr.s6_addr[12], a, sizeof(a));
	else
		inet_ntop(AF_INET6, &ia->addr, a, sizeof(a));
	snprintf(buf, size, ia->v4 ? "%s:%u" : "[%s]:%u", a, ia->port);
	return buf;
}

union inet_sa {
	struct sockaddr sa;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	struct sockaddr_mrc smrc;
	struct sockaddr_storage ss;
};

/*
 * The local address of a connection whose socket is bound to the
 * wildcard: the source address of the route to its peer, the address of
 * the plane it would be dialled on.
 */
static bool route_source(const struct sockaddr_mrc *peer, struct sockaddr_mrc *out)
{
	union inet_sa dst, src;
	socklen_t len;
	int fd, ok;

	memset(&dst, 0, sizeof(dst));
	if (peer->smrc_addr_family == AF_INET) {
		dst.sin.sin_family = AF_INET;
		dst.sin.sin_port = htons(MRC_DEFAULT_UDP_PORT);
		memcpy(&dst.sin.sin_addr, &peer->smrc_addr4, 4);
		len = sizeof(dst.sin);
	} else if (peer->smrc_addr_family == AF_INET6) {
		dst.sin6.sin6_family = AF_INET6;
		dst.sin6.sin6_port = htons(MRC_DEFAULT_UDP_PORT);
		memcpy(&dst.sin6.sin6_addr, peer->smrc_addr6, 16);
		dst.sin6.sin6_scope_id = peer->smrc_scope_id;
		len = sizeof(dst.sin6);
	} else {
		return false;
	}
	fd = real_socket(dst.sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	ok = !real_connect(fd, &dst.sa, len);
	len = sizeof(src);
	ok = ok && !real_getsockname(fd, &src.sa, &len);
	close(fd);
	if (!ok)
		return false;
	out->smrc_addr_family = peer->smrc_addr_family;
	if (src.sa.sa_family == AF_INET)
		memcpy(&out->smrc_addr4, &src.sin.sin_addr, 4);
	else
		memcpy(out->smrc_addr6, &src.sin6.sin6_addr, 16);
	return true;
}

/*
 * Put the MRC address @smrc into the program's @sa / @len, in @family,
 * with the kernel's semantics: copy what fits, report the full length.
 * An IPv6 peer cannot be told to an IPv4 socket: it reads 0.0.0.0.
 */
static void sa_from_mrc(const struct sockaddr_mrc *smrc, int family,
			struct sockaddr *sa, socklen_t *len)
{
	union inet_sa out;
	socklen_t n;

	memset(&out, 0, sizeof(out));
	if (family == AF_INET) {
		out.sin.sin_family = AF_INET;
		out.sin.sin_port = smrc->smrc_port;
		if (smrc->smrc_addr_family == AF_INET)
			memcpy(&out.sin.sin_addr, &smrc->smrc_addr4, 4);
		n = sizeof(out.sin);
	} else {
		out.sin6.sin6_family = AF_INET6;
		out.sin6.sin6_port = smrc->smrc_port;
		if (smrc->smrc_addr_family == AF_INET) {
			out.sin6.sin6_addr.s6_addr[10] = 0xff;
			out.sin6.sin6_addr.s6_addr[11] = 0xff;
			memcpy(&out.sin6.sin6_addr.s6_addr[12],
			       &smrc->smrc_addr4, 4);
		} else if (smrc->smrc_addr_family == AF_INET6) {
			memcpy(&out.sin6.sin6_addr, smrc->smrc_addr6, 16);
			out.sin6.sin6_scope_id = smrc->smrc_scope_id;
		}
		n = sizeof(out.sin6);
	}
	memcpy(sa, &out, *len < n ? *len : n);
	*len = n;
}

/*
 * After a call that filled @got (@got_len long) for the program's @sa /
 * @len: translate an MRC address, copy any other as it is.
 */
static void sa_out(int fd, const union inet_sa *got, socklen_t got_len,
		   struct sockaddr *sa, socklen_t *len)
{
	struct mrcize_sock *s;
	int family;

	if (got_len >= sizeof(got->smrc) && got->sa.sa_family == AF_MRC) {
		s = sock_get(fd);
		if (!s || sock_state(fd) != FD_MRC)
			s = sock_adopt(fd);
		if (s)
			family = s->family;
		else
			family = got->smrc.smrc_addr_family == AF_INET6 ?
				 AF_INET6 : AF_INET;
		sa_from_mrc(&got->smrc, family, sa, len);
		return;
	}
	memcpy(sa, got, *len < got_len ? *len : got_len);
	*len = got_len;
}

/* ------------------------------------------------------------------ */
/* The policy and the swap */

/*
 * Whether a bind (@connect false) or connect of @ia goes over MRC: 1 yes,
 * 0 no, -1 not yet (a bind to port 0 with a list of ports: the connect
 * that may follow decides).  @why says why not.
 */
static int policy_says(const struct inaddr *ia, bool connect, const char **why)
{
	*why = "port not listed";
	if (inaddr_loopback(ia) || (connect && inaddr_any(ia))) {
		*why = "loopback";
		return 0;
	}
	if (!inaddr_any(ia) && !mrcize_addr_listed(&policy, &ia->addr)) {
		*why = "address not listed";
		return 0;
	}
	if (!ia->port) {
		if (!policy.ports.nr)
			return 1;
		return connect ? 0 : -1;
	}
	if (mrcize_port_tcp(&policy, ia->port)) {
		*why = "port kept on TCP";
		return 0;
	}
	return mrcize_port_listed(&policy, ia->port);
}

static int mrc_setopt(int fd, int name, int val)
{
	return real_setsockopt(fd, SOL_MRC, name, &val, sizeof(val));
}

/* The SOL_MRC option of a TCP- or IP-level one, or 0. */
static int mrc_opt_of(int level, int name)
{
	if (level == IPPROTO_TCP) {
		switch (name) {
		case TCP_USER_TIMEOUT:
			return MRC_USER_TIMEOUT;
		case TCP_KEEPIDLE:
			return MRC_KEEPIDLE;
		case TCP_KEEPINTVL:
			return MRC_KEEPINTVL;
		case TCP_KEEPCNT:
			return MRC_KEEPCNT;
		}
	}
	if ((level == IPPROTO_IP && name == IP_TOS) ||
	    (level == IPPROTO_IPV6 && name == IPV6_TCLASS))
		return MRC_TCLASS;
	return 0;
}

/* Set a mapped option; the module may not know it yet (ENOPROTOOPT). */
static void mrc_setopt_mapped(int fd, int opt, int val)
{
	if (opt == MRC_TCLASS)
		val = val < 0 ? 0 : val & 0xfc;	/* DSCP; ECN is the stack's */
	if (mrc_setopt(fd, opt, val) < 0 && errno != ENOPROTOOPT)
		dbg("fd %d: SOL_MRC option %d = %d: %s", fd, opt, val,
		    strerror(errno));
}

/*
 * Give @fd an AF_MRC socket in place of its TCP one; under the lock.  The
 * options and flags the program gave the TCP socket are given to the new
 * one.  On failure, the errno of the failure, and a line on stderr: the
 * program asked for a socket that the policy sends over MRC, and it does
 * not silently get TCP instead.
 */
static int swap(int fd, struct mrcize_sock *s, const char *what,
		const struct inaddr *ia)
{
	int fl, fdfl, m, err, opt, val;
	struct mrcize_opt *o;
	char buf[64];
	unsigned int i;

	fl = fcntl(fd, F_GETFL);
	fdfl = fcntl(fd, F_GETFD);
	if (fl < 0 || fdfl < 0)
		return -1;
	m = real_socket(AF_MRC, SOCK_STREAM | SOCK_CLOEXEC |
			(fl & O_NONBLOCK ? SOCK_NONBLOCK : 0), 0);
	if (m < 0) {
		err = errno;
		say("%s %s: cannot open an MRC socket: %s", what,
		    inaddr_str(ia, buf, sizeof(buf)), strerror(err));
		errno = err;
		return -1;
	}
	for (i = 0; i < s->nr_opts; i++) {
		o = &s->opts[i];
		if (o->level == SOL_SOCKET) {
			if (real_setsockopt(m, SOL_SOCKET, o->name, o->val,
					    o->len) < 0)
				dbg("fd %d: SOL_SOCKET option %d not kept: %s",
				    fd, o->name, strerror(errno));
			continue;
		}
		opt = mrc_opt_of(o->level, o->name);
		if (opt && o->len >= sizeof(int)) {
			memcpy(&val, o->val, sizeof(val));
			mrc_setopt_mapped(m, opt, val);
		}
	}
	if (dup2(m, fd) < 0) {
		err = errno;
		close(m);
		errno = err;
		return -1;
	}
	close(m);
	if (fdfl & FD_CLOEXEC)
		fcntl(fd, F_SETFD, fdfl);
	sock_set_state(s, FD_MRC);
	dbg("fd %d: %s %s over MRC", fd, what, inaddr_str(ia, buf, sizeof(buf)));
	return 0;
}

/* The socket of @fd is the TCP socket it was made as. */
static bool fd_is_tcp(int fd, int family)
{
	return fd_sockopt_int(fd, SO_DOMAIN) == family &&
	       fd_sockopt_int(fd, SO_PROTOCOL) == IPPROTO_TCP;
}

/* A bind to port 0 left to TCP, done again on the MRC socket. */
static int rebind(int fd, struct mrcize_sock *s)
{
	struct sockaddr_mrc smrc;
	struct inaddr ia;

	if (!s->bind_len)
		return 0;
	inaddr_from(s->family, (struct sockaddr *)&s->bind_addr, s->bind_len,
		    &ia);
	inaddr_to_mrc(&ia, &smrc);
	return real_bind(fd, (struct sockaddr *)&smrc, sizeof(smrc));
}

/*
 * Decide for a candidate @fd about to bind or connect to @ia (or listen,
 * @ia the wildcard), and swap it if the policy says so: 1 swapped (or
 * already MRC), 0 TCP, -1 on error, -2 undecided.
 */
static int decide(int fd, const struct inaddr *ia, bool connect,
		  const char *what)
{
	struct mrcize_sock *s;
	const char *why = "";
	char buf[64];
	int rc, verdict;

	pthread_mutex_lock(&lock);
	s = sock_get(fd);
	rc = s ? s->state : FD_UNKNOWN;
	if (rc == FD_MRC) {
		rc = 1;
		goto out;
	}
	if (rc != FD_CANDIDATE) {
		rc = 0;
		goto out;
	}
	if (!fd_is_tcp(fd, s->family)) {
		sock_set_state(s, FD_NATIVE);
		rc = 0;
		goto out;
	}
	verdict = policy_says(ia, connect, &why);
	if (verdict < 0) {
		rc = -2;
		goto out;
	}
	if (!verdict) {
		sock_set_state(s, FD_TCP);
		dbg("fd %d: %s %s stays on TCP (%s)", fd, what,
		    inaddr_str(ia, buf, sizeof(buf)), why);
		rc = 0;
		goto out;
	}
	rc = swap(fd, s, what, ia) ? -1 : 1;
	if (rc == 1 && rebind(fd, s) < 0)
		rc = -1;
out:
	pthread_mutex_unlock(&lock);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Socket calls */

int socket(int domain, int type, int protocol)
{
	int fd, state = FD_NATIVE;

	NEED(real_socket);
	fd = real_socket(domain, type, protocol);
	if (fd < 0)
		return fd;
	if ((domain == AF_INET || domain == AF_INET6) &&
	    (type & 0xf) == SOCK_STREAM &&
	    (protocol == 0 || protocol == IPPROTO_TCP))
		state = FD_CANDIDATE;
	/* Other sockets get an entry only where one was, to reset it. */
	if (state == FD_CANDIDATE || domain == AF_MRC || sock_get(fd)) {
		pthread_mutex_lock(&lock);
		sock_reset(fd, state, domain);
		pthread_mutex_unlock(&lock);
	}
	return fd;
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct sockaddr_mrc smrc;
	struct mrcize_sock *s;
	struct inaddr ia;
	int state, rc;

	NEED(real_bind);
	state = sock_state(fd);
	s = sock_get(fd);
	if ((state != FD_CANDIDATE && state != FD_MRC) ||
	    !inaddr_from(s->family, addr, len, &ia))
		return real_bind(fd, addr, len);
	if (state == FD_CANDIDATE) {
		rc = decide(fd, &ia, false, WHAT_BIND);
		if (rc == -1)
			return -1;
		if (rc == -2) {
			rc = real_bind(fd, addr, len);
			if (!rc) {
				pthread_mutex_lock(&lock);
				s->bind_len = len < sizeof(s->bind_addr) ?
					      len : sizeof(s->bind_addr);
				memcpy(&s->bind_addr, addr, s->bind_len);
				pthread_mutex_unlock(&lock);
			}
			return rc;
		}
		if (!rc)
			return real_bind(fd, addr, len);
	} else if (!fd_is_mrc(fd)) {
		return real_bind(fd, addr, len);
	}
	inaddr_to_mrc(&ia, &smrc);
	return real_bind(fd, (struct sockaddr *)&smrc, sizeof(smrc));
}

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct sockaddr_mrc smrc;
	struct mrcize_sock *s;
	struct inaddr ia;
	int state, rc;

	NEED(real_connect);
	state = sock_state(fd);
	s = sock_get(fd);
	if ((state != FD_CANDIDATE && state != FD_MRC) ||
	    !inaddr_from(s->family, addr, len, &ia))
		return real_connect(fd, addr, len);
	if (state == FD_CANDIDATE) {
		rc = decide(fd, &ia, true, WHAT_CONNECT);
		if (rc == -1)
			return -1;
		if (!rc)
			return real_connect(fd, addr, len);
	} else if (!fd_is_mrc(fd)) {
		return real_connect(fd, addr, len);
	}
	inaddr_to_mrc(&ia, &smrc);
	return real_connect(fd, (struct sockaddr *)&smrc, sizeof(smrc));
}

int listen(int fd, int backlog)
{
	struct mrcize_sock *s;
	struct inaddr ia;
	int rc;

	NEED(real_listen);
	s = sock_get(fd);
	if (sock_state(fd) == FD_CANDIDATE) {
		/* Unbound, or bound to port 0 for TCP: the wildcard, port 0. */
		if (!s->bind_len || !inaddr_from(s->family,
						 (struct sockaddr *)&s->bind_addr,
						 s->bind_len, &ia)) {
			memset(&ia, 0, sizeof(ia));
			ia.v4 = s->family == AF_INET;
		}
		rc = decide(fd, &ia, false, WHAT_LISTEN);
		if (rc == -1)
			return -1;
		if (rc == -2) {
			/* A listener on a port of TCP's choosing: TCP. */
			pthread_mutex_lock(&lock);
			if (s->state == FD_CANDIDATE)
				sock_set_state(s, FD_TCP);
			pthread_mutex_unlock(&lock);
		}
	}
	rc = real_listen(fd, backlog);
	if (!rc && sock_state(fd) == FD_MRC)
		s->listening = true;
	return rc;
}

/* An accepted socket: one of ours if its listener is. */
static int accepted(int lfd, int fd)
{
	struct mrcize_sock *l = sock_get(lfd);

	if (fd < 0)
		return fd;
	pthread_mutex_lock(&lock);
	if (sock_state(lfd) == FD_MRC)
		sock_reset(fd, FD_MRC, l->family);
	else if (sock_get(fd))
		sock_reset(fd, FD_NATIVE, 0);
	pthread_mutex_unlock(&lock);
	return fd;
}

/* Whether the caller's address buffer can be filled through ours. */
static bool sa_usable(struct sockaddr *sa, socklen_t *len)
{
	return sa && len && (int)*len >= 0;
}

static int do_accept(int fd, struct sockaddr *sa, socklen_t *len, int flags,
		     bool four)
{
	union inet_sa got;
	socklen_t got_len = sizeof(got);
	int nfd;

	if (!sa_usable(sa, len)) {
		nfd = four ? real_accept4(fd, sa, len, flags) :
			     real_accept(fd, sa, len);
		return accepted(fd, nfd);
	}
	nfd = four ? real_accept4(fd, &got.sa, &got_len, flags) :
		     real_accept(fd, &got.sa, &got_len);
	if (nfd < 0)
		return nfd;
	accepted(fd, nfd);
	sa_out(nfd, &got, got_len, sa, len);
	return nfd;
}

int accept(int fd, struct sockaddr *sa, socklen_t *len)
{
	NEED(real_accept);
	return do_accept(fd, sa, len, 0, false);
}

int accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags)
{
	NEED(real_accept4);
	return do_accept(fd, sa, len, flags, true);
}

int getsockname(int fd, struct sockaddr *sa, socklen_t *len)
{
	union inet_sa got, peer;
	socklen_t got_len = sizeof(got), plen = sizeof(peer);
	int state;

	NEED(real_getsockname);
	state = sock_state(fd);
	if ((state != FD_MRC && state != FD_UNKNOWN) || !sa_usable(sa, len))
		return real_getsockname(fd, sa, len);
	if (real_getsockname(fd, &got.sa, &got_len) < 0)
		return -1;
	/* Bound to the wildcard but connected: the plane's address. */
	if (got.sa.sa_family == AF_MRC && !got.smrc.smrc_addr_family &&
	    !real_getpeername(fd, &peer.sa, &plen) &&
	    peer.sa.sa_family == AF_MRC)
		route_source(&peer.smrc, &got.smrc);
	sa_out(fd, &got, got_len, sa, len);
	return 0;
}

int getpeername(int fd, struct sockaddr *sa, socklen_t *len)
{
	union inet_sa got;
	socklen_t got_len = sizeof(got);
	int state;

	NEED(real_getpeername);
	state = sock_state(fd);
	if ((state != FD_MRC && state != FD_UNKNOWN) || !sa_usable(sa, len))
		return real_getpeername(fd, sa, len);
	if (real_getpeername(fd, &got.sa, &got_len) < 0)
		return -1;
	sa_out(fd, &got, got_len, sa, len);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Options */

static struct mrcize_opt *opt_find(struct mrcize_sock *s, int level, int name)
{
	unsigned int i;

	for (i = 0; i < s->nr_opts; i++)
		if (s->opts[i].level == level && s->opts[i].name == name)
			return &s->opts[i];
	return NULL;
}

/* Remember an option the program set; under the lock. */
static void opt_keep(int fd, struct mrcize_sock *s, int level, int name,
		     const void *val, socklen_t len)
{
	struct mrcize_opt *o = opt_find(s, level, name);

	if (!val || len > MRCIZE_OPT_SIZE) {
		dbg("fd %d: option %d/%d not remembered (%u bytes)", fd, level,
		    name, len);
		return;
	}
	if (!o) {
		if (s->nr_opts == MRCIZE_OPTS) {
			dbg("fd %d: too many options to remember", fd);
			return;
		}
		o = &s->opts[s->nr_opts++];
		o->level = level;
		o->name = name;
	}
	o->len = len;
	memcpy(o->val, val, len);
}

static bool level_emulated(int level)
{
	return level == IPPROTO_TCP || level == IPPROTO_IP ||
	       level == IPPROTO_IPV6;
}

static bool opt_is_string(int level, int name)
{
	return level == IPPROTO_TCP &&
	       (name == TCP_CONGESTION || name == TCP_ULP);
}

/* TCP's own range checks of the options that have one. */
static bool opt_valid(int level, int name, int v)
{
	if (level != IPPROTO_TCP)
		return level != IPPROTO_IPV6 || name != IPV6_TCLASS ||
		       (v >= -1 && v <= 0xff);
	switch (name) {
	case TCP_KEEPIDLE:
	case TCP_KEEPINTVL:
		return v >= 1 && v <= 32767;
	case TCP_KEEPCNT:
		return v >= 1 && v <= 127;
	case TCP_USER_TIMEOUT:
		return v >= 0;
	}
	return true;
}

/* A TCP- or IP-level option set on an AF_MRC socket. */
static int emulate_set(int fd, struct mrcize_sock *s, int level, int name,
		       const void *val, socklen_t len)
{
	int v = 0, opt;

	if (!opt_is_string(level, name)) {
		if (!val || len < (level == IPPROTO_TCP ? sizeof(int) : 1)) {
			errno = !val ? EFAULT : EINVAL;
			return -1;
		}
		if (len >= sizeof(int))
			memcpy(&v, val, sizeof(v));
		else
			v = *(const unsigned char *)val;
		if (!opt_valid(level, name, v)) {
			errno = EINVAL;
			return -1;
		}
		opt = mrc_opt_of(level, name);
		if (opt)
			mrc_setopt_mapped(fd, opt, v);
	}
	pthread_mutex_lock(&lock);
	opt_keep(fd, s, level, name, val, len);
	pthread_mutex_unlock(&lock);
	return 0;
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct mrcize_sock *s;
	int state, rc;

	NEED(real_setsockopt);
	state = sock_state(fd);
	s = sock_get(fd);
	switch (state) {
	case FD_CANDIDATE:
		rc = real_setsockopt(fd, level, name, val, len);
		if (!rc && (level == SOL_SOCKET || level_emulated(level))) {
			pthread_mutex_lock(&lock);
			if (s->state == FD_CANDIDATE)
				opt_keep(fd, s, level, name, val, len);
			pthread_mutex_unlock(&lock);
		}
		return rc;
	case FD_MRC:
		if (!level_emulated(level))
			return real_setsockopt(fd, level, name, val, len);
		if (fd_is_mrc(fd))
			return emulate_set(fd, s, level, name, val, len);
		pthread_mutex_lock(&lock);
		sock_reset(fd, FD_NATIVE, 0);
		pthread_mutex_unlock(&lock);
		return real_setsockopt(fd, level, name, val, len);
	case FD_UNKNOWN:
		rc = real_setsockopt(fd, level, name, val, len);
		if (rc < 0 && errno == ENOPROTOOPT && level_emulated(level)) {
			s = sock_adopt(fd);
			if (s)
				return emulate_set(fd, s, level, name, val, len);
			errno = ENOPROTOOPT;
		}
		return rc;
	}
	return real_setsockopt(fd, level, name, val, len);
}

/* Copy an int option out as TCP does: at most an int, the length set. */
static int put_int(void *val, socklen_t *len, int v)
{
	socklen_t n = *len < sizeof(int) ? *len : sizeof(int);

	if ((int)*len < 0) {
		errno = EINVAL;
		return -1;
	}
	memcpy(val, &v, n);
	*len = n;
	return 0;
}

static int put_bytes(void *val, socklen_t *len, const void *p, socklen_t size)
{
	socklen_t n = *len < size ? *len : size;

	if ((int)*len < 0) {
		errno = EINVAL;
		return -1;
	}
	memcpy(val, p, n);
	*len = n;
	return 0;
}

static bool mrc_info_get(int fd, struct mrc_info *mi)
{
	socklen_t len = sizeof(*mi);

	memset(mi, 0, sizeof(*mi));
	return !real_getsockopt(fd, SOL_MRC, MRC_INFO, mi, &len);
}

static unsigned char tcp_state_of(const struct mrcize_sock *s,
				  const struct mrc_info *mi)
{
	if (s->listening)
		return 10;			/* TCP_LISTEN */
	switch (mi->mrci_state) {
	case MRC_CONN_STATE_SYN_SENT:
		return 2;			/* TCP_SYN_SENT */
	case MRC_CONN_STATE_ESTABLISHED:
		return 1;			/* TCP_ESTABLISHED */
	case MRC_CONN_STATE_CLOSING:
		return 4;			/* TCP_FIN_WAIT1 */
	case MRC_CONN_STATE_SYN_RECV:
		return 3;			/* TCP_SYN_RECV */
	}
	return 7;				/* TCP_CLOSE */
}

/* TCP_INFO from MRC_INFO: what has a meaning on both. */
static int tcp_info_get(int fd, struct mrcize_sock *s, void *val,
			socklen_t *len)
{
	struct tcp_info ti;
	struct mrc_info mi;

	memset(&ti, 0, sizeof(ti));
	if (mrc_info_get(fd, &mi)) {
		ti.tcpi_state = tcp_state_of(s, &mi);
		ti.tcpi_rto = mi.mrci_rto_us;
		ti.tcpi_snd_mss = mi.mrci_mss;
		ti.tcpi_rcv_mss = mi.mrci_mss;
		ti.tcpi_advmss = mi.mrci_mss;
		ti.tcpi_unacked = mi.mrci_inflight;
		ti.tcpi_rtt = mi.mrci_srtt_us;
		ti.tcpi_rttvar = mi.mrci_srtt_us / 2;
		ti.tcpi_min_rtt = mi.mrci_srtt_us;
		ti.tcpi_snd_cwnd = mi.mrci_snd_wnd;
		ti.tcpi_snd_ssthresh = 0x7fffffff;	/* TCP_INFINITE_SSTHRESH */
		ti.tcpi_total_retrans = mi.mrci_retransmits;
		ti.tcpi_segs_out = mi.mrci_tx_packets;
		ti.tcpi_segs_in = mi.mrci_rx_packets;
		ti.tcpi_bytes_sent = mi.mrci_tx_bytes;
		ti.tcpi_snd_wnd = mi.mrci_snd_wnd * mi.mrci_mss;
		ti.tcpi_rcv_space = mi.mrci_rcv_wnd * mi.mrci_mss;
	} else {
		ti.tcpi_state = s->listening ? 10 : 7;
	}
	return put_bytes(val, len, &ti, sizeof(ti));
}

static int emulate_get(int fd, struct mrcize_sock *s, int level, int name,
		       void *val, socklen_t *len)
{
	char ca[TCP_CA_NAME_MAX] = "mrc";
	struct mrcize_opt *o, copy;
	struct mrc_info mi;
	socklen_t n = sizeof(int);
	int v = 0, opt;

	if (!val || !len) {
		errno = EFAULT;
		return -1;
	}
	if (level == IPPROTO_TCP && name == TCP_INFO)
		return tcp_info_get(fd, s, val, len);
	pthread_mutex_lock(&lock);
	o = opt_find(s, level, name);
	if (o)
		copy = *o;
	pthread_mutex_unlock(&lock);

	if (level == IPPROTO_TCP && name == TCP_MAXSEG) {
		if (mrc_info_get(fd, &mi) && mi.mrci_mss)
			return put_int(val, len, mi.mrci_mss);
		if (o && copy.len >= sizeof(int))
			memcpy(&v, copy.val, sizeof(v));
		return put_int(val, len, v ? v : TCP_DEF_MSS);
	}
	if (opt_is_string(level, name)) {
		if (o || name == TCP_ULP)
			memset(ca, 0, sizeof(ca));
		if (o)
			memcpy(ca, copy.val, copy.len < sizeof(ca) ?
			       copy.len : sizeof(ca));
		return put_bytes(val, len, ca, sizeof(ca));
	}
	opt = mrc_opt_of(level, name);
	/*
	 * The kernel reads the user timeout in force, the namespace's unless
	 * set; TCP reads what the program set, 0 for none.
	 */
	if (opt && opt != MRC_USER_TIMEOUT &&
	    !real_getsockopt(fd, SOL_MRC, opt, &v, &n) && v)
		return put_int(val, len, v);
	if (o) {
		if (copy.len >= sizeof(int))
			memcpy(&v, copy.val, sizeof(v));
		else
			v = copy.val[0];
		if (opt == MRC_TCLASS)
			v = v < 0 ? 0 : v & 0xfc;
		return put_int(val, len, v);
	}
	if (level == IPPROTO_TCP) {
		switch (name) {
		case TCP_KEEPIDLE:
			v = TCP_DEF_KEEPIDLE;
			break;
		case TCP_KEEPINTVL:
			v = TCP_DEF_KEEPINTVL;
			break;
		case TCP_KEEPCNT:
			v = TCP_DEF_KEEPCNT;
			break;
		}
	}
	return put_int(val, len, v);
}

int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct mrcize_sock *s;
	int state, rc;

	NEED(real_getsockopt);
	state = sock_state(fd);
	s = sock_get(fd);
	if (state == FD_MRC && level == SOL_SOCKET && val && len) {
		if (name == SO_DOMAIN)
			return put_int(val, len, s->family);
		if (name == SO_PROTOCOL)
			return put_int(val, len, IPPROTO_TCP);
	}
	if (state == FD_MRC && level_emulated(level)) {
		if (fd_is_mrc(fd))
			return emulate_get(fd, s, level, name, val, len);
		pthread_mutex_lock(&lock);
		sock_reset(fd, FD_NATIVE, 0);
		pthread_mutex_unlock(&lock);
	}
	rc = real_getsockopt(fd, level, name, val, len);
	if (rc < 0 && state == FD_UNKNOWN && errno == ENOPROTOOPT &&
	    level_emulated(level)) {
		s = sock_adopt(fd);
		if (s)
			return emulate_get(fd, s, level, name, val, len);
		errno = ENOPROTOOPT;
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* Data calls that carry an address */

/*
 * A send with an address on a stream socket: TCP ignores the address but
 * with MSG_FASTOPEN, where it connects first.
 */
static int send_connect(int fd, int flags, const struct sockaddr *addr,
			socklen_t len)
{
	if (!(flags & MSG_FASTOPEN) || !addr)
		return 0;
	if (connect(fd, addr, len) < 0 && errno != EISCONN)
		return -1;
	return 0;
}

ssize_t sendto(int fd, const void *buf, size_t n, int flags,
	       const struct sockaddr *addr, socklen_t len)
{
	int state;

	NEED(real_sendto);
	state = sock_state(fd);
	if (!addr || (state != FD_CANDIDATE && state != FD_MRC))
		return real_sendto(fd, buf, n, flags, addr, len);
	if (send_connect(fd, flags, addr, len) < 0)
		return -1;
	if (sock_state(fd) != FD_MRC)
		return real_sendto(fd, buf, n, flags, addr, len);
	return real_sendto(fd, buf, n, flags & ~MSG_FASTOPEN, NULL, 0);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct msghdr m;
	int state;

	NEED(real_sendmsg);
	state = sock_state(fd);
	if (!msg || !msg->msg_name ||
	    (state != FD_CANDIDATE && state != FD_MRC))
		return real_sendmsg(fd, msg, flags);
	if (send_connect(fd, flags, msg->msg_name, msg->msg_namelen) < 0)
		return -1;
	if (sock_state(fd) != FD_MRC)
		return real_sendmsg(fd, msg, flags);
	m = *msg;
	m.msg_name = NULL;
	m.msg_namelen = 0;
	return real_sendmsg(fd, &m, flags & ~MSG_FASTOPEN);
}

ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *sa,
		 socklen_t *len)
{
	union inet_sa got;
	socklen_t got_len = sizeof(got);
	ssize_t rc;
	int state;

	NEED(real_recvfrom);
	state = sock_state(fd);
	if ((state != FD_MRC && state != FD_UNKNOWN) || !sa_usable(sa, len))
		return real_recvfrom(fd, buf, n, flags, sa, len);
	rc = real_recvfrom(fd, buf, n, flags, &got.sa, &got_len);
	if (rc >= 0)
		sa_out(fd, &got, got_len, sa, len);
	return rc;
}

/* recvfrom() of programs built with _FORTIFY_SOURCE. */
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
		       struct sockaddr *sa, socklen_t *len);
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
		       struct sockaddr *sa, socklen_t *len)
{
	NEED(real_recvfrom);
	if (n > buflen && real_recvfrom_chk)
		return real_recvfrom_chk(fd, buf, n, buflen, flags, sa, len);
	return recvfrom(fd, buf, n, flags, sa, len);
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct msghdr m;
	union inet_sa got;
	ssize_t rc;
	int state;

	NEED(real_recvmsg);
	state = sock_state(fd);
	if ((state != FD_MRC && state != FD_UNKNOWN) || !msg ||
	    !msg->msg_name || (int)msg->msg_namelen < 0)
		return real_recvmsg(fd, msg, flags);
	m = *msg;
	m.msg_name = &got;
	m.msg_namelen = sizeof(got);
	rc = real_recvmsg(fd, &m, flags);
	if (rc < 0)
		return rc;
	sa_out(fd, &got, m.msg_namelen, msg->msg_name, &msg->msg_namelen);
	msg->msg_controllen = m.msg_controllen;
	msg->msg_flags = m.msg_flags;
	return rc;
}
