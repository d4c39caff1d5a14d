// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: round-trip times and congestion windows, per plane of a
 * connection.  Called under msk->lock.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include "mrc.h"

/*
 * RFC 6298 smoothing, in microseconds.  @var0 is the first variation: half
 * the first round trip for a plane, as RFC 6298 has it, the plane's for
 * an EV, whose samples are few (one acknowledgment a plane's EVs share):
 * half its round trip would have its packets wait three round trips for
 * its first eight samples.
 */
static void mrc_cc_smooth(u32 *srtt_us, u32 *rttvar_us, u32 rtt_us, u32 var0)
{
	u32 delta;

	if (!*srtt_us) {
		*srtt_us = rtt_us;
		*rttvar_us = var0;
		return;
	}
	delta = abs((s32)(*srtt_us - rtt_us));
	*rttvar_us = (3 * *rttvar_us + delta) / 4;
	*srtt_us = (7 * *srtt_us + rtt_us) / 8;
}

/*
 * The plane's round trips, smoothed (mrc_cc_smooth()); and for the
 * queueing delay, the smallest round trip of the plane (its base), the
 * smallest and the largest of the current round, and how many samples in a
 * row found a queue: more than the target, and more than an eighth of the
 * base, as slow start's exit on delay in other stacks (HyStart) allows for
 * the jitter of long paths; and for the growth of avoidance, more than
 * half the target and a sixteenth of the base.
 * A base the operator gave the plane caps the measured one: a connection
 * that began behind a standing queue, which never saw the path empty,
 * would take the queue for the path, keep it, and take a larger share
 * than those that began before it, which judge the same queue against
 * the path's real round trip.
 * And @ev, the EV the packet measured was sent on (NULL for the
 * handshake's): each EV's round trips are smoothed apart too, as its
 * path may cross links the plane's others do not (mrc_ev_wait_ns()).
 */
void mrc_cc_rtt_sample(const struct mrc_sock *msk, struct mrc_conn_plane *cp,
		       struct mrc_ev *ev, u32 rtt_us)
{
	u32 target = msk->params.target_delay_us;
	u32 cap;

	cp->backoff = 0;
	if (!cp->base_rtt_us || rtt_us < cp->base_rtt_us)
		cp->base_rtt_us = rtt_us;
	cap = mrc_path_base_rtt(msk, cp - msk->planes);
	if (cap && cp->base_rtt_us > cap)
		cp->base_rtt_us = cap;
	if (target && rtt_us - cp->base_rtt_us >
		      max(target, cp->base_rtt_us / 8))
		cp->queue_streak += cp->queue_streak < U8_MAX;
	else
		cp->queue_streak = 0;
	if (target && rtt_us - cp->base_rtt_us >
		      max(target / 2, cp->base_rtt_us / 16))
		cp->grow_streak += cp->grow_streak < U8_MAX;
	else
		cp->grow_streak = 0;
	if (!cp->round_rtt_us || rtt_us < cp->round_rtt_us)
		cp->round_rtt_us = rtt_us;
	cp->round_peak_us = max(cp->round_peak_us, rtt_us);
	if (cp->round_samples < U8_MAX)
		cp->round_samples++;
	mrc_cc_smooth(&cp->srtt_us, &cp->rttvar_us, rtt_us, rtt_us / 2);
	if (ev)
		mrc_cc_smooth(&ev->srtt_us, &ev->rttvar_us, rtt_us,
			      cp->rttvar_us);
}

/* A sample of the handshake: from @start, when it was sent, to @now. */
void mrc_cc_rtt_since(const struct mrc_sock *msk, struct mrc_conn_plane *cp,
		      u64 start, u64 now)
{
	u64 rtt = max_t(u64, now - start, NSEC_PER_USEC);

	mrc_cc_rtt_sample(msk, cp, NULL, div_u64(rtt, NSEC_PER_USEC));
}

u64 mrc_srtt_ns(const struct mrc_conn_plane *cp)
{
	return cp->srtt_us ? (u64)cp->srtt_us * NSEC_PER_USEC :
			     MRC_RTO_INIT_NS;
}

/* Slack for reordering inside a plane before a gap counts as loss. */
u64 mrc_reorder_window_ns(const struct mrc_conn_plane *cp)
{
	return max_t(u64, mrc_srtt_ns(cp) / 4, MRC_REORDER_MIN_NS);
}

/*
 * The round trip and the reorder window grown by copies the peer had
 * already: a step (mrc_reorder_window_ns()) each round trip in which the
 * peer had a resent copy already, three steps at most and a round trip
 * (RACK's reo_wnd, RFC 8985).  0 while the window has not grown.  At
 * its widest it meets the timeout's floor of two round trips: the timer
 * looks for losses by reordering before timeouts (mrc_output_deadline()),
 * so such a packet is not taken for a timeout, which would back off.
 */
static u64 mrc_learned_wait_ns(const struct mrc_sock *msk,
			       const struct mrc_conn_plane *cp)
{
	u64 srtt = mrc_srtt_ns(cp);

	if (!msk->reo_steps)
		return 0;
	return srtt + min(mrc_reorder_window_ns(cp) * (1 + msk->reo_steps),
			  max_t(u64, srtt, MRC_REORDER_MIN_NS));
}

/*
 * How long after it was sent a packet that a later one of its EV outran
 * is lost: the round trip and the reorder window, grown by copies sent in
 * vain (mrc_learned_wait_ns()).  A path or a host that reorders more than
 * a quarter of a round trip (a sender's packets queued on the backlogs of
 * two CPUs, one of them busy) had each packet it held back resent, and
 * the window cut for it, again and again.
 */
u64 mrc_gap_wait_ns(const struct mrc_sock *msk,
		    const struct mrc_conn_plane *cp)
{
	return mrc_learned_wait_ns(msk, cp) ?:
	       mrc_srtt_ns(cp) + mrc_reorder_window_ns(cp);
}

/*
 * How long after it was sent a packet that only other EVs of its plane
 * outran is lost: the plane's silence (mrc_silence_ns()), or longer once
 * the peer had copies already.  The EVs of a plane reorder against each
 * other as much as an EV in itself does, so the window learned from them
 * counts here too (on round trips of more than the silence's 2 ms floor
 * of variation: below, the silence is the longer); a plane whose every
 * path failed is still found by what other planes outran, which the
 * window does not delay.
 */
u64 mrc_other_ev_wait_ns(const struct mrc_sock *msk,
			 const struct mrc_conn_plane *cp)
{
	return max(mrc_silence_ns(msk, cp), mrc_learned_wait_ns(msk, cp));
}

/*
 * How long after it was sent a packet of @ev that other EVs or planes
 * outran is lost: the plane's wait for it, @wait (mrc_other_ev_wait_ns(),
 * mrc_silence_ns()), or the EV's own round trip and variation when they
 * are longer, with the same floors.  A plane's EVs may cross different
 * links of a fabric: those through a slower or busier link have their
 * packets outrun by the others' all the time, and judged on the plane's
 * round trip, mostly the others', each was resent and the EV retired, to
 * be brought back by its next probe and retired again, for as long as
 * the link stayed slower.  The plane's wait stays the floor, so that an
 * EV's few samples do not find losses sooner than the plane's many.
 */
u64 mrc_ev_wait_ns(const struct mrc_sock *msk, const struct mrc_ev *ev,
		   u64 wait)
{
	u64 srtt = (u64)ev->srtt_us * NSEC_PER_USEC;
	u64 var = 4ULL * ev->rttvar_us * NSEC_PER_USEC;

	if (!srtt)
		return wait;
	return max(wait, min(srtt + max3(var, MRC_RTO_VAR_MIN_NS, srtt / 4),
			     mrc_rto_ceil_ns(msk)));
}

/*
 * How long after it was sent a packet that a later one of its own EV
 * outran is lost: @wait (mrc_gap_wait_ns()), or the round trip of the
 * later one and a quarter of it when longer, as RACK waits for the round
 * trip of the packet delivered (RFC 8985).  On an EV slower than its
 * plane's others, the plane's round trip has passed when the later
 * packet arrives: a packet that a host held back for a moment behind it
 * was taken for lost.
 */
u64 mrc_ev_gap_wait_ns(const struct mrc_sock *msk, const struct mrc_ev *ev,
		       u64 wait)
{
	u64 rtt = (u64)ev->rack_rtt_us * NSEC_PER_USEC;

	return max(wait, min(rtt + max_t(u64, rtt / 4, MRC_REORDER_MIN_NS),
			     mrc_rto_ceil_ns(msk)));
}

/*
 * What a round trip may grow to in the queue the window lets build: the
 * base, twice the largest queue of this round or the last (the smoothed
 * round trip averages the queue's head and tail, and timeouts below its
 * tail take our own queued packets for lost) but no more than twice the
 * target, the most the window lets build before it reacts, and the
 * variation's floor.  A plane with no queue keeps timeouts of about a
 * round trip.
 */
static u64 mrc_queue_allowance_ns(const struct mrc_sock *msk,
				  const struct mrc_conn_plane *cp)
{
	u32 peak = max(cp->queue_peak_us, cp->round_peak_us > cp->base_rtt_us ?
		       cp->round_peak_us - cp->base_rtt_us : 0);

	if (!msk->params.target_delay_us || !cp->base_rtt_us)
		return 0;
	return ((u64)cp->base_rtt_us +
		2ULL * min(peak, msk->params.target_delay_us)) * NSEC_PER_USEC +
	       MRC_RTO_VAR_MIN_NS;
}

/*
 * How long a packet may go unanswered while packets sent after it on other
 * planes got through: its plane's round trip and variation, with the
 * timeout's floor on the variation and the queue the window allows, but
 * not the timeout's floor of two round trips, which a queue on the plane
 * inflates.
 */
u64 mrc_silence_ns(const struct mrc_sock *msk, const struct mrc_conn_plane *cp)
{
	u64 var = max_t(u64, 4 * (u64)cp->rttvar_us * NSEC_PER_USEC,
			MRC_RTO_VAR_MIN_NS);

	return max(mrc_srtt_ns(cp) + max(var, mrc_reorder_window_ns(cp)),
		   mrc_queue_allowance_ns(msk, cp));
}

/*
 * A plane's timeout from its own round trips, 0 before the first.  The
 * variation term has a floor, and the whole at least two round trips and
 * the queue the window allows: a timeout costs a path, hosts stall for a
 * few milliseconds now and then, and a queue that builds up stretches the
 * round trip faster than the smoothing follows.
 */
static u64 mrc_measured_rto_ns(const struct mrc_sock *msk,
			       const struct mrc_conn_plane *cp)
{
	u64 srtt = (u64)cp->srtt_us * NSEC_PER_USEC;

	if (!srtt)
		return 0;
	return max3(srtt + max_t(u64, 4 * (u64)cp->rttvar_us * NSEC_PER_USEC,
				 MRC_RTO_VAR_MIN_NS), 2 * srtt,
		    mrc_queue_allowance_ns(msk, cp));
}

/*
 * The longest a plane's timeout may be, backed off or not: rto_max, or
 * half the dead-peer timeout when longer (see mrc_rto_ns()).
 */
u64 mrc_rto_ceil_ns(const struct mrc_sock *msk)
{
	u64 rto_max = max(mrc_ms_ns(msk->params.rto_max_ms),
			  mrc_us_ns(msk->params.rto_min_us));

	return max(mrc_ms_ns(msk->params.dead_peer_timeout_ms) / 2, rto_max);
}

/*
 * The retransmission timeout of a plane: microseconds on a fabric, not
 * the hundreds of milliseconds of TCP's floor.
 */
u64 mrc_rto_ns(const struct mrc_sock *msk, const struct mrc_conn_plane *cp)
{
	u64 rto_min = mrc_us_ns(msk->params.rto_min_us);
	u64 rto_max = max(mrc_ms_ns(msk->params.rto_max_ms), rto_min);
	u64 rto, ceil;

	/*
	 * A plane not measured yet starts from the handshake's plane: the
	 * planes of a connection join the same two hosts, and a timeout
	 * shorter than the round trip retires the plane's EVs for nothing.
	 */
	rto = mrc_measured_rto_ns(msk, cp);
	if (!rto)
		rto = max(MRC_RTO_INIT_NS,
			  mrc_measured_rto_ns(msk,
					      &msk->planes[msk->syn_plane]));
	/*
	 * rto_max bounds the backoff, not a measured round trip: a timeout
	 * shorter than the round trip declares every packet lost (and
	 * retires every EV) before its acknowledgment can come back, as with
	 * a peer that takes seconds to answer.  Half the dead-peer timeout
	 * bounds both.
	 */
	ceil = clamp_t(u64, rto, rto_max, mrc_rto_ceil_ns(msk));
	rto = clamp_t(u64, rto, rto_min, ceil);
	/*
	 * The connection's backoff ends with any acknowledgment, the
	 * plane's only with a round trip measured on it: a plane slower
	 * than its timeout, whose packets all arrive after they were resent
	 * on a faster one, must not keep the short timeout for good.
	 */
	return min_t(u64, rto << min_t(u32, max_t(u32, msk->backoff,
						  cp->backoff), 10), ceil);
}

/*
 * The packets of the window beyond what @target_us of queueing delay
 * holds, at most half of it.  The round's smallest round trip less the
 * plane's smallest is the queue our packets found at its shortest: a host
 * that stalls now and then inflates some samples, not all of a round's.
 * A round of fewer than MRC_DELAY_SAMPLES samples (one an acknowledgment)
 * is too short to tell: its samples count in the next.
 * At the rate the window gives, cwnd / rtt, the queue beyond the target
 * holds cwnd * (queue - target) / rtt packets; flows that share the queue
 * each hold their window's part of it, and together take out the excess.
 */
static u32 mrc_cc_delay_cut(const struct mrc_conn_plane *cp, u32 queue_us,
			    u32 target_us)
{
	u64 cut = div_u64((u64)cp->cwnd * (queue_us - target_us),
			  cp->round_rtt_us);

	return min_t(u64, cut, cp->cwnd / 2);
}

/*
 * Whether the acknowledgment of @psn ends a round that began when @start
 * was the next PSN: a packet sent since is acknowledged.  A plane that sat
 * out half the PSN space (down, or its EVs retired) while the connection
 * sent on others finds its round over, not 2^31 PSNs in the future.
 */
static bool mrc_cc_round_over(const struct mrc_sock *msk, u32 psn, u32 start)
{
	return !mrc_before(psn, start) || msk->next_psn - start >= BIT(30);
}

/* Forget what the plane's round trips said of its queue. */
void mrc_cc_delay_reset(struct mrc_sock *msk, struct mrc_conn_plane *cp)
{
	cp->base_rtt_us = 0;
	cp->round_rtt_us = 0;
	cp->round_peak_us = 0;
	cp->queue_peak_us = 0;
	cp->round_samples = 0;
	cp->queue_streak = 0;
	cp->grow = 0;
	cp->ce_round_psn = msk->next_psn;
}

/*
 * What a round that found less than half the target queued, its window
 * in use, has the next add to the window beside Reno's packet, spread
 * over its acknowledgments as slow start's growth is (added at once, it
 * left as a burst that overflowed a short queue): the share of it that
 * the base round trip is of MRC_GROW_RTT_US, an eighth at most.  A rate
 * then grows at the same pace in time on every path, about threefold a
 * second (less past 100 ms, where the eighth caps it): a 200 ms path
 * whose slow start ended early, on the queue its own bursts built, fills
 * its pipe in a second or two, not in the minutes that a packet a round
 * takes.  Where the share is below one packet (cwnd x base < 800 ms,
 * every fabric) Reno's packet is the larger and the share is nothing.
 * The delay's cut (mrc_cc_delay_cut()) takes back what overshoots the
 * target within a round.
 */
static u32 mrc_cc_delay_growth(const struct mrc_sock *msk,
			       const struct mrc_conn_plane *cp, u32 queue_us)
{
	u32 target = msk->params.target_delay_us;
	u64 grow;

	if (!target || queue_us > target / 2 || cp->cwnd < cp->ssthresh ||
	    cp->nr_inflight < cp->cwnd / 2)
		return 0;
	grow = div_u64((u64)cp->cwnd * cp->base_rtt_us, MRC_GROW_RTT_US);
	return min_t(u64, grow, cp->cwnd >> MRC_GROW_MAX_SHIFT);
}

/*
 * The end of a round trip, when the acknowledgment of @psn ends it: the
 * DCTCP reaction to CE marks (half the smoothed fraction of marked
 * packets) or to a queue longer than the target delay, whichever takes
 * more; either ends slow start.  Marks of hot links that only some of the
 * plane's EVs cross (mrc_path_ce_round()) end slow start and the delay's
 * growth but take nothing: those EVs give way by sitting out turns.  In
 * a round whose losses cut the window already (mrc_cc_on_loss()), the
 * queue that overflowed gets no cut of its own.
 */
static void mrc_cc_round_end(struct mrc_sock *msk, struct mrc_conn_plane *cp,
			     u32 psn)
{
	/* Marks of packets acknowledged earlier count too: clamp. */
	u32 frac = min(cp->ce_marked, cp->ce_acked) * 1024 / cp->ce_acked;
	u32 target = msk->params.target_delay_us, cut = 0, queue = 0;
	u32 before = cp->cwnd;
	bool judged = cp->round_samples >= MRC_DELAY_SAMPLES;
	bool shared = mrc_path_ce_round(cp);

	cp->ce_alpha = min(cp->ce_alpha - cp->ce_alpha / 16 + frac / 16,
			   1024U);
	if (cp->ce_marked && shared)
		cut = cp->cwnd * cp->ce_alpha / 2048;
	if (cp->ce_marked && cp->cwnd < cp->ssthresh)
		cp->ssthresh = cp->cwnd;
	if (judged && cp->base_rtt_us && cp->round_rtt_us > cp->base_rtt_us)
		queue = cp->round_rtt_us - cp->base_rtt_us;
	if (target && queue > target &&
	    mrc_cc_round_over(msk, psn, cp->recovery_psn)) {
		cut = max(cut, mrc_cc_delay_cut(cp, queue, target));
		cp->ssthresh = cp->cwnd;
	}
	if (cut) {
		cp->cwnd = max_t(u32, cp->cwnd - min(cut, cp->cwnd),
				 MRC_MIN_CWND);
		cp->ssthresh = cp->cwnd;
	}
	if (judged)
		cp->grow = cut || cp->ce_marked || !cp->base_rtt_us ||
			   !mrc_cc_round_over(msk, psn, cp->recovery_psn) ? 0 :
			   mrc_cc_delay_growth(msk, cp, queue);
	if (target && queue > target && cp->cwnd != before)
		trace_mrc_cwnd_delay(msk, cp - msk->planes, cp->base_rtt_us,
				     queue, before, cp->cwnd);
	if (cp->ce_marked)
		trace_mrc_cwnd_ce(msk, cp - msk->planes, shared, cp->ce_alpha,
				  before, cp->cwnd);
	cp->ce_acked = 0;
	cp->ce_marked = 0;
	/* Too few samples to judge: the next round adds to them. */
	if (judged) {
		cp->queue_peak_us = cp->round_peak_us > cp->base_rtt_us ?
				    cp->round_peak_us - cp->base_rtt_us : 0;
		cp->round_rtt_us = 0;
		cp->round_peak_us = 0;
		cp->round_samples = 0;
	}
	cp->ce_round_psn = msk->next_psn;
}

/*
 * Reno growth, and the reactions of mrc_cc_round_end() once a round trip:
 * a round ends with the acknowledgment of a packet sent after it began.
 */
void mrc_cc_on_ack(struct mrc_sock *msk, struct mrc_conn_plane *cp,
		   struct mrc_ev *ev, u32 psn)
{
	mrc_path_acked(ev);
	cp->ce_acked++;
	if (mrc_cc_round_over(msk, psn, cp->ce_round_psn))
		mrc_cc_round_end(msk, cp, psn);

	/*
	 * Slow start doubles the window each round, and the round that
	 * fills the queue cannot see it in its smallest sample, taken
	 * before the queue grew: waiting for the next round's end lets the
	 * window double once more, past what the buffer holds.  A queue
	 * found by samples in a row ends slow start now; the round's end
	 * judges it as usual.
	 */
	if (cp->cwnd < cp->ssthresh && cp->queue_streak >= MRC_SS_EXIT_SAMPLES)
		cp->ssthresh = cp->cwnd;
	/*
	 * The same for the growth of avoidance, whose round's end sees the
	 * queue of a window it sent a round before: waiting for it let a
	 * long path's window grow twice past the pipe, and overflow it.
	 */
	if (cp->grow && cp->grow_streak >= MRC_SS_EXIT_SAMPLES)
		cp->grow = 0;
	if (cp->cwnd < cp->ssthresh) {
		cp->cwnd++;
	} else {
		cp->acked += 1 + cp->grow;
		if (cp->acked >= cp->cwnd) {
			cp->acked = 0;
			cp->cwnd++;
		}
	}
	cp->cwnd = min_t(u32, cp->cwnd, msk->snd_ring_size);
}

/*
 * A loss on @ev takes half of the EV's share of the window, once a round
 * trip: of the window the round began with, over the EVs then in use.
 * One hot link among those a fabric spreads the EVs over costs only the
 * share of the EVs it carries, which retire (path.c), while the others
 * keep the plane's window; a queue at the plane's own bottleneck drops
 * packets of many EVs, and the cuts of a round add up to Reno's half at
 * most.
 * A round's first cut is an eighth of the window at least, one path of
 * four: a bottleneck that drops one packet a round trip is answered with
 * a quarter of Reno's decrease, not with one EV's share of 32.  Trims
 * count the same way.  Losses of packets sent before the round began are
 * its own: an EV is cut at most once a round.
 */
void mrc_cc_on_loss(struct mrc_sock *msk, struct mrc_conn_plane *cp,
		    struct mrc_ev *ev, u32 psn)
{
	u32 share, before = cp->cwnd;
	bool first = false;

	if (mrc_cc_round_over(msk, psn, cp->recovery_psn)) {
		cp->recovery_psn = msk->next_psn;
		cp->loss_round++;
		/* A plane found silent has none in use: its whole table. */
		cp->round_evs = max_t(u16, cp->nr_active ?: cp->nr_evs, 1);
		cp->round_cwnd = cp->cwnd;
		cp->acked = 0;
		cp->grow = 0;
		first = true;
	} else if (ev->cut_round == cp->loss_round) {
		return;
	}
	ev->cut_round = cp->loss_round;
	share = DIV_ROUND_UP(cp->round_cwnd, 2 * cp->round_evs);
	if (first)
		share = max(share, cp->round_cwnd / 8);
	/* Never past Reno's half of the round's window, in all. */
	share = min(share, cp->cwnd - min(cp->cwnd, cp->round_cwnd / 2));
	cp->cwnd = max_t(u32, cp->cwnd - share, MRC_MIN_CWND);
	cp->ssthresh = cp->cwnd;
	trace_mrc_cwnd_cut(msk, cp - msk->planes, ev->port, before, cp->cwnd,
			   cp->round_evs);
}

/*
 * Every path stayed silent past a second timeout with packets of @cp in
 * flight: what the peer will take when it answers again is unknown, and
 * resending a window each timeout through a silence is a storm.  Start
 * again from the smallest window, slow start up to half the window of the
 * round, as TCP's timeout does.  (A stall of a few milliseconds, over at
 * the next acknowledgment, only costs the loss round's cut.)
 */
void mrc_cc_on_silence(struct mrc_sock *msk, struct mrc_conn_plane *cp)
{
	u32 before = cp->cwnd;

	if (cp->cwnd <= MRC_MIN_CWND)
		return;
	cp->ssthresh = max_t(u32, cp->round_cwnd / 2, MRC_MIN_CWND);
	cp->cwnd = MRC_MIN_CWND;
	cp->acked = 0;
	cp->grow = 0;
	trace_mrc_cwnd_cut(msk, cp - msk->planes, 0, before, cp->cwnd,
			   cp->nr_active);
}

/*
 * A silence of every path began: keep each plane's window, to give it
 * back if the silence proves a delay (a stalled host or peer, whose
 * answers come all at once) rather than a loss.
 */
void mrc_cc_silence_begin(struct mrc_sock *msk)
{
	int id;

	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];

		cp->undo_cwnd = cp->cwnd;
		cp->undo_ssthresh = cp->ssthresh;
	}
	msk->silence_undoable = true;
}

/*
 * The peer echoed, for the first time, a copy of a packet that the
 * silence had us take for lost: the copy was held on the way, not lost,
 * and so was the silence (a spurious timeout, as Eifel tells one, RFC
 * 3522).  No other loss came since (mrc_mark_lost()): the cuts since the
 * silence began are all its own (mrc_cc_on_loss(), mrc_cc_on_silence()),
 * and are undone.  The next loss starts a round of its own, even one of
 * a round that began before the silence: a second cut rather than none.
 */
void mrc_cc_silence_undo(struct mrc_sock *msk)
{
	int id;

	if (!msk->silence_undoable)
		return;
	msk->silence_undoable = false;
	MRC_MSK_INC_STATS(msk, MRC_MIB_SPURIOUS_SILENCES);
	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];

		cp->cwnd = min(max(cp->cwnd, cp->undo_cwnd),
			       msk->snd_ring_size);
		cp->ssthresh = max(cp->ssthresh, cp->undo_ssthresh);
		cp->recovery_psn = msk->next_psn - BIT(30);
		cp->loss_round++;
	}
}
