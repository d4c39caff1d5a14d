/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MRC tracepoints: what a connection does, packet by packet and path by
 * path, for perf, trace-cmd, bpftrace or tracefs (events/mrc/).  Every
 * event names the connection by its local id, as "mrcctl conn show" does,
 * and a plane by its id.  An EV is the UDP source port of the packets
 * that use it, and on IPv6 their flow label as well.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#undef TRACE_SYSTEM
#define TRACE_SYSTEM mrc

#if !defined(_MRC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MRC_TRACE_H

#include <linux/tracepoint.h>

/* The states an MRC socket goes through, named for user space. */
TRACE_DEFINE_ENUM(TCP_ESTABLISHED);
TRACE_DEFINE_ENUM(TCP_SYN_SENT);
TRACE_DEFINE_ENUM(TCP_SYN_RECV);
TRACE_DEFINE_ENUM(TCP_CLOSE);
TRACE_DEFINE_ENUM(TCP_LISTEN);

#define mrc_show_state(state)					\
	__print_symbolic(state,					\
			 { TCP_ESTABLISHED,	"ESTABLISHED" },	\
			 { TCP_SYN_SENT,	"SYN_SENT" },		\
			 { TCP_SYN_RECV,	"SYN_RECV" },		\
			 { TCP_CLOSE,		"CLOSE" },		\
			 { TCP_LISTEN,		"LISTEN" })

TRACE_EVENT(mrc_state,
	    TP_PROTO(const struct mrc_sock *msk, int newstate),
	    TP_ARGS(msk, newstate),
	    TP_STRUCT__entry(__field(u32, cid)
			     __field(u32, peer_cid)
			     __field(u16, port)
			     __field(u16, dport)
			     __field(int, oldstate)
			     __field(int, newstate)),
	    TP_fast_assign(__entry->cid = msk->lcid;
			   __entry->peer_cid = msk->rcid;
			   __entry->port = msk->port;
			   __entry->dport = msk->dport;
			   __entry->oldstate = msk->sk.sk_state;
			   __entry->newstate = newstate;),
	    TP_printk("cid=0x%08x peer_cid=0x%08x port=%u dport=%u %s -> %s",
		      __entry->cid, __entry->peer_cid, __entry->port,
		      __entry->dport,
		      mrc_show_state(__entry->oldstate),
		      mrc_show_state(__entry->newstate))
);

TRACE_EVENT(mrc_send,
	    TP_PROTO(const struct mrc_sock *msk, int plane, u16 ev, u32 psn,
		     u32 dsn, u32 len, bool resend),
	    TP_ARGS(msk, plane, ev, psn, dsn, len, resend),
	    TP_STRUCT__entry(__field(u32, cid)
			     __field(u8, plane)
			     __field(u16, ev)
			     __field(u32, psn)
			     __field(u32, dsn)
			     __field(u32, len)
			     __field(bool, resend)),
	    TP_fast_assign(__entry->cid = msk->lcid;
			   __entry->plane = plane;
			   __entry->ev = ev;
			   __entry->psn = psn;
			   __entry->dsn = dsn;
			   __entry->len = len;
			   __entry->resend = resend;),
	    TP_printk("cid=0x%08x plane=%u ev=%u psn=%u dsn=%u len=%u%s",
		      __entry->cid, __entry->plane, __entry->ev, __entry->psn,
		      __entry->dsn, __entry->len,
		      __entry->resend ? " resend" : "")
);

TRACE_DEFINE_ENUM(MRC_LOSS_GAP);
TRACE_DEFINE_ENUM(MRC_LOSS_TIMEOUT);
TRACE_DEFINE_ENUM(MRC_LOSS_TRIM);
TRACE_DEFINE_ENUM(MRC_LOSS_PLANE_DOWN);
TRACE_DEFINE_ENUM(MRC_LOSS_ELSEWHERE);
TRACE_DEFINE_ENUM(MRC_LOSS_PEER_SILENT);
TRACE_DEFINE_ENUM(MRC_LOSS_OTHER_EV);
TRACE_DEFINE_ENUM(MRC_LOSS_NO_ROOM);

/* A DATA packet taken for lost, to be resent, and why. */
TRACE_EVENT(mrc_lost,
	    TP_PROTO(const struct mrc_sock *msk, int plane, u16 ev, u32 psn,
		     u32 dsn, enum mrc_loss why),
	    TP_ARGS(msk, plane, ev, psn, dsn, why),
	    TP_STRUCT__entry(__field(u32, cid)
			     __field(u8, plane)
			     __field(u16, ev)
			     __field(u32, psn)
			     __field(u32, dsn)
			     __field(u8, why)),
	    TP_fast_assign(__entry->cid = msk->lcid;
			   __entry->plane = plane;
			   __entry->ev = ev;
			   __entry->psn = psn;
			   __entry->dsn = dsn;
			   __entry->why = why;),
	    TP_printk("cid=0x%08x plane=%u ev=%u psn=%u dsn=%u why=%s",
		      __entry->cid, __entry->plane, __entry->ev, __entry->psn,
		      __entry->dsn,
		      __print_symbolic(__entry->why,
				       { MRC_LOSS_GAP,		"gap" },
				       { MRC_LOSS_TIMEOUT,	"timeout" },
				       { MRC_LOSS_TRIM,		"trim" },
				       { MRC_LOSS_PLANE_DOWN,	"plane_down" },
				       { MRC_LOSS_ELSEWHERE,	"elsewhere" },
				       { MRC_LOSS_PEER_SILENT,	"peer_silent" },
				       { MRC_LOSS_OTHER_EV,	"other_ev" },
				       { MRC_LOSS_NO_ROOM,	"no_room" }))
);

TRACE_EVENT(mrc_ack,
	    TP_PROTO(const struct mrc_sock *msk, bool nack, u32 cum_dsn,
		     u8 nr_sack, u32 snd_una, u16 echo_ev, u32 echo_psn),
	    TP_ARGS(msk, nack, cum_dsn, nr_sack, snd_una, echo_ev, echo_psn),
	    TP_STRUCT__entry(__field(u32, cid)
			     __field(bool, nack)
			     __field(u8, nr_sack)
			     __field(u16, echo_ev)
			     __field(u32, cum_dsn)
			     __field(u32, snd_una)
			     __field(u32, echo_psn)),
	    TP_fast_assign(__entry->cid = msk->lcid;
			   __entry->nack = nack;
			   __entry->nr_sack = nr_sack;
			   __entry->echo_ev = echo_ev;
			   __entry->cum_dsn = cum_dsn;
			   __entry->snd_una = snd_una;
			   __entry->echo_psn = echo_psn;),
	    TP_printk("cid=0x%08x %s cum_dsn=%u sack_blocks=%u snd_una=%u echo_ev=%u echo_psn=%u",
		      __entry->cid, __entry->nack ? "nack" : "ack",
		      __entry->cum_dsn, __entry->nr_sack, __entry->snd_una,
		      __entry->echo_ev, __entry->echo_psn)
);

DECLARE_EVENT_CLASS(mrc_ev_class,
		    TP_PROTO(const struct mrc_sock *msk, int plane, u16 ev, u32 losses),
		    TP_ARGS(msk, plane, ev, losses),
		    TP_STRUCT__entry(__field(u32, cid)
				     __field(u8, plane)
				     __field(u16, ev)
				     __field(bool, ipv6)
				     __field(u32, losses)),
		    TP_fast_assign(__entry->cid = msk->lcid;
				   __entry->plane = plane;
				   __entry->ev = ev;
				   __entry->ipv6 = msk->planes[plane].raddr.family ==
						   AF_INET6;
				   __entry->losses = losses;),
		    TP_printk("cid=0x%08x plane=%u ev=%u flowlabel=0x%05x losses=%u",
			      __entry->cid, __entry->plane, __entry->ev,
			      /* mrc_xmit6() puts the EV in the flow label */
			      __entry->ipv6 ? __entry->ev : 0, __entry->losses)
);

/* A loss took the EV out of use; probes look for its path to come back. */
DEFINE_EVENT(mrc_ev_class, mrc_ev_retire,
	     TP_PROTO(const struct mrc_sock *msk, int plane, u16 ev,
		      u32 losses),
	     TP_ARGS(msk, plane, ev, losses)
);

/* A probe of the retired EV was answered: it carries data again. */
DEFINE_EVENT(mrc_ev_class, mrc_ev_restore,
	     TP_PROTO(const struct mrc_sock *msk, int plane, u16 ev,
		      u32 losses),
	     TP_ARGS(msk, plane, ev, losses)
);

/* The connection starts or stops sending on one of its planes. */
TRACE_EVENT(mrc_plane,
	    TP_PROTO(const struct mrc_sock *msk, int plane, bool up),
	    TP_ARGS(msk, plane, up),
	    TP_STRUCT__entry(__field(u32, cid)
			     __field(u8, plane)
			     __field(bool, up)),
	    TP_fast_assign(__entry->cid = msk->lcid;
			   __entry->plane = plane;
			   __entry->up = up;),
	    TP_printk("cid=0x%08x plane=%u %s", __entry->cid, __entry->plane,
		      __entry->up ? "joined" : "left")
);

/* Packets of a plane waited longer than its timeout. */
TRACE_EVENT(mrc_rto,
	    TP_PROTO(const struct mrc_sock *msk, int plane, u64 rto_ns,
		     u32 expired),
	    TP_ARGS(msk, plane, rto_ns, expired),
	    TP_STRUCT__entry(__field(u32, cid)
			     __field(u8, plane)
			     __field(u8, backoff)
			     __field(u32, expired)
			     __field(u64, rto_ns)),
	    TP_fast_assign(__entry->cid = msk->lcid;
			   __entry->plane = plane;
			   __entry->backoff = msk->planes[plane].backoff;
			   __entry->expired = expired;
			   __entry->rto_ns = rto_ns;),
	    TP_printk("cid=0x%08x plane=%u rto_us=%llu backoff=%u expired=%u",
		      __entry->cid, __entry->plane,
		      div_u64(__entry->rto_ns, NSEC_PER_USEC), __entry->backoff,
		      __entry->expired)
);

/* A loss on an EV took that EV's share of its plane's window. */
TRACE_EVENT(mrc_cwnd_cut,
	    TP_PROTO(const struct mrc_sock *msk, int plane, u16 ev,
		     u32 before, u32 after, u16 evs),
	    TP_ARGS(msk, plane, ev, before, after, evs),
	    TP_STRUCT__entry(__field(u32, cid)
			     __field(u8, plane)
			     __field(u16, ev)
			     __field(u16, evs)
			     __field(u32, before)
			     __field(u32, after)),
	    TP_fast_assign(__entry->cid = msk->lcid;
			   __entry->plane = plane;
			   __entry->ev = ev;
			   __entry->evs = evs;
			   __entry->before = before;
			   __entry->after = after;),
	    TP_printk("cid=0x%08x plane=%u ev=%u cwnd=%u->%u evs=%u",
		      __entry->cid, __entry->plane, __entry->ev,
		      __entry->before, __entry->after, __entry->evs)
);

/* A queue longer than the target delay cut a plane's window. */
TRACE_EVENT(mrc_cwnd_delay,
	    TP_PROTO(const struct mrc_sock *msk, int plane, u32 base_us,
		     u32 queue_us, u32 before, u32 after),
	    TP_ARGS(msk, plane, base_us, queue_us, before, after),
	    TP_STRUCT__entry(__field(u32, cid)
			     __field(u8, plane)
			     __field(u32, base_us)
			     __field(u32, queue_us)
			     __field(u32, before)
			     __field(u32, after)),
	    TP_fast_assign(__entry->cid = msk->lcid;
			   __entry->plane = plane;
			   __entry->base_us = base_us;
			   __entry->queue_us = queue_us;
			   __entry->before = before;
			   __entry->after = after;),
	    TP_printk("cid=0x%08x plane=%u base_us=%u queue_us=%u cwnd=%u->%u",
		      __entry->cid, __entry->plane, __entry->base_us,
		      __entry->queue_us, __entry->before, __entry->after)
);

/*
 * The end of a round that heard CE marks, and the plane's window after
 * it: cut when they were of a queue its EVs share (@shared, see
 * mrc_path_ce_round()); else only a queue past the target delay cuts it.
 */
TRACE_EVENT(mrc_cwnd_ce,
	    TP_PROTO(const struct mrc_sock *msk, int plane, bool shared,
		     u32 alpha, u32 before, u32 after),
	    TP_ARGS(msk, plane, shared, alpha, before, after),
	    TP_STRUCT__entry(__field(u32, cid)
			     __field(u8, plane)
			     __field(u8, shared)
			     __field(u32, alpha)
			     __field(u32, before)
			     __field(u32, after)),
	    TP_fast_assign(__entry->cid = msk->lcid;
			   __entry->plane = plane;
			   __entry->shared = shared;
			   __entry->alpha = alpha;
			   __entry->before = before;
			   __entry->after = after;),
	    TP_printk("cid=0x%08x plane=%u shared=%u alpha=%u cwnd=%u->%u",
		      __entry->cid, __entry->plane, __entry->shared,
		      __entry->alpha, __entry->before, __entry->after)
);

/* A NACK: a switch trimmed the packet of this PSN on its way. */
TRACE_EVENT(mrc_nack,
	    TP_PROTO(const struct mrc_sock *msk, int plane, u16 ev, u32 psn,
		     u32 dsn),
	    TP_ARGS(msk, plane, ev, psn, dsn),
	    TP_STRUCT__entry(__field(u32, cid)
			     __field(u8, plane)
			     __field(u16, ev)
			     __field(u32, psn)
			     __field(u32, dsn)),
	    TP_fast_assign(__entry->cid = msk->lcid;
			   __entry->plane = plane;
			   __entry->ev = ev;
			   __entry->psn = psn;
			   __entry->dsn = dsn;),
	    TP_printk("cid=0x%08x plane=%u ev=%u psn=%u dsn=%u", __entry->cid,
		      __entry->plane, __entry->ev, __entry->psn, __entry->dsn)
);

/* An RST sent (for a connection here, or none) or accepted. */
TRACE_EVENT(mrc_rst,
	    TP_PROTO(u32 cid, u32 peer_cid, int plane, u32 dsn, bool rcvd),
	    TP_ARGS(cid, peer_cid, plane, dsn, rcvd),
	    TP_STRUCT__entry(__field(u32, cid)
			     __field(u32, peer_cid)
			     __field(u8, plane)
			     __field(bool, rcvd)
			     __field(u32, dsn)),
	    TP_fast_assign(__entry->cid = cid;
			   __entry->peer_cid = peer_cid;
			   __entry->plane = plane;
			   __entry->rcvd = rcvd;
			   __entry->dsn = dsn;),
	    TP_printk("%s cid=0x%08x peer_cid=0x%08x plane=%u dsn=%u",
		      __entry->rcvd ? "received" : "sent", __entry->cid,
		      __entry->peer_cid, __entry->plane, __entry->dsn)
);

#endif /* _MRC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
