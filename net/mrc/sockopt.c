// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: socket options of level SOL_MRC.  Process context.  Those that
 * read copy the connection under msk->lock into a kernel buffer, then to
 * the caller once the lock is dropped; those that set take the socket
 * lock, then msk->lock for what the receive path and timers read.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/mrc.h>
#include <net/inet_ecn.h>

#include "mrc.h"

/* Entries of the arrays are at most this big, whatever the caller knows. */
#define MRC_INFO_ENTRY_MAX	1024

static void mrc_info_fill(struct mrc_sock *msk, struct mrc_info *info)
{
	const struct mrc_conn_plane *fastest = NULL;
	u32 id;

	memset(info, 0, sizeof(*info));
	spin_lock_bh(&msk->lock);
	info->mrci_state = mrc_conn_report_state(msk);
	info->mrci_conn_id = msk->lcid;
	info->mrci_peer_conn_id = msk->rcid;
	info->mrci_plane_mask = msk->plane_mask;
	info->mrci_mss = msk->path_mss;
	if (msk->snd_started) {
		info->mrci_snd_wnd = msk->snd_wnd_end - msk->snd_una;
		info->mrci_inflight = msk->snd_nxt - msk->snd_una;
	}
	if (msk->rcv_started)
		info->mrci_rcv_wnd = msk->rcv_wnd_end - msk->rcv_nxt;
	for (id = 0; id < msk->nr_planes; id++) {
		const struct mrc_conn_plane *cp = &msk->planes[id];

		if (!(msk->plane_mask & BIT(id)))
			continue;
		info->mrci_nr_planes++;
		info->mrci_nr_evs += cp->nr_evs;
		info->mrci_nr_evs_retired += cp->nr_evs - cp->nr_active;
		info->mrci_tx_bytes += cp->tx_bytes;
		if (cp->srtt_us &&
		    (!fastest || cp->srtt_us < fastest->srtt_us))
			fastest = cp;
	}
	if (fastest) {
		info->mrci_srtt_us = fastest->srtt_us;
		info->mrci_rto_us = div_u64(mrc_rto_ns(msk, fastest),
					    NSEC_PER_USEC);
	}
	info->mrci_tx_packets = msk->stats.tx_packets;
	info->mrci_rx_packets = msk->stats.rx_packets;
	info->mrci_retransmits = msk->stats.retransmits;
	info->mrci_timeouts = msk->stats.timeouts;
	info->mrci_rx_dropped = msk->stats.rx_dropped;
	info->mrci_rx_duplicates = msk->stats.rx_duplicates;
	info->mrci_rx_ce = msk->stats.rx_ce;
	info->mrci_rx_trimmed = msk->stats.rx_trimmed;
	spin_unlock_bh(&msk->lock);
}

static int mrc_getsockopt_info(struct mrc_sock *msk, char __user *optval,
			       int __user *optlen, int len)
{
	struct mrc_info info;

	mrc_info_fill(msk, &info);
	len = min_t(unsigned int, len, sizeof(info));
	if (copy_to_user(optval, &info, len) || put_user(len, optlen))
		return -EFAULT;
	return 0;
}

/* Fill @planes, room for MRC_MAX_PLANES; the number filled. */
static u32 mrc_plane_info_fill(struct mrc_sock *msk,
			       struct mrc_plane_info *planes)
{
	u32 id, n = 0;

	spin_lock_bh(&msk->lock);
	for (id = 0; id < msk->nr_planes; id++) {
		const struct mrc_conn_plane *cp = &msk->planes[id];
		struct mrc_plane_info *p = &planes[n];

		if (!(msk->plane_mask & BIT(id)))
			continue;
		n++;
		p->mrcpi_id = id;
		p->mrcpi_up = cp->up;
		p->mrcpi_peer_family = cp->raddr.family;
		if (cp->raddr.family == AF_INET)
			p->mrcpi_peer_addr4 = cp->raddr.v4;
		else if (cp->raddr.family == AF_INET6)
			memcpy(p->mrcpi_peer_addr6, &cp->raddr.v6,
			       sizeof(p->mrcpi_peer_addr6));
		p->mrcpi_evs = cp->nr_evs;
		p->mrcpi_evs_active = cp->nr_active;
		p->mrcpi_cwnd = cp->cwnd;
		p->mrcpi_srtt_us = cp->srtt_us;
		p->mrcpi_rttvar_us = cp->rttvar_us;
		p->mrcpi_inflight = cp->nr_inflight;
		p->mrcpi_tx_packets = cp->tx_packets;
		p->mrcpi_tx_bytes = cp->tx_bytes;
		p->mrcpi_rx_packets = cp->rx_packets;
		p->mrcpi_retransmits = cp->retransmits;
		p->mrcpi_retirements = cp->retirements;
		p->mrcpi_restores = cp->restores;
		p->mrcpi_probes = cp->probes;
		p->mrcpi_ce_marks = cp->ce_marks;
		p->mrcpi_nacks = cp->trims;
	}
	spin_unlock_bh(&msk->lock);
	return n;
}

/* Fill @evs, room for MRC_MAX_EVS; the number filled. */
static u32 mrc_ev_info_fill(struct mrc_sock *msk, struct mrc_ev_info *evs)
{
	u32 id, i, n = 0;

	spin_lock_bh(&msk->lock);
	for (id = 0; id < msk->nr_planes; id++) {
		const struct mrc_conn_plane *cp = &msk->planes[id];

		/* None before the connection first sent: nothing drawn. */
		if (!(msk->plane_mask & BIT(id)) || !cp->evs)
			continue;
		/* The planes' EVs together are at most MRC_MAX_EVS. */
		for (i = 0; i < cp->nr_evs && n < MRC_MAX_EVS; i++, n++) {
			const struct mrc_ev *ev = &cp->evs[i];

			evs[n].mrcei_plane = id;
			evs[n].mrcei_state = ev->state == MRC_EV_ACTIVE ?
					     MRC_EV_STATE_ACTIVE :
					     MRC_EV_STATE_RETIRED;
			evs[n].mrcei_port = ev->port;
			evs[n].mrcei_losses = ev->losses;
			evs[n].mrcei_tx_packets = ev->tx_packets;
			evs[n].mrcei_srtt_us = ev->srtt_us;
			evs[n].mrcei_rttvar_us = ev->rttvar_us;
		}
	}
	spin_unlock_bh(&msk->lock);
	return n;
}

/*
 * Copy @count entries of @size_kernel bytes behind the caller's head, each
 * cut or padded with zeroes to the size the caller knows, as many as its
 * buffer holds.
 */
static int mrc_info_array_put(char __user *optval, int __user *optlen,
			      int len, const void *entries, u32 count,
			      u32 size_kernel)
{
	struct mrc_info_array head;
	u32 i, n, copy;

	if (len < sizeof(head))
		return -EINVAL;
	if (copy_from_user(&head, optval, sizeof(head)))
		return -EFAULT;
	/* A later, longer head is skipped over: entries follow it. */
	if (head.mria_size_head < sizeof(head) || head.mria_size_head > (u32)len ||
	    !head.mria_size_user || head.mria_size_user > MRC_INFO_ENTRY_MAX)
		return -EINVAL;
	n = min_t(u32, count,
		  (len - head.mria_size_head) / head.mria_size_user);
	copy = min(head.mria_size_user, size_kernel);
	optval += head.mria_size_head;
	for (i = 0; i < n; i++, optval += head.mria_size_user) {
		if (copy_to_user(optval, entries + i * size_kernel, copy) ||
		    clear_user(optval + copy, head.mria_size_user - copy))
			return -EFAULT;
	}
	optval -= head.mria_size_head + n * head.mria_size_user;
	head.mria_size_kernel = size_kernel;
	head.mria_count = count;
	if (copy_to_user(optval, &head, sizeof(head)) ||
	    put_user(head.mria_size_head + n * head.mria_size_user, optlen))
		return -EFAULT;
	return 0;
}

static int mrc_getsockopt_array(struct mrc_sock *msk, int optname,
				char __user *optval, int __user *optlen,
				int len)
{
	u32 count, size;
	void *entries;
	int err;

	size = optname == MRC_PLANE_INFO ? sizeof(struct mrc_plane_info) :
					   sizeof(struct mrc_ev_info);
	entries = kcalloc(optname == MRC_PLANE_INFO ? MRC_MAX_PLANES :
			  MRC_MAX_EVS, size, GFP_KERNEL);
	if (!entries)
		return -ENOMEM;
	if (optname == MRC_PLANE_INFO)
		count = mrc_plane_info_fill(msk, entries);
	else
		count = mrc_ev_info_fill(msk, entries);
	err = mrc_info_array_put(optval, optlen, len, entries, count, size);
	kfree(entries);
	return err;
}

/*
 * The option values in force: what the socket set, or the defaults.  The
 * user timeout is in @params (the namespace's unless set), which the
 * retransmission timeout's bound reads too.
 */
u32 mrc_keep_idle_s(const struct mrc_sock *msk)
{
	return msk->keep_idle_s ?: MRC_KEEPIDLE_DEFAULT;
}

u32 mrc_keep_intvl_s(const struct mrc_sock *msk)
{
	return msk->keep_intvl_s ?: MRC_KEEPINTVL_DEFAULT;
}

u32 mrc_keep_cnt(const struct mrc_sock *msk)
{
	return msk->keep_cnt ?: MRC_KEEPCNT_DEFAULT;
}

/* What a connection accepted by @lmsk takes of its options. */
void mrc_sockopt_inherit(struct mrc_sock *msk, const struct mrc_sock *lmsk)
{
	struct sock *sk = &msk->sk;

	WRITE_ONCE(sk->sk_mark, READ_ONCE(lmsk->sk.sk_mark));
	WRITE_ONCE(sk->sk_priority, READ_ONCE(lmsk->sk.sk_priority));
	msk->keepalive = READ_ONCE(lmsk->keepalive);
	sock_valbool_flag(sk, SOCK_KEEPOPEN, msk->keepalive);
	msk->keep_idle_s = READ_ONCE(lmsk->keep_idle_s);
	msk->keep_intvl_s = READ_ONCE(lmsk->keep_intvl_s);
	msk->keep_cnt = READ_ONCE(lmsk->keep_cnt);
	msk->tclass = READ_ONCE(lmsk->tclass);
	msk->user_timeout_ms = READ_ONCE(lmsk->user_timeout_ms);
	if (msk->user_timeout_ms)
		msk->params.dead_peer_timeout_ms = msk->user_timeout_ms;
}

/*
 * SO_KEEPALIVE, from sock_setsockopt() under the socket lock, before it
 * sets SOCK_KEEPOPEN: hence a flag of our own, which the timer reads.
 */
void mrc_keepalive(struct sock *sk, int valbool)
{
	struct mrc_sock *msk = mrc_sk(sk);

	spin_lock_bh(&msk->lock);
	WRITE_ONCE(msk->keepalive, !!valbool);
	msk->keep_probes = 0;
	if (sk->sk_state == TCP_ESTABLISHED)
		mrc_timer_update(msk);
	spin_unlock_bh(&msk->lock);
}

static int mrc_setsockopt_int(struct mrc_sock *msk, int optname, int val)
{
	struct mrc_net *mn = mrc_msk_net(msk);

	switch (optname) {
	case MRC_USER_TIMEOUT:
		if (val && (val < MRC_USER_TIMEOUT_MIN_MS ||
			    val > MRC_USER_TIMEOUT_MAX_MS))
			return -EINVAL;
		break;
	case MRC_KEEPIDLE:
	case MRC_KEEPINTVL:
		if (val < 0 || val > MRC_KEEP_MAX_S)
			return -EINVAL;
		break;
	case MRC_KEEPCNT:
		if (val < 0 || val > MRC_KEEPCNT_MAX)
			return -EINVAL;
		break;
	case MRC_TCLASS:
		/* As IPV6_TCLASS: -1 is the default. */
		if (val < -1 || val > 0xff)
			return -EINVAL;
		WRITE_ONCE(msk->tclass, val < 0 ? 0 : val & ~INET_ECN_MASK);
		return 0;
	default:
		/* The MRC_*_INFO options only tell. */
		return -ENOPROTOOPT;
	}

	spin_lock_bh(&msk->lock);
	switch (optname) {
	case MRC_USER_TIMEOUT:
		msk->user_timeout_ms = val;
		msk->params.dead_peer_timeout_ms = val ?:
			READ_ONCE(mn->sysctl.conn.dead_peer_timeout_ms);
		break;
	case MRC_KEEPIDLE:
		msk->keep_idle_s = val;
		break;
	case MRC_KEEPINTVL:
		msk->keep_intvl_s = val;
		break;
	case MRC_KEEPCNT:
		msk->keep_cnt = val;
		break;
	}
	if (msk->sk.sk_state == TCP_ESTABLISHED)
		mrc_timer_update(msk);
	spin_unlock_bh(&msk->lock);
	return 0;
}

int mrc_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen)
{
	struct sock *sk = sock->sk;
	int val, err;

	if (level != SOL_MRC)
		return -EOPNOTSUPP;
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;

	lock_sock(sk);
	err = mrc_setsockopt_int(mrc_sk(sk), optname, val);
	release_sock(sk);
	return err;
}

static int mrc_getsockopt_int(struct mrc_sock *msk, int optname,
			      char __user *optval, int __user *optlen, int len)
{
	int val;

	spin_lock_bh(&msk->lock);
	switch (optname) {
	case MRC_USER_TIMEOUT:
		val = msk->params.dead_peer_timeout_ms;
		break;
	case MRC_KEEPIDLE:
		val = mrc_keep_idle_s(msk);
		break;
	case MRC_KEEPINTVL:
		val = mrc_keep_intvl_s(msk);
		break;
	case MRC_KEEPCNT:
		val = mrc_keep_cnt(msk);
		break;
	default:
		val = READ_ONCE(msk->tclass);
		break;
	}
	spin_unlock_bh(&msk->lock);

	if (len < sizeof(int))
		return -EINVAL;
	len = sizeof(int);
	if (put_user(len, optlen) || copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
}

int mrc_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen)
{
	struct mrc_sock *msk = mrc_sk(sock->sk);
	int len;

	if (level != SOL_MRC)
		return -EOPNOTSUPP;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;

	switch (optname) {
	case MRC_INFO:
		return mrc_getsockopt_info(msk, optval, optlen, len);
	case MRC_PLANE_INFO:
	case MRC_EV_INFO:
		return mrc_getsockopt_array(msk, optname, optval, optlen, len);
	case MRC_USER_TIMEOUT:
	case MRC_KEEPIDLE:
	case MRC_KEEPINTVL:
	case MRC_KEEPCNT:
	case MRC_TCLASS:
		return mrc_getsockopt_int(msk, optname, optval, optlen, len);
	default:
		return -ENOPROTOOPT;
	}
}
