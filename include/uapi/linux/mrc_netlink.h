/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/mrc.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_MRC_NETLINK_H
#define _UAPI_LINUX_MRC_NETLINK_H

#define MRC_FAMILY_NAME		"mrc"
#define MRC_FAMILY_VERSION	1

#define MRC_PLANE_ID_MAX	15
#define MRC_EVS_MAX		256
#define MRC_BASE_RTT_MAX	10000000
#define MRC_DEFAULT_EVS		32

/**
 * enum mrc_plane_state - Whether connections can use a plane, and if not, why.
 * @MRC_PLANE_STATE_UP: In use.
 * @MRC_PLANE_STATE_ADMIN_DOWN: Set down by the administrator.
 * @MRC_PLANE_STATE_LINK_DOWN: The device has no carrier or is down.
 * @MRC_PLANE_STATE_NO_ADDRESS: The device has lost the plane's address.
 * @MRC_PLANE_STATE_NO_DEVICE: The plane's device is gone (unregistered, or
 *   moved to another namespace). The plane keeps its id and settings and comes
 *   back when a device of its name appears in the namespace.
 */
enum mrc_plane_state {
	MRC_PLANE_STATE_UP,
	MRC_PLANE_STATE_ADMIN_DOWN,
	MRC_PLANE_STATE_LINK_DOWN,
	MRC_PLANE_STATE_NO_ADDRESS,
	MRC_PLANE_STATE_NO_DEVICE,
};

/**
 * enum mrc_conn_state - Where a connection is in its life.
 * @MRC_CONN_STATE_SYN_SENT: Connecting; the handshake is not done.
 * @MRC_CONN_STATE_ESTABLISHED: Open both ways.
 * @MRC_CONN_STATE_CLOSING: Established, but the user closed the socket or shut
 *   it down both ways; the connection delivers what is queued, then ends.
 * @MRC_CONN_STATE_CLOSED: Over; about to be removed.
 * @MRC_CONN_STATE_SYN_RECV: Made by a listener for a SYN and half-open: the
 *   client has not yet shown that it received the SYN_ACK.
 */
enum mrc_conn_state {
	MRC_CONN_STATE_SYN_SENT,
	MRC_CONN_STATE_ESTABLISHED,
	MRC_CONN_STATE_CLOSING,
	MRC_CONN_STATE_CLOSED,
	MRC_CONN_STATE_SYN_RECV,
};

/**
 * enum mrc_conn_type - The socket type of a connection.
 * @MRC_CONN_TYPE_STREAM: SOCK_STREAM, a byte stream.
 * @MRC_CONN_TYPE_SEQPACKET: SOCK_SEQPACKET, messages that keep their
 *   boundaries.
 */
enum mrc_conn_type {
	MRC_CONN_TYPE_STREAM,
	MRC_CONN_TYPE_SEQPACKET,
};

/**
 * enum mrc_conn_end - Why a connection ended.
 * @MRC_CONN_END_CLOSED: Both ends closed it in order, each FIN acknowledged.
 * @MRC_CONN_END_RESET: The peer reset it (RST): its socket was closed with
 *   data unread, or the peer aborted it.
 * @MRC_CONN_END_REFUSED: The peer answered connect() with RST; nothing listens
 *   on the port.
 * @MRC_CONN_END_TIMEOUT: connect() got no answer within
 *   net.mrc.connect_timeout_ms.
 * @MRC_CONN_END_DEAD_PEER: The peer stopped answering, for
 *   net.mrc.dead_peer_timeout_ms, while data was outstanding; or, once the
 *   socket was closed, took none of the data left for 10 seconds.
 * @MRC_CONN_END_ABORTED: Reset from this end: its socket was closed with data
 *   unread or with a linger time of 0, data came after it was closed, its
 *   listener was closed before accept(), the namespace had too many
 *   connections that outlive their sockets, or the peer did not send its FIN
 *   within 10 seconds of ours being acknowledged after the socket was closed.
 * @MRC_CONN_END_ERROR: The handshake failed: the peer's planes make no
 *   connection with ours (EPROTO), or memory ran short (ENOMEM).
 */
enum mrc_conn_end {
	MRC_CONN_END_CLOSED,
	MRC_CONN_END_RESET,
	MRC_CONN_END_REFUSED,
	MRC_CONN_END_TIMEOUT,
	MRC_CONN_END_DEAD_PEER,
	MRC_CONN_END_ABORTED,
	MRC_CONN_END_ERROR,
};

enum {
	MRC_PLANE_ATTR_UNSPEC,
	MRC_PLANE_ATTR_ID,
	MRC_PLANE_ATTR_IFINDEX,
	MRC_PLANE_ATTR_IFNAME,
	MRC_PLANE_ATTR_ADDR4,
	MRC_PLANE_ATTR_ADDR6,
	MRC_PLANE_ATTR_ADMIN_UP,
	MRC_PLANE_ATTR_STATE,
	MRC_PLANE_ATTR_EVS,
	MRC_PLANE_ATTR_MTU,
	MRC_PLANE_ATTR_PAD,
	MRC_PLANE_ATTR_COUNTER,
	MRC_PLANE_ATTR_BASE_RTT,

	__MRC_PLANE_ATTR_AFTER_LAST
};
#define MRC_PLANE_ATTR_MAX (__MRC_PLANE_ATTR_AFTER_LAST - 1)

enum {
	MRC_CONFIG_ATTR_UNSPEC,
	MRC_CONFIG_ATTR_UDP_PORT,
	MRC_CONFIG_ATTR_DEFAULT_EVS,
	MRC_CONFIG_ATTR_PLANES,
	MRC_CONFIG_ATTR_PAD,
	MRC_CONFIG_ATTR_RX_DROPPED,
	MRC_CONFIG_ATTR_SYN_DROPPED,

	__MRC_CONFIG_ATTR_AFTER_LAST
};
#define MRC_CONFIG_ATTR_MAX (__MRC_CONFIG_ATTR_AFTER_LAST - 1)

enum {
	MRC_CONN_ATTR_UNSPEC,
	MRC_CONN_ATTR_ID,
	MRC_CONN_ATTR_PEER_ID,
	MRC_CONN_ATTR_STATE,
	MRC_CONN_ATTR_TYPE,
	MRC_CONN_ATTR_PORT,
	MRC_CONN_ATTR_PEER_PORT,
	MRC_CONN_ATTR_PEER_ADDR4,
	MRC_CONN_ATTR_PEER_ADDR6,
	MRC_CONN_ATTR_MSS,
	MRC_CONN_ATTR_SND_WND,
	MRC_CONN_ATTR_RCV_WND,
	MRC_CONN_ATTR_INFLIGHT,
	MRC_CONN_ATTR_PAD,
	MRC_CONN_ATTR_TX_PACKETS,
	MRC_CONN_ATTR_RX_PACKETS,
	MRC_CONN_ATTR_RETRANSMITS,
	MRC_CONN_ATTR_TIMEOUTS,
	MRC_CONN_ATTR_RX_DROPPED,
	MRC_CONN_ATTR_RX_DUPLICATES,
	MRC_CONN_ATTR_ACKS_SENT,
	MRC_CONN_ATTR_PLANE,
	MRC_CONN_ATTR_END_REASON,
	MRC_CONN_ATTR_ERROR,

	__MRC_CONN_ATTR_AFTER_LAST
};
#define MRC_CONN_ATTR_MAX (__MRC_CONN_ATTR_AFTER_LAST - 1)

enum {
	MRC_CONN_PLANE_ATTR_UNSPEC,
	MRC_CONN_PLANE_ATTR_ID,
	MRC_CONN_PLANE_ATTR_PEER_ADDR4,
	MRC_CONN_PLANE_ATTR_PEER_ADDR6,
	MRC_CONN_PLANE_ATTR_EVS,
	MRC_CONN_PLANE_ATTR_CWND,
	MRC_CONN_PLANE_ATTR_SRTT,
	MRC_CONN_PLANE_ATTR_INFLIGHT,
	MRC_CONN_PLANE_ATTR_PAD,
	MRC_CONN_PLANE_ATTR_TX_PACKETS,
	MRC_CONN_PLANE_ATTR_TX_BYTES,
	MRC_CONN_PLANE_ATTR_RX_PACKETS,
	MRC_CONN_PLANE_ATTR_RETRANSMITS,
	MRC_CONN_PLANE_ATTR_EVS_ACTIVE,
	MRC_CONN_PLANE_ATTR_UP,
	MRC_CONN_PLANE_ATTR_RETIREMENTS,
	MRC_CONN_PLANE_ATTR_PROBES,
	MRC_CONN_PLANE_ATTR_RESTORES,
	MRC_CONN_PLANE_ATTR_CE_MARKS,
	MRC_CONN_PLANE_ATTR_NACKS,
	MRC_CONN_PLANE_ATTR_RETIRED_EV,
	MRC_CONN_PLANE_ATTR_ADDR4,
	MRC_CONN_PLANE_ATTR_ADDR6,
	MRC_CONN_PLANE_ATTR_UDP_PORT,
	MRC_CONN_PLANE_ATTR_EV,
	MRC_CONN_PLANE_ATTR_FLOW_LABEL,
	MRC_CONN_PLANE_ATTR_LOSSES,
	MRC_CONN_PLANE_ATTR_STATE,
	MRC_CONN_PLANE_ATTR_BASE_RTT,
	MRC_CONN_PLANE_ATTR_EVS_SILENCED,
	MRC_CONN_PLANE_ATTR_PROBE_GAP,
	MRC_CONN_PLANE_ATTR_REORDER_WINDOW,

	__MRC_CONN_PLANE_ATTR_AFTER_LAST
};
#define MRC_CONN_PLANE_ATTR_MAX (__MRC_CONN_PLANE_ATTR_AFTER_LAST - 1)

enum {
	MRC_COUNTER_ATTR_UNSPEC,
	MRC_COUNTER_ATTR_NAME,
	MRC_COUNTER_ATTR_VALUE,
	MRC_COUNTER_ATTR_PAD,

	__MRC_COUNTER_ATTR_AFTER_LAST
};
#define MRC_COUNTER_ATTR_MAX (__MRC_COUNTER_ATTR_AFTER_LAST - 1)

enum {
	MRC_STATS_ATTR_UNSPEC,
	MRC_STATS_ATTR_COUNTER,

	__MRC_STATS_ATTR_AFTER_LAST
};
#define MRC_STATS_ATTR_MAX (__MRC_STATS_ATTR_AFTER_LAST - 1)

enum {
	MRC_CMD_UNSPEC,
	MRC_CMD_PLANE_GET,
	MRC_CMD_PLANE_ADD,
	MRC_CMD_PLANE_DEL,
	MRC_CMD_PLANE_SET,
	MRC_CMD_CONFIG_GET,
	MRC_CMD_CONFIG_SET,
	MRC_CMD_PLANE_ADD_NTF,
	MRC_CMD_PLANE_DEL_NTF,
	MRC_CMD_PLANE_CHANGE_NTF,
	MRC_CMD_CONFIG_CHANGE_NTF,
	MRC_CMD_CONN_GET,
	MRC_CMD_STATS_GET,
	MRC_CMD_CONN_UP_NTF,
	MRC_CMD_CONN_DOWN_NTF,
	MRC_CMD_CONN_PLANE_LEAVE_NTF,
	MRC_CMD_CONN_PLANE_JOIN_NTF,
	MRC_CMD_EV_RETIRE_NTF,
	MRC_CMD_EV_RESTORE_NTF,

	__MRC_CMD_AFTER_LAST
};
#define MRC_CMD_MAX (__MRC_CMD_AFTER_LAST - 1)

#define MRC_MCGRP_MONITOR	"monitor"
#define MRC_MCGRP_CONN		"conn"
#define MRC_MCGRP_PATH		"path"

#endif /* _UAPI_LINUX_MRC_NETLINK_H */
