// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: sock_diag of AF_MRC sockets (include/uapi/linux/mrc_diag.h): list
 * the sockets of a namespace, report one, abort one.
 *
 * The handler is registered with the family itself, so there is no
 * separate module to load on demand: the kernel asks for a family's diag
 * module only once the family is registered, and without mrc.ko a
 * request for AF_MRC fails with ENOENT, as for any absent family.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <net/netlink.h>
#include <net/tcp_states.h>
#include <linux/mrc.h>
#include <linux/mrc_diag.h>

#include "mrc.h"

/* Sockets a dump holds at once, with the namespace's list unlocked. */
#define MRC_DIAG_BATCH	16

/* What is reported of a socket, copied under its lock. */
struct mrc_diag_snap {
	kuid_t		uid;
	u8		state;
	u8		shutdown;
	bool		peer;		/* @dport to @plane_mask are valid */
	u16		port;
	u16		dport;
	struct mrc_addr	addr;
	struct mrc_addr	daddr;
	u32		lcid;
	u32		rcid;
	u32		plane_mask;
	struct mrc_diag_rqlen rqlen;
};

/*
 * The connection's peer is set before its state leaves TCP_CLOSE, in
 * process context for connect() and under the listener's lock for a
 * listener's child, and never changes after: a socket that connects or
 * is connected, or was (dead), has one.  mrc_set_state() publishes the
 * state with a release; the acquire here pairs with it.
 */
static void mrc_diag_snapshot(struct mrc_sock *msk, struct mrc_diag_snap *s)
{
	struct sock *sk = &msk->sk;

	spin_lock_bh(&msk->lock);
	/* Pairs with the release in mrc_set_state(): the peer is set. */
	s->state = smp_load_acquire(&sk->sk_state);
	s->uid = sk->sk_uid;
	s->shutdown = READ_ONCE(sk->sk_shutdown);
	s->port = READ_ONCE(msk->port);
	s->addr = msk->addr;
	s->peer = s->state != TCP_LISTEN &&
		  (s->state != TCP_CLOSE || msk->dead);
	if (s->peer) {
		s->dport = msk->dport;
		s->daddr = msk->daddr;
		/* A listener's child gets its id just after its state. */
		s->lcid = READ_ONCE(msk->lcid);
		s->rcid = msk->rcid;
		s->plane_mask = msk->plane_mask;
	}
	if (s->state == TCP_LISTEN) {
		s->rqlen.mdiag_rqueue = READ_ONCE(sk->sk_ack_backlog);
		s->rqlen.mdiag_wqueue = READ_ONCE(sk->sk_max_ack_backlog);
	} else {
		s->rqlen.mdiag_rqueue = mrc_sock_queued(msk, false);
		s->rqlen.mdiag_wqueue = mrc_sock_queued(msk, true);
	}
	spin_unlock_bh(&msk->lock);
}

/* Room for the message of a socket, with every attribute. */
static size_t mrc_diag_msg_size(void)
{
	return NLMSG_ALIGN(sizeof(struct mrc_diag_msg)) +
	       nla_total_size(sizeof(u32)) +			/* UID */
	       2 * nla_total_size(sizeof(u16)) +		/* ports */
	       2 * nla_total_size(sizeof(struct in6_addr)) +	/* addresses */
	       3 * nla_total_size(sizeof(u32)) +		/* ids, planes */
	       nla_total_size(sizeof(u8)) +			/* SHUTDOWN */
	       nla_total_size(sizeof(struct mrc_diag_rqlen)) +
	       nla_total_size(SK_MEMINFO_VARS * sizeof(u32));
}

static int mrc_diag_put_conn(struct sk_buff *skb,
			     const struct mrc_diag_snap *s, bool ids)
{
	if ((s->port && nla_put_u16(skb, MRC_DIAG_PORT, s->port)) ||
	    mrc_nl_put_addr(skb, MRC_DIAG_ADDR4, MRC_DIAG_ADDR6, &s->addr) ||
	    nla_put_u8(skb, MRC_DIAG_SHUTDOWN, s->shutdown))
		return -EMSGSIZE;
	if (!s->peer)
		return 0;
	if (nla_put_u16(skb, MRC_DIAG_PEER_PORT, s->dport) ||
	    mrc_nl_put_addr(skb, MRC_DIAG_PEER_ADDR4, MRC_DIAG_PEER_ADDR6,
			    &s->daddr) ||
	    nla_put_u32(skb, MRC_DIAG_PLANES, s->plane_mask))
		return -EMSGSIZE;
	if (ids &&
	    ((s->lcid && nla_put_u32(skb, MRC_DIAG_CONN_ID, s->lcid)) ||
	     (s->rcid && nla_put_u32(skb, MRC_DIAG_PEER_CONN_ID, s->rcid))))
		return -EMSGSIZE;
	return 0;
}

/*
 * Add the message of @sk to @skb, for the request @in_skb; process
 * context, with a reference on @sk.
 */
static int mrc_diag_fill(struct sk_buff *skb, struct sock *sk,
			 const struct mrc_diag_req *req,
			 const struct sk_buff *in_skb, u32 seq, u16 flags)
{
	struct user_namespace *user_ns = sk_user_ns(NETLINK_CB(in_skb).sk);
	u32 show = req->mdiag_show;
	struct mrc_diag_snap s;
	struct mrc_diag_msg *r;
	struct nlmsghdr *nlh;

	mrc_diag_snapshot(mrc_sk(sk), &s);
	nlh = nlmsg_put(skb, NETLINK_CB(in_skb).portid, seq,
			SOCK_DIAG_BY_FAMILY, sizeof(*r), flags);
	if (!nlh)
		return -EMSGSIZE;
	r = nlmsg_data(nlh);
	r->mdiag_family = AF_MRC;
	r->mdiag_type = sk->sk_type;
	r->mdiag_state = s.state;
	r->pad = 0;
	r->mdiag_ino = sock_i_ino(sk);
	sock_diag_save_cookie(sk, r->mdiag_cookie);

	if ((show & MRC_DIAG_SHOW_UID &&
	     nla_put_u32(skb, MRC_DIAG_UID,
			 from_kuid_munged(user_ns, s.uid))) ||
	    (show & MRC_DIAG_SHOW_CONN &&
	     mrc_diag_put_conn(skb, &s, mrc_nl_may_see_ids(in_skb, s.uid))) ||
	    (show & MRC_DIAG_SHOW_RQLEN &&
	     nla_put(skb, MRC_DIAG_RQLEN, sizeof(s.rqlen), &s.rqlen)) ||
	    (show & MRC_DIAG_SHOW_MEMINFO &&
	     sock_diag_put_meminfo(sk, skb, MRC_DIAG_MEMINFO))) {
		nlmsg_cancel(skb, nlh);
		return -EMSGSIZE;
	}
	nlmsg_end(skb, nlh);
	return 0;
}

/* Sockets of a dump, each with a reference, and where they were. */
struct mrc_diag_batch {
	struct sock	*sk[MRC_DIAG_BATCH];
	u64		seq[MRC_DIAG_BATCH];	/* &mrc_sock.net_seq */
	unsigned int	n;
	u64		next;	/* after the last one looked at */
};

/*
 * Take the next sockets in @states, from the one listed at @start on.
 * The list's lock is taken with BHs off inside a listener's lock (its
 * children join the list under it), so the sockets are filled in after it
 * is released, each with a reference; one whose last reference is gone,
 * waiting for its destructor to unlist it, is passed over.
 */
static void mrc_diag_collect(struct mrc_net *mn, u32 states, u64 start,
			     struct mrc_diag_batch *b)
{
	struct mrc_sock *msk;
	struct sock *sk;

	b->n = 0;
	b->next = start;
	spin_lock_bh(&mn->sockets_lock);
	for (msk = mrc_pernet_sock_from(mn, start);
	     msk && b->n < MRC_DIAG_BATCH; msk = mrc_pernet_sock_next(msk)) {
		b->next = msk->net_seq + 1;
		sk = &msk->sk;
		if (!(states & BIT(READ_ONCE(sk->sk_state))) ||
		    !refcount_inc_not_zero(&sk->sk_refcnt))
			continue;
		b->sk[b->n] = sk;
		b->seq[b->n++] = msk->net_seq;
	}
	spin_unlock_bh(&mn->sockets_lock);
}

/* Where the next part of a dump starts, kept in the callback's context. */
struct mrc_diag_dump_ctx {
	u64	next;	/* &mrc_sock.net_seq */
};

/*
 * No socket is held from one part of the dump to the next.  The order is
 * that of listing, so none is dumped twice: one that comes in between is
 * dumped at the end, one that goes before its turn is not.
 */
static int mrc_diag_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mrc_diag_dump_ctx *ctx = (struct mrc_diag_dump_ctx *)cb->ctx;
	const struct mrc_diag_req *req = nlmsg_data(cb->nlh);
	struct mrc_net *mn = mrc_pernet(sock_net(skb->sk));
	struct mrc_diag_batch b;
	unsigned int i;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	do {
		mrc_diag_collect(mn, req->mdiag_states, ctx->next, &b);
		for (i = 0; i < b.n; i++) {
			if (!err)
				err = mrc_diag_fill(skb, b.sk[i], req, cb->skb,
						    cb->nlh->nlmsg_seq,
						    NLM_F_MULTI);
			if (!err)
				ctx->next = b.seq[i] + 1;
			sock_put(b.sk[i]);
		}
		if (!err)
			ctx->next = b.next;
	} while (!err && b.n);
	return skb->len;
}

/*
 * The socket of the namespace that a request names, with a reference, or
 * an error (include/uapi/linux/mrc_diag.h).
 */
static struct sock *mrc_diag_lookup(struct net *net,
				    const struct mrc_diag_req *req)
{
	const u32 *cookie = req->mdiag_cookie;
	bool by_cookie = cookie[0] != MRC_DIAG_NOCOOKIE ||
			 cookie[1] != MRC_DIAG_NOCOOKIE;
	u64 want = (u64)cookie[1] << 32 | cookie[0];
	struct mrc_net *mn = mrc_pernet(net);
	struct sock *sk, *found = NULL;
	struct mrc_sock *msk;
	int err;

	if (!req->mdiag_ino && !by_cookie)
		return ERR_PTR(-EINVAL);

	spin_lock_bh(&mn->sockets_lock);
	for (msk = mrc_pernet_sock_from(mn, 0); msk;
	     msk = mrc_pernet_sock_next(msk)) {
		sk = &msk->sk;
		/* A cookie that was told is set already. */
		if (req->mdiag_ino ? sock_i_ino(sk) != req->mdiag_ino :
		    atomic64_read(&sk->sk_cookie) != want)
			continue;
		if (refcount_inc_not_zero(&sk->sk_refcnt))
			found = sk;
		break;
	}
	spin_unlock_bh(&mn->sockets_lock);
	if (!found)
		return ERR_PTR(-ENOENT);

	err = sock_diag_check_cookie(found, cookie);
	if (err) {
		sock_put(found);
		return ERR_PTR(err);
	}
	return found;
}

static int mrc_diag_get_exact(struct sk_buff *in_skb,
			      const struct nlmsghdr *nlh,
			      const struct mrc_diag_req *req)
{
	struct net *net = sock_net(in_skb->sk);
	struct sk_buff *rep;
	struct sock *sk;
	int err;

	sk = mrc_diag_lookup(net, req);
	if (IS_ERR(sk))
		return PTR_ERR(sk);

	err = -ENOMEM;
	rep = nlmsg_new(mrc_diag_msg_size(), GFP_KERNEL);
	if (!rep)
		goto out;
	err = mrc_diag_fill(rep, sk, req, in_skb, nlh->nlmsg_seq, 0);
	if (err) {
		nlmsg_free(rep);
		goto out;
	}
	err = nlmsg_unicast(net->diag_nlsk, rep, NETLINK_CB(in_skb).portid);
out:
	sock_put(sk);
	return err;
}

static const struct mrc_diag_req *mrc_diag_req(const struct nlmsghdr *nlh)
{
	const struct mrc_diag_req *req = nlmsg_data(nlh);

	if (nlmsg_len(nlh) < sizeof(*req) ||
	    req->sdiag_protocol != MRCPROTO_MRC || req->pad)
		return NULL;
	return req;
}

/* SOCK_DIAG_BY_FAMILY: a dump, or one socket. */
static int mrc_diag_handler_dump(struct sk_buff *skb, struct nlmsghdr *nlh)
{
	const struct mrc_diag_req *req = mrc_diag_req(nlh);
	struct netlink_dump_control c = {
		.dump = mrc_diag_dump,
	};

	if (!req)
		return -EINVAL;
	if (!(nlh->nlmsg_flags & NLM_F_DUMP))
		return mrc_diag_get_exact(skb, nlh, req);
	return netlink_dump_start(sock_net(skb->sk)->diag_nlsk, skb, nlh, &c);
}

/*
 * SOCK_DESTROY: abort a socket's connection (mrc_diag_destroy() in
 * socket.c).  sock_diag_destroy() checks that the requester has
 * CAP_NET_ADMIN in the socket's namespace.  Process context.
 */
static int mrc_diag_handler_destroy(struct sk_buff *skb,
				    struct nlmsghdr *nlh)
{
	const struct mrc_diag_req *req = mrc_diag_req(nlh);
	struct sock *sk;
	int err;

	if (!req)
		return -EINVAL;
	sk = mrc_diag_lookup(sock_net(skb->sk), req);
	if (IS_ERR(sk))
		return PTR_ERR(sk);
	err = sock_diag_destroy(sk, ECONNABORTED);
	sock_put(sk);
	return err;
}

static const struct sock_diag_handler mrc_diag_handler = {
	.owner		= THIS_MODULE,
	.family		= AF_MRC,
	.dump		= mrc_diag_handler_dump,
	.destroy	= mrc_diag_handler_destroy,
};

int mrc_diag_init(void)
{
	BUILD_BUG_ON((int)MRC_DIAG_STATE_ESTABLISHED != TCP_ESTABLISHED);
	BUILD_BUG_ON((int)MRC_DIAG_STATE_SYN_SENT != TCP_SYN_SENT);
	BUILD_BUG_ON((int)MRC_DIAG_STATE_SYN_RECV != TCP_SYN_RECV);
	BUILD_BUG_ON((int)MRC_DIAG_STATE_CLOSE != TCP_CLOSE);
	BUILD_BUG_ON((int)MRC_DIAG_STATE_LISTEN != TCP_LISTEN);

	return sock_diag_register(&mrc_diag_handler);
}

void mrc_diag_exit(void)
{
	sock_diag_unregister(&mrc_diag_handler);
}
