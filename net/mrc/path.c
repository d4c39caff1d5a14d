// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: paths.  Each connection sprays over the planes it shares with its
 * peer and, inside each plane, over its entropy values (EVs), each of
 * which a fabric hashes onto its own path.  A loss retires the EV it
 * happened on at once, and a plane that stays silent for a whole timeout
 * while the peer answers on others retires all of its EVs; retired EVs are
 * probed with backoff, one at a time on each plane, and come back when a
 * probe gets through; one that fails again soon after stays out longer
 * each time.  A plane whose device goes down is left at once, with what
 * was in flight on it resent elsewhere, and taken back when it returns.
 *
 * Everything here runs under msk->lock, but mrc_path_planes_changed(),
 * which plane.c calls under RTNL, and the work item it queues.  EVs that
 * retire and come back, and planes that a connection leaves and joins,
 * are traced and multicast to the "path" and "conn" netlink groups.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <linux/random.h>

#include "mrc.h"
#include "protocol.h"

static_assert(sizeof(struct mrc_ev) == 64);	/* MRC_MAX_EVS a connection */
/* The bit-fields of &struct mrc_ev hold their largest values. */
static_assert(MRC_EV_SILENCED < 4 && MRC_EV_PENALTY_MAX < 16 &&
	      MRC_EV_PROOF < 32 && MRC_PROBE_SHIFT_MAX < 32 &&
	      MRC_CE_ROUNDS < 16 && MRC_CE_SKIP_MAX <= U8_MAX);
/* An array by plane id: four planes in a 1 KiB allocation. */
static_assert(sizeof(struct mrc_conn_plane) <= 256);

/* Whether the local plane @id exists and is up. */
bool mrc_path_plane_up(struct mrc_sock *msk, int id)
{
	struct mrc_net *mn = mrc_pernet(sock_net(&msk->sk));
	struct mrc_plane *plane;
	bool up;

	rcu_read_lock();
	plane = rcu_dereference(mn->plane_by_id[id]);
	up = plane && READ_ONCE(plane->state) == MRC_PLANE_STATE_UP;
	rcu_read_unlock();
	return up;
}

/*
 * The base round trip the operator gave the local plane @id, 0 for none:
 * read at every sample, so that a change reaches live connections too.
 */
u32 mrc_path_base_rtt(const struct mrc_sock *msk, int id)
{
	struct mrc_net *mn = mrc_pernet(sock_net(&msk->sk));
	struct mrc_plane *plane;
	u32 base;

	rcu_read_lock();
	plane = rcu_dereference(mn->plane_by_id[id]);
	base = plane ? READ_ONCE(plane->base_rtt_us) : 0;
	rcu_read_unlock();
	return base;
}

/* Whether plane @id may carry anything to the peer but validation probes. */
bool mrc_path_usable(struct mrc_sock *msk, int id)
{
	return msk->plane_mask & BIT(id) && msk->planes[id].validated &&
	       mrc_path_plane_up(msk, id);
}

/*
 * Round robin over the shared, validated planes that are up, have an EV
 * in use and room in their congestion window; @avoid only when nothing
 * else will do.  With @strict, @avoid only when no other plane could take
 * a packet at all, full or not: a packet that other planes outlived (see
 * mrc_detect_loss()) waits for room on them rather than go back into what
 * may be a black hole.
 */
int mrc_path_pick_plane(struct mrc_sock *msk, int avoid, bool strict)
{
	int i, id, fallback = -1;
	bool others = false;

	/* No plane before the SYN_ACK: -1, as for an RST in SYN_SENT. */
	for (i = 0; i < msk->nr_planes; i++) {
		struct mrc_conn_plane *cp;

		id = (msk->next_plane + i) % msk->nr_planes;
		if (!(msk->plane_mask & BIT(id)))
			continue;
		cp = &msk->planes[id];
		if (!cp->nr_active || !mrc_path_usable(msk, id))
			continue;
		if (id == avoid) {
			if (cp->nr_inflight < cp->cwnd)
				fallback = id;
			continue;
		}
		others = true;
		if (cp->nr_inflight >= cp->cwnd)
			continue;
		msk->next_plane = id + 1;
		return id;
	}
	return strict && others ? -1 : fallback;
}

/*
 * The next EV in use on a plane, not @avoid if another will do.  EVs that
 * saw a CE mark sit out a few turns.  Never NULL when cp->nr_active.
 *
 * When every EV but @avoid sits out, the turns go round until the first
 * wait ends, at once: the EV nearest its turn goes, and each of the
 * others keeps its place in the line.  Taking the first in turn instead
 * would send packet after packet on that one, however long its own wait.
 */
struct mrc_ev *mrc_path_next_ev(struct mrc_conn_plane *cp, u16 avoid)
{
	struct mrc_ev *avoided = NULL, *ev;
	u8 least = U8_MAX;
	u32 start, i, at;

	if (!cp->nr_evs)
		return NULL;
	/* In range, so that one pass meets each EV once. */
	start = cp->next_ev % cp->nr_evs;
	for (i = 0; i < cp->nr_evs; i++) {
		ev = &cp->evs[(start + i) % cp->nr_evs];
		if (ev->state != MRC_EV_ACTIVE)
			continue;
		if (ev->port == avoid) {
			if (ev->skip)
				ev->skip--;
			avoided = ev;
			continue;
		}
		if (!ev->skip) {
			cp->next_ev = (start + i + 1) % cp->nr_evs;
			return ev;
		}
		least = min_t(u8, least, --ev->skip);
	}
	if (least == U8_MAX)
		return avoided;
	at = cp->nr_evs;
	for (i = 0; i < cp->nr_evs; i++) {
		ev = &cp->evs[(start + i) % cp->nr_evs];
		if (ev->state != MRC_EV_ACTIVE || ev->port == avoid)
			continue;
		ev->skip -= least;
		if (!ev->skip && at == cp->nr_evs)
			at = i;
	}
	cp->next_ev = (start + at + 1) % cp->nr_evs;
	return &cp->evs[(start + at) % cp->nr_evs];
}

static u64 mrc_path_probe_interval(const struct mrc_conn_plane *cp, u8 shift)
{
	u64 base = max_t(u64, mrc_srtt_ns(cp), MRC_PROBE_MIN_NS);

	return min_t(u64, base << shift, MRC_PROBE_MAX_NS);
}

static void mrc_path_retire(struct mrc_sock *msk, struct mrc_conn_plane *cp,
			    struct mrc_ev *ev, enum mrc_ev_state state, u64 now)
{
	if (ev->state != MRC_EV_ACTIVE)
		return;
	trace_mrc_ev_retire(msk, cp - msk->planes, ev->port, ev->losses);
	ev->state = state;
	ev->probe_shift = 0;
	ev->next_probe = now + mrc_path_probe_interval(cp, ev->penalty);
	cp->nr_active--;
	cp->retirements++;
	MRC_MSK_INC_STATS(msk, MRC_MIB_EV_RETIRED);
	mrc_nl_conn_ev(msk, cp - msk->planes, ev, false);
}

static void mrc_path_restore(struct mrc_sock *msk, struct mrc_conn_plane *cp,
			     struct mrc_ev *ev)
{
	if (ev->state == MRC_EV_ACTIVE)
		return;
	trace_mrc_ev_restore(msk, cp - msk->planes, ev->port, ev->losses);
	ev->state = MRC_EV_ACTIVE;
	ev->skip = 0;
	ev->ce_level = 0;
	ev->ce_queued = 0;
	ev->unproven = MRC_EV_PROOF;
	cp->nr_active++;
	cp->restores++;
	MRC_MSK_INC_STATS(msk, MRC_MIB_EV_RESTORED);
	mrc_nl_conn_ev(msk, cp - msk->planes, ev, true);
}

/*
 * Whether @ev lost at least twice the plane's share of its packets, and a
 * few: a path worse than the others, not one that met the plane's queues
 * (or reordering) by chance.
 */
static bool mrc_path_ev_worse(const struct mrc_conn_plane *cp,
			      const struct mrc_ev *ev)
{
	u64 losses = 0, sent = 0;
	u32 i;

	if (ev->losses < 4)
		return false;
	/* The EVs' counters start with their draw, the plane's do not. */
	for (i = 0; i < cp->nr_evs; i++) {
		losses += cp->evs[i].losses;
		sent += cp->evs[i].tx_packets;
	}
	return (u64)ev->losses * sent > 2 * losses * ev->tx_packets;
}

/*
 * A packet sent on @ev was lost.  On a timeout the EV is retired.  When a
 * packet sent after it got through (@timeout false), the plane works, and
 * the EV is retired only if it loses more than the plane's others (see
 * mrc_path_ev_worse()) and is not the last in use: a queue that overflows
 * drops packets of every EV alike, and retiring each EV it hit left a
 * long path's window on a few EVs after one overshoot.  One lost again
 * before %MRC_EV_PROOF of its packets arrived since a probe brought it
 * back, and worse than the plane's others, is a bad path, not a queue
 * that happened to drop: it stays out longer each time, so that it
 * carries less than the good EVs.
 */
void mrc_path_lost(struct mrc_sock *msk, struct mrc_conn_plane *cp,
		   struct mrc_ev *ev, bool timeout, u64 now)
{
	ev->losses++;
	if (!timeout && (cp->nr_active <= 1 || !mrc_path_ev_worse(cp, ev)))
		return;
	if (ev->state == MRC_EV_ACTIVE) {
		if (!ev->unproven)
			ev->penalty = 0;
		else if (ev->penalty < MRC_EV_PENALTY_MAX &&
			 mrc_path_ev_worse(cp, ev))
			ev->penalty++;
	}
	mrc_path_retire(msk, cp, ev, MRC_EV_RETIRED, now);
}

/*
 * Nothing sent on @cp was acknowledged for a whole timeout, and the peer
 * acknowledged on another plane since @cp last worked: the plane is a
 * black hole, not one bad path.
 * All its EVs in use are silenced at once, where one timeout each
 * (doubled every time) held sparse traffic for seconds per EV.  A plane
 * that only stalled longer than its timeout (a host or a router kept off
 * the CPU, a queue that filled) answers again soon: a late acknowledgment
 * or a probe's answer brings every silenced EV back at once
 * (mrc_path_answered()), where probing them one at a time took a probe gap
 * per EV, 160 ms for 32.  EVs retired for losses of their own stay out.
 * A plane that answers probes but loses DATA (a path that drops large
 * packets, or a peer that answers only probes) would so come back and be
 * found silent again every timeout: one that comes back whole and is
 * silent again before any DATA sent on it arrived has its EVs retired,
 * each to be brought back by its own probe.  Each EV so brought back
 * loses its DATA in turn, and each such loss finds the plane silent
 * again: the plane's probes back off, so that a path that answers only
 * small packets costs a few resends a second, not one every probe gap.
 */
void mrc_path_silent(struct mrc_sock *msk, struct mrc_conn_plane *cp, u64 now)
{
	enum mrc_ev_state state = MRC_EV_SILENCED;
	u32 i;

	if (!cp->nr_active)
		return;
	MRC_MSK_INC_STATS(msk, MRC_MIB_PLANE_SILENT);
	/* It may come back over another route: learn its queue again. */
	mrc_cc_delay_reset(msk, cp);
	if (cp->back_unproven) {
		state = MRC_EV_RETIRED;
		if (cp->probe_backoff < MRC_PROBE_BACKOFF_MAX)
			cp->probe_backoff++;
	}
	for (i = 0; i < cp->nr_evs; i++)
		mrc_path_retire(msk, cp, &cp->evs[i], state, now);
	cp->silenced = state == MRC_EV_SILENCED;
}

/*
 * Retired EVs are probed while there is something to send, or while the
 * peer still speaks: an idle connection to a peer that vanished does not
 * probe forever.  Sending again starts the probes again.
 */
static bool mrc_path_probing(const struct mrc_sock *msk, u64 now)
{
	return msk->snd_una != msk->snd_nxt ||
	       !list_empty(&msk->rtx_queue) ||
	       !skb_queue_empty(&msk->write_queue) ||
	       now - msk->last_rcv < mrc_ms_ns(msk->params.dead_peer_timeout_ms);
}

/*
 * A plane probes one retired EV at a time, at most one a round trip and
 * one every MRC_PROBE_GAP_NS: a plane whose EVs all retired (a peer that
 * stalled, a path cut) costs at most 200 probes a second, fewer the
 * longer its round trip, not one for each EV every MRC_PROBE_MAX_NS.
 * The gap doubles with each silence of a plane that answers probes and
 * loses DATA (&mrc_conn_plane.probe_backoff), up to a second.
 */
u64 mrc_path_probe_gap(const struct mrc_conn_plane *cp)
{
	u64 gap = max_t(u64, mrc_srtt_ns(cp), MRC_PROBE_GAP_NS);

	return min_t(u64, gap << cp->probe_backoff,
		     max_t(u64, gap, NSEC_PER_SEC));
}

/* The next retired EV of @cp due for a probe at @now, in turn, or NULL. */
static struct mrc_ev *mrc_path_probe_due(struct mrc_conn_plane *cp, u64 now)
{
	struct mrc_ev *ev;
	u32 i;

	if (now < cp->probe_next)
		return NULL;
	for (i = 0; i < cp->nr_evs; i++) {
		ev = &cp->evs[(cp->probe_ev + i) % cp->nr_evs];
		if (ev->state != MRC_EV_ACTIVE && ev->next_probe <= now) {
			cp->probe_ev = (cp->probe_ev + i + 1) % cp->nr_evs;
			return ev;
		}
	}
	return NULL;
}

/* Forget what a plane was suspected of: it answered, or left, or is silent. */
void mrc_path_doubt_clear(struct mrc_conn_plane *cp)
{
	cp->lost_ev_bits = 0;
	cp->doubt_due = false;
	cp->doubt_since = 0;
}

/* A packet or a probe sent on @cp came through: the plane works. */
void mrc_path_answered(struct mrc_sock *msk, struct mrc_conn_plane *cp,
		       u64 now)
{
	u32 i;

	cp->last_acked = now;
	mrc_path_doubt_clear(cp);
	if (!cp->silenced)
		return;
	cp->silenced = false;
	cp->back_unproven = true;
	for (i = 0; i < cp->nr_evs; i++)
		if (cp->evs[i].state == MRC_EV_SILENCED)
			mrc_path_restore(msk, cp, &cp->evs[i]);
}

/*
 * DATA sent on @cp arrived: it carries more than probes.  The probes it
 * backed off are due at its usual gap again.
 */
void mrc_path_delivered(struct mrc_conn_plane *cp, u64 now)
{
	cp->back_unproven = false;
	if (!cp->probe_backoff)
		return;
	cp->probe_backoff = 0;
	cp->probe_next = min(cp->probe_next, now + mrc_path_probe_gap(cp));
}

/*
 * Whether @ev's packets were found lost since its plane last answered;
 * &mrc_conn_plane.lost_ev_bits tells EVs apart by their index modulo 16.
 */
static bool mrc_path_ev_lost(const struct mrc_sock *msk,
			     const struct mrc_conn_plane *cp,
			     const struct mrc_ev *ev)
{
	return cp->lost_ev_bits & BIT((ev - msk->ev_table) % 16);
}

/*
 * A probe on each of up to @want active EVs of plane @id, those that lost
 * packets since it last answered or those that did not; how many went.
 */
static u32 mrc_path_probe_evs(struct mrc_sock *msk, int id, bool lost,
			      u32 want, struct sk_buff_head *queue)
{
	struct mrc_conn_plane *cp = &msk->planes[id];
	struct mrc_ev *ev;
	u32 sent = 0, i;

	for (i = 0; i < cp->nr_evs && sent < want; i++) {
		ev = &cp->evs[(cp->next_ev + i) % cp->nr_evs];
		if (ev->state != MRC_EV_ACTIVE ||
		    mrc_path_ev_lost(msk, cp, ev) != lost)
			continue;
		mrc_output_probe_ev(msk, id, ev->port, msk->snd_una, 0, queue);
		sent++;
	}
	return sent;
}

/*
 * Ask plane @id whether it works, before all its EVs are retired on the
 * evidence of too few (mrc_output_doubt()): a probe on each of up to
 * MRC_SILENT_EVS active EVs, those that lost nothing if there are any.
 * An answer clears the plane (mrc_path_answered()); none within a timeout
 * finds it silent (mrc_output_doubts_end()).
 */
static void mrc_path_doubt_probe(struct mrc_sock *msk, int id, u64 now,
				 struct sk_buff_head *queue)
{
	struct mrc_conn_plane *cp = &msk->planes[id];
	u32 want = min_t(u32, cp->nr_active, MRC_SILENT_EVS);

	cp->doubt_due = false;
	if (!mrc_path_usable(msk, id))
		return;
	if (!mrc_path_probe_evs(msk, id, false, want, queue) &&
	    !mrc_path_probe_evs(msk, id, true, want, queue))
		return;
	cp->doubt_since = now;
	MRC_MSK_INC_STATS(msk, MRC_MIB_PLANE_DOUBTS);
}

/*
 * Probe the retired EVs whose time has come, and the planes in doubt, on
 * planes that are up.
 */
void mrc_path_probe(struct mrc_sock *msk, u64 now, struct sk_buff_head *queue)
{
	struct mrc_ev *ev;
	u32 psn;
	int id;

	if (!mrc_path_probing(msk, now))
		return;
	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];

		if (cp->doubt_due)
			mrc_path_doubt_probe(msk, id, now, queue);
		if (cp->nr_active == cp->nr_evs || !mrc_path_usable(msk, id))
			continue;
		ev = mrc_path_probe_due(cp, now);
		if (!ev)
			continue;
		psn = mrc_output_probe_ev(msk, id, ev->port, msk->snd_una, 0,
					  queue);
		/*
		 * Answers older than MRC_PSN_WINDOW are refused anyway: the
		 * series starts no earlier, so that mrc_psn_since() holds
		 * through a long retirement.
		 */
		if (!ev->probe_shift || psn - ev->probe_psn > MRC_PSN_WINDOW)
			ev->probe_psn = psn;
		if (ev->probe_shift < MRC_PROBE_SHIFT_MAX)
			ev->probe_shift++;
		ev->next_probe = now + mrc_path_probe_interval(cp,
							       ev->probe_shift);
		cp->probe_next = now + mrc_path_probe_gap(cp);
		cp->probes++;
	}
}

/* When the next probe is due, 0 for none. */
u64 mrc_path_next_probe(struct mrc_sock *msk)
{
	u64 now = ktime_get_ns(), when = 0, t;
	int id;
	u32 i;

	if (!mrc_path_probing(msk, now))
		return 0;
	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];

		/* As mrc_path_probe() decides: no deadline it would skip. */
		if (cp->doubt_due && mrc_path_usable(msk, id))
			return now;
		if (cp->nr_active == cp->nr_evs || !mrc_path_usable(msk, id))
			continue;
		t = 0;
		for (i = 0; i < cp->nr_evs; i++) {
			struct mrc_ev *ev = &cp->evs[i];

			if (ev->state != MRC_EV_ACTIVE &&
			    (!t || ev->next_probe < t))
				t = ev->next_probe;
		}
		t = max(t, cp->probe_next);
		if (!when || t < when)
			when = t;
	}
	return when;
}

/* Whether @psn was sent at or after @first (and so, before next_psn). */
static bool mrc_psn_since(const struct mrc_sock *msk, u32 psn, u32 first)
{
	return psn - first < msk->next_psn - first;
}

/*
 * An acknowledgment answered a probe: the last validation probe of a
 * plane, or the probe of a retired EV, which works again.  A validation
 * probe's answer must echo its challenge and its EV, 44 random bits in
 * all; the peer, whose answers echo what they answer, gets one guess a
 * plane: it cannot try them all until it has us spray a third party.
 */
void mrc_path_probe_answered(struct mrc_sock *msk, const struct mrc_ack *ack,
			     u64 now)
{
	u32 psn = ntohl(ack->echo_psn), dsn = ntohl(ack->echo_dsn);
	struct mrc_conn_plane *cp;
	struct mrc_ev *ev;
	int id;

	for (id = 0; id < msk->nr_planes; id++) {
		cp = &msk->planes[id];
		if (!(msk->plane_mask & BIT(id)) || cp->validated ||
		    !cp->val_tries || !cp->val_next)
			continue;
		if (psn != cp->val_psn) {
			/* An earlier probe of the series says nothing. */
			if (ntohs(ack->echo_ev) == cp->val_ev)
				return;
			continue;
		}
		cp->val_next = 0;
		if (dsn == cp->val_challenge &&
		    ntohs(ack->echo_ev) == cp->val_ev) {
			cp->validated = true;
			return;
		}
		/* Until the local plane comes up again (mrc_path_refresh()). */
		cp->val_rounds = MRC_VALIDATE_SERIES;
		MRC_MSK_INC_STATS(msk, MRC_MIB_VALIDATION_REFUSED);
		return;
	}

	/*
	 * EVs are unique in a connection: the port names one, and a retired
	 * EV carries nothing but probes.
	 */
	ev = mrc_path_find_ev(msk, ntohs(ack->echo_ev), &cp);
	if (!ev)
		return;
	mrc_path_answered(msk, cp, now);
	if (ev->state == MRC_EV_RETIRED && ev->probe_shift &&
	    mrc_psn_since(msk, psn, ev->probe_psn))
		mrc_path_restore(msk, cp, ev);
}

/*
 * Validation of the peer's planes.  A peer names its addresses in its SYN
 * or SYN_ACK, and nothing proves they are its own: a peer could name a
 * third host and have us spray a stream at it.  The address the handshake
 * went through is proved by the handshake; every other plane must answer
 * a PROBE that carries a random challenge (in its DSN field) with an
 * acknowledgment that echoes it, which only a host that received the
 * probe can do.  Until then the address gets nothing but these probes, of
 * 52 bytes (padded to the size of the answer), in series of
 * MRC_VALIDATE_TRIES 20 ms apart and doubling, and as many answers to its
 * own probes per series.  A series that goes unanswered (the path was
 * down, or the address is not the peer's) is followed by another 1 s
 * later, then 2 s and 4 s, while the connection is in use: a path
 * repaired within about 27 s is put to use, and a third party named as a
 * plane gets no more than 32 probes per connection.  The local plane
 * coming up again starts over.
 */
void mrc_path_validate_start(struct mrc_sock *msk, u64 now)
{
	int id;

	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];

		if (msk->plane_mask & BIT(id) && !cp->validated) {
			cp->val_tries = 0;
			cp->val_next = now;
		}
	}
}

/*
 * Whether plane @id has a validation probe to send, now or later: a first
 * series always, another one only while the connection is in use (as for
 * probes of retired EVs), so that an idle connection, or a peer that went
 * quiet, gets a third party named as its plane no more probes.
 */
static bool mrc_path_validating(struct mrc_sock *msk, int id, u64 now)
{
	struct mrc_conn_plane *cp;

	if (!(msk->plane_mask & BIT(id)))
		return false;
	cp = &msk->planes[id];
	return !cp->validated && cp->val_next &&
	       mrc_path_plane_up(msk, id) &&
	       (!cp->val_rounds || cp->val_tries ||
		mrc_path_probing(msk, now));
}

void mrc_path_validate(struct mrc_sock *msk, u64 now,
		       struct sk_buff_head *queue)
{
	struct mrc_conn_plane *other;
	int id;

	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];

		if (!mrc_path_validating(msk, id, now) || cp->val_next > now)
			continue;
		if (cp->val_tries >= MRC_VALIDATE_TRIES) {
			/* This series went unanswered: maybe another. */
			cp->val_tries = 0;
			cp->answers_unproven = 0;
			if (++cp->val_rounds >= MRC_VALIDATE_SERIES)
				cp->val_next = 0;
			else
				cp->val_next = now + (MRC_VALIDATE_RETRY_NS <<
						      (cp->val_rounds - 1));
			continue;
		}
		if (!cp->val_tries) {
			cp->val_challenge = get_random_u32();
			/* Not an EV in use: its answers restore nothing. */
			do {
				cp->val_ev = mrc_random_ev();
			} while (mrc_path_find_ev(msk, cp->val_ev, &other));
		}
		cp->val_psn = mrc_output_probe_ev(msk, id, cp->val_ev,
						  cp->val_challenge,
						  sizeof(struct mrc_ack),
						  queue);
		cp->val_next = now + (MRC_RTO_INIT_NS << cp->val_tries);
		cp->val_tries++;
	}
}

/*
 * Whether to answer a probe of @len bytes of body that came by plane @id
 * on that plane, whose address we have not validated: only a validation
 * probe, padded to the size of the answer, and no more of them than a
 * series of validation has, so that the address gets nothing bigger than
 * it sent and little of it.  Else the answer goes as any acknowledgment,
 * on a plane we validated.
 */
bool mrc_path_may_answer(struct mrc_sock *msk, int id, unsigned int len)
{
	struct mrc_conn_plane *cp;

	if (!(msk->plane_mask & BIT(id)))
		return false;
	cp = &msk->planes[id];
	if (cp->validated || len < sizeof(struct mrc_ack) ||
	    cp->answers_unproven >= MRC_VALIDATE_TRIES ||
	    !mrc_path_plane_up(msk, id))
		return false;
	cp->answers_unproven++;
	return true;
}

/* When the next validation probe is due, 0 for none. */
u64 mrc_path_next_validation(struct mrc_sock *msk)
{
	u64 when = 0, now = ktime_get_ns();
	int id;

	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];

		if (mrc_path_validating(msk, id, now) &&
		    (!when || cp->val_next < when))
			when = cp->val_next;
	}
	return when;
}

/* The EV @port of the connection, and its plane in @cpp. */
struct mrc_ev *mrc_path_find_ev(struct mrc_sock *msk, u16 port,
				struct mrc_conn_plane **cpp)
{
	int id;
	u32 i;

	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];

		if (!(msk->plane_mask & BIT(id)) || !cp->evs)
			continue;
		for (i = 0; i < cp->nr_evs; i++) {
			if (cp->evs[i].port == port) {
				*cpp = cp;
				return &cp->evs[i];
			}
		}
	}
	return NULL;
}

/*
 * A packet sent on @ev arrived with a CE mark: it sits out turns, more
 * of them at each mark, fewer at each acknowledgment that echoes a packet
 * of it unmarked (mrc_path_unmarked()) and at each round
 * (mrc_path_ce_round()), so that an EV through a hot link carries what
 * that link drains.  A fixed count left it at least 1 / (1 +
 * %MRC_CE_SKIP) of its plane's other EVs' share: the hot link's marks
 * then bounded nothing below that.  Rounds bring the count down even
 * when the EV sends little, as after a burst of marks: by its
 * acknowledgments alone, the link would wait idle for them.
 */
void mrc_path_ce(struct mrc_conn_plane *cp, struct mrc_ev *ev)
{
	cp->ce_marks++;
	ev->ce_level = min(ev->ce_level + MRC_CE_SKIP, MRC_CE_SKIP_MAX);
	ev->skip = ev->ce_level;
	ev->ce_queued = 1;
	ev->ce_rounds = MRC_CE_ROUNDS;
	mrc_path_acked(ev);
}

/* An acknowledgment echoes a packet sent on @ev, which arrived unmarked. */
void mrc_path_unmarked(struct mrc_ev *ev)
{
	ev->ce_queued = 0;
	if (ev->ce_level)
		ev->ce_level--;
}

/*
 * The end of a round of ECN accounting: ages the EVs' counts, and says
 * whether the marks are of a queue the plane's EVs share, which DCTCP's
 * cut of the whole window answers, rather than of hot links that only
 * some of them cross, whose EVs sit out turns (mrc_path_ce()) and leave
 * the window to the others.  A hot link marks the same EVs round after
 * round; a shared queue marks a few EVs a round, not the same ones, and
 * they sit out their turns too: so an EV counts as marked for
 * %MRC_CE_ROUNDS rounds after its last mark, and the queue is shared when
 * three quarters of the EVs in use that carried acknowledged packets in
 * those rounds were marked.  A window too small to send four packets on
 * each of them in those rounds would leave some unmarked whatever the
 * queue: its marks count as shared.  Each round also brings the EVs'
 * &mrc_ev.ce_level down, to 0 when three quarters were marked.
 */
bool mrc_path_ce_round(struct mrc_conn_plane *cp)
{
	u32 i, marked = 0, used = 0;
	struct mrc_ev *ev;

	if (!cp->evs)
		return true;
	for (i = 0; i < cp->nr_evs; i++) {
		ev = &cp->evs[i];
		if (ev->state == MRC_EV_ACTIVE && ev->acked_rounds) {
			used++;
			marked += !!ev->ce_rounds;
		}
		if (ev->ce_rounds)
			ev->ce_rounds--;
		if (ev->ce_level)
			ev->ce_level--;
		/* A mark long ago says nothing of its queue now. */
		if (!ev->ce_rounds)
			ev->ce_queued = 0;
		if (ev->acked_rounds)
			ev->acked_rounds--;
	}
	if (marked * 4 < used * 3)
		return cp->cwnd * 2 < used;
	/*
	 * The window answers a shared queue: no EV is to give way more.  A
	 * small window's marks keep their EVs' turns: the hot link is as
	 * likely as a shared queue, and its EVs would come back at once.
	 */
	for (i = 0; i < cp->nr_evs; i++)
		cp->evs[i].ce_level = 0;
	return true;
}

/* A packet sent on @ev was acknowledged. */
void mrc_path_acked(struct mrc_ev *ev)
{
	ev->acked_rounds = MRC_CE_ROUNDS;
}

/*
 * Follow the local planes: leave a plane that went down at once, resending
 * what was in flight on it elsewhere; take back one that came up, with
 * every EV in use.
 */
static void mrc_path_refresh(struct mrc_sock *msk, struct sk_buff_head *queue)
{
	int id;
	u32 i;

	for (id = 0; id < msk->nr_planes; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];
		bool up;

		if (!(msk->plane_mask & BIT(id)))
			continue;
		up = mrc_path_plane_up(msk, id);
		if (cp->up != up) {
			trace_mrc_plane(msk, id, up);
			MRC_MSK_INC_STATS(msk, up ? MRC_MIB_PLANE_JOINED :
						    MRC_MIB_PLANE_LEFT);
		}
		if (cp->up && !up) {
			mrc_output_requeue_plane(msk, cp);
		} else if (!cp->up && up) {
			/* Validation starts over, without waiting. */
			if (!cp->validated) {
				cp->val_tries = 0;
				cp->val_rounds = 0;
				cp->val_next = ktime_get_ns();
			}
			cp->answers_unproven = 0;
			for (i = 0; cp->evs && i < cp->nr_evs; i++) {
				cp->evs[i].state = MRC_EV_ACTIVE;
				cp->evs[i].skip = 0;
				cp->evs[i].ce_level = 0;
			}
			cp->nr_active = cp->nr_evs;
			cp->silenced = false;
			cp->back_unproven = false;
			cp->probe_backoff = 0;
		}
		if (cp->up != up) {
			/* Losses before it left do not count after. */
			mrc_path_doubt_clear(cp);
			cp->up = up;
			mrc_nl_conn_plane(msk, id, up);
		}
	}
	mrc_path_validate(msk, ktime_get_ns(), queue);
	mrc_output_push(msk, queue);
	mrc_timer_update(msk);
}

/*
 * Plane changes come under RTNL; the connections follow from a work item,
 * one bucket of the table at a time, so that neither RTNL nor the CPU is
 * held for all the connections of a namespace.
 */
void mrc_path_planes_changed(struct mrc_net *mn)
{
	queue_work(mrc_wq, &mn->paths_work);
}

void mrc_path_planes_work(struct work_struct *work)
{
	struct mrc_net *mn = container_of(work, struct mrc_net, paths_work);
	struct sk_buff_head queue;
	struct mrc_sock *msk;
	unsigned int bkt;

	__skb_queue_head_init(&queue);
	for (bkt = 0; bkt < HASH_SIZE(mn->conns); bkt++) {
		rcu_read_lock();
		hlist_for_each_entry_rcu(msk, &mn->conns[bkt], cid_node) {
			spin_lock_bh(&msk->lock);
			if (!msk->dead && msk->sk.sk_state == TCP_ESTABLISHED)
				mrc_path_refresh(msk, &queue);
			spin_unlock_bh(&msk->lock);
			mrc_xmit(mn->net, &queue);
		}
		rcu_read_unlock();
		cond_resched();
	}
}
