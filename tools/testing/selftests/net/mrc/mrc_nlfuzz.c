// SPDX-License-Identifier: GPL-2.0
/*
 * Random and broken requests to the "mrc" generic netlink family, for
 * localuser.sh.
 *
 * mrc_nlfuzz [-n COUNT] [-S SEED] [-i CONN_ID] [-u]
 *
 * Sends COUNT requests (default 3000) over a NETLINK_GENERIC socket in the
 * caller's namespace: every command of the family and some that do not
 * exist, as do and as dump, with attributes of every type the family
 * knows and some it does not: wrong lengths, boundary and huge values,
 * strings with and without their NUL, nests of garbage, lengths that run
 * past the message, several requests in one datagram, and now and then a
 * message type or header that is not the family's.  CONN_ID, a connection
 * of the namespace, is asked for now and then.  After each request, a
 * config-get with NLM_F_ACK marks where its answers end.
 *
 * Checked:
 *  - every message that comes back is well formed: an ACK or an error
 *    with an errno (-4095 to -1), NLMSG_DONE, or a message of the family
 *    with a known command and attributes that fit;
 *  - every request that reached the family with NLM_F_ACK is answered by
 *    an ACK, an error or NLMSG_DONE, and a dump always ends;
 *  - with -u (an unprivileged caller): no request for a change
 *    (plane-add, plane-del, plane-set, config-set) succeeds, and each one
 *    that reached the family as a do request with a clean header (reserved
 *    byte zero, no nlmsg_flags beyond REQUEST, ACK and ECHO, which the
 *    family may check first) is refused with EPERM;
 *  - the notifications of the "monitor" group, which a second socket
 *    listens to, are well formed too.
 *
 * Prints one line of counts; failures on stderr; exits 1 on any.
 */

#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/mrc_netlink.h>

#include "mrc_local.h"

#define BUF_SIZE	(64 << 10)
#define MAX_ERRNO	4095

static int family_id, monitor_grp;
static unsigned int seq = 1000;
static bool unprivileged;
static unsigned int conn_id;

/* Counts for the summary. */
static unsigned long long n_requests, n_datagrams, n_acks, n_errors;
static unsigned long long n_dones, n_replies, n_ntf, n_eperm;
static unsigned long long errno_count[MAX_ERRNO + 1];

struct request {
	unsigned int seq;
	unsigned short type;
	unsigned short flags;
	unsigned int len;
	int cmd;
	bool answerable;	/* reached the family, with NLM_F_ACK */
	bool must_eperm;	/* unprivileged change, clean header */
	bool must_fail;		/* unprivileged change */
	bool answered;
	bool dump_parts;
};

#define MAX_BATCH	3

static struct request reqs[MAX_BATCH];
static int nreqs;

static struct request *find_req(unsigned int s)
{
	int i;

	for (i = 0; i < nreqs; i++)
		if (reqs[i].seq == s)
			return &reqs[i];
	return NULL;
}

/* Building messages */

struct msg {
	char *buf;
	size_t len;		/* bytes written */
	size_t start;		/* where the current message starts */
};

static void *put(struct msg *m, const void *data, size_t len)
{
	void *p = m->buf + m->len;

	if (m->len + len > BUF_SIZE)
		mrc_die("message too large");
	if (data)
		memcpy(p, data, len);
	else
		memset(p, 0, len);
	m->len += len;
	return p;
}

static void align(struct msg *m)
{
	while (m->len % NLA_ALIGNTO)
		put(m, NULL, 1);
}

static void put_attr(struct msg *m, unsigned short type, const void *data,
		     size_t len)
{
	struct nlattr nla = { .nla_len = NLA_HDRLEN + len, .nla_type = type };

	put(m, &nla, sizeof(nla));
	put(m, data, len);
	align(m);
}

/* Values that sit on the edges of the policies, or far from them. */
static unsigned long long edge(unsigned long long *s)
{
	static const unsigned long long vals[] = {
		0, 1, 2, 3, 4, 15, 16, 17, 31, 32, 255, 256, 257, 1024, 4793,
		65535, 65536, 0x7fffffff, 0x80000000, 0xffffffff,
		0x100000000ULL, ~0ULL,
	};

	if (mrc_range(s, 0, 4))
		return vals[mrc_range(s, 0, ARRAY_SIZE(vals) - 1)];
	return mrc_rand(s);
}

static const char * const names[] = {
	"veth1", "veth2", "veth3", "lo", "dummy0", "", "nosuchdevice",
	"0123456789abcde", "0123456789abcdef", "0123456789abcdefg",
	"veth1\xff", "%s%n%s",
};

/* A payload for an attribute: any length, any bytes. */
static void put_payload_attr(struct msg *m, unsigned long long *s,
			     unsigned short type)
{
	static const size_t lens[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17,
				       32, 255, 256 };
	unsigned long long v = edge(s);
	char data[512];
	size_t len;
	const char *name;

	switch (mrc_range(s, 0, 9)) {
	case 0:
		len = 1;
		data[0] = v;
		break;
	case 1:
		len = 2;
		memcpy(data, &v, 2);
		break;
	case 2: case 3:
		len = 4;
		memcpy(data, &v, 4);
		break;
	case 4:
		len = 8;
		memcpy(data, &v, 8);
		break;
	case 5:		/* a string, with its NUL or without */
		name = names[mrc_range(s, 0, ARRAY_SIZE(names) - 1)];
		len = strlen(name) + mrc_range(s, 0, 1);
		memcpy(data, name, len);
		break;
	case 6:		/* an IPv6 address, or nearly */
		len = mrc_range(s, 15, 17);
		memset(data, 0, len);
		data[0] = 0xfd;
		data[15] = mrc_range(s, 1, 3);
		break;
	default:
		len = lens[mrc_range(s, 0, ARRAY_SIZE(lens) - 1)];
		for (v = 0; v < len; v++)
			data[v] = mrc_rand(s);
		break;
	}
	put_attr(m, type, data, len);
}

static unsigned short attr_type(unsigned long long *s, int max)
{
	unsigned short type;

	if (mrc_range(s, 0, 4))
		type = mrc_range(s, 1, max);
	else
		type = mrc_range(s, 0, 3) ? mrc_range(s, 0, max + 4) : mrc_rand(s);
	if (!mrc_range(s, 0, 15))
		type |= NLA_F_NESTED;
	if (!mrc_range(s, 0, 31))
		type |= NLA_F_NET_BYTEORDER;
	return type;
}

/* A nest of garbage, maybe nested again, maybe with broken lengths. */
static void put_nest(struct msg *m, unsigned long long *s, int depth)
{
	size_t at = m->len;
	struct nlattr *nla;
	int i, n = mrc_range(s, 0, 4);

	put(m, NULL, NLA_HDRLEN);
	for (i = 0; i < n; i++) {
		if (depth < 3 && !mrc_range(s, 0, 3))
			put_nest(m, s, depth + 1);
		else
			put_payload_attr(m, s, attr_type(s, 24));
	}
	nla = (struct nlattr *)(m->buf + at);
	nla->nla_type = attr_type(s, 24) | (mrc_range(s, 0, 3) ? NLA_F_NESTED : 0);
	nla->nla_len = m->len - at;
	if (!mrc_range(s, 0, 7))
		nla->nla_len += mrc_range(s, -4, 8);
}

/* Attributes that the policies accept, with values that may not work. */
static void put_plausible(struct msg *m, unsigned long long *s, int cmd)
{
	unsigned int u32v;
	unsigned short u16v;
	unsigned char u8v;
	const char *name;

	switch (cmd) {
	case MRC_CMD_CONFIG_GET:
	case MRC_CMD_CONFIG_SET:
		if (mrc_range(s, 0, 1)) {
			/* The port only changes while no plane exists. */
			u16v = mrc_range(s, 0, 2) ? 4793 : mrc_range(s, 1, 65535);
			put_attr(m, MRC_CONFIG_ATTR_UDP_PORT, &u16v, 2);
		}
		if (mrc_range(s, 0, 1)) {
			u32v = mrc_range(s, 1, MRC_EVS_MAX);
			put_attr(m, MRC_CONFIG_ATTR_DEFAULT_EVS, &u32v, 4);
		}
		break;
	case MRC_CMD_CONN_GET:
		u32v = conn_id && mrc_range(s, 0, 1) ? conn_id : edge(s);
		put_attr(m, MRC_CONN_ATTR_ID, &u32v, 4);
		break;
	default:
		if (mrc_range(s, 0, 1)) {
			u32v = mrc_range(s, 0, MRC_PLANE_ID_MAX);
			put_attr(m, MRC_PLANE_ATTR_ID, &u32v, 4);
		}
		if (mrc_range(s, 0, 1)) {
			name = names[mrc_range(s, 0, 4)];
			put_attr(m, MRC_PLANE_ATTR_IFNAME, name, strlen(name) + 1);
		} else if (mrc_range(s, 0, 1)) {
			u32v = mrc_range(s, 1, 8);
			put_attr(m, MRC_PLANE_ATTR_IFINDEX, &u32v, 4);
		}
		if (!mrc_range(s, 0, 2)) {
			u8v = mrc_range(s, 0, 1);
			put_attr(m, MRC_PLANE_ATTR_ADMIN_UP, &u8v, 1);
		}
		if (!mrc_range(s, 0, 2)) {
			u32v = mrc_range(s, 1, MRC_EVS_MAX);
			put_attr(m, MRC_PLANE_ATTR_EVS, &u32v, 4);
		}
		if (!mrc_range(s, 0, 3)) {
			u32v = htonl(0x0a000000 | mrc_range(s, 0, 0xffff));
			put_attr(m, MRC_PLANE_ATTR_ADDR4, &u32v, 4);
		}
		break;
	}
}

static bool is_change(int cmd)
{
	return cmd == MRC_CMD_PLANE_ADD || cmd == MRC_CMD_PLANE_DEL ||
	       cmd == MRC_CMD_PLANE_SET || cmd == MRC_CMD_CONFIG_SET;
}

static int attr_max(int cmd)
{
	switch (cmd) {
	case MRC_CMD_CONFIG_GET:
	case MRC_CMD_CONFIG_SET:
		return MRC_CONFIG_ATTR_MAX;
	case MRC_CMD_CONN_GET:
		return MRC_CONN_ATTR_MAX;
	case MRC_CMD_STATS_GET:
		return MRC_STATS_ATTR_MAX;
	default:
		return MRC_PLANE_ATTR_MAX;
	}
}

/*
 * One request at the end of @m, recorded in reqs[]; a broken length only
 * in the @last of a datagram, as the kernel stops reading there.
 */
static void build_request(struct msg *m, unsigned long long *s, bool last)
{
	static const unsigned short odd_flags[] = {
		NLM_F_ECHO, NLM_F_ROOT, NLM_F_MATCH, NLM_F_ATOMIC,
		NLM_F_REPLACE, NLM_F_EXCL, NLM_F_CREATE, NLM_F_APPEND,
		NLM_F_NONREC, NLM_F_DUMP_INTR,
	};
	struct request *r = &reqs[nreqs++];
	struct genlmsghdr *g;
	struct nlmsghdr *nlh;
	bool framed = true, ours = true, whole = true, clean = true;
	unsigned short f;
	int i, n;

	m->start = m->len;
	nlh = put(m, NULL, NLMSG_HDRLEN);
	nlh->nlmsg_type = family_id;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++seq;
	if (!mrc_range(s, 0, 31)) {
		/*
		 * Netlink's own types, or ids that no family is likely to
		 * have: other families are not for this test to change.
		 */
		nlh->nlmsg_type = mrc_range(s, 0, 1) ? mrc_range(s, 0, NLMSG_MIN_TYPE - 1) :
				  mrc_range(s, 0xf000, 0xffff);
		ours = false;
	}
	r->type = nlh->nlmsg_type;
	if (!mrc_range(s, 0, 3))
		nlh->nlmsg_flags |= NLM_F_DUMP;
	for (i = 0; i < (int)ARRAY_SIZE(odd_flags); i++)
		if (!mrc_range(s, 0, 23))
			nlh->nlmsg_flags |= odd_flags[i];
	if (!mrc_range(s, 0, 31))
		nlh->nlmsg_flags &= ~NLM_F_REQUEST;
	if (!mrc_range(s, 0, 31))
		nlh->nlmsg_flags &= ~NLM_F_ACK;

	r->seq = nlh->nlmsg_seq;
	r->cmd = mrc_range(s, 0, 9) ? mrc_range(s, 1, MRC_CMD_MAX) :
		 mrc_range(s, 0, 255);
	if (mrc_range(s, 0, 63)) {
		g = put(m, NULL, GENL_HDRLEN);
		g->cmd = r->cmd;
		g->version = mrc_range(s, 0, 7) ? MRC_FAMILY_VERSION : mrc_range(s, 0, 255);
		g->reserved = mrc_range(s, 0, 7) ? 0 : mrc_rand(s);
		clean = !g->reserved;
	} else {
		/*
		 * Too short for the generic netlink header: what follows, if
		 * anything, is read as its rest (or all of it).
		 */
		n = mrc_range(s, 0, GENL_HDRLEN - 1);
		put(m, &r->cmd, n);
		align(m);
		whole = n > 0;
	}

	n = mrc_range(s, 0, 6);
	if (mrc_range(s, 0, 2))
		put_plausible(m, s, r->cmd);
	for (i = 0; i < n; i++) {
		if (!mrc_range(s, 0, 9))
			put_nest(m, s, 0);
		else
			put_payload_attr(m, s, attr_type(s, attr_max(r->cmd)));
	}
	if (!mrc_range(s, 0, 15)) {
		/* An attribute whose length runs past the message. */
		struct nlattr *last = put(m, NULL, NLA_HDRLEN);

		last->nla_type = attr_type(s, attr_max(r->cmd));
		last->nla_len = mrc_range(s, 0, 1) ? mrc_range(s, 0, 3) :
				NLA_HDRLEN + mrc_range(s, 1, 64);
	}
	nlh = (struct nlmsghdr *)(m->buf + m->start);
	nlh->nlmsg_len = m->len - m->start;
	if (last && !mrc_range(s, 0, 31)) {
		/* A length that does not say where the message ends. */
		nlh->nlmsg_len = mrc_range(s, 0, 1) ? mrc_range(s, 0, NLMSG_HDRLEN - 1) :
				 nlh->nlmsg_len + mrc_range(s, 1, 64);
		framed = false;
	}
	r->answerable = framed && ours && (nlh->nlmsg_flags & NLM_F_REQUEST) &&
			(nlh->nlmsg_flags & NLM_F_ACK);
	f = nlh->nlmsg_flags;
	if ((f & NLM_F_DUMP) == NLM_F_DUMP)
		f &= ~NLM_F_DUMP;
	if (f & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO))
		clean = false;
	r->must_fail = unprivileged && ours && whole && is_change(r->cmd);
	r->must_eperm = r->must_fail && framed && clean &&
			(nlh->nlmsg_flags & NLM_F_REQUEST) &&
			nlh->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN &&
			(nlh->nlmsg_flags & NLM_F_DUMP) != NLM_F_DUMP;
	r->answered = false;
	r->dump_parts = false;
	r->flags = nlh->nlmsg_flags;
	r->len = nlh->nlmsg_len;
}

/* Reading and checking */

static bool attrs_fit(const char *p, size_t len, int depth)
{
	const struct nlattr *nla;

	while (len >= NLA_HDRLEN) {
		nla = (const struct nlattr *)p;
		if (nla->nla_len < NLA_HDRLEN || nla->nla_len > len)
			return false;
		if ((nla->nla_type & NLA_F_NESTED) && depth < 4 &&
		    !attrs_fit(p + NLA_HDRLEN, nla->nla_len - NLA_HDRLEN, depth + 1))
			return false;
		if (NLA_ALIGN(nla->nla_len) >= len)
			return true;
		p += NLA_ALIGN(nla->nla_len);
		len -= NLA_ALIGN(nla->nla_len);
	}
	return len == 0;
}

/* Whether @cmd is a notification's: of the "monitor" group, or another. */
static bool is_ntf(int cmd, bool monitor)
{
	if (cmd >= MRC_CMD_PLANE_ADD_NTF && cmd <= MRC_CMD_CONFIG_CHANGE_NTF)
		return true;
	return !monitor && cmd >= MRC_CMD_CONN_UP_NTF &&
	       cmd <= MRC_CMD_EV_RESTORE_NTF;
}

/* A message of the family: a reply or a notification of "monitor". */
static void check_family_msg(const struct nlmsghdr *nlh, bool ntf)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	int cmd;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN) {
		mrc_fail("message of the family with %u bytes", nlh->nlmsg_len);
		return;
	}
	cmd = g->cmd;
	if (ntf ? !is_ntf(cmd, true) :
	    (cmd < MRC_CMD_PLANE_GET || cmd > MRC_CMD_MAX || is_ntf(cmd, false)))
		mrc_fail("%s with command %d", ntf ? "notification" : "reply", cmd);
	/* Nests are marked as such: check them as well. */
	if (!attrs_fit((const char *)g + GENL_HDRLEN,
		       nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, 0))
		mrc_fail("%s (command %d) whose attributes do not fit",
			 ntf ? "notification" : "reply", cmd);
}

/* The kernel's reason in an error's extended ACK, or "". */
static const char *ext_msg(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	const struct nlattr *nla;
	size_t off = NLMSG_HDRLEN + sizeof(*e), len;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return "";
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
	while (off + NLA_HDRLEN <= nlh->nlmsg_len) {
		nla = (const struct nlattr *)((const char *)nlh + off);
		len = nla->nla_len;
		if (len < NLA_HDRLEN || off + len > nlh->nlmsg_len)
			break;
		if (nla->nla_type == NLMSGERR_ATTR_MSG && len > NLA_HDRLEN &&
		    ((const char *)nla)[len - 1] == 0)
			return (const char *)(nla + 1);
		off += NLA_ALIGN(len);
	}
	return "";
}

static void check_error(const struct nlmsghdr *nlh, struct request *r)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	int err;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e)) {
		mrc_fail("NLMSG_ERROR of %u bytes", nlh->nlmsg_len);
		return;
	}
	err = -e->error;
	if (err < 0 || err > MAX_ERRNO) {
		mrc_fail("NLMSG_ERROR with error %d", e->error);
		return;
	}
	if (r) {
		r->answered = true;
		if (r->must_eperm && err != EPERM)
			mrc_fail("unprivileged command %d (flags %#x, %u bytes): %s (%s)",
				 r->cmd, r->flags, r->len, err ? strerror(err) : "done",
				 ext_msg(nlh));
		if (r->must_eperm && err == EPERM)
			n_eperm++;
		if (r->must_fail && !err && (r->flags & NLM_F_REQUEST))
			mrc_fail("unprivileged command %d (flags %#x, %u bytes) succeeded",
				 r->cmd, r->flags, r->len);
	}
	if (err) {
		n_errors++;
		errno_count[err]++;
	} else {
		n_acks++;
	}
}

/* Take one datagram; true when the sentinel's ACK came in it. */
static bool take(const char *buf, size_t len, unsigned int sentinel)
{
	const struct nlmsghdr *nlh;
	struct request *r;
	bool done = false;

	for (nlh = (const struct nlmsghdr *)buf; len >= NLMSG_HDRLEN;) {
		if (nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len) {
			mrc_fail("a message of %u bytes in %zu", nlh->nlmsg_len, len);
			return true;
		}
		r = find_req(nlh->nlmsg_seq);
		if (!r && nlh->nlmsg_seq != sentinel)
			mrc_fail("a message (type %u) with sequence %u, which no request had",
				 nlh->nlmsg_type, nlh->nlmsg_seq);
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			if (nlh->nlmsg_seq == sentinel) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);

				if (e->error)
					mrc_fail("config-get: %s", strerror(-e->error));
				done = true;
			} else {
				check_error(nlh, r);
			}
		} else if (nlh->nlmsg_type == NLMSG_DONE) {
			const int *err = NLMSG_DATA(nlh);

			n_dones++;
			if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(int) || *err > 0 ||
			    *err < -MAX_ERRNO)
				mrc_fail("NLMSG_DONE of %u bytes, error %d",
					 nlh->nlmsg_len, *err);
			if (r) {
				r->answered = true;
				r->dump_parts = false;
			}
		} else if (nlh->nlmsg_type == family_id) {
			n_replies++;
			check_family_msg(nlh, false);
			if (r && r->must_fail)
				mrc_fail("unprivileged command %d (flags %#x) got a reply",
					 r->cmd, r->flags);
			if (r && (nlh->nlmsg_flags & NLM_F_MULTI) && !r->answered)
				r->dump_parts = true;
		} else if (!r || r->type != nlh->nlmsg_type) {
			mrc_fail("a message of type %u", nlh->nlmsg_type);
		}
		if (NLMSG_ALIGN(nlh->nlmsg_len) >= len)
			break;
		len -= NLMSG_ALIGN(nlh->nlmsg_len);
		nlh = (const struct nlmsghdr *)((const char *)nlh +
						NLMSG_ALIGN(nlh->nlmsg_len));
	}
	return done;
}

static void drain_monitor(int fd, char *buf)
{
	const struct nlmsghdr *nlh;
	ssize_t n;
	size_t len;

	while ((n = recv(fd, buf, BUF_SIZE, MSG_DONTWAIT)) > 0) {
		len = n;
		for (nlh = (const struct nlmsghdr *)buf; len >= NLMSG_HDRLEN;) {
			if (nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len) {
				mrc_fail("notification of %u bytes in %zu",
					 nlh->nlmsg_len, len);
				break;
			}
			if (nlh->nlmsg_type != family_id)
				mrc_fail("notification of type %u", nlh->nlmsg_type);
			else
				check_family_msg(nlh, true);
			n_ntf++;
			if (NLMSG_ALIGN(nlh->nlmsg_len) >= len)
				break;
			len -= NLMSG_ALIGN(nlh->nlmsg_len);
			nlh = (const struct nlmsghdr *)((const char *)nlh +
							NLMSG_ALIGN(nlh->nlmsg_len));
		}
	}
	if (n < 0 && errno != EAGAIN && errno != ENOBUFS)
		mrc_fail("monitor: recv: %s", strerror(errno));
}

/* The sentinel: a config-get with NLM_F_ACK. */
static void put_sentinel(struct msg *m, unsigned int s)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	m->start = m->len;
	nlh = put(m, NULL, NLMSG_HDRLEN);
	g = put(m, NULL, GENL_HDRLEN);
	nlh->nlmsg_type = family_id;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = s;
	nlh->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	g->cmd = MRC_CMD_CONFIG_GET;
	g->version = MRC_FAMILY_VERSION;
}

static void xsend(int fd, const void *buf, size_t len)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	if (sendto(fd, buf, len, 0, (struct sockaddr *)&nl, sizeof(nl)) < 0 &&
	    errno != EINVAL && errno != ENOBUFS)
		mrc_fail("send of %zu bytes: %s", len, strerror(errno));
}

/* One round: a datagram of requests, the sentinel, all their answers. */
static void round_trip(int fd, int mfd, unsigned long long *s, char *out,
		       char *in)
{
	struct msg m = { .buf = out };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	unsigned int sentinel;
	bool done = false;
	double deadline;
	ssize_t n;
	int i, batch;

	nreqs = 0;
	batch = mrc_range(s, 0, 9) ? 1 : mrc_range(s, 2, MAX_BATCH);
	for (i = 0; i < batch; i++)
		build_request(&m, s, i == batch - 1);
	n_requests += batch;
	n_datagrams++;
	xsend(fd, m.buf, m.len);

	sentinel = ++seq;
	m.len = 0;
	put_sentinel(&m, sentinel);
	xsend(fd, m.buf, m.len);

	/* Until the sentinel's ACK, then whatever a dump still has. */
	deadline = mrc_now() + 10;
	for (;;) {
		if (mrc_now() > deadline) {
			mrc_fail("no answer to config-get within 10 s");
			break;
		}
		if (!done && poll(&pfd, 1, 1000) <= 0)
			continue;
		n = recv(fd, in, BUF_SIZE, done ? MSG_DONTWAIT : 0);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			mrc_fail("recv: %s", strerror(errno));
			break;
		}
		if (take(in, n, sentinel))
			done = true;
	}
	for (i = 0; i < nreqs; i++) {
		if (reqs[i].dump_parts)
			mrc_fail("a dump (command %d) ended without NLMSG_DONE",
				 reqs[i].cmd);
		else if (reqs[i].answerable && !reqs[i].answered)
			mrc_fail("no answer to a request (command %d, sequence %u)",
				 reqs[i].cmd, reqs[i].seq);
	}
	drain_monitor(mfd, in);
}

/* The family's id and the monitor group's, from the controller. */
static void resolve(int fd, char *buf)
{
	struct msg m = { .buf = buf };
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	struct nlattr *nla, *grp, *ga;
	int len, glen, galen, id;
	char *name;
	ssize_t n;

	nlh = put(&m, NULL, NLMSG_HDRLEN);
	g = put(&m, NULL, GENL_HDRLEN);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = 1;
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	put_attr(&m, CTRL_ATTR_FAMILY_NAME, MRC_FAMILY_NAME,
		 sizeof(MRC_FAMILY_NAME));
	nlh = (struct nlmsghdr *)buf;
	nlh->nlmsg_len = m.len;
	xsend(fd, buf, m.len);
	n = recv(fd, buf, BUF_SIZE, 0);
	nlh = (struct nlmsghdr *)buf;
	if (n < (ssize_t)NLMSG_HDRLEN || nlh->nlmsg_type == NLMSG_ERROR)
		mrc_die("no generic netlink family %s", MRC_FAMILY_NAME);
	len = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	nla = (struct nlattr *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
	for (; len >= NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN;
	     len -= NLA_ALIGN(nla->nla_len),
	     nla = (struct nlattr *)((char *)nla + NLA_ALIGN(nla->nla_len))) {
		if (nla->nla_type == CTRL_ATTR_FAMILY_ID)
			family_id = *(unsigned short *)(nla + 1);
		if ((nla->nla_type & NLA_TYPE_MASK) != CTRL_ATTR_MCAST_GROUPS)
			continue;
		grp = nla + 1;
		for (glen = nla->nla_len - NLA_HDRLEN; glen >= NLA_HDRLEN;
		     glen -= NLA_ALIGN(grp->nla_len),
		     grp = (struct nlattr *)((char *)grp + NLA_ALIGN(grp->nla_len))) {
			if (grp->nla_len < NLA_HDRLEN)
				break;
			id = 0;
			name = NULL;
			ga = grp + 1;
			for (galen = grp->nla_len - NLA_HDRLEN; galen >= NLA_HDRLEN;
			     galen -= NLA_ALIGN(ga->nla_len),
			     ga = (struct nlattr *)((char *)ga + NLA_ALIGN(ga->nla_len))) {
				if (ga->nla_len < NLA_HDRLEN)
					break;
				if (ga->nla_type == CTRL_ATTR_MCAST_GRP_ID)
					id = *(unsigned int *)(ga + 1);
				if (ga->nla_type == CTRL_ATTR_MCAST_GRP_NAME)
					name = (char *)(ga + 1);
			}
			if (name && !strcmp(name, MRC_MCGRP_MONITOR))
				monitor_grp = id;
		}
	}
	if (!family_id || !monitor_grp)
		mrc_die("family %s: id %d, monitor group %d", MRC_FAMILY_NAME,
			family_id, monitor_grp);
}

static int nl_socket(void)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	int fd, one = 1, size = 4 << 20;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		mrc_die("netlink socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&nl, sizeof(nl)))
		mrc_die("netlink bind: %s", strerror(errno));
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	return fd;
}

static __noreturn void bad_usage(void)
{
	fprintf(stderr, "usage: mrc_nlfuzz [-n COUNT] [-S SEED] [-i CONN_ID] [-u]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long s = 0, count = 3000, i;
	char *out, *in, line[512];
	int fd, mfd, opt, n = 0, e, one = 1;

	mrc_prog = "mrc_nlfuzz";
	while ((opt = getopt(argc, argv, "n:S:i:u")) != -1) {
		switch (opt) {
		case 'n':
			count = mrc_size(optarg);
			break;
		case 'S':
			s = mrc_size(optarg);
			break;
		case 'i':
			conn_id = strtoul(optarg, NULL, 0);
			break;
		case 'u':
			unprivileged = true;
			break;
		default:
			bad_usage();
		}
	}
	if (optind != argc)
		bad_usage();
	if (!s)
		s = mrc_seed(getpid());
	out = malloc(BUF_SIZE);
	in = malloc(BUF_SIZE);
	if (!out || !in)
		mrc_die("out of memory");
	signal(SIGPIPE, SIG_IGN);

	fd = nl_socket();
	resolve(fd, in);
	mfd = nl_socket();
	if (setsockopt(mfd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &monitor_grp,
		       sizeof(monitor_grp)))
		mrc_die("joining the monitor group: %s", strerror(errno));
	/* Capped ACKs now and then: the kernel trims what it echoes. */
	for (i = 0; i < count; i++) {
		if (i % 500 == 250) {
			one = !one;
			setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
		}
		round_trip(fd, mfd, &s, out, in);
	}
	drain_monitor(mfd, in);

	line[0] = 0;
	for (e = 1; e <= MAX_ERRNO; e++)
		if (errno_count[e] && n < (int)sizeof(line) - 40)
			n += snprintf(line + n, sizeof(line) - n, " E%d:%llu", e,
				      errno_count[e]);
	printf("nlfuzz%s: %llu requests in %llu datagrams; %llu ACKs, %llu errors (%s ), ",
	       unprivileged ? " (unprivileged)" : "", n_requests, n_datagrams,
	       n_acks, n_errors, line);
	printf("%llu replies, %llu NLMSG_DONE, %llu notifications; %d failures\n",
	       n_replies, n_dones, n_ntf, mrc_failed());
	if (unprivileged)
		printf("nlfuzz: %llu changes refused with EPERM\n", n_eperm);
	return mrc_failed() ? 1 : 0;
}
