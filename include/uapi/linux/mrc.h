/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * MRC: Multipath Reliable Connection transport, user API.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */
#ifndef _UAPI_LINUX_MRC_H
#define _UAPI_LINUX_MRC_H

#include <linux/types.h>
#include <linux/socket.h>

/*
 * Address family.
 *
 * An out-of-tree module cannot raise AF_MAX, so MRC takes a number below it
 * that no in-tree protocol implements: 25 was reserved for AF_WANPIPE, whose
 * socket layer was never merged.  The module fails to load, with a message
 * in the kernel log, if another module has taken the number already.
 */
#ifndef AF_MRC
#define AF_MRC		25
#endif
#ifndef PF_MRC
#define PF_MRC		AF_MRC
#endif

/* The only protocol of AF_MRC; 0 selects it too. */
#define MRCPROTO_MRC	0

/* Default UDP port of the encapsulation, per network namespace. */
#define MRC_DEFAULT_UDP_PORT	4793

/**
 * struct sockaddr_mrc - address of an MRC socket
 * @smrc_family: AF_MRC
 * @smrc_port: MRC port, network byte order; 0 asks for an ephemeral port
 * @smrc_addr_family: AF_INET or AF_INET6 for @smrc_addr4 or @smrc_addr6,
 *	0 for the wildcard address
 * @__smrc_pad: must be zero
 * @smrc_scope_id: interface index for link-local IPv6 addresses
 * @smrc_addr4: IPv4 address of a plane, network byte order
 * @smrc_addr6: IPv6 address of a plane, network byte order
 *
 * A peer is named by its address on any one of its planes; the connection
 * then learns the peer's other planes during the handshake.
 */
struct sockaddr_mrc {
	__kernel_sa_family_t	smrc_family;
	__be16			smrc_port;
	__u16			smrc_addr_family;
	__u16			__smrc_pad;
	__u32			smrc_scope_id;
	union {
		__be32		smrc_addr4;
		__u8		smrc_addr6[16];
	};
};

/*
 * Socket options of level SOL_MRC.  A level is read only by the protocol
 * of the socket, so the number cannot clash with another family's.
 */
#define SOL_MRC			300

/* getsockopt() only. */
#define MRC_INFO		1	/* struct mrc_info */
#define MRC_PLANE_INFO		2	/* struct mrc_info_array of mrc_plane_info */
#define MRC_EV_INFO		3	/* struct mrc_info_array of mrc_ev_info */

/*
 * Settable and readable, each an int.  The keepalive options act with
 * SO_KEEPALIVE, as TCP's do; 0 sets the namespace's default back.
 */
#define MRC_USER_TIMEOUT	4	/* ms without progress before giving up */
#define MRC_KEEPIDLE		5	/* s idle before the first probe */
#define MRC_KEEPINTVL		6	/* s between probes */
#define MRC_KEEPCNT		7	/* probes unanswered before giving up */
#define MRC_TCLASS		8	/* DSCP of the packets, in bits 7-2 */

/**
 * struct mrc_info - the state of a connection (getsockopt MRC_INFO)
 * @mrci_state: an &enum mrc_conn_state of <linux/mrc_netlink.h>, as
 *	"mrcctl conn show" prints it
 * @mrci_nr_planes: planes the connection uses
 * @mrci_nr_evs: EVs of those planes, all states
 * @mrci_nr_evs_retired: EVs retired for loss
 * @mrci_conn_id: the connection's id here, as "mrcctl conn show" lists
 *	it; 0 before the handshake
 * @mrci_peer_conn_id: the peer's id of the connection
 * @mrci_plane_mask: bit N set for plane id N in use
 * @mrci_mss: largest payload of a packet, bytes
 * @mrci_snd_wnd: packets the peer lets us have in flight
 * @mrci_rcv_wnd: packets we let the peer have in flight
 * @mrci_inflight: packets sent and not yet acknowledged
 * @mrci_srtt_us: smoothed round trip, the smallest of the planes'
 * @mrci_rto_us: retransmission timeout of that plane
 * @mrci_tx_packets: packets sent, all types
 * @mrci_rx_packets: packets received
 * @mrci_tx_bytes: bytes of payload sent, resends included
 * @mrci_retransmits: DATA packets sent again
 * @mrci_timeouts: retransmission timeouts
 * @mrci_rx_dropped: packets received and dropped
 * @mrci_rx_duplicates: DATA received twice
 * @mrci_rx_ce: packets received with congestion experienced
 * @mrci_rx_trimmed: packets whose payload a switch cut
 *
 * As with TCP_INFO, the kernel copies as much as the caller's length holds
 * and sets it to what it copied: fields are only ever added at the end.
 */
struct mrc_info {
	__u8	mrci_state;
	__u8	mrci_nr_planes;
	__u16	mrci_nr_evs;
	__u16	mrci_nr_evs_retired;
	__u16	__mrci_pad;
	__u32	mrci_conn_id;
	__u32	mrci_peer_conn_id;
	__u32	mrci_plane_mask;
	__u32	mrci_mss;
	__u32	mrci_snd_wnd;
	__u32	mrci_rcv_wnd;
	__u32	mrci_inflight;
	__u32	mrci_srtt_us;
	__u32	mrci_rto_us;
	__u64	mrci_tx_packets;
	__u64	mrci_rx_packets;
	__u64	mrci_tx_bytes;
	__u64	mrci_retransmits;
	__u64	mrci_timeouts;
	__u64	mrci_rx_dropped;
	__u64	mrci_rx_duplicates;
	__u64	mrci_rx_ce;
	__u64	mrci_rx_trimmed;
};

/**
 * struct mrc_info_array - head of the reply of MRC_PLANE_INFO and MRC_EV_INFO
 * @mria_size_head: in: sizeof(struct mrc_info_array)
 * @mria_size_user: in: the size of an entry the caller knows
 * @mria_size_kernel: out: the size of an entry the kernel knows
 * @mria_count: out: entries the connection has; as many as fit in the
 *	caller's length follow the head, each @mria_size_user bytes apart
 *	(zeroes where the kernel knows less)
 */
struct mrc_info_array {
	__u32	mria_size_head;
	__u32	mria_size_user;
	__u32	mria_size_kernel;
	__u32	mria_count;
};

/**
 * struct mrc_plane_info - a plane of a connection (MRC_PLANE_INFO)
 * @mrcpi_id: the plane's id, the same on both hosts
 * @mrcpi_up: whether the connection sends on it
 * @mrcpi_peer_family: AF_INET or AF_INET6 of @mrcpi_peer_addr4/6
 * @mrcpi_evs: EVs of the plane
 * @mrcpi_evs_active: those not retired
 * @mrcpi_peer_addr4: the peer's address on the plane
 * @mrcpi_peer_addr6: the peer's address on the plane
 * @mrcpi_cwnd: congestion window, packets
 * @mrcpi_srtt_us: smoothed round trip
 * @mrcpi_rttvar_us: its variation
 * @mrcpi_inflight: packets in flight on the plane
 * @mrcpi_tx_packets: packets sent on the plane
 * @mrcpi_tx_bytes: bytes of payload sent on the plane
 * @mrcpi_rx_packets: packets received on the plane
 * @mrcpi_retransmits: DATA packets resent on the plane
 * @mrcpi_retirements: EVs retired
 * @mrcpi_restores: EVs put back to use
 * @mrcpi_probes: probes of retired EVs
 * @mrcpi_ce_marks: acknowledgments that told of congestion
 * @mrcpi_nacks: packets the peer asked again (trimmed or dropped for
 *	memory)
 */
struct mrc_plane_info {
	__u8	mrcpi_id;
	__u8	mrcpi_up;
	__u16	mrcpi_peer_family;
	__u16	mrcpi_evs;
	__u16	mrcpi_evs_active;
	union {
		__be32	mrcpi_peer_addr4;
		__u8	mrcpi_peer_addr6[16];
	};
	__u32	mrcpi_cwnd;
	__u32	mrcpi_srtt_us;
	__u32	mrcpi_rttvar_us;
	__u32	mrcpi_inflight;
	__u64	mrcpi_tx_packets;
	__u64	mrcpi_tx_bytes;
	__u64	mrcpi_rx_packets;
	__u64	mrcpi_retransmits;
	__u64	mrcpi_retirements;
	__u64	mrcpi_restores;
	__u64	mrcpi_probes;
	__u64	mrcpi_ce_marks;
	__u64	mrcpi_nacks;
};

/* &struct mrc_ev_info.mrcei_state */
enum {
	MRC_EV_STATE_ACTIVE,
	MRC_EV_STATE_RETIRED,
};

/**
 * struct mrc_ev_info - an entropy value of a connection (MRC_EV_INFO)
 * @mrcei_plane: the plane's id
 * @mrcei_state: MRC_EV_STATE_ACTIVE or MRC_EV_STATE_RETIRED (for loss)
 * @mrcei_port: the UDP source port of its packets; on IPv6 planes their
 *	flow label has the same value, for fabrics that hash on it
 * @mrcei_losses: packets lost on it
 * @mrcei_tx_packets: packets sent on it
 * @mrcei_srtt_us: smoothed round trip of its packets, in microseconds; 0
 *	before the first was measured
 * @mrcei_rttvar_us: the variation of its round trips, in microseconds
 *
 * Entries come plane by plane, in the order the connection uses the EVs;
 * none before it first sent, when it draws them, nor once it gave them
 * back, idle with every EV in use; the counters start with the draw.
 */
struct mrc_ev_info {
	__u8	mrcei_plane;
	__u8	mrcei_state;
	__u16	mrcei_port;
	__u32	mrcei_losses;
	__u64	mrcei_tx_packets;
	__u32	mrcei_srtt_us;
	__u32	mrcei_rttvar_us;
};

#endif /* _UAPI_LINUX_MRC_H */
