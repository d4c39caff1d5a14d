// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: the timers of a connection.  One hrtimer covers every deadline
 * (resends, handshake, dead peer, window probe, keepalive, end of an
 * orphan); another coalesces acknowledgments.  Both run in softirq context
 * and take msk->lock; they are armed only under msk->lock and never once
 * the connection is dead, so that mrc_conn_destroy_work() can cancel them.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include "mrc.h"
#include "protocol.h"

static void mrc_timer_at(struct mrc_sock *msk, u64 when)
{
	lockdep_assert_held(&msk->lock);
	if (msk->dead || !when)
		return;
	/*
	 * Never in the past: the hrtimer softirq would run the callback
	 * again at once, and again, if a deadline it cannot act on (a plane
	 * that went down meanwhile) stayed due.
	 */
	when = max_t(u64, when, ktime_get_ns() + MRC_TIMER_MIN_NS);
	if (hrtimer_is_queued(&msk->rto_timer) && msk->timer_expires <= when)
		return;
	msk->timer_expires = when;
	hrtimer_start(&msk->rto_timer, ns_to_ktime(when),
		      HRTIMER_MODE_ABS_SOFT);
}

static bool mrc_window_shut(const struct mrc_sock *msk)
{
	return !skb_queue_empty(&msk->write_queue) &&
	       msk->snd_una == msk->snd_nxt &&
	       !mrc_before(msk->snd_nxt, msk->snd_wnd_end);
}

/* How long a probe of a shut window, or of a peer out of memory, waits. */
u64 mrc_wnd_probe_wait(const struct mrc_sock *msk)
{
	return min_t(u64, mrc_rto_ns(msk, &msk->planes[msk->syn_plane]) <<
		     min_t(u32, msk->wnd_probes, 16), MRC_WND_PROBE_MAX_NS);
}

/*
 * When an established connection gives up on its peer, 0 while nothing is
 * outstanding: net.mrc.dead_peer_timeout_ms (10 s) without progress, or
 * for an orphan 10 s without its
 * data taken (a peer that answers but never opens its window, or never
 * acknowledges: nobody will read what the orphan still holds).
 */
static u64 mrc_give_up_at(const struct mrc_sock *msk)
{
	u64 t;

	if (!mrc_conn_outstanding(msk))
		return 0;
	t = msk->last_progress + mrc_ms_ns(msk->params.dead_peer_timeout_ms);
	if (msk->closed)
		t = min(t, msk->last_advance + MRC_ORPHAN_STALL_NS);
	return t;
}

/*
 * The next keepalive probe, or the end of the last one's wait, 0 for none:
 * only while SO_KEEPALIVE is on and nothing is outstanding (then a
 * silent peer is the dead peer deadline's to find).
 */
static u64 mrc_keepalive_at(const struct mrc_sock *msk)
{
	if (!msk->keepalive || msk->closed || mrc_conn_outstanding(msk))
		return 0;
	if (!msk->keep_probes)
		return msk->last_rcv +
		       (u64)mrc_keep_idle_s(msk) * NSEC_PER_SEC;
	return msk->keep_probe_at + (u64)mrc_keep_intvl_s(msk) * NSEC_PER_SEC;
}

/* The next deadline of the connection, 0 for none. */
static u64 mrc_next_deadline(struct mrc_sock *msk)
{
	u64 when = 0, t;

	switch (msk->sk.sk_state) {
	case TCP_SYN_SENT:
		return msk->syn_next;
	case TCP_SYN_RECV:
		return min(msk->syn_next, msk->syn_start +
			   mrc_ms_ns(msk->params.syn_recv_timeout_ms));
	case TCP_ESTABLISHED:
		when = mrc_output_next_timeout(msk);
		if (!list_empty(&msk->rtx_queue) || mrc_window_shut(msk)) {
			/* Window probes back off, even when answered. */
			t = ktime_get_ns() + mrc_wnd_probe_wait(msk);
			if (!when || t < when)
				when = t;
		}
		/* The probe of a peer that had no memory (mrc_output_push()). */
		t = mrc_conn_outstanding(msk) ? msk->no_room_until : 0;
		if (t && (!when || t < when))
			when = t;
		break;
	}
	t = mrc_path_next_probe(msk);
	if (t && (!when || t < when))
		when = t;
	t = mrc_path_next_validation(msk);
	if (t && (!when || t < when))
		when = t;
	if (msk->close_deadline && (!when || msk->close_deadline < when))
		when = msk->close_deadline;
	/*
	 * The end of a peer that stopped answering, which nothing else may
	 * come to check: with every plane down no packet goes out, so no
	 * resend or probe is due.
	 */
	if (msk->sk.sk_state == TCP_ESTABLISHED) {
		t = mrc_give_up_at(msk);
		if (t && (!when || t + 1 < when))
			when = t + 1;
		t = mrc_keepalive_at(msk);
		if (t && (!when || t < when))
			when = t;
		t = mrc_conn_rings_idle_at(msk);
		if (t && (!when || t < when))
			when = t;
	}
	return when;
}

void mrc_timer_update(struct mrc_sock *msk)
{
	mrc_timer_at(msk, mrc_next_deadline(msk));
}

/* A packet went out: make sure its timeout is covered. */
void mrc_rto_arm(struct mrc_sock *msk)
{
	if (!hrtimer_is_queued(&msk->rto_timer))
		mrc_timer_update(msk);
}

/*
 * An idle connection whose peer answered nothing for a while asks it, as
 * TCP's keepalive does: a PROBE, which the peer acknowledges.  True if the
 * connection ended: the peer let the last probe go unanswered.
 */
static bool mrc_keepalive_timer(struct mrc_sock *msk, u64 now,
				struct sk_buff_head *queue)
{
	u64 t = mrc_keepalive_at(msk);

	if (!t || now < t)
		return false;
	if (msk->keep_probes >= mrc_keep_cnt(msk)) {
		MRC_MSK_INC_STATS(msk, MRC_MIB_KEEPALIVE_TIMEOUTS);
		mrc_output_rst(msk, queue);
		mrc_conn_done(msk, ETIMEDOUT, MRC_CONN_END_DEAD_PEER);
		return true;
	}
	/* Counted even with no plane up to send it on. */
	mrc_output_probe(msk, queue);
	msk->keep_probes++;
	msk->keep_probe_at = now;
	MRC_MSK_INC_STATS(msk, MRC_MIB_KEEPALIVE_PROBES);
	return false;
}

static void mrc_timer_established(struct mrc_sock *msk, u64 now,
				  struct sk_buff_head *queue)
{
	u64 give_up = mrc_give_up_at(msk);

	if (give_up && (s64)(now - give_up) > 0) {
		MRC_MSK_INC_STATS(msk, MRC_MIB_PEER_TIMEOUTS);
		mrc_output_rst(msk, queue);
		mrc_conn_done(msk, ETIMEDOUT, MRC_CONN_END_DEAD_PEER);
		return;
	}
	if (mrc_keepalive_timer(msk, now, queue))
		return;
	if (msk->close_deadline && now >= msk->close_deadline) {
		/* An orphan whose peer never finished, or the end of the wait
		 * after both FINs.
		 */
		if (msk->fin_acked && msk->fin_rcvd) {
			mrc_conn_done(msk, 0, MRC_CONN_END_CLOSED);
		} else {
			mrc_output_rst(msk, queue);
			mrc_conn_done(msk, 0, MRC_CONN_END_ABORTED);
		}
		return;
	}

	if (mrc_output_deadline(msk, now)) {
		msk->backoff++;
		msk->stats.timeouts++;
		MRC_MSK_INC_STATS(msk, MRC_MIB_TIMEOUTS);
	}
	if (mrc_window_shut(msk) || (!list_empty(&msk->rtx_queue) &&
				     msk->snd_una == msk->snd_nxt)) {
		mrc_output_probe(msk, queue);
		msk->wnd_probes++;
		MRC_MSK_INC_STATS(msk, MRC_MIB_WND_PROBES);
	}
	mrc_path_probe(msk, now, queue);
	mrc_path_validate(msk, now, queue);
	mrc_output_push(msk, queue);
	mrc_conn_release_rings(msk, now);
}

static enum hrtimer_restart mrc_rto_fire(struct hrtimer *timer)
{
	struct mrc_sock *msk = container_of(timer, struct mrc_sock, rto_timer);
	struct sk_buff_head queue;
	u64 now;

	__skb_queue_head_init(&queue);
	spin_lock(&msk->lock);
	if (msk->dead)
		goto out;
	/* After the lock: input may have moved last_progress meanwhile. */
	now = ktime_get_ns();

	switch (msk->sk.sk_state) {
	case TCP_SYN_SENT:
		if (now < msk->syn_next)
			break;
		if (now - msk->syn_start >
		    mrc_ms_ns(msk->params.connect_timeout_ms)) {
			MRC_MSK_INC_STATS(msk, MRC_MIB_CONNECT_TIMEOUTS);
			mrc_conn_done(msk, ETIMEDOUT, MRC_CONN_END_TIMEOUT);
			goto out;
		}
		msk->backoff++;
		msk->syn_next = now + min_t(u64, MRC_RTO_INIT_NS <<
					    min_t(u32, msk->backoff, 10),
					    mrc_ms_ns(msk->params.rto_max_ms));
		mrc_output_syn(msk, MRC_PKT_SYN, &queue);
		MRC_MSK_INC_STATS(msk, MRC_MIB_SYN_RETRANS);
		break;
	case TCP_SYN_RECV:
		/* Spoofed SYNs make connections that never complete. */
		if (now - msk->syn_start >=
		    mrc_ms_ns(msk->params.syn_recv_timeout_ms)) {
			MRC_MSK_INC_STATS(msk, MRC_MIB_HALF_OPEN_TIMEOUTS);
			mrc_conn_done(msk, ETIMEDOUT, MRC_CONN_END_TIMEOUT);
			goto out;
		}
		if (now < msk->syn_next)
			break;
		msk->backoff++;
		msk->syn_next = now + (MRC_RTO_INIT_NS <<
				       min_t(u32, msk->backoff, 10));
		if (msk->synack_sent < MRC_SYNACK_MAX &&
		    !mrc_output_syn(msk, MRC_PKT_SYN_ACK, &queue)) {
			msk->synack_sent++;
			MRC_MSK_INC_STATS(msk, MRC_MIB_SYN_RETRANS);
		}
		break;
	case TCP_ESTABLISHED:
		mrc_timer_established(msk, now, &queue);
		break;
	}
	mrc_timer_update(msk);
out:
	spin_unlock(&msk->lock);
	mrc_xmit(sock_net(&msk->sk), &queue);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart mrc_ack_fire(struct hrtimer *timer)
{
	struct mrc_sock *msk = container_of(timer, struct mrc_sock, ack_timer);
	struct sk_buff_head queue;

	__skb_queue_head_init(&queue);
	spin_lock(&msk->lock);
	if (!msk->dead && msk->ack_pending)
		mrc_output_ack(msk, MRC_PKT_ACK, 0, &queue);
	spin_unlock(&msk->lock);
	mrc_xmit(sock_net(&msk->sk), &queue);
	return HRTIMER_NORESTART;
}

/* Acknowledge within @delay_ns, or sooner if that was already planned. */
void mrc_ack_arm(struct mrc_sock *msk, u64 delay_ns)
{
	ktime_t when;

	lockdep_assert_held(&msk->lock);
	if (msk->dead)
		return;
	when = ktime_add_ns(ktime_get(), delay_ns);
	if (hrtimer_is_queued(&msk->ack_timer) &&
	    !ktime_after(hrtimer_get_expires(&msk->ack_timer), when))
		return;
	hrtimer_start(&msk->ack_timer, when, HRTIMER_MODE_ABS_SOFT);
}

void mrc_timer_init(struct mrc_sock *msk)
{
	hrtimer_init(&msk->rto_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	msk->rto_timer.function = mrc_rto_fire;
	hrtimer_init(&msk->ack_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	msk->ack_timer.function = mrc_ack_fire;
}
