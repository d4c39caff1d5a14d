// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: sendmsg() and recvmsg().  Data is cut into packets when it is sent
 * and charged to the send buffer until the peer acknowledges it; received
 * packets wait in the receive queue, in order, charged to the receive
 * buffer.  Both calls hold the socket lock and take msk->lock for short
 * sections; they sleep without it.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <linux/sched/signal.h>
#include <net/sock.h>

#include "mrc.h"
#include "protocol.h"

/* Cut @len bytes of @msg into DATA packets of at most @mss bytes. */
static int mrc_cut(struct mrc_sock *msk, struct msghdr *msg, size_t len,
		   u32 mss, bool message, struct sk_buff_head *pkts)
{
	struct sock *sk = &msk->sk;
	size_t done = 0;

	do {
		size_t n = min_t(size_t, len - done, mss);
		struct mrc_skb_cb *cb;
		struct sk_buff *skb;

		skb = mrc_alloc_skb(n, sk->sk_allocation);
		if (!skb)
			goto err;
		if (!copy_from_iter_full(skb_put(skb, n), n, &msg->msg_iter)) {
			kfree_skb(skb);
			__skb_queue_purge(pkts);
			return -EFAULT;
		}
		cb = MRC_SKB_CB(skb);
		memset(cb, 0, sizeof(*cb));
		cb->len = n;
		if (message) {
			cb->msg_id = msk->snd_msg_id;
			cb->offset = done;
			if (done + n == len)
				cb->flags = MRC_F_LAST;
		} else {
			cb->offset = msk->snd_offset + done;
		}
		__skb_queue_tail(pkts, skb);
		done += n;
	} while (done < len);
	return 0;
err:
	__skb_queue_purge(pkts);
	return -ENOBUFS;
}

/* Give back what mrc_reserve_mem() charged and was not used. */
static void mrc_unreserve_mem(struct mrc_sock *msk, int reserved)
{
	if (!reserved)
		return;
	spin_lock_bh(&msk->lock);
	sk_mem_uncharge(&msk->sk, reserved);
	spin_unlock_bh(&msk->lock);
}

/*
 * What sending needs and a look without msk->lock says is missing, for
 * mrc_send_install(): a hint, as the timer may release an idle ring
 * between the look and the lock, and the handshake's count of EVs is
 * read there first.
 */
struct mrc_send_spare {
	struct sk_buff	**ring;
	unsigned long	*map;
	u32		ring_size;
	struct mrc_ev	*evs;
	u16		nr_evs;
};

static void mrc_send_alloc(struct mrc_sock *msk, struct mrc_send_spare *sp,
			   gfp_t gfp)
{
	if (!sp->ring && !READ_ONCE(msk->snd_ring))
		sp->ring = mrc_conn_snd_ring_alloc(msk, &sp->ring_size,
						   &sp->map, gfp);
	if (!sp->evs && !READ_ONCE(msk->ev_table)) {
		sp->nr_evs = READ_ONCE(msk->nr_evs);
		sp->evs = mrc_conn_evs_alloc(sp->nr_evs, gfp);
	}
}

/* Whether the connection can send, with what was allocated for it. */
static bool mrc_send_install(struct mrc_sock *msk, struct mrc_send_spare *sp)
{
	mrc_conn_snd_ring_install(msk, &sp->ring, &sp->map, sp->ring_size);
	mrc_conn_evs_install(msk, &sp->evs, sp->nr_evs);
	return msk->snd_ring && msk->ev_table;
}

/*
 * Take msk->lock with what sending needs in place, a send ring and the
 * EVs, false if there is no memory for them.  What the first look missed
 * is allocated in a second round.
 */
static bool mrc_lock_for_send(struct mrc_sock *msk, gfp_t gfp)
	__acquires(&msk->lock)
{
	struct mrc_send_spare sp = {};

	mrc_send_alloc(msk, &sp, gfp);
	spin_lock_bh(&msk->lock);
	if (!mrc_send_install(msk, &sp) && !msk->dead) {
		spin_unlock_bh(&msk->lock);
		mrc_send_alloc(msk, &sp, gfp);
		spin_lock_bh(&msk->lock);
		mrc_send_install(msk, &sp);
	}
	kvfree(sp.ring);
	bitmap_free(sp.map);
	kvfree(sp.evs);
	return msk->snd_ring && msk->ev_table;
}

/*
 * Queue @pkts, charged in place of the @reserved bytes mrc_reserve_mem()
 * took for them, and send what the windows allow; @gfp for a send ring
 * and EVs.  A connection that ended meanwhile (sendmsg() sleeps without
 * msk->lock) takes nothing: its queues were purged once and would never
 * be again.  Nor does one whose FIN is queued (sendmsg() sleeps without
 * the socket lock too, and shutdown() may take it): the peer would drop
 * what follows its end.  Process context, under the socket lock.
 */
int mrc_send_pkts(struct mrc_sock *msk, struct sk_buff_head *pkts,
		  int reserved, gfp_t gfp)
{
	struct sk_buff_head queue;
	bool ready;
	int err = 0;

	__skb_queue_head_init(&queue);
	ready = mrc_lock_for_send(msk, gfp);
	/* Back to sk_forward_alloc, without a reclaim in between. */
	sk_mem_charge(&msk->sk, -reserved);
	if (msk->dead) {
		err = msk->sk.sk_err ? -msk->sk.sk_err : -EPIPE;
	} else if (msk->fin_queued) {
		err = -EPIPE;
	} else if (!ready) {
		err = -ENOBUFS;
	} else {
		mrc_output_queue(msk, pkts);
		mrc_output_push(msk, &queue);
		mrc_timer_update(msk);
	}
	sk_mem_reclaim(&msk->sk);
	spin_unlock_bh(&msk->lock);
	__skb_queue_purge(pkts);
	mrc_xmit(sock_net(&msk->sk), &queue);
	return err;
}

/*
 * Over net.mrc.mem[2], or under pressure past its fair share, the core
 * shrinks a stream's send buffer at each send that needs memory
 * (sk_stream_moderate_sndbuf(), down to half of what is queued), and
 * nothing there gives it back: the socket would keep a few packets'
 * worth for its life.  Once MRC's memory is under net.mrc.mem[0] again,
 * a buffer the user did not set returns to net.mrc.wmem[1].
 * In sendmsg(), under the socket lock, as setsockopt(SO_SNDBUF) and the
 * sends that shrink the buffer (mrc_reserve_mem()).
 */
static void mrc_sndbuf_regrow(struct sock *sk)
{
	int want = READ_ONCE(sysctl_mrc_wmem[1]);

	if (sk->sk_type != SOCK_STREAM ||
	    sk->sk_userlocks & SOCK_SNDBUF_LOCK ||
	    READ_ONCE(sk->sk_sndbuf) >= want ||
	    atomic_long_read(&mrc_memory_allocated) >
	    READ_ONCE(sysctl_mrc_mem[0]))
		return;
	WRITE_ONCE(sk->sk_sndbuf, want);
}

/* Wait until @bytes fit in the send buffer, or an error. */
static int mrc_wait_sndbuf(struct mrc_sock *msk, int bytes, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &msk->sk;
	int err = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	for (;;) {
		mrc_sndbuf_regrow(sk);
		if (sk->sk_err) {
			err = sock_error(sk);
			break;
		}
		if (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN ||
		    READ_ONCE(sk->sk_state) != TCP_ESTABLISHED) {
			err = -EPIPE;
			break;
		}
		/* One packet goes whatever the buffer: mrc_writable(). */
		if (mrc_sndbuf_free(msk) >= bytes ||
		    !READ_ONCE(sk->sk_wmem_queued))
			break;
		if (!*timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(*timeo);
			break;
		}
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		/* Pairs with mrc_write_space(): room freed now is seen. */
		smp_mb__after_atomic();
		sk_wait_event(sk, timeo, mrc_sndbuf_free(msk) >= bytes ||
			      !READ_ONCE(sk->sk_wmem_queued) ||
			      READ_ONCE(sk->sk_err) ||
			      READ_ONCE(sk->sk_state) != TCP_ESTABLISHED, &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return err;
}

/*
 * Reserve @bytes of MRC's memory (sysctl.c) for packets about to be cut.
 * Over the limit, wait a little and try again, as TCP's senders do: memory
 * freed elsewhere wakes nobody here.
 */
static int mrc_reserve_mem(struct mrc_sock *msk, int bytes, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &msk->sk;
	long nap, left;
	bool ok;

	for (;;) {
		/*
		 * Charged at once: acknowledgments that free memory in the
		 * meantime reclaim what is in sk_forward_alloc.
		 */
		spin_lock_bh(&msk->lock);
		ok = sk_wmem_schedule(sk, bytes);
		if (ok)
			sk_mem_charge(sk, bytes);
		spin_unlock_bh(&msk->lock);
		if (ok)
			return 0;
		if (sk->sk_err)
			return sock_error(sk);
		if (!*timeo)
			return -ENOBUFS;
		if (signal_pending(current))
			return sock_intr_errno(*timeo);
		nap = min_t(long, *timeo, HZ / 10);
		left = nap;
		add_wait_queue(sk_sleep(sk), &wait);
		sk_wait_event(sk, &left, READ_ONCE(sk->sk_err) ||
			      READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN ||
			      READ_ONCE(sk->sk_state) != TCP_ESTABLISHED, &wait);
		remove_wait_queue(sk_sleep(sk), &wait);
		if (*timeo != MAX_SCHEDULE_TIMEOUT)
			*timeo -= nap - left;
		/* shutdown() may have queued the FIN while we slept. */
		if (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN ||
		    READ_ONCE(sk->sk_state) != TCP_ESTABLISHED)
			return -EPIPE;
	}
}

static int mrc_send_check(struct socket *sock, struct sock *sk, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);

	if (READ_ONCE(sk->sk_state) == TCP_SYN_SENT) {
		add_wait_queue(sk_sleep(sk), &wait);
		while (READ_ONCE(sk->sk_state) == TCP_SYN_SENT && *timeo &&
		       !signal_pending(current))
			sk_wait_event(sk, timeo,
				      READ_ONCE(sk->sk_state) != TCP_SYN_SENT,
				      &wait);
		remove_wait_queue(sk_sleep(sk), &wait);
		if (READ_ONCE(sk->sk_state) == TCP_SYN_SENT)
			return signal_pending(current) ?
			       sock_intr_errno(*timeo) : -EAGAIN;
	}
	if (sk->sk_err)
		return sock_error(sk);
	if (sk->sk_shutdown & SEND_SHUTDOWN)
		return -EPIPE;
	if (sk->sk_state != TCP_ESTABLISHED)
		return mrc_sk(sk)->lcid ? -EPIPE : -ENOTCONN;
	return 0;
}

static int mrc_sendmsg_locked(struct socket *sock, struct msghdr *msg,
			      size_t len)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	bool message = sk->sk_type == SOCK_SEQPACKET;
	long timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	struct sk_buff_head pkts;
	size_t sent = 0;
	int err;

	err = mrc_send_check(sock, sk, &timeo);
	if (err)
		return err;

	__skb_queue_head_init(&pkts);
	if (message) {
		u32 mss = READ_ONCE(msk->path_mss);
		u64 cost = (u64)max_t(size_t, DIV_ROUND_UP(len, mss), 1) *
			   mrc_mss_truesize(mss);

		if (cost > READ_ONCE(sk->sk_sndbuf))
			return -EMSGSIZE;
		err = mrc_wait_sndbuf(msk, cost, &timeo);
		if (!err)
			err = mrc_reserve_mem(msk, cost, &timeo);
		if (err)
			return err;
		err = mrc_cut(msk, msg, len, mss, true, &pkts);
		if (err) {
			mrc_unreserve_mem(msk, cost);
			return err;
		}
		err = mrc_send_pkts(msk, &pkts, cost, sk->sk_allocation);
		if (err)
			return err;
		msk->snd_msg_id++;
		return len;
	}

	while (sent < len) {
		u32 mss = READ_ONCE(msk->path_mss);
		int truesize = mrc_mss_truesize(mss);
		int room, n, cost;

		err = mrc_wait_sndbuf(msk, truesize, &timeo);
		if (err)
			break;
		room = max(mrc_sndbuf_free(msk) / truesize, 1);
		n = min_t(size_t, len - sent, (size_t)min(room, 64) * mss);
		cost = DIV_ROUND_UP(n, mss) * truesize;
		err = mrc_reserve_mem(msk, cost, &timeo);
		if (err)
			break;
		err = mrc_cut(msk, msg, n, mss, false, &pkts);
		if (err) {
			mrc_unreserve_mem(msk, cost);
			break;
		}
		err = mrc_send_pkts(msk, &pkts, cost, sk->sk_allocation);
		if (err)
			break;
		msk->snd_offset += n;
		sent += n;
	}
	return sent ?: err;
}

int mrc_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct sock *sk = sock->sk;
	int ret;

	if (msg->msg_flags & MSG_OOB)
		return -EOPNOTSUPP;
	lock_sock(sk);
	ret = mrc_sendmsg_locked(sock, msg, len);
	release_sock(sk);
	if (ret == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return ret;
}

/*
 * Whether reading made room for a peer that waits for it, since a packet
 * was NACKed for want of memory: half the buffer, so that the peer is not
 * told for every packet read.  What is held out of order is not counted:
 * it waits for the packets the peer holds back, which the reader cannot
 * read its way to.
 */
static bool mrc_rcv_room_made(struct mrc_sock *msk)
{
	struct sock *sk = &msk->sk;
	int in_order = atomic_read(&sk->sk_rmem_alloc) - (int)msk->rcv_ofo_mem;

	if (!msk->rcv_no_room || in_order > READ_ONCE(sk->sk_rcvbuf) / 2)
		return false;
	msk->rcv_no_room = false;
	return true;
}

/* Tell the peer when reading made room; called after reading. */
static void mrc_recv_done(struct mrc_sock *msk)
{
	struct sk_buff_head queue;
	bool grew, room;

	__skb_queue_head_init(&queue);
	spin_lock_bh(&msk->lock);
	if (!msk->dead && msk->rcv_started) {
		grew = mrc_rcv_window_grew(msk);
		room = mrc_rcv_room_made(msk);
		if (grew || room)
			mrc_output_ack(msk, MRC_PKT_ACK,
				       room ? MRC_F_ROOM : 0, &queue);
	}
	spin_unlock_bh(&msk->lock);
	mrc_xmit(sock_net(&msk->sk), &queue);
}

/*
 * Finding data in the receive queue.  The socket lock keeps other readers
 * from unlinking and freeing what we find, and the receive path only
 * appends, so a pointer into the queue holds while the caller keeps the
 * socket lock, and no longer: after a wait (which releases it) the reader
 * finds its place again by a byte count, as TCP's peek does.
 */

/* The packet after @skb in the receive queue, or NULL. */
static struct sk_buff *mrc_rcv_next(struct mrc_sock *msk, struct sk_buff *skb)
{
	struct sk_buff *next;

	spin_lock_bh(&msk->lock);
	next = skb_peek_next(skb, &msk->sk.sk_receive_queue);
	spin_unlock_bh(&msk->lock);
	return next;
}

static struct sk_buff *mrc_rcv_head(struct mrc_sock *msk)
{
	struct sk_buff *skb;

	spin_lock_bh(&msk->lock);
	skb = skb_peek(&msk->sk.sk_receive_queue);
	spin_unlock_bh(&msk->lock);
	return skb;
}

/*
 * The packet that holds byte @off of what the reader has not consumed,
 * and in @skb_off the place of that byte in it.
 */
static struct sk_buff *mrc_rcv_find(struct mrc_sock *msk, size_t off,
				    unsigned int *skb_off)
{
	struct sk_buff *skb, *found = NULL;

	spin_lock_bh(&msk->lock);
	skb_queue_walk(&msk->sk.sk_receive_queue, skb) {
		unsigned int start = MRC_SKB_CB(skb)->consumed;

		if (off < skb->len - start) {
			*skb_off = start + off;
			found = skb;
			break;
		}
		off -= skb->len - start;
	}
	spin_unlock_bh(&msk->lock);
	return found;
}

/* The reader is done with @n more bytes of the head packet. */
static void mrc_rcv_consume(struct mrc_sock *msk, struct sk_buff *skb,
			    unsigned int n)
{
	struct mrc_skb_cb *cb = MRC_SKB_CB(skb);
	bool done;

	msk->rcv_copied += n;
	spin_lock_bh(&msk->lock);
	cb->consumed += n;
	done = cb->consumed >= skb->len;
	if (done) {
		__skb_unlink(skb, &msk->sk.sk_receive_queue);
		if (cb->flags & MRC_F_LAST)
			WRITE_ONCE(msk->rcv_msgs, msk->rcv_msgs - 1);
		/* Its destructor uncharges sk_forward_alloc: under the lock. */
		consume_skb(skb);
	}
	spin_unlock_bh(&msk->lock);
}

/*
 * Whether the connection had ended, by the peer's FIN or an error, when the
 * reader is about to look at its queue.  Input queues the last packets and
 * ends the connection under msk->lock, in one section or in two; the look
 * takes msk->lock, so whatever came before an end seen here is found by
 * it.  Read after the look, the end could come with data queued between
 * the two, and the reader would tell the end of data with bytes unread.
 */
static bool mrc_rcv_ended(const struct sock *sk)
{
	return READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN ||
	       READ_ONCE(sk->sk_err);
}

/*
 * Sleep until a packet joins the receive queue after the reader saw
 * @seq (msk->rcv_seq, read before it last looked), or an error or the
 * end; 0 or an error to return.
 */
static int mrc_rcv_wait(struct mrc_sock *msk, long *timeo, u32 seq)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &msk->sk;

	if (!*timeo)
		return -EAGAIN;
	if (signal_pending(current))
		return sock_intr_errno(*timeo);
	add_wait_queue(sk_sleep(sk), &wait);
	sk_wait_event(sk, timeo, READ_ONCE(msk->rcv_seq) != seq ||
		      READ_ONCE(sk->sk_err) ||
		      READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN, &wait);
	remove_wait_queue(sk_sleep(sk), &wait);
	return 0;
}

static int mrc_recv_stream(struct mrc_sock *msk, struct msghdr *msg,
			   size_t len, int flags, long timeo)
{
	struct sock *sk = &msk->sk;
	int target = sock_rcvlowat(sk, flags & MSG_WAITALL, len);
	bool peek = flags & MSG_PEEK;
	struct sk_buff *skb = NULL;	/* valid until the socket lock drops */
	u32 peek_pos = msk->rcv_copied;	/* stream position of the next peek */
	size_t copied = 0;
	int err = 0;

	while (copied < len) {
		u32 seq = READ_ONCE(msk->rcv_seq);
		bool ended = mrc_rcv_ended(sk);
		unsigned int start, n;

		/*
		 * Peeking walks on; reading always takes the head.  A peek
		 * that slept while others read goes on from where they left,
		 * as TCP's does: waiting for bytes they took would be
		 * waiting for good.
		 */
		if (peek && skb) {
			skb = mrc_rcv_next(msk, skb);
			start = 0;
		} else if (peek) {
			if ((s32)(peek_pos - msk->rcv_copied) < 0)
				peek_pos = msk->rcv_copied;
			skb = mrc_rcv_find(msk, peek_pos - msk->rcv_copied,
					   &start);
		} else {
			skb = mrc_rcv_find(msk, 0, &start);
		}
		if (!skb) {
			if (copied >= target)
				break;
			if (ended) {
				if (sk->sk_err)
					err = sock_error(sk);
				break;
			}
			/* What was read makes room: tell it before sleeping. */
			if (!peek && copied)
				mrc_recv_done(msk);
			err = mrc_rcv_wait(msk, &timeo, seq);
			if (err)
				break;
			continue;
		}
		n = min_t(size_t, skb->len - start, len - copied);
		if (skb_copy_datagram_msg(skb, start, msg, n)) {
			err = -EFAULT;
			break;
		}
		copied += n;
		peek_pos += n;
		if (!peek)
			mrc_rcv_consume(msk, skb, n);
	}
	return copied ?: err;
}

/*
 * Whether the data in order fills the receive buffer: the rest of the
 * message at its head cannot come in until the reader takes a part.
 */
bool mrc_rcv_window_full(const struct mrc_sock *msk)
{
	int in_order = atomic_read(&msk->sk.sk_rmem_alloc) -
		       READ_ONCE(msk->rcv_ofo_mem);

	return in_order + (int)mrc_rcv_pkt_cost(msk) >
	       READ_ONCE(msk->sk.sk_rcvbuf);
}

/*
 * Wait while another reader sleeps in the middle of a message, so that
 * no reader returns a piece of someone else's; 0 or an error to return.
 */
static int mrc_rcv_wait_turn(struct mrc_sock *msk, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &msk->sk;

	while (msk->rcv_busy) {
		if (!*timeo)
			return -EAGAIN;
		if (signal_pending(current))
			return sock_intr_errno(*timeo);
		add_wait_queue(sk_sleep(sk), &wait);
		sk_wait_event(sk, timeo, !READ_ONCE(msk->rcv_busy), &wait);
		remove_wait_queue(sk_sleep(sk), &wait);
	}
	return 0;
}

/*
 * One message per call.  A blocking reader takes a message as it arrives
 * and holds the others off while it sleeps for the rest; a non-blocking
 * one waits until it is whole, or until it fills the receive buffer and
 * must be delivered in parts (without MSG_EOR).
 */
static int mrc_recv_message(struct mrc_sock *msk, struct msghdr *msg,
			    size_t len, int flags, long timeo)
{
	struct sock *sk = &msk->sk;
	bool peek = flags & MSG_PEEK;
	struct sk_buff *skb = NULL, *next;
	size_t copied = 0, msglen = 0;
	bool started = false, eor = false;
	int err = 0;

	for (;;) {
		bool ended;
		u32 seq;

		if (!started) {
			err = mrc_rcv_wait_turn(msk, &timeo);
			if (err)
				break;
		}
		seq = READ_ONCE(msk->rcv_seq);
		ended = mrc_rcv_ended(sk);
		/*
		 * Only a peek keeps @skb, and never across a wait; a read
		 * takes the head, which may be a message of no bytes.
		 */
		next = peek && skb ? mrc_rcv_next(msk, skb) : mrc_rcv_head(msk);
		if (next && !started && !timeo && !READ_ONCE(msk->rcv_msgs) &&
		    !READ_ONCE(msk->rcv_in_msg) && !mrc_rcv_window_full(msk))
			next = NULL;	/* not whole yet */
		if (!next) {
			if (started && (peek || !timeo))
				break;	/* a part is all there is */
			if (ended) {
				if (sk->sk_err && !msglen)
					err = sock_error(sk);
				break;
			}
			if (started) {
				WRITE_ONCE(msk->rcv_busy, true);
				mrc_recv_done(msk);
			}
			err = mrc_rcv_wait(msk, &timeo, seq);
			if (err)
				break;
			continue;
		}
		skb = next;
		started = true;
		if (copied < len) {
			unsigned int n = min_t(size_t, skb->len, len - copied);

			if (skb_copy_datagram_msg(skb, 0, msg, n)) {
				err = -EFAULT;
				break;
			}
			copied += n;
		}
		msglen += skb->len;
		eor = MRC_SKB_CB(skb)->flags & MRC_F_LAST;
		if (!peek)
			mrc_rcv_consume(msk, skb, skb->len);
		if (eor)
			break;
	}
	if (!peek && (copied || msglen || eor))
		WRITE_ONCE(msk->rcv_in_msg, !eor);
	if (msk->rcv_busy && started && !peek) {
		WRITE_ONCE(msk->rcv_busy, false);
		wake_up_interruptible_all(sk_sleep(sk));
	}
	if (err && !msglen)
		return err;
	if (eor)
		msg->msg_flags |= MSG_EOR;
	if (msglen > copied)
		msg->msg_flags |= MSG_TRUNC;
	return flags & MSG_TRUNC ? min_t(size_t, msglen, INT_MAX) : copied;
}

int mrc_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		int flags)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	long timeo;
	int ret;

	if (flags & (MSG_OOB | MSG_ERRQUEUE))
		return -EOPNOTSUPP;
	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN ||
	    (sk->sk_state != TCP_ESTABLISHED &&
	     skb_queue_empty(&sk->sk_receive_queue) && !msk->lcid)) {
		ret = -ENOTCONN;
		goto out;
	}
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	if (sk->sk_type == SOCK_SEQPACKET)
		ret = mrc_recv_message(msk, msg, len, flags, timeo);
	else
		ret = mrc_recv_stream(msk, msg, len, flags, timeo);
	if (ret > 0 && !(flags & MSG_PEEK))
		mrc_recv_done(msk);
out:
	release_sock(sk);
	return ret;
}
