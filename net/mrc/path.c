// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: paths.  Each connection sprays over the planes it shares with its
 * peer and, inside each plane, over its entropy values (EVs), each of
 * which a fabric hashes onto its own path.  A loss retires the EV it
 * happened on at once; retired EVs are probed with backoff and come back
 * when a probe gets through.  A plane whose device goes down is left at
 * once, with what was in flight on it resent elsewhere, and taken back
 * when it returns.
 *
 * Everything here runs under msk->lock, but mrc_path_planes_changed(),
 * which plane.c calls under RTNL.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include "mrc.h"
#include "protocol.h"

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
 * Round robin over the shared planes that are up, have an EV in use and
 * room in their congestion window; @avoid only when nothing else will do.
 */
int mrc_path_pick_plane(struct mrc_sock *msk, int avoid)
{
	int i, id, fallback = -1;

	for (i = 0; i < MRC_MAX_PLANES; i++) {
		struct mrc_conn_plane *cp;

		id = (msk->next_plane + i) % MRC_MAX_PLANES;
		if (!(msk->plane_mask & BIT(id)))
			continue;
		cp = &msk->planes[id];
		if (!cp->nr_active || cp->nr_inflight >= cp->cwnd ||
		    !mrc_path_plane_up(msk, id))
			continue;
		if (id == avoid) {
			fallback = id;
			continue;
		}
		msk->next_plane = id + 1;
		return id;
	}
	return fallback;
}

/*
 * The next EV in use on a plane, not @avoid if another will do.  EVs that
 * saw a CE mark sit out a few turns.  Never NULL when cp->nr_active.
 */
struct mrc_ev *mrc_path_next_ev(struct mrc_conn_plane *cp, u16 avoid)
{
	struct mrc_ev *fallback = NULL, *ev;
	u32 i;

	for (i = 0; i < cp->nr_evs; i++) {
		ev = &cp->evs[cp->next_ev++ % cp->nr_evs];
		if (ev->state != MRC_EV_ACTIVE)
			continue;
		if (ev->skip || ev->port == avoid) {
			if (ev->skip)
				ev->skip--;
			if (!fallback)
				fallback = ev;
			continue;
		}
		return ev;
	}
	return fallback;
}

static u64 mrc_path_probe_interval(const struct mrc_conn_plane *cp, u8 shift)
{
	u64 base = max_t(u64, mrc_srtt_ns(cp), MRC_PROBE_MIN_NS);

	return min_t(u64, base << shift, MRC_PROBE_MAX_NS);
}

static void mrc_path_retire(struct mrc_conn_plane *cp, struct mrc_ev *ev,
			    u64 now)
{
	if (ev->state == MRC_EV_RETIRED)
		return;
	ev->state = MRC_EV_RETIRED;
	ev->probe_shift = 0;
	ev->next_probe = now + mrc_path_probe_interval(cp, 0);
	cp->nr_active--;
	cp->retirements++;
}

static void mrc_path_restore(struct mrc_conn_plane *cp, struct mrc_ev *ev)
{
	if (ev->state == MRC_EV_ACTIVE)
		return;
	ev->state = MRC_EV_ACTIVE;
	ev->skip = 0;
	cp->nr_active++;
	cp->restores++;
}

/*
 * A packet sent on @ev was lost.  The EV is retired, unless a packet sent
 * after it on the same plane got through (@timeout false) and it is the
 * last EV of the plane in use: the plane works, and one loss on it is
 * more likely a drop in a queue than a broken path.
 */
void mrc_path_lost(struct mrc_conn_plane *cp, struct mrc_ev *ev, bool timeout,
		   u64 now)
{
	ev->losses++;
	if (timeout || cp->nr_active > 1)
		mrc_path_retire(cp, ev, now);
}

/* Probe the retired EVs whose time has come, on planes that are up. */
void mrc_path_probe(struct mrc_sock *msk, u64 now, struct sk_buff_head *queue)
{
	int id;
	u32 i;

	for (id = 0; id < MRC_MAX_PLANES; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];

		if (!(msk->plane_mask & BIT(id)) || cp->nr_active == cp->nr_evs ||
		    !mrc_path_plane_up(msk, id))
			continue;
		for (i = 0; i < cp->nr_evs; i++) {
			struct mrc_ev *ev = &cp->evs[i];

			if (ev->state != MRC_EV_RETIRED || ev->next_probe > now)
				continue;
			ev->probe_psn = mrc_output_probe_ev(msk, id, ev->port,
							    queue);
			if (ev->probe_shift < 16)
				ev->probe_shift++;
			ev->next_probe = now +
				mrc_path_probe_interval(cp, ev->probe_shift);
			cp->probes++;
		}
	}
}

/* When the next probe is due, 0 for none. */
u64 mrc_path_next_probe(struct mrc_sock *msk)
{
	u64 when = 0;
	int id;
	u32 i;

	for (id = 0; id < MRC_MAX_PLANES; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];

		if (!(msk->plane_mask & BIT(id)) || cp->nr_active == cp->nr_evs ||
		    !cp->up)
			continue;
		for (i = 0; i < cp->nr_evs; i++) {
			struct mrc_ev *ev = &cp->evs[i];

			if (ev->state == MRC_EV_RETIRED &&
			    (!when || ev->next_probe < when))
				when = ev->next_probe;
		}
	}
	return when;
}

/* An acknowledgment answered the probe @psn on EV @port: it works again. */
void mrc_path_probe_answered(struct mrc_sock *msk, u16 port, u32 psn)
{
	struct mrc_conn_plane *cp;
	struct mrc_ev *ev = mrc_path_find_ev(msk, port, &cp);

	/* EVs are unique in a connection: the port names one. */
	if (ev && ev->state == MRC_EV_RETIRED && ev->probe_psn == psn)
		mrc_path_restore(cp, ev);
}

/* The EV @port of the connection, and its plane in @cpp. */
struct mrc_ev *mrc_path_find_ev(struct mrc_sock *msk, u16 port,
				struct mrc_conn_plane **cpp)
{
	int id;
	u32 i;

	for (id = 0; id < MRC_MAX_PLANES; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];

		if (!(msk->plane_mask & BIT(id)))
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

/* A packet sent on @ev arrived with a CE mark. */
void mrc_path_ce(struct mrc_conn_plane *cp, struct mrc_ev *ev)
{
	cp->ce_marks++;
	ev->skip = MRC_CE_SKIP;
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

	for (id = 0; id < MRC_MAX_PLANES; id++) {
		struct mrc_conn_plane *cp = &msk->planes[id];
		bool up;

		if (!(msk->plane_mask & BIT(id)))
			continue;
		up = mrc_path_plane_up(msk, id);
		if (cp->up && !up) {
			mrc_output_requeue_plane(msk, cp);
		} else if (!cp->up && up) {
			for (i = 0; i < cp->nr_evs; i++) {
				cp->evs[i].state = MRC_EV_ACTIVE;
				cp->evs[i].skip = 0;
			}
			cp->nr_active = cp->nr_evs;
		}
		cp->up = up;
	}
	mrc_output_push(msk, queue);
	mrc_timer_update(msk);
}

void mrc_path_planes_changed(struct mrc_net *mn)
{
	struct sk_buff_head queue;
	struct mrc_sock *msk;
	int bkt;

	__skb_queue_head_init(&queue);
	rcu_read_lock();
	hash_for_each_rcu(mn->conns, bkt, msk, cid_node) {
		spin_lock_bh(&msk->lock);
		if (!msk->dead && msk->sk.sk_state == TCP_ESTABLISHED)
			mrc_path_refresh(msk, &queue);
		spin_unlock_bh(&msk->lock);
		mrc_xmit(mn->net, &queue);
	}
	rcu_read_unlock();
}
