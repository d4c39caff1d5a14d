// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: connection state: ids and lookup, the planes and entropy values a
 * connection uses, and its end.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/udp.h>

#include "mrc.h"
#include "protocol.h"

void mrc_conn_init(struct mrc_sock *msk)
{
	spin_lock_init(&msk->lock);
	skb_queue_head_init(&msk->write_queue);
	INIT_LIST_HEAD(&msk->rtx_queue);
	INIT_LIST_HEAD(&msk->accept_queue);
	INIT_LIST_HEAD(&msk->accept_node);
	INIT_WORK(&msk->destroy_work, mrc_conn_destroy_work);
	mrc_timer_init(msk);
	msk->snd_ring_size = MRC_RING_MIN;
	msk->rcv_ring_size = MRC_RING_MIN;
}

/*
 * A connection gets each ring when it first needs it and gives it back
 * once idle (mrc_conn_release_rings()), so that one that stays idle,
 * sends one way only or receives in order only, does not hold a ring per
 * direction it does not use.
 *
 * A ring has a slot for each packet its side's buffer holds, rounded down
 * to a power of two, within MRC_RING_MIN and MRC_RING_MAX: the default
 * buffers make rings of MRC_RING_MIN, and a window past that, for a long
 * fat pipe, takes larger buffers (net.mrc.rmem and wmem, SO_RCVBUF and
 * SO_SNDBUF), as TCP's does.  The receive ring's size is fixed when the
 * connection is made, since the windows offered follow from it; the send
 * ring's each time it is allocated, when it is empty.
 */
u32 mrc_conn_ring_size(u32 buf, u32 truesize)
{
	u32 pkts = buf / truesize;

	if (pkts <= MRC_RING_MIN)
		return MRC_RING_MIN;
	return min_t(u32, rounddown_pow_of_two(pkts), MRC_RING_MAX);
}

/*
 * The send ring comes before packets are queued: allocated in process
 * context without msk->lock, and installed under it by
 * mrc_conn_snd_ring_install() in the same hold that queues them.  More
 * slots than the peer's first window held are of no use.
 */
struct sk_buff **mrc_conn_snd_ring_alloc(struct mrc_sock *msk, u32 *size,
					 unsigned long **map, gfp_t gfp)
{
	u32 buf = min_t(u64, READ_ONCE(msk->sk.sk_sndbuf),
			(u64)READ_ONCE(msk->snd_wnd_syn) *
			mrc_snd_truesize(msk));
	struct sk_buff **ring;

	*size = mrc_conn_ring_size(buf, mrc_snd_truesize(msk));
	/*
	 * The map apart: after the slots, a power of two, it would take the
	 * next slab up (16 KiB for the 8 KiB of 1024 slots).
	 */
	ring = kvcalloc(*size, sizeof(*ring), gfp | __GFP_ACCOUNT);
	*map = ring ? bitmap_zalloc(*size, gfp | __GFP_ACCOUNT) : NULL;
	if (*map)
		return ring;
	kvfree(ring);
	return NULL;
}

/*
 * True if the connection has a send ring, @spare's (with its map in
 * @spare_map) or its own.
 */
bool mrc_conn_snd_ring_install(struct mrc_sock *msk, struct sk_buff ***spare,
			       unsigned long **spare_map, u32 size)
{
	lockdep_assert_held(&msk->lock);
	/* A connection that ended takes no more: it would keep the ring. */
	if (!msk->snd_ring && *spare && !msk->dead) {
		msk->snd_ring_size = size;
		msk->snd_map = *spare_map;
		WRITE_ONCE(msk->snd_ring, *spare);
		*spare = NULL;
		*spare_map = NULL;
		msk->snd_started = true;
	}
	return msk->snd_ring;
}

/*
 * What a connection allocates under msk->lock, mostly in softirq for a
 * packet of the peer, is charged to its socket's memory cgroup, as what it
 * allocates in process context is: what a user's connections hold is seen
 * in its group and reclaimed from it (GFP_ATOMIC may go past memory.max,
 * as received skbs do; each allocation is bounded per connection).  A
 * listener's child has no cgroup:
 * TCP gives it its acceptor's with mem_cgroup_sk_alloc(), which modules
 * cannot call.
 */
static void *mrc_conn_zalloc(struct mrc_sock *msk, size_t n, size_t size)
{
	struct mem_cgroup *old = set_active_memcg(msk->sk.sk_memcg);
	void *p = kcalloc(n, size, GFP_ATOMIC | __GFP_ACCOUNT | __GFP_NOWARN);

	set_active_memcg(old);
	return p;
}

/* The receive ring comes with the first DATA packet out of order. */
int mrc_conn_rcv_ring(struct mrc_sock *msk)
{
	lockdep_assert_held(&msk->lock);
	if (msk->rcv_ring)
		return 0;
	msk->rcv_map = mrc_conn_zalloc(msk, BITS_TO_LONGS(msk->rcv_ring_size),
				       sizeof(unsigned long));
	msk->rcv_ring = mrc_conn_zalloc(msk, msk->rcv_ring_size,
					sizeof(*msk->rcv_ring));
	if (msk->rcv_ring && msk->rcv_map)
		return 0;
	kfree(msk->rcv_ring);
	bitmap_free(msk->rcv_map);
	msk->rcv_ring = NULL;
	msk->rcv_map = NULL;
	return -ENOMEM;
}

/*
 * An established connection gives its rings back when it has been idle
 * for MRC_RING_IDLE_NS in their direction: nothing to resend or
 * acknowledged, nothing out of order; the next packet that needs one
 * allocates it again.  A connection under load keeps them: this is for
 * the many that sit idle between bursts.  The deadline, 0 for none.
 */
u64 mrc_conn_rings_idle_at(const struct mrc_sock *msk)
{
	u64 when = 0;

	if (msk->snd_ring && !mrc_conn_outstanding(msk))
		when = msk->last_advance + MRC_RING_IDLE_NS;
	if (msk->rcv_ring && !msk->rcv_ofo &&
	    (!when || msk->last_rcv + MRC_RING_IDLE_NS < when))
		when = msk->last_rcv + MRC_RING_IDLE_NS;
	return when;
}

/*
 * Whether an idle connection may give its EVs back: none is retired.  A
 * retired EV is what the connection knows of a broken path, and a plane
 * whose EVs all retired one not to send on until a probe comes through.
 * What else an EV holds (its counters, a penalty, turns it sits out for a
 * CE mark) is of its port alone, which the next send replaces: it draws
 * new ones, whose paths are unknown as every new connection's are.
 */
static bool mrc_conn_evs_all_active(const struct mrc_sock *msk)
{
	int id;

	for (id = 0; id < msk->nr_planes; id++) {
		const struct mrc_conn_plane *cp = &msk->planes[id];

		if ((msk->plane_mask & BIT(id)) &&
		    (!cp->evs || cp->nr_active != cp->nr_evs))
			return false;
	}
	return true;
}

/*
 * Nothing is outstanding, so no packet names an EV by its index
 * (&mrc_skb_cb.ev_idx); the walkers of the table hold msk->lock and check
 * for it.  In softirq, kvfree() defers the vfree() of a large one.
 */
static void mrc_conn_evs_release(struct mrc_sock *msk)
{
	int id;

	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];

		cp->evs = NULL;
		cp->next_ev = 0;
		cp->probe_ev = 0;
	}
	kvfree(msk->ev_table);
	WRITE_ONCE(msk->ev_table, NULL);
}

/* From the connection's timer, in softirq under msk->lock. */
void mrc_conn_release_rings(struct mrc_sock *msk, u64 now)
{
	lockdep_assert_held(&msk->lock);
	/* Every slot is empty: DATA in flight or queued is outstanding. */
	if (msk->snd_ring && !mrc_conn_outstanding(msk) &&
	    now >= msk->last_advance + MRC_RING_IDLE_NS) {
		kvfree(msk->snd_ring);
		bitmap_free(msk->snd_map);
		WRITE_ONCE(msk->snd_ring, NULL);
		msk->snd_map = NULL;
		msk->no_room_until = 0;
		if (msk->ev_table && mrc_conn_evs_all_active(msk))
			mrc_conn_evs_release(msk);
	}
	/* And here every slot is empty when nothing is out of order. */
	if (msk->rcv_ring && !msk->rcv_ofo &&
	    now >= msk->last_rcv + MRC_RING_IDLE_NS) {
		kfree(msk->rcv_ring);
		bitmap_free(msk->rcv_map);
		msk->rcv_ring = NULL;
		msk->rcv_map = NULL;
	}
}

/*
 * From the destructor only: the planes live as long as the socket, for the
 * RCU walkers that find it and take msk->lock; so does an EV table that
 * mrc_conn_release_rings() did not give back.
 */
void mrc_conn_free_rings(struct mrc_sock *msk)
{
	kvfree(msk->snd_ring);
	bitmap_free(msk->snd_map);
	kfree(msk->rcv_ring);
	bitmap_free(msk->rcv_map);
	kvfree(msk->ev_table);
	kfree(msk->planes);
	msk->ev_table = NULL;
	msk->planes = NULL;
	msk->nr_planes = 0;
	msk->plane_mask = 0;
	msk->snd_ring = NULL;
	msk->snd_map = NULL;
	msk->rcv_ring = NULL;
	msk->rcv_map = NULL;
}

static struct mrc_sock *mrc_conn_find(struct mrc_net *mn, u32 lcid)
{
	struct mrc_sock *msk;

	hash_for_each_possible_rcu(mn->conns, msk, cid_node, lcid)
		if (msk->lcid == lcid)
			return msk;
	return NULL;
}

/* Give the connection a fresh random id and make it visible to input. */
int mrc_conn_hash(struct mrc_sock *msk)
{
	struct mrc_net *mn = mrc_pernet(sock_net(&msk->sk));
	int tries;
	u32 lcid;

	spin_lock_bh(&mn->conns_lock);
	for (tries = 0; tries < 16; tries++) {
		lcid = get_random_u32();
		if (lcid && !mrc_conn_find(mn, lcid))
			break;
	}
	if (tries == 16) {
		spin_unlock_bh(&mn->conns_lock);
		return -EADDRNOTAVAIL;
	}
	msk->lcid = lcid;
	sock_hold(&msk->sk);
	msk->hashed = true;
	hash_add_rcu(mn->conns, &msk->cid_node, lcid);
	spin_unlock_bh(&mn->conns_lock);
	return 0;
}

/*
 * The peer chooses its ids: hashed with a secret, so that it cannot make
 * them all land in one bucket.
 */
static u32 mrc_conn_peer_key(u32 rcid)
{
	static u32 mrc_peer_seed __read_mostly;

	net_get_random_once(&mrc_peer_seed, sizeof(mrc_peer_seed));
	return jhash_1word(rcid, mrc_peer_seed);
}

/* Once the peer's id is known: lets a repeated SYN find its connection. */
void mrc_conn_hash_peer(struct mrc_sock *msk)
{
	struct mrc_net *mn = mrc_pernet(sock_net(&msk->sk));

	spin_lock_bh(&mn->conns_lock);
	if (msk->hashed && hlist_unhashed(&msk->rcid_node))
		hash_add_rcu(mn->conns_by_peer, &msk->rcid_node,
			     mrc_conn_peer_key(msk->rcid));
	spin_unlock_bh(&mn->conns_lock);
}

void mrc_conn_unhash(struct mrc_sock *msk)
{
	struct mrc_net *mn = mrc_pernet(sock_net(&msk->sk));
	bool hashed;

	spin_lock_bh(&mn->conns_lock);
	hashed = msk->hashed;
	if (hashed) {
		hash_del_rcu(&msk->cid_node);
		if (!hlist_unhashed(&msk->rcid_node))
			hash_del_rcu(&msk->rcid_node);
		msk->hashed = false;
	}
	spin_unlock_bh(&mn->conns_lock);
	if (hashed)
		sock_put(&msk->sk);
}

/* Called under RCU; the socket is freed after a grace period. */
struct mrc_sock *mrc_conn_lookup(struct mrc_net *mn, u32 lcid)
{
	struct mrc_sock *msk = mrc_conn_find(mn, lcid);

	if (msk && !refcount_inc_not_zero(&msk->sk.sk_refcnt))
		msk = NULL;
	return msk;
}

bool mrc_addr_equal(const struct mrc_addr *a, const struct mrc_addr *b)
{
	if (a->family != b->family)
		return false;
	if (a->family == AF_INET)
		return a->v4 == b->v4;
	return ipv6_addr_equal(&a->v6, &b->v6);
}

bool mrc_addr_equal_plane(const struct mrc_addr *a,
			  const struct mrc_plane *plane)
{
	if (a->family != plane->family)
		return false;
	if (a->family == AF_INET)
		return a->v4 == plane->addr4;
	return ipv6_addr_equal(&a->v6, &plane->addr6);
}

/* A connection made from an earlier copy of the same SYN, under RCU. */
struct mrc_sock *mrc_conn_lookup_peer(struct mrc_net *mn, u32 rcid,
				      u16 rport, u16 lport,
				      const struct mrc_addr *raddr)
{
	struct mrc_sock *msk;

	hash_for_each_possible_rcu(mn->conns_by_peer, msk, rcid_node,
				   mrc_conn_peer_key(rcid)) {
		if (msk->rcid != rcid || msk->dport != rport ||
		    READ_ONCE(msk->port) != lport ||
		    !mrc_addr_equal(&msk->daddr, raddr))
			continue;
		if (refcount_inc_not_zero(&msk->sk.sk_refcnt))
			return msk;
	}
	return NULL;
}

/* Every plane of the namespace, whatever its state: it may come up later. */
int mrc_conn_fill_planes(struct mrc_sock *msk, struct mrc_syn *syn,
			 int max_planes)
{
	struct mrc_net *mn = mrc_pernet(sock_net(&msk->sk));
	struct mrc_syn_plane *sp;
	struct mrc_plane *plane;
	int n = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(plane, &mn->planes, list) {
		if (n == max_planes)
			break;
		sp = &syn->planes[n++];
		memset(sp, 0, sizeof(*sp));
		sp->id = plane->id;
		if (plane->family == AF_INET) {
			sp->family = 4;
			memcpy(sp->addr, &plane->addr4, sizeof(plane->addr4));
		} else {
			sp->family = 6;
			memcpy(sp->addr, &plane->addr6, sizeof(plane->addr6));
		}
	}
	rcu_read_unlock();
	syn->nr_planes = n;
	syn->max_payload = htons(mrc_conn_local_mss(mn));
	return n;
}

/* Largest payload that every plane of the namespace carries. */
u16 mrc_conn_local_mss(struct mrc_net *mn)
{
	struct mrc_plane *plane;
	u32 mss = U16_MAX, hlen;

	rcu_read_lock();
	list_for_each_entry_rcu(plane, &mn->planes, list) {
		u32 mtu = READ_ONCE(plane->dev->mtu);

		hlen = (plane->family == AF_INET ? sizeof(struct iphdr) :
			sizeof(struct ipv6hdr)) + sizeof(struct udphdr) +
		       sizeof(struct mrc_hdr);
		mss = min(mss, mtu > hlen ? mtu - hlen : 0);
	}
	rcu_read_unlock();
	return max(mss, MRC_MIN_MSS);
}

/*
 * How many EVs each shared plane gets, as many as it asks for: decided
 * with the handshake, which also takes the planes' state.  The EVs
 * themselves are drawn when the connection first sends, data or its FIN
 * (see mrc_conn_evs_install()): one that only receives, or sits idle as
 * most of a server's do, has no table (up to 16 KiB) until it closes.
 */
static void mrc_conn_count_evs(struct mrc_sock *msk, int nr_shared)
{
	struct mrc_net *mn = mrc_pernet(sock_net(&msk->sk));
	struct mrc_plane *plane;
	u32 total = 0;
	int id;

	rcu_read_lock();
	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];

		if (!(msk->plane_mask & BIT(id)))
			continue;
		plane = rcu_dereference(mn->plane_by_id[id]);
		cp->nr_evs = clamp_t(u32, plane ? mrc_plane_evs(plane) :
				     READ_ONCE(mn->default_evs), 1,
				     MRC_MAX_EVS / nr_shared);
		cp->nr_active = cp->nr_evs;
		cp->up = plane && READ_ONCE(plane->state) == MRC_PLANE_STATE_UP;
		total += cp->nr_evs;
	}
	rcu_read_unlock();
	WRITE_ONCE(msk->nr_evs, total);
}

/*
 * A table for @nr_evs EVs, from process context without msk->lock, for
 * mrc_conn_evs_install(): charged as the send ring is.  Up to 16 KiB, past
 * what a __GFP_NOFAIL kmalloc (a FIN's) may ask for: kvcalloc() takes it
 * from vmalloc then.
 */
struct mrc_ev *mrc_conn_evs_alloc(u16 nr_evs, gfp_t gfp)
{
	return nr_evs ? kvcalloc(nr_evs, sizeof(struct mrc_ev),
				 gfp | __GFP_ACCOUNT) : NULL;
}

static bool mrc_ev_taken(const struct mrc_ev *table, u32 n, u16 port)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (table[i].port == port)
			return true;
	return false;
}

/*
 * Draw the connection's EVs into @spare, made for @nr_evs of them, unless
 * it has its table already; then @spare is the caller's to free.  Each
 * plane's EVs are random source ports, distinct over the connection, all
 * in use.
 */
void mrc_conn_evs_install(struct mrc_sock *msk, struct mrc_ev **spare,
			  u16 nr_evs)
{
	struct mrc_ev *ev = *spare;
	u32 total = 0, i;
	int id;

	lockdep_assert_held(&msk->lock);
	if (msk->ev_table || !ev || msk->dead || nr_evs != msk->nr_evs)
		return;
	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];

		if (!(msk->plane_mask & BIT(id)))
			continue;
		cp->evs = ev + total;
		for (i = 0; i < cp->nr_evs; i++, total++) {
			u16 port;

			do {
				port = mrc_random_ev();
			} while (mrc_ev_taken(ev, total, port));
			ev[total].port = port;
		}
	}
	WRITE_ONCE(msk->ev_table, ev);
	*spare = NULL;
}

/*
 * Whether a peer may name @addr as one of its planes: a unicast address
 * that is not ours.  Anything else would have us send to ourselves, to
 * every host of a link, or to nobody.
 */
static bool mrc_peer_addr_ok(struct net *net, const struct mrc_addr *addr)
{
	if (addr->family == AF_INET) {
		__be32 a = addr->v4;

		if (ipv4_is_zeronet(a) || ipv4_is_loopback(a) ||
		    ipv4_is_multicast(a) || ipv4_is_lbcast(a))
			return false;
		/* Local and directed broadcast addresses are not unicast. */
		return inet_addr_type(net, a) == RTN_UNICAST;
	}
	if (!(ipv6_addr_type(&addr->v6) & IPV6_ADDR_UNICAST) ||
	    ipv6_addr_type(&addr->v6) & (IPV6_ADDR_LOOPBACK | IPV6_ADDR_MAPPED))
		return false;
	return !ipv6_chk_addr(net, &addr->v6, NULL, 0);
}

/* The address @sp names, AF_UNSPEC if its family is neither 4 nor 6. */
static void mrc_syn_plane_addr(const struct mrc_syn_plane *sp,
			       struct mrc_addr *addr)
{
	memset(addr, 0, sizeof(*addr));
	if (sp->family == 4) {
		addr->family = AF_INET;
		memcpy(&addr->v4, sp->addr, sizeof(addr->v4));
	} else if (sp->family == 6) {
		addr->family = AF_INET6;
		memcpy(&addr->v6, sp->addr, sizeof(addr->v6));
	}
}

/*
 * Take the peer's planes from its SYN or SYN_ACK: the connection uses
 * every plane id that both sides have, with the same address family and
 * a unicast address that is not ours.  The plane of the handshake must be
 * named with the address the handshake went to or came from; the others
 * carry data only once validated (path.c).
 *
 * Once per connection, under msk->lock or before the connection is
 * visible: the planes are allocated here, by id up to the highest shared
 * one, and stay until the destructor.
 */
int mrc_conn_set_planes(struct mrc_sock *msk, const struct mrc_syn *syn,
			unsigned int len)
{
	struct mrc_net *mn = mrc_pernet(sock_net(&msk->sk));
	unsigned int i, nr = syn->nr_planes;
	u8 from[MRC_MAX_PLANES] = {};
	struct mrc_conn_plane *planes;
	int id, nr_ids, nr_shared = 0;
	struct mrc_addr raddr;
	u32 mask = 0;

	if (len < struct_size(syn, planes, nr))
		return -EPROTO;
	if (WARN_ON_ONCE(msk->planes))
		return -EPROTO;

	/* Which planes first, and the entry naming each: then their size. */
	rcu_read_lock();
	for (i = 0; i < nr; i++) {
		const struct mrc_syn_plane *sp = &syn->planes[i];
		struct mrc_plane *plane;

		if (sp->id >= MRC_MAX_PLANES || mask & BIT(sp->id))
			continue;
		plane = rcu_dereference(mn->plane_by_id[sp->id]);
		if (!plane)
			continue;
		mrc_syn_plane_addr(sp, &raddr);
		if (raddr.family != plane->family)
			continue;
		if (sp->id == msk->syn_plane) {
			if (!mrc_addr_equal(&raddr, &msk->daddr))
				break;
		} else if (!mrc_peer_addr_ok(sock_net(&msk->sk), &raddr)) {
			continue;
		}
		from[sp->id] = i;
		mask |= BIT(sp->id);
		nr_shared++;
	}
	rcu_read_unlock();
	if (i < nr || !(mask & BIT(msk->syn_plane)))
		return -EPROTO;

	nr_ids = fls(mask);
	planes = mrc_conn_zalloc(msk, nr_ids, sizeof(*planes));
	if (!planes)
		return -ENOMEM;
	for (id = 0; id < nr_ids; id++) {
		struct mrc_conn_plane *cp = &planes[id];

		INIT_LIST_HEAD(&cp->inflight);
		cp->cwnd = msk->params.init_cwnd;
		cp->ssthresh = MRC_RING_MAX;
		/* The rounds of the windows start with the first DATA. */
		cp->recovery_psn = msk->next_psn;
		cp->ce_round_psn = msk->next_psn;
		if (!(mask & BIT(id)))
			continue;
		mrc_syn_plane_addr(&syn->planes[from[id]], &cp->raddr);
		cp->validated = id == msk->syn_plane;
	}
	msk->planes = planes;
	msk->nr_planes = nr_ids;
	msk->plane_mask = mask;

	msk->mss = min_t(u32, mrc_conn_local_mss(mn), ntohs(syn->max_payload));
	msk->mss = max(msk->mss, MRC_MIN_MSS);
	msk->path_mss = msk->mss;
	msk->rcv_mss = msk->mss;
	mrc_conn_count_evs(msk, nr_shared);
	return 0;
}

/*
 * Once the user closed the socket, the connection lives until the peer
 * acknowledged everything and sent its own FIN, then lingers briefly to
 * answer a repeated FIN.  Called under msk->lock.
 */
void mrc_conn_check_end(struct mrc_sock *msk)
{
	u64 now = ktime_get_ns();

	lockdep_assert_held(&msk->lock);
	if (msk->dead || !msk->closed || !msk->fin_acked ||
	    msk->sk.sk_state != TCP_ESTABLISHED)
		return;
	if (msk->fin_rcvd) {
		if (!msk->time_wait) {
			msk->time_wait = true;
			msk->close_deadline = now + MRC_TIME_WAIT_NS;
		}
	} else if (!msk->close_deadline) {
		msk->close_deadline = now + MRC_FIN_WAIT_NS;
	}
}

/*
 * End the connection, for @why: no more timers, no more input.  @err is
 * what the socket reports, positive, or 0.  Called with msk->lock held,
 * from any context; the teardown that must sleep or cancel timers runs
 * from a work item.
 */
void mrc_conn_done(struct mrc_sock *msk, int err, enum mrc_conn_end why)
{
	struct sock *sk = &msk->sk;

	lockdep_assert_held(&msk->lock);
	if (msk->dead)
		return;
	msk->dead = true;
	mrc_nl_conn_down(msk, why, err);
	if (err)
		WRITE_ONCE(sk->sk_err, err);
	mrc_set_state(sk, TCP_CLOSE);
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	sk->sk_state_change(sk);
	if (err)
		sk_error_report(sk);
	sock_hold(sk);
	if (!queue_work(mrc_wq, &msk->destroy_work))
		sock_put(sk);
}

/*
 * Free what the send side and the reordering ring hold; the receive queue
 * stays readable.  Under msk->lock, or from the socket's destructor when
 * nothing else can reach it.
 */
void mrc_conn_purge(struct mrc_sock *msk)
{
	struct sk_buff *skb;
	u32 i;

	while ((skb = __skb_dequeue(&msk->write_queue)))
		mrc_output_free_skb(msk, skb);
	for (i = 0; msk->snd_ring && i < msk->snd_ring_size; i++) {
		skb = msk->snd_ring[i];
		if (!skb)
			continue;
		msk->snd_ring[i] = NULL;
		__clear_bit(i, msk->snd_map);
		skb_list_del_init(skb);
		mrc_output_free_skb(msk, skb);
	}
	INIT_LIST_HEAD(&msk->rtx_queue);
	for (i = 0; i < msk->nr_planes; i++) {
		INIT_LIST_HEAD(&msk->planes[i].inflight);
		msk->planes[i].nr_inflight = 0;
	}
	for (i = 0; msk->rcv_ring && i < msk->rcv_ring_size; i++) {
		if (msk->rcv_ring[i])
			kfree_skb(msk->rcv_ring[i]);
		msk->rcv_ring[i] = NULL;
	}
	msk->rcv_ofo = 0;
	msk->rcv_ofo_mem = 0;
}

void mrc_conn_destroy_work(struct work_struct *work)
{
	struct mrc_sock *msk = container_of(work, struct mrc_sock,
					    destroy_work);
	struct sock *sk = &msk->sk;

	/* msk->dead keeps them from being armed again. */
	hrtimer_cancel(&msk->rto_timer);
	hrtimer_cancel(&msk->ack_timer);
	spin_lock_bh(&msk->lock);
	mrc_conn_purge(msk);
	if (msk->orphan) {
		msk->orphan = false;
		atomic_dec(&mrc_pernet(sock_net(sk))->orphans);
	}
	spin_unlock_bh(&msk->lock);
	sk->sk_write_space(sk);
	mrc_sock_child_forget(msk);
	mrc_conn_unhash(msk);
	sock_put(sk);
}

/* The state of a connection as netlink and MRC_INFO report it. */
u32 mrc_conn_report_state(const struct mrc_sock *msk)
{
	const struct sock *sk = &msk->sk;

	switch (READ_ONCE(sk->sk_state)) {
	case TCP_SYN_SENT:
		return MRC_CONN_STATE_SYN_SENT;
	case TCP_SYN_RECV:
		return MRC_CONN_STATE_SYN_RECV;
	case TCP_ESTABLISHED:
		if (msk->closed || READ_ONCE(sk->sk_shutdown) == SHUTDOWN_MASK)
			return MRC_CONN_STATE_CLOSING;
		return MRC_CONN_STATE_ESTABLISHED;
	default:
		return MRC_CONN_STATE_CLOSED;
	}
}
