// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: the AF_MRC socket layer.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <linux/sockios.h>
#include <asm/ioctls.h>
#include <linux/random.h>
#include <net/ip.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <linux/mrc.h>

#include "mrc.h"
#include "protocol.h"

static int mrc_diag_destroy(struct sock *sk, int err);

/*
 * Memory is accounted as the kernel does for TCP (sysctl.c); every change
 * of sk_forward_alloc happens under msk->lock, or in the destructor.
 */
static struct proto mrc_proto = {
	.name			= "MRC",
	.owner			= THIS_MODULE,
	.obj_size		= sizeof(struct mrc_sock),
	.memory_allocated	= &mrc_memory_allocated,
	.per_cpu_fw_alloc	= &mrc_memory_per_cpu_fw_alloc,
	.sysctl_mem		= sysctl_mrc_mem,
	.sysctl_wmem		= sysctl_mrc_wmem,
	.sysctl_rmem		= sysctl_mrc_rmem,
	.memory_pressure	= &mrc_memory_pressure,
	.enter_memory_pressure	= mrc_enter_memory_pressure,
	.sockets_allocated	= &mrc_sockets_allocated,
	.diag_destroy		= mrc_diag_destroy,
	.keepalive		= mrc_keepalive,
};

/* Ports an ephemeral search looks at with the lock held, at a time. */
#define MRC_PORT_SCAN_BATCH	64

static bool mrc_port_in_use(struct mrc_net *mn, u16 port)
{
	struct mrc_sock *msk;

	lockdep_assert_held(&mn->ports_lock);
	hash_for_each_possible(mn->ports, msk, port_node, port)
		if (msk->port == port)
			return true;
	return false;
}

static void mrc_port_take(struct mrc_net *mn, struct mrc_sock *msk, u16 port)
{
	lockdep_assert_held(&mn->ports_lock);
	WRITE_ONCE(msk->port, port);
	hash_add(mn->ports, &msk->port_node, port);
}

/*
 * Ports [@first, @last] of an ephemeral search, counted from @offset in
 * the range of @size ports from @low: take the first free one.
 */
static bool mrc_port_search(struct mrc_sock *msk, int low, u32 size,
			    u32 offset, u32 first, u32 last)
{
	struct net *net = sock_net(&msk->sk);
	struct mrc_net *mn = mrc_pernet(net);
	bool found = false;
	u32 i;
	u16 port;

	spin_lock_bh(&mn->ports_lock);
	for (i = first; i <= last; i++) {
		port = low + (offset + i) % size;
		if (!inet_is_local_reserved_port(net, port) &&
		    !mrc_port_in_use(mn, port)) {
			mrc_port_take(mn, msk, port);
			found = true;
			break;
		}
	}
	spin_unlock_bh(&mn->ports_lock);
	return found;
}

/*
 * Ports are per namespace, not per address: a connection spans every
 * plane, so the port alone names a socket on a host.  An ephemeral port
 * comes from ip_local_port_range, not from ip_local_reserved_ports, found
 * from a random place in batches, so that BHs are never off for the whole
 * range.
 */
static int mrc_port_bind(struct mrc_sock *msk, u16 port)
{
	struct net *net = sock_net(&msk->sk);
	struct mrc_net *mn = mrc_pernet(net);
	u32 size, offset, i;
	int low, high, err = 0;

	if (port) {
		spin_lock_bh(&mn->ports_lock);
		if (mrc_port_in_use(mn, port))
			err = -EADDRINUSE;
		else
			mrc_port_take(mn, msk, port);
		spin_unlock_bh(&mn->ports_lock);
		return err;
	}

	inet_get_local_port_range(net, &low, &high);
	size = high - low + 1;
	offset = get_random_u32_below(size);
	for (i = 0; i < size; i += MRC_PORT_SCAN_BATCH) {
		if (mrc_port_search(msk, low, size, offset, i,
				    min(i + MRC_PORT_SCAN_BATCH, size) - 1))
			return 0;
		cond_resched();
	}
	return -EADDRINUSE;
}

static void mrc_port_unbind(struct mrc_sock *msk)
{
	struct mrc_net *mn = mrc_pernet(sock_net(&msk->sk));

	/* Accepted connections share their listener's port. */
	if (hlist_unhashed(&msk->port_node))
		return;
	spin_lock_bh(&mn->ports_lock);
	hash_del(&msk->port_node);
	spin_unlock_bh(&mn->ports_lock);
	INIT_HLIST_NODE(&msk->port_node);
}

/* Check a user's address and take the plane address out of it. */
static int mrc_addr_from_user(const struct sockaddr *uaddr, int addr_len,
			      struct mrc_addr *addr, u16 *port)
{
	const struct sockaddr_mrc *smrc = (const struct sockaddr_mrc *)uaddr;

	if (addr_len < (int)sizeof(*smrc))
		return -EINVAL;
	if (smrc->smrc_family != AF_MRC)
		return -EAFNOSUPPORT;
	if (smrc->__smrc_pad)
		return -EINVAL;

	memset(addr, 0, sizeof(*addr));
	addr->family = smrc->smrc_addr_family;
	switch (addr->family) {
	case AF_UNSPEC:
		break;
	case AF_INET:
		addr->v4 = smrc->smrc_addr4;
		break;
	case AF_INET6:
		memcpy(&addr->v6, smrc->smrc_addr6, sizeof(addr->v6));
		break;
	default:
		return -EAFNOSUPPORT;
	}
	*port = ntohs(smrc->smrc_port);
	return 0;
}

static int mrc_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	struct net *net = sock_net(sk);
	struct mrc_addr addr;
	u16 port;
	int err;

	err = mrc_addr_from_user(uaddr, addr_len, &addr, &port);
	if (err)
		return err;
	if (port && port < PROT_SOCK &&
	    !ns_capable(net->user_ns, CAP_NET_BIND_SERVICE))
		return -EACCES;

	lock_sock(sk);
	if (msk->port) {
		err = -EINVAL;
		goto out;
	}
	if (addr.family != AF_UNSPEC &&
	    !mrc_plane_is_local(mrc_pernet(net), &addr)) {
		err = -EADDRNOTAVAIL;
		goto out;
	}
	err = mrc_port_bind(msk, port);
	if (!err) {
		/* Under msk->lock too, for sock_diag (diag.c). */
		spin_lock_bh(&msk->lock);
		msk->addr = addr;
		spin_unlock_bh(&msk->lock);
	}
out:
	release_sock(sk);
	return err;
}

static int mrc_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sockaddr_mrc *smrc = (struct sockaddr_mrc *)uaddr;
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	const struct mrc_addr *addr;
	int err = sizeof(*smrc);

	memset(smrc, 0, sizeof(*smrc));
	smrc->smrc_family = AF_MRC;
	lock_sock(sk);
	if (peer) {
		if (READ_ONCE(sk->sk_state) != TCP_ESTABLISHED || !msk->dport) {
			err = -ENOTCONN;
			goto out;
		}
		smrc->smrc_port = htons(msk->dport);
		addr = &msk->daddr;
	} else {
		smrc->smrc_port = htons(msk->port);
		addr = &msk->addr;
	}
	smrc->smrc_addr_family = addr->family;
	if (addr->family == AF_INET)
		smrc->smrc_addr4 = addr->v4;
	else if (addr->family == AF_INET6)
		memcpy(smrc->smrc_addr6, &addr->v6, sizeof(addr->v6));
out:
	release_sock(sk);
	return err;
}

/*
 * A socket is listed in /proc/net/mrc and counted in /proc/net/protocols
 * from its creation until the user closes it, or until its listener drops
 * it before accept(); the connection may live on, unlisted.
 */
static void mrc_sock_unlist(struct mrc_sock *msk)
{
	if (!msk->listed)
		return;
	msk->listed = false;
	mrc_pernet_unlink_sock(msk);
	sock_prot_inuse_add(sock_net(&msk->sk), msk->sk.sk_prot, -1);
}

static void mrc_sock_destruct(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	__skb_queue_purge(&sk->sk_receive_queue);
	/* A connection that never ended, or queued after its end. */
	mrc_conn_purge(msk);
	mrc_conn_free_rings(msk);
	sk_mem_reclaim_final(sk);
	mrc_sock_unlist(msk);
	sk_sockets_allocated_dec(sk);
}

/* What a DATA packet of @mss bytes of payload costs, as we build it. */
u32 mrc_mss_truesize(u32 mss)
{
	u32 data = MRC_HEADROOM + mss +
		   SKB_DATA_ALIGN(sizeof(struct skb_shared_info));

	return SKB_TRUESIZE(roundup_pow_of_two(data));
}

/* A full packet of the connection as agreed, 1500 bytes before that. */
u32 mrc_pkt_truesize(const struct mrc_sock *msk)
{
	return mrc_mss_truesize(msk->mss ?: 1500);
}

/* A packet as sendmsg() cuts them now. */
u32 mrc_snd_truesize(const struct mrc_sock *msk)
{
	return mrc_mss_truesize(READ_ONCE(msk->path_mss) ?: 1500);
}

int mrc_sndbuf_free(const struct mrc_sock *msk)
{
	return READ_ONCE(msk->sk.sk_sndbuf) -
	       READ_ONCE(msk->sk.sk_wmem_queued);
}

/*
 * Room for a packet, for a stream, or nothing queued: a buffer smaller
 * than one packet (SO_SNDBUF's least, 4608 bytes, on planes of jumbo
 * frames) still moves one at a time.  For messages, half the buffer, so
 * that poll() does not report room that most messages cannot use.
 */
static bool mrc_writable(const struct mrc_sock *msk)
{
	int need = mrc_snd_truesize(msk);

	if (msk->sk.sk_type == SOCK_SEQPACKET)
		need = max(need, READ_ONCE(msk->sk.sk_sndbuf) / 2);
	else if (!READ_ONCE(msk->sk.sk_wmem_queued))
		return true;
	return mrc_sndbuf_free(msk) >= need;
}

/*
 * Acknowledged data freed room: wake a writer that found none (it set
 * SOCK_NOSPACE), not the reader that shares the wait queue.  An error, the
 * end of the connection or an acknowledged FIN (SO_LINGER) wakes everyone.
 */
static void mrc_write_space(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct socket *sock = sk->sk_socket;
	struct socket_wq *wq;

	if (!sk->sk_err && !msk->dead && !msk->fin_acked) {
		/* Pairs with the barrier after setting SOCK_NOSPACE. */
		smp_mb();
		if (!sock || !test_bit(SOCK_NOSPACE, &sock->flags) ||
		    !mrc_writable(msk))
			return;
		clear_bit(SOCK_NOSPACE, &sock->flags);
	}
	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_sync_poll(&wq->wait, EPOLLOUT |
						EPOLLWRNORM | EPOLLWRBAND);
	if (wq && wq->fasync_list)
		sk_wake_async(sk, SOCK_WAKE_SPACE, POLL_OUT);
	rcu_read_unlock();
}

static void mrc_sock_init(struct sock *sk, int type)
{
	struct mrc_sock *msk = mrc_sk(sk);

	sk->sk_type = type;
	sk->sk_protocol = MRCPROTO_MRC;
	sk->sk_destruct = mrc_sock_destruct;
	/* Memory pressure's fair share; until the destructor. */
	sk_sockets_allocated_inc(sk);
	sk->sk_write_space = mrc_write_space;
	sock_set_flag(sk, SOCK_RCU_FREE);
	/* By default, room for a 16 MiB message with its overhead. */
	sk->sk_sndbuf = max(sk->sk_sndbuf,
			    READ_ONCE(sysctl_mrc_wmem[type == SOCK_SEQPACKET ?
						      2 : 1]));
	sk->sk_rcvbuf = max(sk->sk_rcvbuf,
			    min(READ_ONCE(sysctl_mrc_rmem[1]),
				READ_ONCE(sysctl_mrc_rmem[2])));
	mrc_conn_init(msk);
	/* A torn copy mixes two valid settings: no lock is needed. */
	msk->params = mrc_msk_net(msk)->sysctl.conn;
	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, 1);
	mrc_pernet_link_sock(msk);
	msk->listed = true;
}

/* The plane a destination is reached on, or -ENETUNREACH. */
static int mrc_plane_for_dest(struct mrc_sock *msk,
			      const struct mrc_addr *daddr, u32 scope_id)
{
	struct net *net = sock_net(&msk->sk);
	struct mrc_net *mn = mrc_pernet(net);
	struct mrc_plane *plane;
	int id = -ENETUNREACH;
	int ifindex;

	/* The route's device, by index: no reference outlives the route. */
	if (daddr->family == AF_INET) {
		struct flowi4 fl4 = {
			.daddr		= daddr->v4,
			.flowi4_mark	= READ_ONCE(msk->sk.sk_mark),
			.flowi4_oif	= READ_ONCE(msk->sk.sk_bound_dev_if),
		};
		struct rtable *rt = ip_route_output_key(net, &fl4);

		if (IS_ERR(rt))
			return id;
		ifindex = rt->dst.dev->ifindex;
		ip_rt_put(rt);
	} else {
		struct flowi6 fl6 = {
			.daddr		= daddr->v6,
			.flowi6_oif	= scope_id ?:
					  READ_ONCE(msk->sk.sk_bound_dev_if),
			.flowi6_mark	= READ_ONCE(msk->sk.sk_mark),
		};
		struct dst_entry *dst;

		dst = ipv6_stub->ipv6_dst_lookup_flow(net, NULL, &fl6, NULL);
		if (IS_ERR(dst))
			return id;
		ifindex = dst->dev->ifindex;
		dst_release(dst);
	}

	rcu_read_lock();
	list_for_each_entry_rcu(plane, &mn->planes, list) {
		if (plane->dev->ifindex != ifindex ||
		    plane->family != daddr->family)
			continue;
		if (msk->addr.family != AF_UNSPEC &&
		    !mrc_addr_equal_plane(&msk->addr, plane))
			continue;
		id = plane->id;
		break;
	}
	rcu_read_unlock();
	return id;
}

/*
 * The planes' rounds start from next_psn: see mrc_conn_set_planes().  The
 * receive ring, and so the largest window, follows the receive buffer as
 * it is when the connection is made, as TCP's window scale does.
 */
static void mrc_set_initial_seq(struct mrc_sock *msk)
{
	msk->rcv_ring_size = mrc_conn_ring_size(READ_ONCE(msk->sk.sk_rcvbuf),
						mrc_pkt_truesize(msk));
	msk->snd_isn = get_random_u32();
	msk->snd_una = msk->snd_isn;
	msk->snd_nxt = msk->snd_una;
	msk->snd_wnd_end = msk->snd_una;
	msk->next_psn = get_random_u32();
}

static int mrc_connect_start(struct mrc_sock *msk, const struct mrc_addr *daddr,
			     u16 dport, u32 scope_id)
{
	struct sock *sk = &msk->sk;
	struct sk_buff_head queue;
	int id, err;

	if (msk->hashed || msk->dead)
		return -EISCONN;
	if (!msk->port) {
		err = mrc_port_bind(msk, 0);
		if (err)
			return err;
	}
	id = mrc_plane_for_dest(msk, daddr, scope_id);
	if (id < 0)
		return id;

	msk->daddr = *daddr;
	msk->dport = dport;
	msk->syn_plane = id;
	mrc_set_initial_seq(msk);
	err = mrc_conn_hash(msk);
	if (err)
		return err;

	__skb_queue_head_init(&queue);
	spin_lock_bh(&msk->lock);
	mrc_set_state(sk, TCP_SYN_SENT);
	msk->syn_start = ktime_get_ns();
	msk->syn_next = msk->syn_start + MRC_RTO_INIT_NS;
	mrc_output_syn(msk, MRC_PKT_SYN, &queue);
	mrc_timer_update(msk);
	spin_unlock_bh(&msk->lock);
	mrc_xmit(sock_net(sk), &queue);
	return 0;
}

static int mrc_connect(struct socket *sock, struct sockaddr *uaddr,
		       int addr_len, int flags)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	const struct sockaddr_mrc *smrc = (const struct sockaddr_mrc *)uaddr;
	struct mrc_addr daddr;
	long timeo;
	u16 dport;
	int err;

	err = mrc_addr_from_user(uaddr, addr_len, &daddr, &dport);
	if (err)
		return err;
	if (daddr.family == AF_UNSPEC || !dport)
		return -EINVAL;

	lock_sock(sk);
	switch (sock->state) {
	case SS_CONNECTED:
		err = -EISCONN;
		goto out;
	case SS_CONNECTING:
		err = -EALREADY;
		break;
	default:
		if (sk->sk_state != TCP_CLOSE) {
			err = -EISCONN;
			goto out;
		}
		err = mrc_connect_start(msk, &daddr, dport,
					smrc->smrc_scope_id);
		if (err)
			goto out;
		sock->state = SS_CONNECTING;
		err = -EINPROGRESS;
		/* Even if the handshake is through already, as TCP does. */
		if (flags & O_NONBLOCK)
			goto out;
		break;
	}

	timeo = sock_sndtimeo(sk, flags & O_NONBLOCK);
	if (READ_ONCE(sk->sk_state) == TCP_SYN_SENT) {
		DEFINE_WAIT_FUNC(wait, woken_wake_function);

		if (!timeo)
			goto out;
		add_wait_queue(sk_sleep(sk), &wait);
		while (READ_ONCE(sk->sk_state) == TCP_SYN_SENT && timeo &&
		       !signal_pending(current))
			sk_wait_event(sk, &timeo,
				      READ_ONCE(sk->sk_state) != TCP_SYN_SENT,
				      &wait);
		remove_wait_queue(sk_sleep(sk), &wait);
		if (READ_ONCE(sk->sk_state) == TCP_SYN_SENT) {
			err = signal_pending(current) ?
			      sock_intr_errno(timeo) : -EINPROGRESS;
			goto out;
		}
	}
	if (READ_ONCE(sk->sk_state) != TCP_ESTABLISHED) {
		err = sock_error(sk) ?: -ECONNREFUSED;
		sock->state = SS_UNCONNECTED;
		goto out;
	}
	sock->state = SS_CONNECTED;
	err = 0;
out:
	release_sock(sk);
	return err;
}

static int mrc_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	int err = 0;

	lock_sock(sk);
	if (sock->state != SS_UNCONNECTED ||
	    (sk->sk_state != TCP_CLOSE && sk->sk_state != TCP_LISTEN) ||
	    msk->hashed) {
		err = -EINVAL;
		goto out;
	}
	if (!msk->port) {
		err = mrc_port_bind(msk, 0);
		if (err)
			goto out;
	}
	WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
	spin_lock_bh(&msk->lock);
	mrc_set_state(sk, TCP_LISTEN);
	spin_unlock_bh(&msk->lock);
out:
	release_sock(sk);
	return err;
}

/*
 * Children of a listener.  A SYN makes a child that is half-open: on the
 * listener's accept queue, but neither counted in its backlog nor given
 * to accept(), until a packet from the client names the child's id
 * (mrc_sock_child_established()); one that never does ends after
 * net.mrc.syn_recv_timeout_ms and leaves the queue (mrc_sock_child_forget()).
 *
 * The listener's lock, then the child's (nested), protect the accept queue
 * and each child's @parent and @half_open; a child holds a reference on
 * its listener while it is queued.
 */

/* A connection for a SYN, under the listener's lock, BHs off. */
struct mrc_sock *mrc_sock_create_child(struct mrc_sock *lmsk, int plane_id,
				       const struct mrc_hdr *hdr,
				       const struct mrc_syn *syn,
				       unsigned int len,
				       const struct mrc_addr *saddr,
				       struct sk_buff_head *queue)
{
	struct sock *lsk = &lmsk->sk;
	struct mrc_sock *msk;
	struct sock *sk;
	int err;

	sk = sk_alloc(sock_net(lsk), PF_MRC, GFP_ATOMIC, lsk->sk_prot, 0);
	if (!sk)
		return NULL;
	sock_init_data(NULL, sk);
	msk = mrc_sk(sk);
	mrc_sock_init(sk, lsk->sk_type);
	sk->sk_sndbuf = READ_ONCE(lsk->sk_sndbuf);
	sk->sk_rcvbuf = READ_ONCE(lsk->sk_rcvbuf);
	sk->sk_rcvtimeo = READ_ONCE(lsk->sk_rcvtimeo);
	sk->sk_sndtimeo = READ_ONCE(lsk->sk_sndtimeo);
	sk->sk_userlocks = lsk->sk_userlocks;
	sk->sk_uid = lsk->sk_uid;
	mrc_sockopt_inherit(msk, lmsk);

	msk->port = lmsk->port;
	msk->addr = lmsk->addr;
	msk->dport = ntohs(syn->src_port);
	msk->daddr = *saddr;
	msk->syn_plane = plane_id;
	msk->rcid = ntohl(hdr->src_cid);
	mrc_set_initial_seq(msk);
	if (mrc_conn_set_planes(msk, syn, len))
		goto err_put;
	WRITE_ONCE(msk->snd_wnd_syn,
		   min_t(u32, ntohl(syn->window), MRC_RING_MAX));
	msk->snd_wnd_end = msk->snd_nxt + msk->snd_wnd_syn;
	msk->rcv_nxt = ntohl(hdr->dsn);
	msk->rcv_wnd_end = msk->rcv_nxt;
	mrc_rcv_update_window(msk);
	msk->rcv_wnd_told = msk->rcv_wnd_end;
	/* Acknowledgments echo the last packet received: the SYN first. */
	msk->echo_psn = ntohl(hdr->psn);
	msk->echo_dsn = ntohl(hdr->dsn);
	msk->echo_ev = ntohs(hdr->ev);
	msk->echo_plane = plane_id;
	msk->syn_start = ktime_get_ns();
	msk->echo_time = msk->syn_start;
	msk->last_progress = msk->syn_start;
	msk->last_advance = msk->syn_start;
	msk->last_rcv = msk->syn_start;
	msk->syn_next = msk->syn_start + MRC_RTO_INIT_NS;
	mrc_set_state(sk, TCP_SYN_RECV);

	/*
	 * Nobody sees the child before it is hashed; from then on, lookups
	 * may hold references, so it goes with sock_put().
	 */
	if (mrc_conn_hash(msk))
		goto err_put;
	spin_lock_nested(&msk->lock, SINGLE_DEPTH_NESTING);
	msk->syn_credit = min_t(u32, MRC_SYN_AMPLIFY * (sizeof(*hdr) + len),
				U16_MAX);
	err = mrc_output_syn(msk, MRC_PKT_SYN_ACK, queue);
	if (!err) {
		msk->synack_sent = 1;
		mrc_timer_update(msk);
		sock_hold(lsk);
		msk->parent = lmsk;
		msk->half_open = true;
		list_add_tail(&msk->accept_node, &lmsk->accept_queue);
		lmsk->nr_half_open++;
	}
	spin_unlock(&msk->lock);
	if (err) {
		mrc_conn_unhash(msk);
		goto err_put;
	}
	mrc_conn_hash_peer(msk);
	return msk;

err_put:
	sock_put(sk);
	return NULL;
}

/*
 * A packet from the client names a half-open child: it joins the accept
 * queue, if there is room.  Softirq; returns whether the child is
 * established.
 */
bool mrc_sock_child_established(struct mrc_sock *msk)
{
	struct mrc_sock *lmsk;
	bool established;
	u64 now;
	int id;

	spin_lock(&msk->lock);
	lmsk = msk->parent;
	if (lmsk)
		sock_hold(&lmsk->sk);
	established = msk->sk.sk_state == TCP_ESTABLISHED;
	spin_unlock(&msk->lock);
	if (!lmsk)
		return established;

	spin_lock(&lmsk->lock);
	spin_lock_nested(&msk->lock, SINGLE_DEPTH_NESTING);
	if (msk->parent == lmsk && msk->half_open && !msk->dead &&
	    lmsk->sk.sk_state == TCP_LISTEN &&
	    !sk_acceptq_is_full(&lmsk->sk)) {
		now = ktime_get_ns();
		/*
		 * The client answers the SYN_ACK at once: a first round trip.
		 * When the SYN_ACK was sent again, it is timed from the first
		 * all the same, as the client times its SYN: too long rather
		 * than none, which would leave the first data the 20 ms
		 * timeout of a plane never timed, too short for a slow peer
		 * (all of the first window resent, every EV retired).  Data
		 * soon brings it down.
		 */
		mrc_cc_rtt_since(msk, &msk->planes[msk->syn_plane], msk->syn_start,
				 now);
		msk->half_open = false;
		lmsk->nr_half_open--;
		sk_acceptq_added(&lmsk->sk);
		msk->backoff = 0;
		msk->last_progress = now;
		msk->last_advance = now;
		mrc_set_state(&msk->sk, TCP_ESTABLISHED);
		mrc_nl_conn_up(msk);
		/* Plane changes reached only established connections. */
		for (id = 0; id < msk->nr_planes; id++)
			if (msk->plane_mask & BIT(id))
				msk->planes[id].up = mrc_path_plane_up(msk, id);
		/* The other planes are validated from the timer. */
		mrc_path_validate_start(msk, now);
		mrc_timer_update(msk);
	}
	established = msk->sk.sk_state == TCP_ESTABLISHED;
	spin_unlock(&msk->lock);
	spin_unlock(&lmsk->lock);
	if (established)
		lmsk->sk.sk_data_ready(&lmsk->sk);
	sock_put(&lmsk->sk);
	return established;
}

/* A half-open child ended: it leaves its listener.  Process context. */
void mrc_sock_child_forget(struct mrc_sock *msk)
{
	struct mrc_sock *lmsk;
	bool gone = false;

	spin_lock_bh(&msk->lock);
	lmsk = msk->parent;
	if (lmsk)
		sock_hold(&lmsk->sk);
	spin_unlock_bh(&msk->lock);
	if (!lmsk)
		return;

	spin_lock_bh(&lmsk->lock);
	spin_lock_nested(&msk->lock, SINGLE_DEPTH_NESTING);
	if (msk->parent == lmsk && msk->half_open) {
		list_del_init(&msk->accept_node);
		lmsk->nr_half_open--;
		msk->half_open = false;
		msk->parent = NULL;
		gone = true;
	}
	spin_unlock(&msk->lock);
	spin_unlock_bh(&lmsk->lock);
	if (gone) {
		mrc_sock_unlist(msk);
		sock_put(&lmsk->sk);	/* the child's */
		sock_put(&msk->sk);	/* the accept queue's */
	}
	sock_put(&lmsk->sk);
}

/*
 * The first child that is no longer half-open, or with @all any child,
 * telling in @half_open which it was; the caller owns the accept queue's
 * reference.
 */
static struct mrc_sock *mrc_accept_dequeue(struct mrc_sock *lmsk, bool all,
					   bool *half_open)
{
	struct mrc_sock *msk, *found = NULL;

	spin_lock_bh(&lmsk->lock);
	list_for_each_entry(msk, &lmsk->accept_queue, accept_node) {
		spin_lock_nested(&msk->lock, SINGLE_DEPTH_NESTING);
		if (all || !msk->half_open) {
			*half_open = msk->half_open;
			if (msk->half_open)
				lmsk->nr_half_open--;
			else
				sk_acceptq_removed(&lmsk->sk);
			msk->half_open = false;
			msk->parent = NULL;
			found = msk;
		}
		spin_unlock(&msk->lock);
		if (found)
			break;
	}
	if (found)
		list_del_init(&found->accept_node);
	spin_unlock_bh(&lmsk->lock);
	if (found)
		sock_put(&lmsk->sk);	/* the child's */
	return found;
}

/* Whether accept() has a connection to give; half-open ones do not count. */
static bool mrc_acceptable(const struct mrc_sock *lmsk)
{
	return READ_ONCE(lmsk->sk.sk_ack_backlog);
}

static int __mrc_accept(struct socket *sock, struct socket *newsock,
			int flags)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = sock->sk;
	struct mrc_sock *lmsk = mrc_sk(sk), *msk;
	bool half_open;
	long timeo;
	int err = 0;

	lock_sock(sk);
	if (sk->sk_state != TCP_LISTEN) {
		err = -EINVAL;
		goto out;
	}
	timeo = sock_rcvtimeo(sk, flags & O_NONBLOCK);
	add_wait_queue(sk_sleep(sk), &wait);
	while (!(msk = mrc_accept_dequeue(lmsk, false, &half_open))) {
		/* Aborted by sock_diag (mrc_diag_destroy()), or shut down. */
		if (sk->sk_state != TCP_LISTEN) {
			err = sock_error(sk) ?: -EINVAL;
			break;
		}
		if (!timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(timeo);
			break;
		}
		sk_wait_event(sk, &timeo, mrc_acceptable(lmsk) ||
			      READ_ONCE(sk->sk_state) != TCP_LISTEN, &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	if (err)
		goto out;

	sock_graft(&msk->sk, newsock);
	newsock->state = SS_CONNECTED;
out:
	release_sock(sk);
	return err;
}

#ifdef MRC_HAVE_PROTO_ACCEPT_ARG
static int mrc_accept(struct socket *sock, struct socket *newsock,
		      struct proto_accept_arg *arg)
{
	return __mrc_accept(sock, newsock, arg->flags);
}
#else
static int mrc_accept(struct socket *sock, struct socket *newsock, int flags,
		      bool kern)
{
	return __mrc_accept(sock, newsock, flags);
}
#endif

static bool mrc_readable(const struct mrc_sock *msk)
{
	const struct sock *sk = &msk->sk;

	if (skb_queue_empty_lockless(&sk->sk_receive_queue))
		return false;
	return sk->sk_type == SOCK_STREAM || READ_ONCE(msk->rcv_msgs) ||
	       READ_ONCE(msk->rcv_in_msg) || mrc_rcv_window_full(msk);
}

static __poll_t mrc_poll(struct file *file, struct socket *sock,
			 poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	__poll_t mask = 0;
	u8 shutdown;
	int state;

	sock_poll_wait(file, sock, wait);
	state = READ_ONCE(sk->sk_state);
	if (state == TCP_LISTEN)
		return mrc_acceptable(msk) ? EPOLLIN | EPOLLRDNORM : 0;

	shutdown = READ_ONCE(sk->sk_shutdown);
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (shutdown == SHUTDOWN_MASK || state == TCP_CLOSE)
		mask |= EPOLLHUP;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (mrc_readable(msk))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (state == TCP_SYN_SENT)
		return mask;
	if (state == TCP_ESTABLISHED && !(shutdown & SEND_SHUTDOWN)) {
		if (mrc_writable(msk)) {
			mask |= EPOLLOUT | EPOLLWRNORM;
		} else {
			set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
			/* Freed space may have come before the flag. */
			smp_mb__after_atomic();
			if (mrc_writable(msk))
				mask |= EPOLLOUT | EPOLLWRNORM;
		}
	} else if (shutdown & SEND_SHUTDOWN) {
		/* Writers learn of the shutdown from send(). */
		mask |= EPOLLOUT | EPOLLWRNORM;
	}
	return mask;
}

static void mrc_listen_stop(struct mrc_sock *lmsk);

/*
 * Queue the FIN after everything sent; under the socket lock.  It must
 * not fail for want of memory, as TCP's does not: a connection idle for
 * a second gave its send ring back, and a FIN that found no memory for
 * one (a cgroup at its limit, a task being killed) made close() a reset,
 * losing what was still in flight.
 */
static int mrc_send_fin(struct mrc_sock *msk)
{
	gfp_t gfp = msk->sk.sk_allocation;
	struct sk_buff_head pkts;
	struct sk_buff *skb;
	int err;

	if (msk->fin_queued || msk->sk.sk_state != TCP_ESTABLISHED)
		return 0;
	/* Only what may sleep may loop until it gets it. */
	if (gfpflags_allow_blocking(gfp))
		gfp |= __GFP_NOFAIL;
	skb = mrc_alloc_skb(0, gfp);
	if (!skb)
		return -ENOBUFS;
	memset(MRC_SKB_CB(skb), 0, sizeof(struct mrc_skb_cb));
	MRC_SKB_CB(skb)->flags = MRC_F_FIN;
	MRC_SKB_CB(skb)->offset = msk->snd_offset;
	MRC_SKB_CB(skb)->msg_id = msk->snd_msg_id;
	__skb_queue_head_init(&pkts);
	__skb_queue_tail(&pkts, skb);
	err = mrc_send_pkts(msk, &pkts, 0, gfp);
	if (!err)
		msk->fin_queued = true;
	return err;
}

static int mrc_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	int err = 0;

	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	how++;	/* SHUT_RD to RCV_SHUTDOWN, and so on */

	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		mrc_listen_stop(msk);
		goto out;
	}
	/* A non-blocking connect() may have finished since, unseen. */
	if (sk->sk_state != TCP_ESTABLISHED) {
		err = -ENOTCONN;
		goto out;
	}
	if (how & SEND_SHUTDOWN) {
		err = mrc_send_fin(msk);
		if (err)
			goto out;
	}
	spin_lock_bh(&msk->lock);
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | how);
	spin_unlock_bh(&msk->lock);
	sk->sk_state_change(sk);
out:
	release_sock(sk);
	return err;
}

/*
 * Abort with RST; the peer sees ECONNRESET, the user @err if not 0.
 * Returns whether there was a connection to abort.
 */
static bool mrc_abort(struct mrc_sock *msk, int err)
{
	struct sk_buff_head queue;
	bool aborted = false;

	__skb_queue_head_init(&queue);
	spin_lock_bh(&msk->lock);
	if (msk->hashed && !msk->dead) {
		/* No RST to where a SYN claimed to come from. */
		if (!msk->half_open)
			mrc_output_rst(msk, &queue);
		mrc_conn_done(msk, err, MRC_CONN_END_ABORTED);
		aborted = true;
	}
	spin_unlock_bh(&msk->lock);
	mrc_xmit(sock_net(&msk->sk), &queue);
	return aborted;
}

/* Stop listening: connections not yet accepted are reset. */
static void mrc_listen_stop(struct mrc_sock *lmsk)
{
	struct mrc_sock *msk;
	bool half_open;

	spin_lock_bh(&lmsk->lock);
	mrc_set_state(&lmsk->sk, TCP_CLOSE);
	spin_unlock_bh(&lmsk->lock);
	while ((msk = mrc_accept_dequeue(lmsk, true, &half_open))) {
		/* No RST to where a SYN claimed to come from. */
		if (half_open) {
			spin_lock_bh(&msk->lock);
			mrc_conn_done(msk, 0, MRC_CONN_END_ABORTED);
			spin_unlock_bh(&msk->lock);
		} else {
			mrc_abort(msk, 0);
		}
		mrc_sock_unlist(msk);
		sock_put(&msk->sk);	/* the accept queue's */
	}
	lmsk->sk.sk_state_change(&lmsk->sk);
}

/* Wait for the peer to acknowledge all we sent, for SO_LINGER. */
static void mrc_linger(struct mrc_sock *msk)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &msk->sk;
	long timeo = sk->sk_lingertime;

	add_wait_queue(sk_sleep(sk), &wait);
	while (timeo && !signal_pending(current) &&
	       !READ_ONCE(msk->fin_acked) && !READ_ONCE(msk->dead))
		sk_wait_event(sk, &timeo, READ_ONCE(msk->fin_acked) ||
			      READ_ONCE(msk->dead), &wait);
	remove_wait_queue(sk_sleep(sk), &wait);
}

/*
 * The connection outlives the socket to deliver what is queued; a
 * namespace keeps at most net.mrc.max_orphans such connections, and resets
 * the rest at once.
 */
static void mrc_orphan(struct mrc_sock *msk)
{
	struct mrc_net *mn = mrc_pernet(sock_net(&msk->sk));
	bool abort = false;

	spin_lock_bh(&msk->lock);
	if (!msk->dead && msk->hashed) {
		if (atomic_inc_return(&mn->orphans) >
		    READ_ONCE(mn->sysctl.max_orphans)) {
			atomic_dec(&mn->orphans);
			MRC_INC_STATS(mn, MRC_MIB_ORPHANS_RESET);
			abort = true;
		} else {
			msk->orphan = true;
		}
	}
	spin_unlock_bh(&msk->lock);
	if (abort)
		mrc_abort(msk, 0);
}

static int mrc_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk;

	if (!sk)
		return 0;
	msk = mrc_sk(sk);

	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		mrc_listen_stop(msk);
	} else if (msk->hashed && !msk->dead) {
		bool unread;

		/*
		 * From here on, data that arrives resets the connection
		 * (mrc_rcv_data()), as TCP's does: none is acknowledged
		 * that nobody will read while the FIN goes out and
		 * SO_LINGER waits.
		 */
		spin_lock_bh(&msk->lock);
		unread = !skb_queue_empty(&sk->sk_receive_queue);
		msk->closed = true;
		spin_unlock_bh(&msk->lock);
		/* Unread data, or linger 0: the peer must know it is lost. */
		if ((sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime) ||
		    unread || sk->sk_state != TCP_ESTABLISHED) {
			mrc_abort(msk, 0);
		} else if (mrc_send_fin(msk)) {
			mrc_abort(msk, 0);
		} else {
			if (sock_flag(sk, SOCK_LINGER))
				mrc_linger(msk);
			mrc_orphan(msk);
		}
	}
	mrc_port_unbind(msk);
	mrc_sock_unlist(msk);

	spin_lock_bh(&msk->lock);
	sock_orphan(sk);
	msk->closed = true;
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	mrc_conn_check_end(msk);
	mrc_timer_update(msk);
	spin_unlock_bh(&msk->lock);
	release_sock(sk);

	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

/*
 * Bytes not yet read, or with @out, not yet acknowledged (queued to send
 * or in flight).  Under msk->lock.
 */
u32 mrc_sock_queued(const struct mrc_sock *msk, bool out)
{
	const struct sk_buff *skb;
	u32 bytes = 0;
	u32 dsn;

	lockdep_assert_held(&msk->lock);
	if (!out) {
		skb_queue_walk(&msk->sk.sk_receive_queue, skb)
			bytes += skb->len - MRC_SKB_CB(skb)->consumed;
		return bytes;
	}
	skb_queue_walk(&msk->write_queue, skb)
		bytes += skb->len;
	for (dsn = msk->snd_una; msk->snd_ring &&
	     mrc_before(dsn, msk->snd_nxt); dsn++) {
		skb = msk->snd_ring[mrc_snd_slot(msk, dsn)];
		if (skb)
			bytes += MRC_SKB_CB(skb)->len;
	}
	return bytes;
}

/* Bytes not yet read (SIOCINQ), or not yet acknowledged (SIOCOUTQ). */
static int mrc_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	struct mrc_sock *msk = mrc_sk(sock->sk);
	int bytes;

	if (cmd != SIOCINQ && cmd != SIOCOUTQ)
		return -ENOIOCTLCMD;
	if (READ_ONCE(msk->sk.sk_state) == TCP_LISTEN)
		return -EINVAL;

	spin_lock_bh(&msk->lock);
	bytes = mrc_sock_queued(msk, cmd == SIOCOUTQ);
	spin_unlock_bh(&msk->lock);
	return put_user(bytes, (int __user *)arg);
}

/*
 * SOCK_DESTROY of sock_diag (diag.c), which checked CAP_NET_ADMIN and
 * holds a reference; process context.  As tcp_abort() does: the
 * connection ends at once, the peer told with an RST (but a half-open
 * one, whose peer is unproven), the user with @err (ECONNABORTED) from
 * every call; a listener stops listening, its connections not yet
 * accepted reset, a blocked accept() failing with @err.  A socket
 * without a connection or listener to end is -ENOENT.
 */
static int mrc_diag_destroy(struct sock *sk, int err)
{
	struct mrc_sock *msk = mrc_sk(sk);
	int ret = 0;

	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		mrc_listen_stop(msk);
		WRITE_ONCE(sk->sk_err, err);
		sk_error_report(sk);
	} else if (!mrc_abort(msk, err)) {
		ret = -ENOENT;
	}
	release_sock(sk);
	return ret;
}

#define MRC_PROTO_OPS_COMMON			\
	.family		= PF_MRC,		\
	.owner		= THIS_MODULE,		\
	.release	= mrc_release,		\
	.bind		= mrc_bind,		\
	.connect	= mrc_connect,		\
	.socketpair	= sock_no_socketpair,	\
	.accept		= mrc_accept,		\
	.getname	= mrc_getname,		\
	.poll		= mrc_poll,		\
	.ioctl		= mrc_ioctl,		\
	.listen		= mrc_listen,		\
	.shutdown	= mrc_shutdown,		\
	.setsockopt	= mrc_setsockopt,	\
	.getsockopt	= mrc_getsockopt,	\
	.sendmsg	= mrc_sendmsg,		\
	.recvmsg	= mrc_recvmsg,		\
	.mmap		= sock_no_mmap

static const struct proto_ops mrc_stream_ops = {
	MRC_PROTO_OPS_COMMON,
};

static const struct proto_ops mrc_seqpacket_ops = {
	MRC_PROTO_OPS_COMMON,
};

static int mrc_create(struct net *net, struct socket *sock, int protocol,
		      int kern)
{
	struct sock *sk;

	switch (sock->type) {
	case SOCK_STREAM:
		sock->ops = &mrc_stream_ops;
		break;
	case SOCK_SEQPACKET:
		sock->ops = &mrc_seqpacket_ops;
		break;
	default:
		return -ESOCKTNOSUPPORT;
	}

	if (protocol != MRCPROTO_MRC)
		return -EPROTONOSUPPORT;

	sk = sk_alloc(net, PF_MRC, GFP_KERNEL, &mrc_proto, kern);
	if (!sk)
		return -ENOMEM;

	sock_init_data(sock, sk);
	mrc_sock_init(sk, sock->type);
	sock->state = SS_UNCONNECTED;
	return 0;
}

static const struct net_proto_family mrc_family_ops = {
	.family	= PF_MRC,
	.create	= mrc_create,
	.owner	= THIS_MODULE,
};

int mrc_socket_init(void)
{
	int err;

	err = proto_register(&mrc_proto, 1);
	if (err)
		return err;

	err = sock_register(&mrc_family_ops);
	if (err) {
		pr_err("address family %d is taken by another module\n",
		       PF_MRC);
		proto_unregister(&mrc_proto);
		/* Not EEXIST: modprobe would take that for "loaded already". */
		return -EBUSY;
	}
	return 0;
}

void mrc_socket_exit(void)
{
	sock_unregister(PF_MRC);
	proto_unregister(&mrc_proto);
}
