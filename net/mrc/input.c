// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: the receive side.  Every plane's UDP socket hands its datagrams to
 * mrc_input() in softirq context, under RCU.  A packet finds its
 * connection by the id we chose, and must come from the peer's address on
 * the plane it arrived on; anything else is dropped and counted.  DATA
 * packets are placed by DSN into a ring, in any order, and move to the
 * receive queue once the ones before them are there.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <linux/filter.h>
#include <linux/ip.h>
#include <linux/jhash.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>
#include <net/udp.h>

#include "mrc.h"
#include "protocol.h"

/* A packet that no connection takes, counted and told to drop monitors. */
static void mrc_input_drop(struct mrc_plane *plane, struct sk_buff *skb,
			   enum mrc_mib_field field, enum skb_drop_reason why)
{
	MRC_INC_STATS(plane->mn, field);
	MRC_PLANE_INC_STATS(plane, MRC_PLANE_MIB_IN_DROPS);
	kfree_skb_reason(skb, why);
}

/* The RST limit of @addr's bucket of sources. */
static struct ratelimit_state *mrc_rst_src_limit(struct mrc_net *mn,
						 const struct mrc_addr *addr)
{
	static u32 mrc_rst_seed __read_mostly;
	u32 h;

	net_get_random_once(&mrc_rst_seed, sizeof(mrc_rst_seed));
	if (addr->family == AF_INET)
		h = jhash_1word((__force u32)addr->v4, mrc_rst_seed);
	else
		h = jhash2((const u32 *)&addr->v6, 4, mrc_rst_seed);
	return &mn->rst_src_limit[h % MRC_RST_SOURCES];
}

/*
 * An RST for a packet that names no connection or listener here, at most
 * net.mrc.rst_rate_per_source a second to a source and net.mrc.rst_rate in a
 * namespace: forged packets must not make the host a reflector, nor use up
 * the RSTs that others wait for.
 */
static void mrc_rst_stray(struct mrc_net *mn, int plane_id,
			  const struct mrc_hdr *hdr,
			  const struct mrc_addr *raddr)
{
	struct sk_buff_head queue;

	if (!__ratelimit(mrc_rst_src_limit(mn, raddr)) ||
	    !__ratelimit(&mn->rst_limit)) {
		MRC_INC_STATS(mn, MRC_MIB_RST_STRAY_LIMITED);
		return;
	}
	MRC_INC_STATS(mn, MRC_MIB_RST_STRAY_SENT);
	__skb_queue_head_init(&queue);
	/* Its DSN echoes the packet's, which the peer has in flight. */
	mrc_output_rst_to(&queue, plane_id, ntohl(hdr->src_cid),
			  ntohl(hdr->dst_cid), ntohl(hdr->dsn), raddr);
	mrc_xmit(mn->net, &queue);
}

static void mrc_skb_saddr(const struct sk_buff *skb, sa_family_t family,
			  struct mrc_addr *addr)
{
	memset(addr, 0, sizeof(*addr));
	addr->family = family;
	if (family == AF_INET)
		addr->v4 = ip_hdr(skb)->saddr;
	else
		addr->v6 = ipv6_hdr(skb)->saddr;
}

/*
 * Whether a DATA payload of @len bytes is less than a full packet.  A
 * sender whose path MTU fell cuts smaller full packets: two in a row of
 * one size, no smaller than any path MTU allows, are taken as the new full
 * size, as TCP estimates rcv_mss; a longer one raises it again.
 */
static bool mrc_rcv_short(struct mrc_sock *msk, u32 len)
{
	if (len >= msk->rcv_mss) {
		msk->rcv_mss = min(len, msk->mss);
		return false;
	}
	if (len >= MRC_RCV_MSS_MIN && len == msk->rcv_last_len) {
		msk->rcv_mss = len;
		return false;
	}
	msk->rcv_last_len = len;
	return true;
}

/*
 * What a received packet costs the receive buffer: the window and the
 * seqpacket reader's "buffer full" must agree on it, or a window closed
 * on a buffer not yet full leaves both ends waiting.
 */
u32 mrc_rcv_pkt_cost(const struct mrc_sock *msk)
{
	return max(READ_ONCE(msk->rcv_truesize), mrc_pkt_truesize(msk));
}

/* Packets each receiver may hold: its free buffer over a packet's cost. */
void mrc_rcv_update_window(struct mrc_sock *msk)
{
	struct sock *sk = &msk->sk;
	int room = READ_ONCE(sk->sk_rcvbuf) - atomic_read(&sk->sk_rmem_alloc);
	u32 cost = mrc_rcv_pkt_cost(msk);
	u32 wnd = room > 0 ? room / cost : 0;
	u32 end;

	/* However small the buffer, one packet at a time gets through. */
	if (!wnd && !atomic_read(&sk->sk_rmem_alloc))
		wnd = 1;

	wnd = min_t(u32, wnd + msk->rcv_ofo, msk->rcv_ring_size);
	end = msk->rcv_nxt + wnd;
	/* Never take back what was offered. */
	if (mrc_before(msk->rcv_wnd_end, end))
		msk->rcv_wnd_end = end;
}

/* The window a handshake offers, from the receive buffer alone. */
u32 mrc_rcv_initial_window(const struct mrc_sock *msk)
{
	u32 wnd = READ_ONCE(msk->sk.sk_rcvbuf) / mrc_pkt_truesize(msk);

	return clamp_t(u32, wnd, 1, msk->rcv_ring_size);
}

/*
 * Whether reading opened the window enough to tell the peer: to twice
 * what the peer was last told is left of it (from shut, any room), as TCP
 * does, or by a quarter of the ring.  Less is told by the next
 * acknowledgment: an update for every packet read, in a buffer of fewer
 * than 128 packets, would double the packets of a request-reply exchange.
 */
bool mrc_rcv_window_grew(struct mrc_sock *msk)
{
	u32 told = 0, wnd;

	if (mrc_before(msk->rcv_nxt, msk->rcv_wnd_told))
		told = msk->rcv_wnd_told - msk->rcv_nxt;
	mrc_rcv_update_window(msk);
	wnd = msk->rcv_wnd_end - msk->rcv_nxt;
	return wnd > told &&
	       (wnd >= 2 * told || wnd >= told + msk->rcv_ring_size / 4);
}

/* Free what arrived with a DSN after @dsn: a FIN is the end. */
static void mrc_rcv_drop_after(struct mrc_sock *msk, u32 dsn)
{
	struct sk_buff *skb;
	u32 slot;

	for (dsn++; mrc_before(dsn, msk->rcv_nxt + msk->rcv_ring_size); dsn++) {
		slot = mrc_rcv_slot(msk, dsn);
		skb = msk->rcv_ring[slot];
		if (!skb)
			continue;
		msk->rcv_ring[slot] = NULL;
		__clear_bit(slot, msk->rcv_map);
		msk->rcv_ofo--;
		msk->rcv_ofo_mem -= skb->truesize;
		msk->stats.rx_dropped++;
		MRC_INC_STATS(mrc_msk_net(msk), MRC_MIB_IN_CLOSED_DROPS);
		kfree_skb(skb);
	}
}

/* Hand the packet at rcv_nxt to the reader, and move rcv_nxt past it. */
static void mrc_rcv_deliver_one(struct mrc_sock *msk, struct sk_buff *skb)
{
	struct sock *sk = &msk->sk;

	msk->rcv_nxt++;
	if (MRC_SKB_CB(skb)->flags & MRC_F_FIN) {
		consume_skb(skb);
		msk->fin_rcvd = true;
		WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | RCV_SHUTDOWN);
		sk->sk_state_change(sk);
		return;
	}
	/* A stream has no use for a packet without bytes. */
	if (!skb->len && sk->sk_type == SOCK_STREAM) {
		kfree_skb(skb);
		return;
	}
	if (MRC_SKB_CB(skb)->flags & MRC_F_LAST)
		WRITE_ONCE(msk->rcv_msgs, msk->rcv_msgs + 1);
	__skb_queue_tail(&sk->sk_receive_queue, skb);
	/* Paired with the readers' wait in data.c. */
	WRITE_ONCE(msk->rcv_seq, msk->rcv_seq + 1);
}

/* Move what the ring holds that is now in order to the receive queue. */
static void mrc_rcv_deliver(struct mrc_sock *msk)
{
	struct sk_buff *skb;
	u32 slot;

	while (msk->rcv_ofo) {
		slot = mrc_rcv_slot(msk, msk->rcv_nxt);
		skb = msk->rcv_ring[slot];
		if (!skb)
			break;
		msk->rcv_ring[slot] = NULL;
		__clear_bit(slot, msk->rcv_map);
		msk->rcv_ofo--;
		msk->rcv_ofo_mem -= skb->truesize;
		mrc_rcv_deliver_one(msk, skb);
	}
}

/*
 * A DATA packet; consumes @skb.  Returns whether to acknowledge now, and
 * sets @nack when the acknowledgment must be a NACK of this packet.
 */
static bool mrc_rcv_data(struct mrc_sock *msk, const struct mrc_hdr *hdr,
			 struct sk_buff *skb, bool *nack)
{
	enum skb_drop_reason why = SKB_NOT_DROPPED_YET;
	struct mrc_net *mn = mrc_msk_net(msk);
	struct sock *sk = &msk->sk;
	struct mrc_skb_cb *cb = MRC_SKB_CB(skb);
	u32 dsn = ntohl(hdr->dsn), slot;
	bool in_order;

	if (mrc_before(dsn, msk->rcv_nxt))
		goto dup;
	/* A FIN has no bytes, and nothing comes after it. */
	if (((hdr->flags & MRC_F_FIN) && skb->len) ||
	    (msk->rcv_fin_seen && mrc_before(msk->rcv_fin_dsn, dsn))) {
		msk->stats.rx_dropped++;
		MRC_INC_STATS(mn, MRC_MIB_IN_CLOSED_DROPS);
		goto drop;
	}
	if (!mrc_before(dsn, msk->rcv_nxt + msk->rcv_ring_size) ||
	    !mrc_before(dsn, msk->rcv_wnd_end)) {
		msk->stats.rx_dropped++;
		MRC_INC_STATS(mn, MRC_MIB_IN_OUT_OF_WINDOW);
		goto drop_ack;
	}
	/* Only what arrives out of order needs the ring; found missing later. */
	if (dsn != msk->rcv_nxt && mrc_conn_rcv_ring(msk)) {
		MRC_INC_STATS(mn, MRC_MIB_IN_MEM_DROPS);
		why = SKB_DROP_REASON_NOMEM;
		goto drop;
	}
	slot = mrc_rcv_slot(msk, dsn);
	if (msk->rcv_ring && msk->rcv_ring[slot])
		goto dup;
	/* A closed socket takes no more data: tell the peer, as TCP does. */
	if (msk->closed && skb->len) {
		msk->rst_pending = true;
		MRC_INC_STATS(mn, MRC_MIB_IN_CLOSED_DROPS);
		goto drop;
	}
	/* The socket's filter (SO_ATTACH_FILTER) and security module. */
	if (sk_filter(sk, skb)) {
		msk->stats.rx_dropped++;
		MRC_INC_STATS(mn, MRC_MIB_IN_FILTERED);
		why = SKB_DROP_REASON_SOCKET_FILTER;
		goto drop;
	}
	/*
	 * What the peer makes us hold is charged to us and bounded: packets
	 * out of order by the buffer, the next one in order by twice that,
	 * so that out-of-order data never keeps out what would free it.  A
	 * drop for memory is told with a NACK: it is no path's fault, and
	 * the peer waits for room, which reading tells (mrc_recv_done()).
	 */
	if (atomic_read(&sk->sk_rmem_alloc) &&
	    (u64)atomic_read(&sk->sk_rmem_alloc) + skb->truesize >
	    (u64)READ_ONCE(sk->sk_rcvbuf) * (dsn == msk->rcv_nxt ? 2 : 1))
		why = SKB_DROP_REASON_SOCKET_RCVBUFF;
	else if (!sk_rmem_schedule(sk, skb, skb->truesize))
		why = SKB_DROP_REASON_PROTO_MEM;
	if (why) {
		msk->stats.rx_dropped++;
		MRC_INC_STATS(mn, MRC_MIB_IN_MEM_DROPS);
		msk->rcv_no_room = true;
		*nack = true;
		goto drop_ack;
	}

	skb_dst_drop(skb);
	nf_reset_ct(skb);
	memset(cb, 0, sizeof(*cb));
	cb->dsn = dsn;
	cb->flags = hdr->flags & (MRC_F_LAST | MRC_F_FIN);
	cb->msg_id = ntohl(hdr->msg_id);
	cb->offset = ntohl(hdr->offset);
	cb->len = skb->len;
	skb_set_owner_r(skb, sk);
	if (skb->truesize > msk->rcv_truesize)
		WRITE_ONCE(msk->rcv_truesize, skb->truesize);

	if (cb->flags & MRC_F_FIN) {
		if (msk->rcv_fin_seen && msk->rcv_fin_dsn != dsn) {
			msk->stats.rx_dropped++;
			MRC_INC_STATS(mn, MRC_MIB_IN_CLOSED_DROPS);
			goto drop;
		}
		msk->rcv_fin_seen = true;
		msk->rcv_fin_dsn = dsn;
		if (msk->rcv_ring)
			mrc_rcv_drop_after(msk, dsn);
	}
	msk->rcv_started = true;
	in_order = dsn == msk->rcv_nxt;
	if (in_order) {
		/* Straight to the reader, and what it let through after it. */
		mrc_rcv_deliver_one(msk, skb);
		mrc_rcv_deliver(msk);
		sk->sk_data_ready(sk);
	} else {
		msk->rcv_ring[slot] = skb;
		__set_bit(slot, msk->rcv_map);
		msk->rcv_ofo++;
		msk->rcv_ofo_mem += skb->truesize;
	}
	msk->ack_pending++;
	/* Holes and ends are told at once; the rest in batches. */
	return !in_order || msk->rcv_ofo || msk->fin_rcvd ||
	       msk->ack_pending >= MRC_ACK_EVERY;

dup:
	/* A copy sent in vain: the acknowledgment tells the sender so. */
	msk->stats.rx_duplicates++;
	MRC_INC_STATS(mn, MRC_MIB_IN_DUPLICATES);
	msk->echo_dup = true;
drop_ack:
	kfree_skb_reason(skb, why ?: SKB_DROP_REASON_NOT_SPECIFIED);
	return true;
drop:
	kfree_skb_reason(skb, why ?: SKB_DROP_REASON_NOT_SPECIFIED);
	return false;
}

static void mrc_rcv_echo(struct mrc_sock *msk, const struct mrc_hdr *hdr,
			 int plane_id);

static void mrc_rcv_syn_ack(struct mrc_sock *msk, const struct mrc_hdr *hdr,
			    struct sk_buff *skb, struct sk_buff_head *queue)
{
	struct sock *sk = &msk->sk;
	const struct mrc_syn *syn;
	u64 now = ktime_get_ns();
	int err;

	/*
	 * A SYN_ACK again: our acknowledgment of it was lost, and the
	 * listener keeps the connection half-open until one comes.
	 */
	if (sk->sk_state == TCP_ESTABLISHED &&
	    ntohl(hdr->src_cid) == msk->rcid) {
		mrc_rcv_echo(msk, hdr, msk->syn_plane);
		mrc_output_ack(msk, MRC_PKT_ACK, 0, queue);
		return;
	}
	if (sk->sk_state != TCP_SYN_SENT)
		return;
	if (!pskb_may_pull(skb, sizeof(*syn)))
		return;
	syn = (const struct mrc_syn *)skb->data;
	if (!pskb_may_pull(skb, struct_size(syn, planes, syn->nr_planes)))
		return;
	syn = (const struct mrc_syn *)skb->data;

	if (!hdr->src_cid)
		return;
	msk->rcid = ntohl(hdr->src_cid);
	err = mrc_conn_set_planes(msk, syn, skb->len);
	if (err) {
		mrc_output_rst(msk, queue);
		mrc_conn_done(msk, -err, MRC_CONN_END_ERROR);
		return;
	}
	WRITE_ONCE(msk->snd_wnd_syn,
		   min_t(u32, ntohl(syn->window), MRC_RING_MAX));
	msk->snd_wnd_end = msk->snd_nxt + msk->snd_wnd_syn;
	msk->rcv_nxt = ntohl(hdr->dsn);
	msk->rcv_wnd_end = msk->rcv_nxt;
	mrc_rcv_update_window(msk);
	msk->rcv_wnd_told = msk->rcv_wnd_end;
	mrc_cc_rtt_since(msk, &msk->planes[msk->syn_plane], msk->syn_start, now);
	msk->backoff = 0;
	msk->last_progress = now;
	msk->last_advance = now;
	mrc_set_state(sk, TCP_ESTABLISHED);
	mrc_nl_conn_up(msk);
	sk->sk_state_change(sk);
	sk->sk_write_space(sk);
	/*
	 * Tell the listener we are here, with our window: echoing its id
	 * proves we received the SYN_ACK where it was sent.
	 */
	mrc_rcv_echo(msk, hdr, msk->syn_plane);
	mrc_output_ack(msk, MRC_PKT_ACK, 0, queue);
	mrc_path_validate_start(msk, now);
	mrc_path_validate(msk, now, queue);
	mrc_output_push(msk, queue);
}

/*
 * The peer sent RST: the end, with the error that fits the state.  An RST
 * names a DSN we sent: our first in answer to the SYN, else one between
 * what was acknowledged and what was sent (the next the peer expects, or
 * the DSN of the packet it answers).  Knowing the connection ids is not
 * enough to kill a connection.
 */
static void mrc_rcv_rst(struct mrc_sock *msk, const struct mrc_hdr *hdr,
			int plane_id)
{
	enum mrc_conn_end why = MRC_CONN_END_RESET;
	u32 dsn = ntohl(hdr->dsn);
	int err = ECONNRESET;

	if (msk->sk.sk_state == TCP_SYN_SENT) {
		if (dsn != msk->snd_isn)
			goto ignore;
		err = ECONNREFUSED;
		why = MRC_CONN_END_REFUSED;
		MRC_MSK_INC_STATS(msk, MRC_MIB_CONNECT_REFUSED);
	} else if (mrc_before(dsn, msk->snd_una) ||
		   mrc_before(msk->snd_nxt, dsn)) {
		msk->stats.rx_dropped++;
		goto ignore;
	} else if (msk->fin_acked && msk->fin_rcvd) {
		err = 0;
		why = MRC_CONN_END_CLOSED;
	}
	MRC_MSK_INC_STATS(msk, MRC_MIB_RST_RCVD);
	trace_mrc_rst(msk->lcid, msk->rcid, plane_id, dsn, true);
	mrc_conn_done(msk, err, why);
	return;
ignore:
	MRC_MSK_INC_STATS(msk, MRC_MIB_RST_IGNORED);
}

/* Remember the packet the next acknowledgment answers. */
static void mrc_rcv_echo(struct mrc_sock *msk, const struct mrc_hdr *hdr,
			 int plane_id)
{
	msk->echo_psn = ntohl(hdr->psn);
	msk->echo_dsn = ntohl(hdr->dsn);
	msk->echo_ev = ntohs(hdr->ev);
	msk->echo_plane = plane_id;
	msk->echo_time = ktime_get_ns();
	msk->echo_told = false;
	msk->echo_dup = false;
}

static void mrc_rcv_ack(struct mrc_sock *msk, const struct mrc_hdr *hdr,
			struct sk_buff *skb)
{
	const struct mrc_ack *ack;

	if (!pskb_may_pull(skb, sizeof(*ack)))
		return;
	ack = (const struct mrc_ack *)skb->data;
	if (!pskb_may_pull(skb, struct_size(ack, sack, ack->nr_sack)))
		return;
	ack = (const struct mrc_ack *)skb->data;
	mrc_output_ack_rcvd(msk, ack, skb->len, mrc_hdr_type(hdr),
			    hdr->flags);
}

/*
 * The acknowledgment a DATA packet carries before its payload: take it and
 * leave the payload.  False when the packet is malformed.
 */
static bool mrc_rcv_ack_ride(struct mrc_sock *msk, struct sk_buff *skb)
{
	const struct mrc_ack *ack;

	if (!pskb_may_pull(skb, sizeof(*ack)))
		return false;
	ack = (const struct mrc_ack *)skb->data;
	if (ack->nr_sack)
		return false;
	mrc_output_ack_rcvd(msk, ack, sizeof(*ack), MRC_PKT_ACK, 0);
	__skb_pull(skb, sizeof(*ack));
	return true;
}

static bool __mrc_from_peer(struct mrc_sock *msk, int plane_id,
			    const struct mrc_hdr *hdr,
			    const struct mrc_addr *saddr);

/* A packet counts on its plane once the handshake told the planes. */
static void mrc_rcv_plane_count(struct mrc_sock *msk, int plane_id)
{
	if (msk->plane_mask & BIT(plane_id))
		msk->planes[plane_id].rx_packets++;
}

static void mrc_rcv_conn(struct mrc_sock *msk, int plane_id,
			 const struct mrc_hdr *hdr, struct sk_buff *skb,
			 const struct mrc_addr *saddr, bool ce)
{
	u8 type = mrc_hdr_type(hdr), ack_type = MRC_PKT_ACK, ack_flags = 0;
	enum mrc_mib_field drop_field = MRC_MIB_IN_CLOSED_DROPS;
	struct mrc_net *mn = mrc_msk_net(msk);
	u64 ack_delay = mrc_us_ns(msk->params.ack_delay_us);
	struct sk_buff_head queue;
	bool ack_now = false, nack;

	__skb_queue_head_init(&queue);
	spin_lock(&msk->lock);
	/* Again under the lock: the state may have moved since input looked. */
	if (msk->dead)
		goto drop;
	if (!__mrc_from_peer(msk, plane_id, hdr, saddr)) {
		drop_field = MRC_MIB_IN_NOT_PEER;
		goto drop;
	}
	msk->last_rcv = ktime_get_ns();
	msk->keep_probes = 0;
	msk->stats.rx_packets++;
	MRC_INC_STATS(mn, MRC_MIB_IN_PKTS);

	if (type == MRC_PKT_SYN_ACK) {
		/* Then the timers of an established connection. */
		mrc_rcv_syn_ack(msk, hdr, skb, &queue);
		/* The first one makes the planes known: counted after. */
		mrc_rcv_plane_count(msk, plane_id);
		goto done;
	}
	mrc_rcv_plane_count(msk, plane_id);
	if (type == MRC_PKT_RST) {
		mrc_rcv_rst(msk, hdr, plane_id);
		goto out;
	}
	if (msk->sk.sk_state != TCP_ESTABLISHED)
		goto drop;

	switch (type) {
	case MRC_PKT_DATA:
		mrc_rcv_echo(msk, hdr, plane_id);
		if (hdr->flags & MRC_F_TRIMMED) {
			/* The payload is gone: ask for it again at once. */
			msk->stats.rx_trimmed++;
			MRC_INC_STATS(mn, MRC_MIB_IN_TRIMMED);
			ack_now = true;
			ack_type = MRC_PKT_NACK;
			break;
		}
		if ((hdr->flags & MRC_F_ACK) && !mrc_rcv_ack_ride(msk, skb)) {
			drop_field = MRC_MIB_IN_MALFORMED;
			goto drop;
		}
		/*
		 * Less than a full packet: the sender is waiting for
		 * something, maybe a reply that can carry the
		 * acknowledgment.  Give it the time to come.
		 */
		if (mrc_rcv_short(msk, skb->len))
			ack_delay = max_t(u64, ack_delay,
					  MRC_ACK_DELAY_APP_NS);
		nack = false;
		ack_now = mrc_rcv_data(msk, hdr, skb, &nack);
		skb = NULL;
		if (nack) {
			ack_type = MRC_PKT_NACK;
			ack_flags = MRC_F_NO_ROOM;
		}
		if (ce) {
			msk->stats.rx_ce++;
			MRC_INC_STATS(mn, MRC_MIB_IN_CE);
			ack_now = true;
			ack_flags |= MRC_F_ECE;
		}
		break;
	case MRC_PKT_ACK:
	case MRC_PKT_NACK:
		mrc_rcv_ack(msk, hdr, skb);
		break;
	case MRC_PKT_PROBE:
		mrc_rcv_echo(msk, hdr, plane_id);
		if (!mrc_path_usable(msk, plane_id) &&
		    mrc_path_may_answer(msk, plane_id, skb->len)) {
			mrc_output_probe_answer(msk, plane_id, &queue);
			break;
		}
		ack_now = true;
		ack_flags = MRC_F_PROBE_ECHO;
		break;
	}

	if (msk->rst_pending) {
		mrc_output_rst(msk, &queue);
		mrc_conn_done(msk, 0, MRC_CONN_END_ABORTED);
		goto out;
	}
	if (ack_now)
		mrc_output_ack(msk, ack_type, ack_flags, &queue);
	else if (msk->ack_pending)
		mrc_ack_arm(msk, ack_delay);
	mrc_output_push(msk, &queue);
done:
	mrc_conn_check_end(msk);
	mrc_timer_update(msk);
out:
	/* What was read; DATA was taken or freed by mrc_rcv_data(). */
	spin_unlock(&msk->lock);
	consume_skb(skb);
	mrc_xmit(sock_net(&msk->sk), &queue);
	return;
drop:
	spin_unlock(&msk->lock);
	MRC_INC_STATS(mn, drop_field);
	kfree_skb_reason(skb, drop_field == MRC_MIB_IN_NOT_PEER ?
			 SKB_DROP_REASON_NO_SOCKET :
			 SKB_DROP_REASON_NOT_SPECIFIED);
}

/* Listeners are found by port; the caller holds RCU. */
static struct mrc_sock *mrc_listener_get(struct mrc_net *mn, u16 port)
{
	struct mrc_sock *msk, *found = NULL;

	spin_lock(&mn->ports_lock);
	hash_for_each_possible(mn->ports, msk, port_node, port) {
		if (msk->port == port &&
		    READ_ONCE(msk->sk.sk_state) == TCP_LISTEN) {
			found = msk;
			sock_hold(&found->sk);
			break;
		}
	}
	spin_unlock(&mn->ports_lock);
	return found;
}

/*
 * A SYN makes a half-open connection (socket.c), and a SYN_ACK goes to the
 * address the SYN came from, which anybody can forge.  So a SYN is
 * answered only when it is padded to the size of a SYN_ACK, a half-open
 * connection answers at most MRC_SYNACK_MAX times, and a listener holds at
 * most net.mrc.half_open_max of them, each for syn_recv_timeout_ms.
 */
static void mrc_rcv_syn(struct mrc_net *mn, struct mrc_plane *plane,
			const struct mrc_hdr *hdr, const struct mrc_addr *saddr,
			struct sk_buff *skb)
{
	enum skb_drop_reason why = SKB_NOT_DROPPED_YET;
	u32 rcid = ntohl(hdr->src_cid);
	const struct mrc_syn *syn;
	struct mrc_sock *lmsk, *child;
	struct sk_buff_head queue;
	u16 rport;

	__skb_queue_head_init(&queue);
	if (!rcid || !pskb_may_pull(skb, sizeof(*syn)))
		goto malformed;
	syn = (const struct mrc_syn *)skb->data;
	if (!pskb_may_pull(skb, struct_size(syn, planes, syn->nr_planes)))
		goto malformed;
	syn = (const struct mrc_syn *)skb->data;
	rport = ntohs(syn->src_port);

	lmsk = mrc_listener_get(mn, ntohs(syn->dst_port));
	if (!lmsk) {
		/* No bigger than the SYN, and rate limited. */
		mrc_rst_stray(mn, plane->id, hdr, saddr);
		mrc_input_drop(plane, skb, MRC_MIB_IN_NO_CONN,
			       SKB_DROP_REASON_NO_SOCKET);
		return;
	}
	if (skb->len < MRC_SYN_BODY_LEN) {
		sock_put(&lmsk->sk);
		goto malformed;
	}
	MRC_INC_STATS(mn, MRC_MIB_IN_PKTS);

	/*
	 * Under the listener's lock, which every child of the listener is
	 * made under: two copies of one SYN make one connection.
	 */
	spin_lock(&lmsk->lock);
	child = mrc_conn_lookup_peer(mn, rcid, rport, ntohs(syn->dst_port),
				     saddr);
	if (child) {
		/* A repeated SYN: our SYN_ACK was lost. */
		spin_lock_nested(&child->lock, SINGLE_DEPTH_NESTING);
		child->syn_credit = min_t(u32, child->syn_credit +
					  MRC_SYN_AMPLIFY *
					  (sizeof(*hdr) + skb->len), U16_MAX);
		if (!child->dead && child->sk.sk_state == TCP_SYN_RECV &&
		    child->synack_sent < MRC_SYNACK_MAX &&
		    !mrc_output_syn(child, MRC_PKT_SYN_ACK, &queue)) {
			child->synack_sent++;
			MRC_INC_STATS(mn, MRC_MIB_SYN_RETRANS);
		}
		spin_unlock(&child->lock);
		spin_unlock(&lmsk->lock);
		sock_put(&child->sk);
		goto out;
	}
	if (lmsk->sk.sk_state == TCP_LISTEN &&
	    lmsk->nr_half_open < READ_ONCE(mn->sysctl.half_open_max) &&
	    !sk_acceptq_is_full(&lmsk->sk))
		child = mrc_sock_create_child(lmsk, plane->id, hdr, syn,
					      skb->len, saddr, &queue);
	if (!child) {
		MRC_INC_STATS(mn, MRC_MIB_SYN_DROPPED);
		why = SKB_DROP_REASON_SOCKET_BACKLOG;
	}
	spin_unlock(&lmsk->lock);
out:
	sock_put(&lmsk->sk);
	mrc_xmit(mn->net, &queue);
	if (why)
		kfree_skb_reason(skb, why);
	else
		consume_skb(skb);
	return;
malformed:
	mrc_input_drop(plane, skb, MRC_MIB_IN_MALFORMED,
		       SKB_DROP_REASON_PKT_TOO_SMALL);
}

/*
 * Whether a packet for @msk comes from its peer: from the address that was
 * dialled during the handshake, and from the peer's address on the plane
 * once the peer's id is known.
 */
static bool __mrc_from_peer(struct mrc_sock *msk, int plane_id,
			    const struct mrc_hdr *hdr,
			    const struct mrc_addr *saddr)
{
	lockdep_assert_held(&msk->lock);
	if (mrc_hdr_type(hdr) == MRC_PKT_SYN_ACK ||
	    msk->sk.sk_state == TCP_SYN_SENT)
		return mrc_addr_equal(saddr, &msk->daddr);
	return msk->plane_mask & BIT(plane_id) &&
	       ntohl(hdr->src_cid) == msk->rcid &&
	       mrc_addr_equal(saddr, &msk->planes[plane_id].raddr);
}

static bool mrc_from_peer(struct mrc_sock *msk, int plane_id,
			  const struct mrc_hdr *hdr,
			  const struct mrc_addr *saddr)
{
	bool ok;

	spin_lock(&msk->lock);
	ok = __mrc_from_peer(msk, plane_id, hdr, saddr);
	spin_unlock(&msk->lock);
	return ok;
}

/*
 * An ICMP error quotes a packet sent from one of our EVs to the peer's
 * plane socket: claimed as ours when the quote is an MRC header, so that
 * no other local socket sees it.  Its transport header is the quoted UDP
 * header.  The kernel lowers the path MTU for any "fragmentation needed"
 * or "packet too big" that quotes UDP, claimed or not (to no less than
 * min_pmtu, or IPv6's 1280); mrc_xmit() follows the route's MTU.
 */
int mrc_input_err_lookup(struct sock *usk, struct sk_buff *skb)
{
	unsigned int off = skb_transport_offset(skb) + sizeof(struct udphdr);

	if (!pskb_may_pull(skb, off + 1))
		return -EINVAL;
	return skb->data[off] >> 4 == MRC_VERSION ? 0 : -ENOENT;
}

/* UDP encap_rcv of every plane socket: BHs off, under RCU. */
int mrc_input(struct sock *usk, struct sk_buff *skb)
{
	struct mrc_plane *plane = rcu_dereference_sk_user_data(usk);
	enum skb_drop_reason why = SKB_DROP_REASON_NO_SOCKET;
	enum mrc_mib_field field;
	struct mrc_net *mn;
	struct mrc_sock *msk;
	struct mrc_addr saddr;
	struct mrc_hdr hdr;
	bool ce;
	u8 type;

	if (!plane) {
		kfree_skb_reason(skb, SKB_DROP_REASON_NO_SOCKET);
		return 0;
	}
	mn = plane->mn;
	MRC_PLANE_INC_STATS(plane, MRC_PLANE_MIB_IN_PKTS);
	MRC_PLANE_ADD_STATS(plane, MRC_PLANE_MIB_IN_BYTES,
			    skb->len - sizeof(struct udphdr));
	/*
	 * A plane the administrator took down, or that lost its address,
	 * takes nothing; MRC has no checksum of its own, so IPv4's optional
	 * UDP checksum is required.  (UDP checked the checksum, if any,
	 * before handing the packet over, and counted failures itself.)
	 */
	if (READ_ONCE(plane->state) != MRC_PLANE_STATE_UP) {
		field = MRC_MIB_IN_PLANE_DOWN;
		why = SKB_DROP_REASON_NOT_SPECIFIED;
		goto drop;
	}
	if (plane->family == AF_INET && !udp_hdr(skb)->check) {
		field = MRC_MIB_IN_NO_CSUM;
		why = SKB_DROP_REASON_UDP_CSUM;
		goto drop;
	}
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + sizeof(hdr))) {
		field = MRC_MIB_IN_MALFORMED;
		why = SKB_DROP_REASON_PKT_TOO_SMALL;
		goto drop;
	}
	__skb_pull(skb, sizeof(struct udphdr));
	memcpy(&hdr, skb->data, sizeof(hdr));
	__skb_pull(skb, sizeof(hdr));
	if (mrc_hdr_version(&hdr) != MRC_VERSION) {
		field = MRC_MIB_IN_MALFORMED;
		why = SKB_DROP_REASON_UNHANDLED_PROTO;
		goto drop;
	}
	mrc_skb_saddr(skb, plane->family, &saddr);
	type = mrc_hdr_type(&hdr);
	ce = INET_ECN_is_ce(plane->family == AF_INET ?
			    ip_hdr(skb)->tos : ipv6_get_dsfield(ipv6_hdr(skb)));

	if (type == MRC_PKT_SYN) {
		mrc_rcv_syn(mn, plane, &hdr, &saddr, skb);
		return 0;
	}

	msk = mrc_conn_lookup(mn, ntohl(hdr.dst_cid));
	if (!msk) {
		/* Answer what a live peer waits on, never an RST. */
		if (type == MRC_PKT_DATA || type == MRC_PKT_PROBE)
			mrc_rst_stray(mn, plane->id, &hdr, &saddr);
		field = MRC_MIB_IN_NO_CONN;
		goto drop;
	}

	/*
	 * Only the peer, from its address on this plane, speaks for it;
	 * during the handshake, only the address that was dialled.
	 */
	if (!mrc_from_peer(msk, plane->id, &hdr, &saddr)) {
		sock_put(&msk->sk);
		field = MRC_MIB_IN_NOT_PEER;
		goto drop;
	}
	/*
	 * A half-open connection's id reached the client with our SYN_ACK:
	 * a packet that names it proves the client is where the SYN came
	 * from.  Until then it is not ours to accept.
	 */
	if (READ_ONCE(msk->sk.sk_state) == TCP_SYN_RECV &&
	    type != MRC_PKT_RST && !mrc_sock_child_established(msk)) {
		sock_put(&msk->sk);
		field = MRC_MIB_IN_HALF_OPEN;
		goto drop;
	}
	mrc_rcv_conn(msk, plane->id, &hdr, skb, &saddr, ce);
	sock_put(&msk->sk);
	return 0;

drop:
	mrc_input_drop(plane, skb, field, why);
	return 0;
}
