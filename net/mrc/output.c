// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: the send side.  DATA packets are cut once, kept until acknowledged
 * and cloned for each transmission; every transmission picks a plane in
 * turn and the next entropy value of that plane.  Acknowledgments free
 * what arrived and reveal what was lost.
 *
 * Packets are prepared under msk->lock onto a local queue and handed to
 * the planes' UDP sockets by mrc_xmit() once the lock is dropped.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <linux/mrc_netlink.h>

#include "mrc.h"
#include "protocol.h"

/*
 * Where a prepared packet goes, in the cb of the copy that is sent, with
 * the socket's SO_MARK and SO_PRIORITY.
 */
struct mrc_xmit_cb {
	struct mrc_addr	raddr;
	u32		mark;
	u32		priority;
	u16		ev;
	u8		plane;
	u8		tos;		/* DSCP of the socket, ECN of the packet */
};

#define MRC_XMIT_CB(skb) ((struct mrc_xmit_cb *)(skb)->cb)

static_assert(sizeof(struct mrc_xmit_cb) <= sizeof_field(struct sk_buff, cb));
static_assert(sizeof(struct mrc_skb_cb) <= sizeof_field(struct sk_buff, cb));
static_assert(MRC_SYN_MAX_PLANES == MRC_MAX_PLANES);
static_assert(MRC_MAX_PLANES <= 16);	/* &mrc_skb_cb.first_plane */

/*
 * Whether @skb, with @hlen bytes of IP and UDP headers, exceeds its route's
 * @mtu.  A packet cut before the path's MTU fell (a smaller device MTU, or
 * an ICMP "fragmentation needed" or "packet too big" on the way) goes out
 * in fragments rather than not at all, and its connection cuts packets
 * that fit from now on.  The MSS is never raised again: a connection does
 * not probe for a larger path MTU.
 */
static bool mrc_xmit_follow_pmtu(struct mrc_plane *plane, struct sk_buff *skb,
				 u32 mtu, u32 hlen)
{
	const struct mrc_hdr *hdr = (const struct mrc_hdr *)skb->data;
	struct mrc_sock *msk;
	u32 mss;

	if (likely(skb->len + hlen <= mtu))
		return false;
	msk = mrc_conn_lookup(plane->mn, ntohl(hdr->src_cid));
	if (!msk)
		return true;
	mss = mtu > hlen + sizeof(*hdr) ? mtu - hlen - sizeof(*hdr) : 0;
	mss = max(mss, MRC_MIN_MSS);
	spin_lock_bh(&msk->lock);
	if (mss < msk->path_mss)
		WRITE_ONCE(msk->path_mss, mss);
	spin_unlock_bh(&msk->lock);
	sock_put(&msk->sk);
	return true;
}

static void mrc_xmit4(struct net *net, struct mrc_plane *plane,
		      struct sk_buff *skb, const struct mrc_xmit_cb *xcb,
		      __be16 port)
{
	struct flowi4 fl4 = {
		.flowi4_oif	= plane->dev->ifindex,
		.flowi4_mark	= xcb->mark,
		.flowi4_proto	= IPPROTO_UDP,
		.daddr		= xcb->raddr.v4,
		.saddr		= plane->addr4,
		.fl4_sport	= htons(xcb->ev),
		.fl4_dport	= port,
	};
	struct rtable *rt;
	__be16 df;

	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt)) {
		MRC_INC_STATS(plane->mn, MRC_MIB_OUT_NO_ROUTE);
		kfree_skb_reason(skb, SKB_DROP_REASON_IP_OUTNOROUTES);
		return;
	}
	df = htons(IP_DF);
	if (mrc_xmit_follow_pmtu(plane, skb, dst_mtu(&rt->dst),
				 sizeof(struct iphdr) + sizeof(struct udphdr)))
		df = 0;
	udp_tunnel_xmit_skb(rt, plane->sock->sk, skb, fl4.saddr, fl4.daddr,
			    xcb->tos, ip4_dst_hoplimit(&rt->dst), df,
			    htons(xcb->ev), port, false, false);
}

static void mrc_xmit6(struct net *net, struct mrc_plane *plane,
		      struct sk_buff *skb, struct mrc_xmit_cb *xcb,
		      __be16 port)
{
	struct flowi6 fl6 = {
		.flowi6_oif	= plane->dev->ifindex,
		.flowi6_mark	= xcb->mark,
		.flowi6_proto	= IPPROTO_UDP,
		.daddr		= xcb->raddr.v6,
		.saddr		= plane->addr6,
		.flowlabel	= htonl(xcb->ev),
		.fl6_sport	= htons(xcb->ev),
		.fl6_dport	= port,
	};
	struct dst_entry *dst;

	dst = ipv6_stub->ipv6_dst_lookup_flow(net, plane->sock->sk, &fl6,
					      NULL);
	if (IS_ERR(dst)) {
		MRC_INC_STATS(plane->mn, MRC_MIB_OUT_NO_ROUTE);
		kfree_skb_reason(skb, SKB_DROP_REASON_IP_OUTNOROUTES);
		return;
	}
	if (mrc_xmit_follow_pmtu(plane, skb, dst_mtu(dst),
				 sizeof(struct ipv6hdr) + sizeof(struct udphdr)))
		skb->ignore_df = 1;
	/* The flow label carries the EV too, for fabrics that hash on it. */
	udp_tunnel6_xmit_skb(dst, plane->sock->sk, skb, NULL, &fl6.saddr,
			     &fl6.daddr, xcb->tos, ip6_dst_hoplimit(dst),
			     htonl(xcb->ev), htons(xcb->ev), port, false);
}

/* Send what was prepared; called without msk->lock, from any context. */
void mrc_xmit(struct net *net, struct sk_buff_head *queue)
{
	struct mrc_net *mn = mrc_pernet(net);
	__be16 port = htons(READ_ONCE(mn->udp_port));
	struct mrc_xmit_cb xcb;
	struct mrc_plane *plane;
	struct sk_buff *skb;

	if (skb_queue_empty(queue))
		return;
	rcu_read_lock_bh();
	while ((skb = __skb_dequeue(queue))) {
		xcb = *MRC_XMIT_CB(skb);
		plane = rcu_dereference_bh(mn->plane_by_id[xcb.plane]);
		if (!plane || !plane->sock ||
		    plane->family != xcb.raddr.family) {
			kfree_skb(skb);
			continue;
		}
		skb->mark = xcb.mark;
		skb->priority = xcb.priority;
		MRC_PLANE_INC_STATS(plane, MRC_PLANE_MIB_OUT_PKTS);
		MRC_PLANE_ADD_STATS(plane, MRC_PLANE_MIB_OUT_BYTES, skb->len);
		if (plane->family == AF_INET)
			mrc_xmit4(net, plane, skb, &xcb, port);
		else
			mrc_xmit6(net, plane, skb, &xcb, port);
	}
	rcu_read_unlock_bh();
}

static struct mrc_hdr *mrc_push_hdr(struct sk_buff *skb, u8 type, u8 flags,
				    u16 ev, u32 dst_cid, u32 src_cid)
{
	struct mrc_hdr *hdr = skb_push(skb, sizeof(*hdr));

	memset(hdr, 0, sizeof(*hdr));
	hdr->ver_type = MRC_VERSION << 4 | type;
	hdr->flags = flags;
	hdr->ev = htons(ev);
	hdr->dst_cid = htonl(dst_cid);
	hdr->src_cid = htonl(src_cid);
	skb_reset_transport_header(skb);
	return hdr;
}

static void mrc_queue_xmit(struct sk_buff_head *queue, struct sk_buff *skb,
			   const struct sock *sk, u8 plane, u16 ev,
			   const struct mrc_addr *raddr)
{
	struct mrc_xmit_cb *xcb = MRC_XMIT_CB(skb);

	memset(xcb, 0, sizeof(*xcb));
	if (sk) {
		xcb->mark = READ_ONCE(sk->sk_mark);
		xcb->priority = READ_ONCE(sk->sk_priority);
		xcb->tos = READ_ONCE(mrc_sk(sk)->tclass);
	}
	xcb->raddr = *raddr;
	xcb->ev = ev;
	xcb->plane = plane;
	__skb_queue_tail(queue, skb);
}

struct sk_buff *mrc_alloc_skb(unsigned int len, gfp_t gfp)
{
	struct sk_buff *skb = alloc_skb(MRC_HEADROOM + len, gfp);

	if (skb)
		skb_reserve(skb, MRC_HEADROOM);
	return skb;
}

/*
 * Any EV of a plane, for control packets: random on one not shared (yet),
 * or before the connection drew its EVs.
 */
u16 mrc_some_ev(struct mrc_sock *msk, int id)
{
	struct mrc_conn_plane *cp;

	if (!(msk->plane_mask & BIT(id)) || !msk->planes[id].evs)
		return mrc_random_ev();
	cp = &msk->planes[id];
	return cp->evs[get_random_u32_below(cp->nr_evs)].port;
}

/* The fixed part of an acknowledgment; SACK blocks are the caller's. */
static void mrc_ack_fill_fixed(struct mrc_sock *msk, struct mrc_ack *ack)
{
	mrc_rcv_update_window(msk);
	ack->cum_dsn = htonl(msk->rcv_nxt);
	ack->wnd_end = htonl(msk->rcv_wnd_end);
	msk->rcv_wnd_told = msk->rcv_wnd_end;
	ack->echo_psn = htonl(msk->echo_psn);
	ack->echo_dsn = htonl(msk->echo_dsn);
	ack->echo_ev = htons(msk->echo_ev);
	ack->delay_us = htonl(div_u64(ktime_get_ns() - msk->echo_time,
				      NSEC_PER_USEC));
	msk->echo_told = true;
	msk->stats.acks_sent++;
	MRC_MSK_INC_STATS(msk, MRC_MIB_ACKS_SENT);
}

/* An acknowledgment of what arrived: what was pending is now told. */
static void mrc_ack_fill(struct mrc_sock *msk, struct mrc_ack *ack)
{
	mrc_ack_fill_fixed(msk, ack);
	msk->ack_pending = 0;
}

/*
 * A DATA packet going out can carry the acknowledgment that is due, as long
 * as it needs no SACK blocks and fits in the packet: a reply then
 * acknowledges its request, and request-response traffic sends no ACK
 * packets of its own.
 */
static bool mrc_ack_rides(const struct mrc_sock *msk, const struct sk_buff *skb)
{
	return msk->ack_pending && msk->rcv_started && !msk->rcv_ofo &&
	       skb->len + sizeof(struct mrc_ack) <= msk->path_mss;
}

static void mrc_transmit(struct mrc_sock *msk, struct sk_buff *skb, int id,
			 struct sk_buff_head *queue)
{
	struct mrc_skb_cb *cb = MRC_SKB_CB(skb);
	struct mrc_conn_plane *cp = &msk->planes[id];
	bool resend = cb->sent_once;
	struct sk_buff *copy;
	struct mrc_hdr *hdr;
	struct mrc_ev *ev;
	u8 flags;

	ev = mrc_path_next_ev(cp, resend ? cb->ev : 0);
	ev->tx_packets++;
	cb->plane = id;
	cb->ev = ev->port;
	cb->ev_idx = ev - msk->ev_table;
	cb->psn = msk->next_psn++;
	cb->sent = ktime_get_ns();
	if (!resend) {
		cb->first_psn = cb->psn;
		cb->first_sent = cb->sent;
		cb->first_plane = id;
	}
	cb->sent_once = 1;
	list_add_tail(&skb->list, &cp->inflight);
	cp->nr_inflight++;
	cp->tx_packets++;
	cp->tx_bytes += cb->len;
	msk->stats.tx_packets++;
	MRC_MSK_INC_STATS(msk, MRC_MIB_DATA_SENT);
	if (resend) {
		cp->retransmits++;
		msk->stats.retransmits++;
		MRC_MSK_INC_STATS(msk, MRC_MIB_RETRANS);
	}
	trace_mrc_send(msk, id, cb->ev, cb->psn, cb->dsn, cb->len, resend);
	mrc_rto_arm(msk);

	/* A copy still queued below us shares the headroom: copy it. */
	copy = skb_cloned(skb) ? pskb_copy(skb, GFP_ATOMIC) :
				 skb_clone(skb, GFP_ATOMIC);
	if (!copy) {
		/* Found lost later, like any drop. */
		MRC_MSK_INC_STATS(msk, MRC_MIB_OUT_NO_MEM);
		return;
	}
	flags = cb->flags | (resend ? MRC_F_RETX : 0);
	if (mrc_ack_rides(msk, copy)) {
		/* Headroom holds old bytes: nr_sack and reserved go out zero. */
		mrc_ack_fill(msk, memset(skb_push(copy, sizeof(struct mrc_ack)),
					 0, sizeof(struct mrc_ack)));
		flags |= MRC_F_ACK;
	}
	hdr = mrc_push_hdr(copy, MRC_PKT_DATA, flags, cb->ev,
			   msk->rcid, msk->lcid);
	hdr->psn = htonl(cb->psn);
	hdr->dsn = htonl(cb->dsn);
	hdr->msg_id = htonl(cb->msg_id);
	hdr->offset = htonl(cb->offset);
	mrc_queue_xmit(queue, copy, &msk->sk, id, cb->ev, &cp->raddr);
	MRC_XMIT_CB(copy)->tos |= INET_ECN_ECT_0;
}

/*
 * While the peer has no memory for our DATA (mrc_output_no_room()),
 * nothing goes out but, once its wait is over, one packet that asks
 * whether it has room again: the one it needs first when it was NACKed,
 * for it has room for that one before any other.  The next wait is
 * longer.  True while nothing else may go out.
 */
static bool mrc_output_no_room_wait(struct mrc_sock *msk,
				    struct sk_buff_head *queue)
{
	u64 now = ktime_get_ns();
	struct sk_buff *skb;
	int id;

	if (!msk->no_room_until)
		return false;
	if (now < msk->no_room_until)
		return true;
	skb = NULL;
	if (msk->snd_una != msk->snd_nxt)
		skb = msk->snd_ring[mrc_snd_slot(msk, msk->snd_una)];
	if (!skb || !MRC_SKB_CB(skb)->lost)
		skb = list_first_entry_or_null(&msk->rtx_queue, struct sk_buff,
					       list);
	if (!skb) {
		/* Nothing NACKed is left: new data asks. */
		msk->no_room_until = 0;
		return false;
	}
	/*
	 * The next wait is set first, for the timer that the probe arms; with
	 * no plane to ask on, it starts again (see mrc_timer_at()).  The
	 * drop was the peer's doing, not its plane's: any plane will do.
	 */
	id = mrc_path_pick_plane(msk, -1, false);
	if (id >= 0)
		msk->wnd_probes++;
	msk->no_room_until = now + mrc_wnd_probe_wait(msk);
	if (id >= 0) {
		list_del(&skb->list);
		MRC_SKB_CB(skb)->lost = 0;
		mrc_transmit(msk, skb, id, queue);
		MRC_MSK_INC_STATS(msk, MRC_MIB_WND_PROBES);
	}
	return true;
}

/*
 * Send resends, then new data, as far as the windows allow, in bursts that
 * acknowledgments clock out: a whole window at once would overflow the
 * queues of the devices and of the receiving CPU.
 */
void mrc_output_push(struct mrc_sock *msk, struct sk_buff_head *queue)
{
	unsigned int budget = MRC_PUSH_BURST;
	struct mrc_skb_cb *cb;
	struct sk_buff *skb;
	int id;

	lockdep_assert_held(&msk->lock);
	/* Both come before anything is queued: see mrc_send_pkts(). */
	if (msk->dead || !msk->snd_ring || !msk->ev_table)
		return;
	if (mrc_output_no_room_wait(msk, queue))
		return;

	while (!list_empty(&msk->rtx_queue) && budget) {
		skb = list_first_entry(&msk->rtx_queue, struct sk_buff, list);
		cb = MRC_SKB_CB(skb);
		/*
		 * Lost for want of an answer, unless later packets of its
		 * plane got through since: then the plane works.
		 */
		id = mrc_path_pick_plane(msk, cb->plane, cb->outlived &&
					 msk->planes[cb->plane].rack_sent <=
					 cb->sent);
		if (id < 0)
			return;
		list_del(&skb->list);
		cb->lost = 0;
		mrc_transmit(msk, skb, id, queue);
		budget--;
	}

	while ((skb = skb_peek(&msk->write_queue)) && budget) {
		if (!mrc_before(msk->snd_nxt, msk->snd_wnd_end) ||
		    msk->snd_nxt - msk->snd_una >= msk->snd_ring_size)
			break;
		id = mrc_path_pick_plane(msk, -1, false);
		if (id < 0)
			break;
		/* After a silence, the peer's clock starts now. */
		if (msk->snd_una == msk->snd_nxt &&
		    list_empty(&msk->rtx_queue)) {
			msk->last_progress = ktime_get_ns();
			msk->last_advance = msk->last_progress;
		}
		__skb_unlink(skb, &msk->write_queue);
		cb = MRC_SKB_CB(skb);
		cb->dsn = msk->snd_nxt++;
		msk->snd_ring[mrc_snd_slot(msk, cb->dsn)] = skb;
		__set_bit(mrc_snd_slot(msk, cb->dsn), msk->snd_map);
		mrc_transmit(msk, skb, id, queue);
		budget--;
	}
}

/* Queue DATA packets cut by the socket layer, charged to the socket. */
void mrc_output_queue(struct mrc_sock *msk, struct sk_buff_head *pkts)
{
	struct sk_buff *skb;

	lockdep_assert_held(&msk->lock);
	skb_queue_walk(pkts, skb) {
		sk_wmem_queued_add(&msk->sk, skb->truesize);
		sk_mem_charge(&msk->sk, skb->truesize);
	}
	/*
	 * After a silence, the peer's clock starts now, whether or not a
	 * plane can carry the packets.
	 */
	if (!mrc_conn_outstanding(msk)) {
		msk->last_progress = ktime_get_ns();
		msk->last_advance = msk->last_progress;
	}
	skb_queue_splice_tail_init(pkts, &msk->write_queue);
}

void mrc_output_free_skb(struct mrc_sock *msk, struct sk_buff *skb)
{
	sk_wmem_queued_add(&msk->sk, -skb->truesize);
	sk_mem_uncharge(&msk->sk, skb->truesize);
	kfree_skb(skb);
}

/*
 * Whether a packet sent at @sent went out into a silence of the peer on
 * every path (see mrc_output_timeout()).
 */
static bool mrc_sent_in_silence(const struct mrc_sock *msk, u64 sent)
{
	return sent > msk->silence_from && sent < msk->silence_until;
}

/*
 * Queue a packet for resending, and learn from the loss; true if the loss
 * was held against the packet's path.
 */
static bool mrc_mark_lost(struct mrc_sock *msk, struct sk_buff *skb,
			  enum mrc_loss why, u64 now)
{
	static const u8 mib[] = {
		[MRC_LOSS_GAP]		= MRC_MIB_LOSS_GAP,
		[MRC_LOSS_TIMEOUT]	= MRC_MIB_LOSS_TIMEOUT,
		[MRC_LOSS_TRIM]		= MRC_MIB_LOSS_TRIM,
		[MRC_LOSS_PLANE_DOWN]	= MRC_MIB_LOSS_PLANE_DOWN,
		[MRC_LOSS_ELSEWHERE]	= MRC_MIB_LOSS_ELSEWHERE,
		[MRC_LOSS_PEER_SILENT]	= MRC_MIB_LOSS_SILENCE,
		[MRC_LOSS_OTHER_EV]	= MRC_MIB_LOSS_OTHER_EV,
		[MRC_LOSS_NO_ROOM]	= MRC_MIB_LOSS_NO_ROOM,
	};
	struct mrc_skb_cb *cb = MRC_SKB_CB(skb);
	struct mrc_conn_plane *cp = &msk->planes[cb->plane];
	struct mrc_ev *ev = &msk->ev_table[cb->ev_idx];

	/* Each reason counts in its own counter. */
	BUILD_BUG_ON(ARRAY_SIZE(mib) != MRC_LOSS_NR);
	list_del(&skb->list);
	cp->nr_inflight--;
	cb->lost = 1;
	cb->outlived = why == MRC_LOSS_ELSEWHERE || why == MRC_LOSS_TIMEOUT;
	/* A loss of its own: the window the silence kept is not owed. */
	if (why == MRC_LOSS_PEER_SILENT)
		cb->silenced = 1;
	else if (why != MRC_LOSS_PLANE_DOWN && why != MRC_LOSS_NO_ROOM)
		msk->silence_undoable = false;
	list_add_tail(&skb->list, &msk->rtx_queue);
	if (why != MRC_LOSS_TRIM && why != MRC_LOSS_NO_ROOM) {
		ev->lost_pending = 1;
		ev->lost_psn = cb->psn;
		ev->lost_sent_us = div_u64(cb->sent, NSEC_PER_USEC);
	}
	MRC_MSK_INC_STATS(msk, mib[why]);
	trace_mrc_lost(msk, cb->plane, cb->ev, cb->psn, cb->dsn, why);
	/* Neither the path's doing nor congestion. */
	if (why == MRC_LOSS_PLANE_DOWN || why == MRC_LOSS_NO_ROOM)
		return false;
	mrc_cc_on_loss(msk, cp, ev, cb->psn);
	/*
	 * A trim is congestion, not a broken path; a packet sent into a
	 * silence of every path tells nothing of its own.  A loss found on
	 * other planes' evidence counts on its EV (whose retirement, when
	 * its plane is found silent, names the losses) but says nothing of
	 * the EV alone: a plane that is a black hole is found silent whole.
	 */
	if (why == MRC_LOSS_TRIM || why == MRC_LOSS_PEER_SILENT ||
	    mrc_sent_in_silence(msk, cb->sent))
		return false;
	if (why == MRC_LOSS_ELSEWHERE)
		ev->losses++;
	else
		mrc_path_lost(msk, cp, ev, why == MRC_LOSS_TIMEOUT, now);
	return true;
}

/* The local plane went down: resend what it carried, without waiting. */
void mrc_output_requeue_plane(struct mrc_sock *msk, struct mrc_conn_plane *cp)
{
	struct sk_buff *skb, *tmp;

	list_for_each_entry_safe(skb, tmp, &cp->inflight, list)
		mrc_mark_lost(msk, skb, MRC_LOSS_PLANE_DOWN, 0);
}

/*
 * Whether the acknowledgment of a packet at @now proves when its copy that
 * arrived was sent.  Of a packet sent again, a cumulative DSN or a SACK
 * block may acknowledge the first copy, come late: only an
 * acknowledgment that comes at least the resend's plane's least round
 * trip after the resend can be of the resend (RFC 8985, 6.2).  Taking
 * the resend's send time from an earlier one would have what was sent
 * before it on its EV outrun, and found lost, by a packet that had not
 * arrived.  The echo of the resend itself passes: its round trip is a
 * sample, no less than the least.
 */
static bool mrc_acked_copy_known(const struct mrc_conn_plane *cp,
				 const struct mrc_skb_cb *cb, u64 now)
{
	return cb->psn == cb->first_psn ||
	       (cp->base_rtt_us &&
		now - cb->sent >= (u64)cp->base_rtt_us * NSEC_PER_USEC);
}

/*
 * @first_came: the acknowledgment's echo named the packet's first copy,
 * resent since: whatever else arrived, that copy did, and the resend's
 * send time proves nothing.
 */
static void mrc_acked(struct mrc_sock *msk, struct sk_buff *skb, u64 now,
		      bool first_came)
{
	struct mrc_skb_cb *cb = MRC_SKB_CB(skb);
	struct mrc_conn_plane *cp = &msk->planes[cb->plane];

	msk->snd_ring[mrc_snd_slot(msk, cb->dsn)] = NULL;
	__clear_bit(mrc_snd_slot(msk, cb->dsn), msk->snd_map);
	list_del(&skb->list);
	/*
	 * A packet taken for lost that arrived after all (and was not sent
	 * again) still shows that its plane works: a plane whose round trip
	 * outgrew its wait would otherwise be found silent, again and again.
	 */
	mrc_path_answered(msk, cp, now);
	/*
	 * Its only copy arrived: DATA gets through its plane.  Of a packet
	 * sent again, the copy that arrived is known only by its echo
	 * (mrc_echo_rcvd()): the first may have come late, and the plane
	 * of the resend may lose all it carries.
	 */
	if (cb->psn == cb->first_psn)
		mrc_path_delivered(cp, now);
	if (!cb->lost) {
		struct mrc_ev *ev = &msk->ev_table[cb->ev_idx];

		cp->nr_inflight--;
		if (ev->unproven)
			ev->unproven--;
		if (!first_came && mrc_acked_copy_known(cp, cb, now)) {
			if (cb->sent > cp->rack_sent)
				cp->rack_sent = cb->sent;
			if (cb->sent > ev->rack_sent) {
				ev->rack_sent = cb->sent;
				ev->rack_rtt_us = min_t(u64, U32_MAX,
							div_u64(now - cb->sent,
								NSEC_PER_USEC));
			}
		}
		mrc_cc_on_ack(msk, cp, ev, cb->psn);
	}
	if (cb->flags & MRC_F_FIN)
		msk->fin_acked = true;
	sk_wmem_queued_add(&msk->sk, -skb->truesize);
	sk_mem_uncharge(&msk->sk, skb->truesize);
	consume_skb(skb);
}

/* @first_dsn: the DSN whose first copy the echo named, or NULL. */
static void mrc_ack_range(struct mrc_sock *msk, u32 start, u32 end, u64 now,
			  const u32 *first_dsn)
{
	struct sk_buff *skb;
	u32 dsn;

	/*
	 * Offsets from snd_una bound the walk by what is in flight, whatever
	 * the peer wrote: the end must be in (snd_una, snd_nxt], the start
	 * before it (an older ACK may start before snd_una).
	 */
	if (end == msk->snd_una ||
	    end - msk->snd_una > msk->snd_nxt - msk->snd_una)
		return;
	if (mrc_before(start, msk->snd_una))
		start = msk->snd_una;
	if (start - msk->snd_una >= end - msk->snd_una)
		return;
	/* The slots in use alone, in one or two stretches of the ring. */
	while (start != end) {
		u32 slot = mrc_snd_slot(msk, start);
		u32 stop = slot + min(end - start, msk->snd_ring_size - slot);
		unsigned long bit = slot;

		for_each_set_bit_from(bit, msk->snd_map, stop) {
			skb = msk->snd_ring[bit];
			dsn = start + (bit - slot);
			if (MRC_SKB_CB(skb)->dsn == dsn)
				mrc_acked(msk, skb, now,
					  first_dsn && *first_dsn == dsn);
		}
		start += stop - slot;
	}
}

/*
 * The SACK blocks of @ack, @nr of them, each part of what is in flight
 * walked once: the peer writes them, and may name one range in every
 * block.  In order of their offsets from snd_una, each clipped past the
 * end of those before.
 */
static void mrc_ack_sack_blocks(struct mrc_sock *msk, const struct mrc_ack *ack,
				unsigned int nr, u64 now, const u32 *first_dsn)
{
	u32 from[MRC_MAX_SACK_BLOCKS], to[MRC_MAX_SACK_BLOCKS];
	u32 una = msk->snd_una, flight = msk->snd_nxt - una, done = 0;
	unsigned int i, j, n = 0;

	for (i = 0; i < nr; i++) {
		u32 start = ntohl(ack->sack[i].start);
		u32 end = ntohl(ack->sack[i].end) - una;

		/* Only what is in flight: a block elsewhere is ignored. */
		if (!end || end > flight)
			continue;
		start = mrc_before(start, una) ? 0 : start - una;
		if (start >= end)
			continue;
		for (j = n; j && from[j - 1] > start; j--) {
			from[j] = from[j - 1];
			to[j] = to[j - 1];
		}
		from[j] = start;
		to[j] = end;
		n++;
	}
	for (i = 0; i < n; i++) {
		if (max(from[i], done) < to[i])
			mrc_ack_range(msk, una + max(from[i], done), una + to[i],
				      now, first_dsn);
		done = max(done, to[i]);
	}
}

/*
 * A plane is found silent whole at once only when the packets it lost
 * since its last answer were on MRC_SILENT_EVS EVs at least (or on all it
 * had in use): a few packets in flight on the EVs of one broken link of a
 * fabric say nothing of the plane's other links, and their timeouts retire
 * just those EVs.  On less evidence, at a timeout, the plane is asked
 * (mrc_output_doubt()).
 * The EVs are told apart by their index modulo 16
 * (&mrc_conn_plane.lost_ev_bits): a plane's EVs sit side by side in the
 * table, and two that share a bit count once, which only ever asks for
 * more evidence.
 */
static u32 mrc_silent_need(const struct mrc_conn_plane *cp)
{
	return min_t(u32, cp->nr_active, MRC_SILENT_EVS);
}

static void mrc_lost_ev_note(struct mrc_conn_plane *cp, u8 ev_idx)
{
	cp->lost_ev_bits |= BIT(ev_idx % 16);
}

static bool mrc_lost_evs_enough(const struct mrc_conn_plane *cp, u32 need)
{
	return hweight16(cp->lost_ev_bits) >= need;
}

/*
 * A plane that answered nothing for a timeout while the peer answers on
 * others, but lost packets on too few EVs to tell a black hole from one
 * broken link: a plane that carries a packet at a time (a ping-pong) loses
 * one per timeout, each timeout twice the last, and would wait seconds
 * for the evidence.  Probes of its other EVs ask it instead
 * (mrc_path_probe()): the plane is silent if none is answered within a
 * timeout (mrc_output_doubts_end()).
 */
static void mrc_output_doubt(struct mrc_conn_plane *cp)
{
	if (!cp->doubt_since)
		cp->doubt_due = true;
}

/* A silent plane: its EVs retire, and what it still holds is resent. */
static void mrc_output_silent(struct mrc_sock *msk, struct mrc_conn_plane *cp,
			      enum mrc_loss why, u64 now)
{
	struct sk_buff *skb, *tmp;

	/*
	 * Losses found on other planes' evidence count on their EVs first,
	 * so that each retirement names them.  Timeouts come after: each
	 * would retire its EV alone and weigh it as a bad path, where the
	 * whole plane failed.
	 */
	if (why != MRC_LOSS_ELSEWHERE)
		mrc_path_silent(msk, cp, now);
	list_for_each_entry_safe(skb, tmp, &cp->inflight, list)
		mrc_mark_lost(msk, skb, why, now);
	if (why == MRC_LOSS_ELSEWHERE)
		mrc_path_silent(msk, cp, now);
	mrc_path_doubt_clear(cp);
}

/*
 * The send time of the newest packet the peer acknowledged, on any plane:
 * what was sent before it and is missing, the peer outlived.
 */
static u64 mrc_rack_sent(const struct mrc_sock *msk)
{
	u64 rack_sent = 0;
	int id;

	for (id = 0; id < msk->nr_planes; id++)
		rack_sent = max(rack_sent, msk->planes[id].rack_sent);
	return rack_sent;
}

/*
 * Losses found on @cp by packets of its plane that outran them, with the
 * reorder window grown: a round of them, at most one a round trip.  After
 * MRC_REO_PERSIST rounds in which the peer proved no resend spurious, the
 * window shrinks back (RACK's reo_wnd_persist): a path that reordered
 * once does not slow the finding of its losses for good.
 */
static void mrc_reo_loss_round(struct mrc_sock *msk,
			       const struct mrc_conn_plane *cp, u64 now)
{
	if (!msk->reo_steps || now - msk->reo_round < mrc_srtt_ns(cp))
		return;
	msk->reo_round = now;
	if (msk->reo_persist)
		msk->reo_persist--;
	if (!msk->reo_persist)
		msk->reo_steps = 0;
}

/*
 * From when a packet sent at @sent on @ev waits for other EVs of its
 * plane to make it lost: while the EV's packets arrive marked CE
 * (mrc_path_ce()), they sit in a queue that other EVs do not cross,
 * and are late rather than lost for as long as the plane answers.  Their
 * own EV's later packets still find them lost, and so does a plane that
 * stops answering, before their timeouts (which would back off the
 * plane's timeout and delay finding it silent).
 */
static u64 mrc_other_ev_since(const struct mrc_conn_plane *cp,
			      const struct mrc_ev *ev, u64 sent)
{
	return ev->ce_queued ? max(sent, cp->last_acked) : sent;
}

/*
 * A packet is lost when one sent after it on the same EV arrived and it is
 * still missing a quarter of a round trip later (more on a path that
 * proved to reorder, mrc_gap_wait_ns(); of the later packet's round trip
 * when that is longer, mrc_ev_gap_wait_ns()): an EV is one path, which
 * keeps its packets in order.  The EVs of a plane may cross different
 * links of a fabric, whose queues differ by more than that: once its plane
 * has a measured round trip, a packet that other EVs of its plane outran
 * is lost (and its EV retired) only when it is still missing after the
 * plane's round trip, variation and queue (mrc_silence_ns(); more on a
 * plane that proved to reorder, mrc_other_ev_wait_ns(); after the
 * plane's last answer while its EV's CE marks say that it waits in a
 * queue, mrc_other_ev_since()), and so is one
 * that only other planes outran (its EV kept: the plane may be a
 * black hole, see below); either waits longer on an EV whose own round
 * trips are longer than that (mrc_ev_wait_ns()).  Each plane's delay is its own, so that planes
 * slower than others are not taken for lossy; and what a plane that
 * turned into a black hole held is resent after about a round trip and
 * its queue, where its timeout waited at least two.  A plane that
 * answered nothing for a whole timeout while packets sent on it are found
 * lost on other planes' evidence is silent, as in mrc_output_timeout(),
 * whose timeouts no longer fire: the packets are found lost first.
 */
static void mrc_detect_loss(struct mrc_sock *msk, u64 now)
{
	u64 rack_sent = mrc_rack_sent(msk);
	struct sk_buff *skb, *tmp;
	int id;

	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];
		u64 reo = mrc_srtt_ns(cp) + mrc_reorder_window_ns(cp);
		u64 gap_wait = mrc_gap_wait_ns(msk, cp);
		u64 silence = mrc_silence_ns(msk, cp);
		u64 other_wait = mrc_other_ev_wait_ns(msk, cp);
		bool elsewhere = false, outran = false;

		list_for_each_entry_safe(skb, tmp, &cp->inflight, list) {
			struct mrc_skb_cb *cb = MRC_SKB_CB(skb);
			const struct mrc_ev *ev = &msk->ev_table[cb->ev_idx];
			enum mrc_loss why = MRC_LOSS_GAP;

			if (now - cb->sent < reo)
				break;
			/* Nothing sent later arrived: nor for what follows. */
			if (cb->sent >= rack_sent)
				break;
			if (cb->sent >= ev->rack_sent) {
				u64 since = cb->sent, wait = silence;

				if (!cp->srtt_us || now - cb->sent < silence) {
					/*
					 * Packets sent later are younger, and
					 * none of their EVs had a later one
					 * through: nor are they lost.
					 */
					if (cb->sent >= cp->rack_sent)
						break;
					continue;
				}
				if (cb->sent < cp->rack_sent) {
					why = MRC_LOSS_OTHER_EV;
					since = mrc_other_ev_since(cp, ev,
								   cb->sent);
					/* Its plane reorders more: learned. */
					wait = other_wait;
				} else {
					why = MRC_LOSS_ELSEWHERE;
				}
				/* Its EV is slower than the plane's others. */
				if (now - since < mrc_ev_wait_ns(msk, ev, wait))
					continue;
			} else if (now - cb->sent <
				   mrc_ev_gap_wait_ns(msk, ev, gap_wait)) {
				/* Its EV reorders more: mrc_gap_wait_ns(). */
				continue;
			}
			if (!mrc_mark_lost(msk, skb, why, now))
				continue;
			if (why == MRC_LOSS_ELSEWHERE) {
				mrc_lost_ev_note(cp, cb->ev_idx);
				elsewhere = true;
			} else {
				outran = true;
			}
		}
		if (outran)
			mrc_reo_loss_round(msk, cp, now);
		/*
		 * On fewer EVs the plane is not asked: it carries packets
		 * enough for others to outrun, and so to count more EVs, or
		 * its timeouts will ask it (mrc_output_timeout()).  A plane
		 * slower than the others, as through a fabric of routers,
		 * whose round trip jumps now and then, was asked 30 times
		 * and found silent 3 in a run of failover.sh's fabric case
		 * when asked here too.
		 */
		if (elsewhere &&
		    mrc_lost_evs_enough(cp, mrc_silent_need(cp)) &&
		    now - cp->last_acked >= mrc_rto_ns(msk, cp))
			mrc_output_silent(msk, cp, MRC_LOSS_ELSEWHERE, now);
	}
}

/* Whether the peer answered on any plane after @when. */
static bool mrc_answered_after(const struct mrc_sock *msk, u64 when)
{
	int id;

	for (id = 0; id < msk->nr_planes; id++)
		if (msk->planes[id].last_acked > when)
			return true;
	return false;
}

/*
 * Whether the peer acknowledged, on another plane, a packet after the last
 * one it acknowledged on @cp: it lives, and @cp stopped working.
 */
static bool mrc_plane_outlived(const struct mrc_sock *msk,
			       const struct mrc_conn_plane *cp)
{
	return mrc_answered_after(msk, cp->last_acked);
}

/*
 * Whether the packet of @cb timed out at @now: its plane's timeout @rto
 * passed, and its EV's own round trip when that is longer
 * (mrc_ev_wait_ns()).  Packets in flight are in the order they were
 * sent, and the timer waits for the oldest's (mrc_next_rto()): one of a
 * faster EV behind it times out with it, late by as much as its EV is
 * slower, where the plane's timeout alone retired the slower EV at each.
 */
static bool mrc_timed_out(const struct mrc_sock *msk,
			  const struct mrc_skb_cb *cb, u64 rto, u64 now)
{
	return now - cb->sent >=
	       mrc_ev_wait_ns(msk, &msk->ev_table[cb->ev_idx], rto);
}

/*
 * Whether the timeouts at @now are those of a silence of every path: the
 * peer acknowledged nothing sent after @rack_sent, what was sent since is
 * still in flight on every plane in use, and what of it timed out was
 * sent on more than one EV.  A peer (or a host) that stalled for a few
 * milliseconds under a transfer looks so, as does every path failing at
 * once; retiring every EV of every plane then steers nowhere, and takes a
 * probe per EV to undo.  A packet that another plane's answers outlived,
 * or one EV's alone, is judged on its path as ever.
 */
static bool mrc_timeouts_blind(const struct mrc_sock *msk, u64 rack_sent,
			       u64 now)
{
	const struct sk_buff *skb;
	int id, first = -1;
	bool evs = false;

	for (id = 0; id < msk->nr_planes; id++) {
		const struct mrc_conn_plane *cp = &msk->planes[id];
		u64 rto = mrc_rto_ns(msk, cp);
		bool unwitnessed = false;

		if (!cp->nr_active)
			continue;
		list_for_each_entry(skb, &cp->inflight, list) {
			const struct mrc_skb_cb *cb = MRC_SKB_CB(skb);

			if (cb->sent <= rack_sent)
				continue;
			unwitnessed = true;
			if (!mrc_timed_out(msk, cb, rto, now))
				continue;
			if (first < 0)
				first = cb->ev_idx;
			else if (cb->ev_idx != first)
				evs = true;
		}
		if (!unwitnessed)
			return false;
	}
	return evs;
}

/*
 * What the timeout of a packet sent at @sent says: a loss held against
 * its path, or (MRC_LOSS_PEER_SILENT) one of a silence of every path,
 * which says nothing of any.
 */
static enum mrc_loss mrc_timeout_why(const struct mrc_sock *msk, u64 sent,
				     u64 rack_sent, bool blind)
{
	if ((blind && sent > rack_sent) || mrc_sent_in_silence(msk, sent))
		return MRC_LOSS_PEER_SILENT;
	return MRC_LOSS_TIMEOUT;
}

/*
 * Whether @cp answered nothing for a timeout while the peer answered on
 * another plane since: what its timeouts judged may find it silent.
 */
static bool mrc_plane_quiet(const struct mrc_sock *msk,
			    const struct mrc_conn_plane *cp, u64 rto, u64 now)
{
	return now - cp->last_acked >= rto && mrc_plane_outlived(msk, cp);
}

/*
 * Whether the timeouts of @cp at @now find it silent, as
 * mrc_output_timeout() decides once they are marked lost: it asks first,
 * so that the plane's EVs are silenced before the timeouts retire theirs
 * one by one, each as a bad path of its own.
 */
static bool mrc_timeouts_silence(const struct mrc_sock *msk,
				 const struct mrc_conn_plane *cp,
				 u64 rack_sent, bool blind, u64 rto, u64 now)
{
	u16 bits = cp->lost_ev_bits;
	const struct sk_buff *skb;
	bool judged = false;

	if (!mrc_plane_quiet(msk, cp, rto, now))
		return false;
	list_for_each_entry(skb, &cp->inflight, list) {
		const struct mrc_skb_cb *cb = MRC_SKB_CB(skb);

		if (now - cb->sent < rto)
			break;
		if (!mrc_timed_out(msk, cb, rto, now) ||
		    mrc_timeout_why(msk, cb->sent, rack_sent, blind) !=
		    MRC_LOSS_TIMEOUT)
			continue;
		judged = true;
		bits |= BIT(cb->ev_idx % 16);
	}
	return judged && hweight16(bits) >= mrc_silent_need(cp);
}

/*
 * Declare lost what waited longer than its plane's timeout, and its EV's
 * (mrc_timed_out()).
 */
static void mrc_output_timeout(struct mrc_sock *msk, u64 now)
{
	bool lasting = msk->silence_until == U64_MAX;
	u64 rack_sent = mrc_rack_sent(msk);
	bool blind = mrc_timeouts_blind(msk, rack_sent, now);
	struct sk_buff *skb, *tmp;
	enum mrc_loss why;
	int id;

	/*
	 * What was sent after the last packet the peer acknowledged met the
	 * silence, until it acknowledges again (mrc_output_ack_rcvd()).
	 */
	if (blind && !lasting) {
		msk->silence_from = rack_sent;
		msk->silence_until = U64_MAX;
		msk->silence_at = now;
		mrc_cc_silence_begin(msk);
	}
	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];
		u64 rto = mrc_rto_ns(msk, cp);
		u32 expired = 0, judged = 0, need = mrc_silent_need(cp);
		bool silent = mrc_timeouts_silence(msk, cp, rack_sent, blind,
						   rto, now);

		if (silent)
			mrc_path_silent(msk, cp, now);
		list_for_each_entry_safe(skb, tmp, &cp->inflight, list) {
			const struct mrc_skb_cb *cb = MRC_SKB_CB(skb);
			u64 sent = cb->sent;

			if (now - sent < rto)
				break;
			if (!mrc_timed_out(msk, cb, rto, now))
				continue;
			why = mrc_timeout_why(msk, sent, rack_sent, blind);
			if (mrc_mark_lost(msk, skb, why, now)) {
				mrc_lost_ev_note(cp, cb->ev_idx);
				judged++;
			}
			expired++;
		}
		if (!expired)
			continue;
		trace_mrc_rto(msk, id, rto, expired);
		/*
		 * A stall ends within a timeout; a silence that outlives two
		 * would have every timeout resend a window into it.
		 */
		if (judged < expired && lasting)
			mrc_cc_on_silence(msk, cp);
		if (cp->backoff < 16)
			cp->backoff++;
		if (!judged || !mrc_plane_quiet(msk, cp, rto, now))
			continue;
		if (silent || mrc_lost_evs_enough(cp, need))
			mrc_output_silent(msk, cp, MRC_LOSS_TIMEOUT, now);
		else
			mrc_output_doubt(cp);
	}
}

/*
 * When mrc_detect_loss() would find a packet in flight on @cp lost, with
 * no new acknowledgment to run it, 0 if only their timeouts can.  The
 * acknowledgment that outran a packet may come a moment before the
 * packet's reorder window ends, and be the last: after a tail drop the
 * window is full of lost packets and nothing more comes back.  Waiting
 * for the timeout then takes the queue's drops for a dead path.  The
 * waits differ (a gap in the packet's own EV, other EVs, other planes),
 * so the oldest packet's deadline is not always the first: the holes
 * below the plane's latest packet acknowledged are looked at, and the
 * first packet past it, whose followers wait as long from later, unless
 * its EV is slower than theirs (mrc_ev_wait_ns()): they are found at its
 * deadline then, or at the next acknowledgment, as the others' are.
 */
static u64 mrc_reorder_deadline(const struct mrc_sock *msk,
				const struct mrc_conn_plane *cp, u64 rack_sent)
{
	u64 gap_wait = mrc_gap_wait_ns(msk, cp);
	u64 silence = mrc_silence_ns(msk, cp);
	u64 other_wait = mrc_other_ev_wait_ns(msk, cp);
	u64 least = min(gap_wait, silence), when = 0, t;
	const struct sk_buff *skb;

	list_for_each_entry(skb, &cp->inflight, list) {
		const struct mrc_skb_cb *cb = MRC_SKB_CB(skb);
		const struct mrc_ev *ev = &msk->ev_table[cb->ev_idx];

		if (cb->sent >= rack_sent || (when && cb->sent + least >= when))
			break;
		if (cb->sent < ev->rack_sent)
			t = cb->sent + mrc_ev_gap_wait_ns(msk, ev, gap_wait);
		else if (!cp->srtt_us)
			t = 0;
		else if (cb->sent < cp->rack_sent)
			t = mrc_other_ev_since(cp, ev, cb->sent) +
			    mrc_ev_wait_ns(msk, ev, other_wait);
		else
			t = cb->sent + mrc_ev_wait_ns(msk, ev, silence);
		if (t && (!when || t < when))
			when = t;
		if (cb->sent >= cp->rack_sent)
			break;
	}
	return when;
}

/* The earliest time a packet in flight times out, 0 when none is. */
static u64 mrc_next_rto(struct mrc_sock *msk)
{
	u64 when = 0, t;
	int id;

	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];
		const struct mrc_skb_cb *cb;
		struct sk_buff *skb;

		skb = list_first_entry_or_null(&cp->inflight, struct sk_buff,
					       list);
		if (!skb)
			continue;
		cb = MRC_SKB_CB(skb);
		t = cb->sent + mrc_ev_wait_ns(msk, &msk->ev_table[cb->ev_idx],
					      mrc_rto_ns(msk, cp));
		if (!when || t < when)
			when = t;
	}
	return when;
}

/* When the doubt of @cp ends, 0 for none (see mrc_output_doubts_end()). */
static u64 mrc_doubt_end(const struct mrc_sock *msk,
			 const struct mrc_conn_plane *cp)
{
	return cp->doubt_since ? cp->doubt_since + mrc_rto_ns(msk, cp) : 0;
}

/*
 * The earliest time a packet in flight is found lost, by its reorder
 * window or by its timeout, or a plane in doubt silent; 0 for none.
 */
u64 mrc_output_next_timeout(struct mrc_sock *msk)
{
	u64 rack_sent = mrc_rack_sent(msk);
	u64 when = mrc_next_rto(msk), t;
	int id;

	for (id = 0; id < msk->nr_planes; id++) {
		t = mrc_reorder_deadline(msk, &msk->planes[id], rack_sent);
		if (t && (!when || t < when))
			when = t;
		t = mrc_doubt_end(msk, &msk->planes[id]);
		if (t && (!when || t < when))
			when = t;
	}
	return when;
}

/*
 * The planes whose probes went unanswered for a timeout: silent if the
 * peer answered on another plane since they went out (see
 * mrc_output_doubt()).  A peer that answered nowhere meanwhile stalled, or
 * every path did: that says nothing of this plane, and it is asked again
 * at its next timeout if it still needs to be.
 */
static void mrc_output_doubts_end(struct mrc_sock *msk, u64 now)
{
	int id;

	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];
		u64 since = cp->doubt_since;

		if (!since || now < mrc_doubt_end(msk, cp))
			continue;
		cp->doubt_since = 0;
		if (mrc_answered_after(msk, since))
			mrc_output_silent(msk, cp, MRC_LOSS_TIMEOUT, now);
	}
}

/*
 * The timer's part in finding losses: the packets whose reorder window
 * ended, the planes in doubt that did not answer, then the packets whose
 * timeout ended.  True if a timeout fired.
 */
bool mrc_output_deadline(struct mrc_sock *msk, u64 now)
{
	u64 rto;

	mrc_detect_loss(msk, now);
	mrc_output_doubts_end(msk, now);
	rto = mrc_next_rto(msk);
	if (!rto || rto > now)
		return false;
	mrc_output_timeout(msk, now);
	return true;
}

/* A CE mark on a packet no longer held: find its path by the EV. */
static void mrc_ce_rcvd_late(struct mrc_sock *msk, u16 port)
{
	struct mrc_conn_plane *cp;
	struct mrc_ev *ev;

	ev = mrc_path_find_ev(msk, port, &cp);
	if (ev) {
		mrc_path_ce(cp, ev);
		cp->ce_marked++;
	}
}

static void mrc_rtt_rcvd(const struct mrc_sock *msk, struct mrc_conn_plane *cp,
			 struct mrc_ev *ev, const struct mrc_ack *ack, u64 sent,
			 u64 now)
{
	s64 rtt = now - sent - (u64)ntohl(ack->delay_us) * NSEC_PER_USEC;

	mrc_cc_rtt_sample(msk, cp, ev, div_u64(max_t(s64, rtt, NSEC_PER_USEC),
					       NSEC_PER_USEC));
}

/*
 * A packet taken for lost arrived after all, and after its resend, which
 * was acknowledged already: its round trip, if it was the last found
 * lost on its EV.  Packets of an EV slower than the plane's others are
 * all taken for lost by the faster EVs' acknowledgments, their resends
 * arrive first, and no packet is held long enough to time the slower
 * path: this is how its EV learns it (mrc_ev_wait_ns()).
 */
static void mrc_late_copy_rcvd(struct mrc_sock *msk, const struct mrc_ack *ack,
			       u64 now)
{
	u32 psn = ntohl(ack->echo_psn);
	struct mrc_conn_plane *cp;
	struct mrc_ev *ev;
	u64 took;

	/* Only a connection that resent something has copies late. */
	if (!msk->stats.retransmits)
		return;
	ev = mrc_path_find_ev(msk, ntohs(ack->echo_ev), &cp);
	if (!ev || !ev->lost_pending || ev->lost_psn != psn)
		return;
	ev->lost_pending = 0;
	took = (u64)((u32)div_u64(now, NSEC_PER_USEC) - ev->lost_sent_us) *
	       NSEC_PER_USEC;
	/* Longer than any timeout: a peer that stalled, not a path. */
	if (took > mrc_rto_ceil_ns(msk))
		return;
	mrc_rtt_rcvd(msk, cp, ev, ack, now - took, now);
	mrc_path_answered(msk, cp, now);
}

/*
 * The EV of the first copy of a packet resent since, which only its
 * port, echoed, still names: the packet's control block tells its last.
 */
static struct mrc_ev *mrc_first_ev(struct mrc_sock *msk,
				   const struct mrc_ack *ack,
				   const struct mrc_conn_plane *first)
{
	struct mrc_conn_plane *cp = NULL;
	struct mrc_ev *ev;

	ev = mrc_path_find_ev(msk, ntohs(ack->echo_ev), &cp);
	return cp == first ? ev : NULL;
}

/*
 * The peer echoed the copy sent at @sent of a packet whose timeout a
 * silence of every path took for a loss (@cb->silenced): if that copy was
 * in flight when the silence was found, it was held on the way (or the
 * peer was), and the silence was a delay.  An echo the peer told before
 * (a window update repeats the last) says nothing: its first telling may
 * be what the silence lost.
 */
static void mrc_echo_of_lost(struct mrc_sock *msk,
			     const struct mrc_skb_cb *cb, u8 flags, u64 sent)
{
	if (msk->silence_undoable && cb->silenced &&
	    !(flags & MRC_F_ECHO_TOLD) &&
	    sent > msk->silence_from && sent < msk->silence_at)
		mrc_cc_silence_undo(msk);
}

/* The packet the acknowledgment echoes, still held, was marked CE. */
static void mrc_echo_ce(struct mrc_sock *msk, struct mrc_conn_plane *cp,
			const struct mrc_skb_cb *cb)
{
	msk->silence_undoable = false;
	MRC_MSK_INC_STATS(msk, MRC_MIB_ECE_RCVD);
	mrc_path_ce(cp, &msk->ev_table[cb->ev_idx]);
	cp->ce_marked++;
}

/*
 * The peer had no memory for a packet: its reader left more unread than
 * the window it offered, which it cannot take back, allowed for (a
 * buffer shrunk since, the memory of the whole protocol short).  Resent
 * at once, the packet would be NACKed again at the pace of the round
 * trip for as long as the reader sleeps: we wait instead, as for a shut
 * window, until the peer takes something, or tells us reading made room
 * (%MRC_F_ROOM), or a probe finds room (mrc_output_no_room_wait()).
 */
static void mrc_output_no_room(struct mrc_sock *msk, u64 now)
{
	msk->no_room_until = now + mrc_wnd_probe_wait(msk);
}

/*
 * What the acknowledgment says of the one packet that triggered it: its
 * round-trip time, a CE mark, (NACK) that a switch trimmed it, or that a
 * copy taken for lost was not.  True when it names the first copy of a
 * packet resent since: that copy arrived (mrc_acked()).
 */
static bool mrc_echo_rcvd(struct mrc_sock *msk, const struct mrc_ack *ack,
			  u8 type, u8 flags, u64 now)
{
	u32 echo_dsn = ntohl(ack->echo_dsn), echo_psn = ntohl(ack->echo_psn);
	struct mrc_conn_plane *cp;
	bool first_came = false;
	struct mrc_skb_cb *cb;
	struct sk_buff *skb;

	skb = NULL;
	if (!mrc_before(echo_dsn, msk->snd_una) &&
	    mrc_before(echo_dsn, msk->snd_nxt))
		skb = msk->snd_ring[mrc_snd_slot(msk, echo_dsn)];
	cb = skb ? MRC_SKB_CB(skb) : NULL;
	if (cb && cb->psn != echo_psn && cb->first_psn == echo_psn &&
	    type == MRC_PKT_ACK) {
		/*
		 * The first copy arrived after we resent it: the timeout was
		 * too short for this path (a queue that grew, a slow host),
		 * and only this round trip says by how much.  Without it, a
		 * path slower than its timeout has every packet resent and
		 * never yields a round trip to learn from.
		 */
		cp = &msk->planes[cb->first_plane];
		mrc_rtt_rcvd(msk, cp, mrc_first_ev(msk, ack, cp), ack,
			     cb->first_sent, now);
		/*
		 * Its plane works, whatever plane carried the resend, and
		 * what it sent before it was outrun (mrc_acked() cannot
		 * tell which copy the cumulative DSN or SACK covers).
		 */
		mrc_path_answered(msk, cp, now);
		mrc_path_delivered(cp, now);
		if (cb->first_sent > cp->rack_sent)
			cp->rack_sent = cb->first_sent;
		mrc_echo_of_lost(msk, cb, flags, cb->first_sent);
		first_came = true;
		cb = NULL;
	}
	if (!cb || cb->psn != echo_psn) {
		/* Acknowledged already, by an ACK that came faster. */
		if (!first_came && type == MRC_PKT_ACK &&
		    (flags & (MRC_F_ECHO_DUP | MRC_F_ECHO_TOLD)) ==
		    MRC_F_ECHO_DUP)
			mrc_late_copy_rcvd(msk, ack, now);
		if (flags & MRC_F_ECE) {
			msk->silence_undoable = false;
			MRC_MSK_INC_STATS(msk, MRC_MIB_ECE_RCVD);
			mrc_ce_rcvd_late(msk, ntohs(ack->echo_ev));
		}
		return first_came;
	}
	cp = &msk->planes[cb->plane];

	if (type == MRC_PKT_NACK) {
		trace_mrc_nack(msk, cb->plane, cb->ev, cb->psn, cb->dsn);
		MRC_MSK_INC_STATS(msk, MRC_MIB_NACKS_RCVD);
		cp->trims++;
		/*
		 * Its header got through: the plane works.  One whose packets
		 * a switch trims is congested, not silent, and must not have
		 * its EVs retired whole as a black hole.
		 */
		mrc_path_answered(msk, cp, now);
		if (flags & MRC_F_NO_ROOM) {
			if (!cb->lost)
				mrc_mark_lost(msk, skb, MRC_LOSS_NO_ROOM, now);
			/* The one the peer needs first goes first. */
			if (cb->dsn == msk->snd_una)
				list_move(&skb->list, &msk->rtx_queue);
			if (flags & MRC_F_ECE)
				mrc_echo_ce(msk, cp, cb);
			mrc_output_no_room(msk, now);
			return false;
		}
		if (!cb->lost)
			mrc_mark_lost(msk, skb, MRC_LOSS_TRIM, now);
		return false;
	}
	mrc_path_delivered(cp, now);
	mrc_rtt_rcvd(msk, cp, &msk->ev_table[cb->ev_idx], ack, cb->sent, now);
	if (cb->lost)
		mrc_echo_of_lost(msk, cb, flags, cb->sent);
	if (flags & MRC_F_ECE)
		mrc_echo_ce(msk, cp, cb);
	else
		mrc_path_unmarked(&msk->ev_table[cb->ev_idx]);
	return false;
}

/*
 * The peer had the packet it echoes already (ECHO_DUP): one of its copies
 * was sent in vain.  A packet taken for lost because a later one of its
 * EV, or of its plane, arrived was reordered, by more than the reorder
 * window: the window grows, at most once a round trip, and stays grown
 * for MRC_REO_PERSIST rounds of such losses (mrc_gap_wait_ns(),
 * mrc_other_ev_wait_ns(), mrc_reo_loss_round()).  Copies resent after a
 * timeout or a silence say the same and grow it too, as DSACKs do
 * RACK's: the window delays a loss by a round trip at most, and a plane
 * that fails is found by what other planes outran, which the window does
 * not delay.  The flag counts only on an acknowledgment of the DSN it
 * echoes (a duplicate is acknowledged, by the cumulative DSN or the first
 * SACK block, the echoed packet's run) from a connection that resent
 * something: a peer that sets it on every acknowledgment costs no more
 * than the window's three steps.
 */
static void mrc_resent_in_vain(struct mrc_sock *msk, const struct mrc_ack *ack,
			       unsigned int nr, u64 now)
{
	u32 dsn = ntohl(ack->echo_dsn);
	struct mrc_conn_plane *cp;
	u64 rtt = MRC_RTO_INIT_NS;

	if (!msk->stats.retransmits)
		return;
	if (!mrc_before(dsn, ntohl(ack->cum_dsn)) &&
	    !(nr && !mrc_before(dsn, ntohl(ack->sack[0].start)) &&
	      mrc_before(dsn, ntohl(ack->sack[0].end))))
		return;
	MRC_MSK_INC_STATS(msk, MRC_MIB_SPURIOUS_RESENDS);
	msk->reo_persist = MRC_REO_PERSIST;
	if (msk->reo_steps >= MRC_REO_STEPS_MAX)
		return;
	if (mrc_path_find_ev(msk, ntohs(ack->echo_ev), &cp))
		rtt = mrc_srtt_ns(cp);
	if (now - msk->reo_grown >= rtt) {
		msk->reo_steps++;
		msk->reo_grown = now;
	}
}

/* An ACK or NACK from the peer; @len bytes of body at @ack. */
void mrc_output_ack_rcvd(struct mrc_sock *msk, const struct mrc_ack *ack,
			 unsigned int len, u8 type, u8 flags)
{
	u32 cum = ntohl(ack->cum_dsn);
	unsigned int nr = min_t(unsigned int, ack->nr_sack,
				MRC_MAX_SACK_BLOCKS);
	u32 echo_dsn = ntohl(ack->echo_dsn);
	u64 now = ktime_get_ns();
	bool progress, first = false;

	if (len < struct_size(ack, sack, nr))
		return;
	/*
	 * It acknowledges what was sent, and echoes a packet we sent lately:
	 * knowing the connection ids is not enough to forge one.
	 */
	if (mrc_before(msk->snd_nxt, cum) ||
	    msk->next_psn - ntohl(ack->echo_psn) - 1 >= MRC_PSN_WINDOW)
		return;
	if (flags & MRC_F_PROBE_ECHO)
		mrc_path_probe_answered(msk, ack, now);
	if (!msk->snd_ring) {
		/* Nothing in flight (or idle for long): only the window. */
		if (mrc_before(msk->snd_wnd_end, ntohl(ack->wnd_end)))
			msk->snd_wnd_end = ntohl(ack->wnd_end);
		return;
	}

	trace_mrc_ack(msk, type == MRC_PKT_NACK, cum, nr, msk->snd_una,
		      ntohs(ack->echo_ev), ntohl(ack->echo_psn));
	if (!(flags & MRC_F_PROBE_ECHO))
		first = mrc_echo_rcvd(msk, ack, type, flags, now);
	if (type == MRC_PKT_ACK &&
	    (flags & (MRC_F_ECHO_DUP | MRC_F_ECHO_TOLD | MRC_F_PROBE_ECHO)) ==
	    MRC_F_ECHO_DUP)
		mrc_resent_in_vain(msk, ack, nr, now);

	progress = mrc_before(msk->snd_una, cum);
	mrc_ack_range(msk, msk->snd_una, cum, now, first ? &echo_dsn : NULL);
	if (progress)
		msk->snd_una = cum;
	mrc_ack_sack_blocks(msk, ack, nr, now, first ? &echo_dsn : NULL);
	if (mrc_before(msk->snd_wnd_end, ntohl(ack->wnd_end))) {
		msk->snd_wnd_end = ntohl(ack->wnd_end);
		progress = true;
	}

	/*
	 * A silence ends with the first acknowledgment of something sent
	 * after it began; what was sent up to the newest packet that one
	 * acknowledges, resends that got through included, met the silence.
	 * What is sent after is judged again.
	 */
	if (msk->silence_until == U64_MAX) {
		u64 rack_sent = mrc_rack_sent(msk);

		if (rack_sent > msk->silence_from)
			msk->silence_until = rack_sent;
	}
	/* The peer is alive; whether it takes our data is another thing. */
	msk->last_progress = now;
	msk->backoff = 0;
	/*
	 * The wait for a peer out of memory ends with an ACK of something it
	 * took (a first echo, or the cumulative DSN or window moving: not a
	 * NACK, which took nothing new), or of room made, or once nothing is
	 * outstanding.
	 */
	if (msk->no_room_until &&
	    ((type == MRC_PKT_ACK &&
	      (progress || (flags & MRC_F_ROOM) ||
	       !(flags & (MRC_F_ECHO_TOLD | MRC_F_ECHO_DUP |
			  MRC_F_PROBE_ECHO)))) ||
	     !mrc_conn_outstanding(msk))) {
		msk->no_room_until = 0;
		msk->wnd_probes = 0;
	}
	if (progress) {
		msk->last_advance = now;
		msk->wnd_probes = 0;
	}
	mrc_detect_loss(msk, now);
	if (progress)
		msk->sk.sk_write_space(&msk->sk);
}

/* Whether @dsn is held out of order: beyond the hole, within the ring. */
static bool mrc_rcv_held(const struct mrc_sock *msk, u32 dsn)
{
	return mrc_before(msk->rcv_nxt, dsn) &&
	       dsn - msk->rcv_nxt < msk->rcv_ring_size &&
	       test_bit(mrc_rcv_slot(msk, dsn), msk->rcv_map);
}

/*
 * The receive ring's map, searched a word at a time: the slot of rcv_nxt,
 * the hole, is free, and every held packet lies in the ring's span after
 * it.  The first DSN from @dsn on, before @end (in that span), whose slot
 * is held (@held) or free; @end if none.
 */
static u32 mrc_rcv_find(const struct mrc_sock *msk, u32 dsn, u32 end,
			bool held)
{
	while (dsn != end) {
		u32 slot = mrc_rcv_slot(msk, dsn);
		u32 stop = slot + min(end - dsn, msk->rcv_ring_size - slot);
		unsigned long bit;

		if (held)
			bit = find_next_bit(msk->rcv_map, stop, slot);
		else
			bit = find_next_zero_bit(msk->rcv_map, stop, slot);
		if (bit < stop)
			return dsn + (bit - slot);
		dsn += stop - slot;
	}
	return end;
}

/* The first DSN of the run of held packets that holds @dsn. */
static u32 mrc_rcv_run_start(const struct mrc_sock *msk, u32 dsn)
{
	u32 words = msk->rcv_ring_size / BITS_PER_LONG;
	u32 slot = mrc_rcv_slot(msk, dsn), w = slot / BITS_PER_LONG, i;
	unsigned long free;

	free = ~msk->rcv_map[w] & (BIT(slot % BITS_PER_LONG) - 1);
	/* The hole's slot ends the search, a lap at most. */
	for (i = 0; !free && i < words; i++) {
		w = (w ? w : words) - 1;
		free = ~msk->rcv_map[w];
	}
	if (!free)
		return msk->rcv_nxt + 1;
	slot -= w * BITS_PER_LONG + __fls(free);
	return dsn - (slot & (msk->rcv_ring_size - 1)) + 1;
}

static void mrc_ack_add_sack(struct sk_buff *skb, struct mrc_ack *ack,
			     u32 start, u32 end)
{
	ack->sack[ack->nr_sack].start = htonl(start);
	ack->sack[ack->nr_sack].end = htonl(end);
	ack->nr_sack++;
	skb_put(skb, sizeof(ack->sack[0]));
}

/*
 * What arrived beyond the hole, in runs: first the run that holds the
 * packet this answers, as TCP's first SACK block (RFC 2018), then the
 * others lowest first, MRC_MAX_SACK_BLOCKS in all.  Every packet held
 * beyond a hole is told at least once (each one held while a hole remains
 * is answered at once), however many holes lie below it.  With the
 * lowest runs alone, a window of thousands of packets that a queue's
 * overflow left with tens of holes had most of what arrived untold until
 * the holes below filled, and the sender took the silence for a dead
 * path: timeouts, and the window back to its floor.
 */
static void mrc_ack_sack(const struct mrc_sock *msk, struct sk_buff *skb,
			 struct mrc_ack *ack)
{
	u32 limit = msk->rcv_nxt + msk->rcv_ring_size;
	u32 dsn, start, echo_start = 0;
	bool echo_run;

	if (!msk->rcv_ofo)
		return;
	echo_run = mrc_rcv_held(msk, msk->echo_dsn);
	if (echo_run) {
		echo_start = mrc_rcv_run_start(msk, msk->echo_dsn);
		mrc_ack_add_sack(skb, ack, echo_start,
				 mrc_rcv_find(msk, msk->echo_dsn + 1, limit,
					      false));
	}
	for (start = mrc_rcv_find(msk, msk->rcv_nxt + 1, limit, true);
	     start != limit; start = mrc_rcv_find(msk, dsn, limit, true)) {
		dsn = mrc_rcv_find(msk, start + 1, limit, false);
		if (echo_run && start == echo_start)
			continue;
		mrc_ack_add_sack(skb, ack, start, dsn);
		if (ack->nr_sack == MRC_MAX_SACK_BLOCKS)
			return;
	}
}

/* Cut an ACK (or NACK) for what arrived; the receive side calls it. */
void mrc_output_ack(struct mrc_sock *msk, u8 type, u8 flags,
		    struct sk_buff_head *queue)
{
	int id = msk->echo_plane;
	struct sk_buff *skb;
	struct mrc_hdr *hdr;
	struct mrc_ack *ack;

	lockdep_assert_held(&msk->lock);
	if (msk->dead)
		return;
	/* Never to an address that did not prove it is the peer's. */
	if (!mrc_path_usable(msk, id))
		id = mrc_path_pick_plane(msk, -1, false);
	if (id < 0)
		id = msk->syn_plane;
	skb = mrc_alloc_skb(struct_size(ack, sack, MRC_MAX_SACK_BLOCKS),
			    GFP_ATOMIC);
	if (!skb)
		return;
	ack = skb_put_zero(skb, sizeof(*ack));
	mrc_ack_sack(msk, skb, ack);
	if (type == MRC_PKT_ACK && msk->echo_told)
		flags |= MRC_F_ECHO_TOLD;
	else if (type == MRC_PKT_ACK && msk->echo_dup)
		flags |= MRC_F_ECHO_DUP;
	mrc_ack_fill(msk, ack);

	hdr = mrc_push_hdr(skb, type, flags, mrc_some_ev(msk, id),
			   msk->rcid, msk->lcid);
	hdr->psn = htonl(msk->next_psn++);
	if (type == MRC_PKT_NACK)
		MRC_MSK_INC_STATS(msk, MRC_MIB_NACKS_SENT);
	mrc_queue_xmit(queue, skb, &msk->sk, id, ntohs(hdr->ev),
		       &msk->planes[id].raddr);
}

/*
 * The answer to a validation probe that came by plane @id, whose address
 * we have not validated: on that plane, to that address (a path's answer
 * on its own path, as QUIC's PATH_RESPONSE), or the peer could never
 * validate our plane while the planes of its that we validated are broken.
 * No SACK blocks: it is no bigger than the padded probe.  What is pending
 * stays pending, for a plane known to work.
 */
void mrc_output_probe_answer(struct mrc_sock *msk, int id,
			     struct sk_buff_head *queue)
{
	struct sk_buff *skb;
	struct mrc_hdr *hdr;
	struct mrc_ack *ack;

	lockdep_assert_held(&msk->lock);
	if (msk->dead)
		return;
	skb = mrc_alloc_skb(sizeof(*ack), GFP_ATOMIC);
	if (!skb)
		return;
	ack = skb_put_zero(skb, sizeof(*ack));
	mrc_ack_fill_fixed(msk, ack);
	hdr = mrc_push_hdr(skb, MRC_PKT_ACK, MRC_F_PROBE_ECHO,
			   mrc_some_ev(msk, id), msk->rcid, msk->lcid);
	hdr->psn = htonl(msk->next_psn++);
	mrc_queue_xmit(queue, skb, &msk->sk, id, ntohs(hdr->ev),
		       &msk->planes[id].raddr);
}

/*
 * SYN or SYN_ACK, on the plane of the handshake.  A SYN_ACK goes to an
 * address that proved nothing yet: only while the SYNs that came from it
 * cover its bytes %MRC_SYN_AMPLIFY times (&mrc_sock.syn_credit), so that
 * a forged SYN gets its victim no more than three times what it sent,
 * whatever the number of our planes and however often the SYN_ACK is
 * sent again.
 */
int mrc_output_syn(struct mrc_sock *msk, u8 type, struct sk_buff_head *queue)
{
	unsigned int body = MRC_SYN_BODY_LEN;
	struct sk_buff *skb;
	struct mrc_hdr *hdr;
	struct mrc_syn *syn;
	int n;

	skb = mrc_alloc_skb(body, GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	syn = skb_put_zero(skb, sizeof(*syn));
	n = mrc_conn_fill_planes(msk, syn, MRC_SYN_MAX_PLANES);
	skb_put(skb, n * sizeof(syn->planes[0]));
	if (type == MRC_PKT_SYN)
		skb_put_zero(skb, body - skb->len);
	syn->src_port = htons(msk->port);
	syn->dst_port = htons(msk->dport);
	syn->window = htonl(mrc_rcv_initial_window(msk));

	hdr = mrc_push_hdr(skb, type, 0, mrc_some_ev(msk, msk->syn_plane),
			   type == MRC_PKT_SYN ? 0 : msk->rcid, msk->lcid);
	if (type == MRC_PKT_SYN_ACK) {
		if (skb->len > msk->syn_credit) {
			kfree_skb(skb);
			return -ENOSPC;
		}
		msk->syn_credit -= skb->len;
	}
	hdr->psn = htonl(msk->next_psn++);
	/* A repeated SYN_ACK may follow data: the start is what it tells. */
	hdr->dsn = htonl(msk->snd_isn);
	mrc_queue_xmit(queue, skb, &msk->sk, msk->syn_plane, ntohs(hdr->ev),
		       &msk->daddr);
	return 0;
}

/*
 * PROBE asks the peer for an ACK on a given path: to test a retired EV,
 * or to learn the window when ours is shut.  Returns the probe's PSN.
 */
u32 mrc_output_probe_ev(struct mrc_sock *msk, int id, u16 ev, u32 dsn,
			unsigned int pad, struct sk_buff_head *queue)
{
	u32 psn = msk->next_psn++;
	struct sk_buff *skb;
	struct mrc_hdr *hdr;

	skb = mrc_alloc_skb(pad, GFP_ATOMIC);
	if (!skb)
		return psn;
	skb_put_zero(skb, pad);
	hdr = mrc_push_hdr(skb, MRC_PKT_PROBE, 0, ev, msk->rcid, msk->lcid);
	hdr->psn = htonl(psn);
	MRC_MSK_INC_STATS(msk, MRC_MIB_PROBES_SENT);
	hdr->dsn = htonl(dsn);
	mrc_queue_xmit(queue, skb, &msk->sk, id, ev, &msk->planes[id].raddr);
	/*
	 * ECN-capable like the DATA it stands for: a queue that marks DATA
	 * drops what is not, and would keep a retired EV of a hot link
	 * retired that DATA crosses.
	 */
	MRC_XMIT_CB(skb)->tos |= INET_ECN_ECT_0;
	return psn;
}

void mrc_output_probe(struct mrc_sock *msk, struct sk_buff_head *queue)
{
	int id = mrc_path_pick_plane(msk, -1, false);

	if (id >= 0)
		mrc_output_probe_ev(msk, id, mrc_some_ev(msk, id), msk->snd_una,
				    0, queue);
}

/*
 * RST of a connection, on whatever plane still works.  Its DSN is the next
 * one we expect, which the peer checks against what it has in flight.
 */
void mrc_output_rst(struct mrc_sock *msk, struct sk_buff_head *queue)
{
	int id = mrc_path_pick_plane(msk, -1, false);

	if (id < 0)
		id = msk->syn_plane;
	MRC_MSK_INC_STATS(msk, MRC_MIB_RST_SENT);
	mrc_output_rst_to(queue, id, msk->rcid, msk->lcid, msk->rcv_nxt,
			  mrc_path_usable(msk, id) ? &msk->planes[id].raddr :
						     &msk->daddr);
}

/*
 * RST to a peer for a connection id, with or without a connection here;
 * @dsn is the peer's to check: the next one expected, or the DSN of the
 * packet answered.
 */
void mrc_output_rst_to(struct sk_buff_head *queue, int id, u32 dst_cid,
		       u32 src_cid, u32 dsn, const struct mrc_addr *raddr)
{
	struct sk_buff *skb;
	struct mrc_hdr *hdr;
	u16 ev = mrc_random_ev();

	skb = mrc_alloc_skb(0, GFP_ATOMIC);
	if (!skb)
		return;
	hdr = mrc_push_hdr(skb, MRC_PKT_RST, 0, ev, dst_cid, src_cid);
	hdr->dsn = htonl(dsn);
	trace_mrc_rst(src_cid, dst_cid, id, dsn, false);
	mrc_queue_xmit(queue, skb, NULL, id, ev, raddr);
}
