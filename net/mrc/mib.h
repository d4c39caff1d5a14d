/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MRC: counters of a network namespace, kept per CPU like the kernel's
 * SNMP MIBs, so that any context (process, softirq, timer) counts without
 * a lock.  They outlive connections; /proc/net/mrc_snmp and the netlink
 * command stats-get show them, by the names in mib.c.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#ifndef _NET_MRC_MIB_H
#define _NET_MRC_MIB_H

#include <net/snmp.h>

enum mrc_mib_field {
	MRC_MIB_IN_PKTS,		/* taken by a connection or listener */
	MRC_MIB_IN_PLANE_DOWN,		/* on a plane that is not up */
	MRC_MIB_IN_NO_CSUM,		/* IPv4 without a UDP checksum */
	MRC_MIB_IN_MALFORMED,		/* too short, bad version or body */
	MRC_MIB_IN_NO_CONN,		/* name no connection or listener */
	MRC_MIB_IN_NOT_PEER,		/* not from the connection's peer */
	MRC_MIB_IN_HALF_OPEN,		/* for a half-open connection, unproven */
	MRC_MIB_IN_DUPLICATES,		/* DATA that was there already */
	MRC_MIB_IN_OUT_OF_WINDOW,	/* DATA beyond the receive window */
	MRC_MIB_IN_FILTERED,		/* refused by the socket's filter */
	MRC_MIB_IN_MEM_DROPS,		/* no room in the receive buffer */
	MRC_MIB_IN_CLOSED_DROPS,	/* DATA after a FIN or a close */
	MRC_MIB_IN_TRIMMED,		/* DATA whose payload a switch cut */
	MRC_MIB_IN_CE,			/* DATA marked Congestion Experienced */
	MRC_MIB_ACTIVE_OPENS,		/* connect() sent a SYN */
	MRC_MIB_PASSIVE_OPENS,		/* a listener made a half-open child */
	MRC_MIB_SYN_DROPPED,		/* SYN refused: backlog or memory */
	MRC_MIB_SYN_RETRANS,		/* SYN or SYN_ACK sent again */
	MRC_MIB_ESTABLISHED,		/* connections that got established */
	MRC_MIB_CONNECT_TIMEOUTS,	/* connect() got no answer */
	MRC_MIB_CONNECT_REFUSED,	/* connect() got an RST */
	MRC_MIB_HALF_OPEN_TIMEOUTS,	/* a client never completed */
	MRC_MIB_PEER_TIMEOUTS,		/* the peer stopped answering */
	MRC_MIB_ORPHANS_RESET,		/* too many orphans: reset at close */
	MRC_MIB_RST_SENT,		/* RST of a connection */
	MRC_MIB_RST_RCVD,		/* RST that ended a connection */
	MRC_MIB_RST_IGNORED,		/* RST naming a DSN not in flight */
	MRC_MIB_RST_STRAY_SENT,		/* RST for a packet of no connection */
	MRC_MIB_RST_STRAY_LIMITED,	/* ... not sent, over the rate limit */
	MRC_MIB_DATA_SENT,		/* DATA transmissions, resends included */
	MRC_MIB_RETRANS,		/* DATA sent again */
	MRC_MIB_LOSS_GAP,		/* lost: later packets of its EV arrived */
	MRC_MIB_LOSS_OTHER_EV,		/* lost: ... of other EVs of its plane */
	MRC_MIB_LOSS_TIMEOUT,		/* lost: nothing came back in time */
	MRC_MIB_LOSS_TRIM,		/* lost: NACKed as trimmed */
	MRC_MIB_LOSS_PLANE_DOWN,	/* resent: the local plane went away */
	MRC_MIB_LOSS_ELSEWHERE,		/* lost: later packets of other planes arrived */
	MRC_MIB_LOSS_SILENCE,		/* lost: timed out as every path went silent */
	MRC_MIB_LOSS_NO_ROOM,		/* lost: NACKed, the peer out of memory */
	MRC_MIB_SPURIOUS_SILENCES,	/* silences that proved delays: undone */
	MRC_MIB_SPURIOUS_RESENDS,	/* DATA resent that the peer had already */
	MRC_MIB_PLANE_SILENT,		/* planes whose EVs all retired at once */
	MRC_MIB_PLANE_DOUBTS,		/* planes asked by probes if they work */
	MRC_MIB_TIMEOUTS,		/* retransmission timeouts */
	MRC_MIB_ACKS_SENT,		/* ACKs and NACKs, alone or riding DATA */
	MRC_MIB_NACKS_SENT,		/* NACKs: trimmed or no memory */
	MRC_MIB_NACKS_RCVD,		/* NACKs of our DATA */
	MRC_MIB_ECE_RCVD,		/* ACKs echoing a CE mark */
	MRC_MIB_PROBES_SENT,		/* probes of retired EVs and windows */
	MRC_MIB_WND_PROBES,		/* the peer's window was shut */
	MRC_MIB_KEEPALIVE_PROBES,	/* an idle connection asked its peer */
	MRC_MIB_KEEPALIVE_TIMEOUTS,	/* ... which never answered */
	MRC_MIB_EV_RETIRED,		/* EVs taken out of use after losses */
	MRC_MIB_EV_RESTORED,		/* EVs back in use after a probe */
	MRC_MIB_PLANE_LEFT,		/* a connection stopped using a plane */
	MRC_MIB_PLANE_JOINED,		/* ... and took it back */
	MRC_MIB_VALIDATION_REFUSED,	/* a plane's validation answered wrong */
	MRC_MIB_OUT_NO_ROUTE,		/* no route to the peer's plane */
	MRC_MIB_OUT_NO_MEM,		/* no memory for a packet to send */
	MRC_MIB_MEMORY_PRESSURES,	/* MRC's memory went over mem[1] */
	__MRC_MIB_MAX
};

struct mrc_mib {
	unsigned long	mibs[__MRC_MIB_MAX];
};

/* Counters of one plane, from its addition on. */
enum mrc_plane_mib_field {
	MRC_PLANE_MIB_OUT_PKTS,		/* packets of every type sent */
	MRC_PLANE_MIB_OUT_BYTES,	/* their UDP payload bytes */
	MRC_PLANE_MIB_IN_PKTS,		/* packets received */
	MRC_PLANE_MIB_IN_BYTES,		/* their UDP payload bytes */
	MRC_PLANE_MIB_IN_DROPS,		/* received and dropped on arrival */
	__MRC_PLANE_MIB_MAX
};

struct mrc_plane_mib {
	unsigned long	mibs[__MRC_PLANE_MIB_MAX];
};

struct mrc_net;
struct mrc_plane;
struct sk_buff;

#define MRC_INC_STATS(mn, field)	SNMP_INC_STATS((mn)->mib, field)
#define MRC_ADD_STATS(mn, field, val)	SNMP_ADD_STATS((mn)->mib, field, val)
#define MRC_PLANE_INC_STATS(plane, field) \
	SNMP_INC_STATS((plane)->mib, field)
#define MRC_PLANE_ADD_STATS(plane, field, val) \
	SNMP_ADD_STATS((plane)->mib, field, val)

int mrc_mib_net_init(struct mrc_net *mn);
void mrc_mib_net_exit(struct mrc_net *mn);
u64 mrc_mib_read(const struct mrc_net *mn, enum mrc_mib_field field);
u64 mrc_mib_rx_dropped(const struct mrc_net *mn);
int mrc_mib_fill(struct sk_buff *skb, const struct mrc_net *mn);
int mrc_plane_mib_fill(struct sk_buff *skb, const struct mrc_plane *plane);

#endif /* _NET_MRC_MIB_H */
