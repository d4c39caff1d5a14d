/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * MRC: Multipath Reliable Connection transport, sock_diag interface.
 *
 * AF_MRC sockets are listed, looked up and aborted over NETLINK_SOCK_DIAG,
 * as the kernel's other families are: a SOCK_DIAG_BY_FAMILY request with
 * NLM_F_DUMP lists the sockets of the requester's network namespace, one
 * without it answers for one socket, and SOCK_DESTROY aborts one
 * (CAP_NET_ADMIN in the namespace's user namespace).  The request is a
 * struct mrc_diag_req, each socket in reply a struct mrc_diag_msg followed
 * by the MRC_DIAG_* attributes that the request's show mask asks for.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */
#ifndef _UAPI_LINUX_MRC_DIAG_H
#define _UAPI_LINUX_MRC_DIAG_H

#include <linux/types.h>

/* An absent cookie, both halves of mdiag_cookie; as INET_DIAG_NOCOOKIE. */
#define MRC_DIAG_NOCOOKIE	(~0U)

/**
 * struct mrc_diag_req - what a SOCK_DIAG_BY_FAMILY or SOCK_DESTROY asks for
 * @sdiag_family: AF_MRC
 * @sdiag_protocol: MRCPROTO_MRC (0)
 * @pad: must be zero
 * @mdiag_states: a dump lists the sockets whose state (enum
 *	mrc_diag_state) has its bit, 1 << state, set here: ~0U for all
 * @mdiag_ino: the socket's inode number, for a request that names one
 *	socket; 0 to name it by @mdiag_cookie alone
 * @mdiag_show: the attributes wanted in reply, MRC_DIAG_SHOW_*
 * @mdiag_cookie: the socket's cookie, as a reply told it; checked when
 *	not MRC_DIAG_NOCOOKIE, and enough alone to name a socket
 *
 * A request without NLM_F_DUMP, and SOCK_DESTROY, name one socket by
 * @mdiag_ino or @mdiag_cookie (EINVAL without either, ENOENT when no
 * socket of the namespace has them, ESTALE when the cookie does not match
 * the socket of that inode); they ignore @mdiag_states.
 */
struct mrc_diag_req {
	__u8	sdiag_family;
	__u8	sdiag_protocol;
	__u16	pad;
	__u32	mdiag_states;
	__u32	mdiag_ino;
	__u32	mdiag_show;
	__u32	mdiag_cookie[2];
};

/*
 * Socket states: those of TCP that MRC uses, with the kernel's numbers
 * for them (TCP_ESTABLISHED and so on), as ss(8) knows them.
 */
enum mrc_diag_state {
	MRC_DIAG_STATE_ESTABLISHED = 1,	/* connected; also while closing */
	MRC_DIAG_STATE_SYN_SENT = 2,	/* connect() waits for the peer */
	MRC_DIAG_STATE_SYN_RECV = 3,	/* a connection not yet proven */
	MRC_DIAG_STATE_CLOSE = 7,	/* none yet, or no more */
	MRC_DIAG_STATE_LISTEN = 10,
};

/* What a reply carries besides struct mrc_diag_msg: bits of mdiag_show. */
#define MRC_DIAG_SHOW_UID	0x00000001	/* MRC_DIAG_UID */
#define MRC_DIAG_SHOW_CONN	0x00000002	/* ports, addresses, ids,
						 * planes, shutdown
						 */
#define MRC_DIAG_SHOW_RQLEN	0x00000004	/* MRC_DIAG_RQLEN */
#define MRC_DIAG_SHOW_MEMINFO	0x00000008	/* MRC_DIAG_MEMINFO */

/**
 * struct mrc_diag_msg - one socket, in reply
 * @mdiag_family: AF_MRC
 * @mdiag_type: SOCK_STREAM or SOCK_SEQPACKET
 * @mdiag_state: an enum mrc_diag_state
 * @pad: zero
 * @mdiag_ino: the socket's inode number, as /proc/PID/fd/N names it
 *	("socket:[INO]"); 0 for a connection that a listener has not yet
 *	given to accept()
 * @mdiag_cookie: the socket's cookie: names it for as long as it lives,
 *	and never another socket after it
 *
 * Netlink attributes follow.
 */
struct mrc_diag_msg {
	__u8	mdiag_family;
	__u8	mdiag_type;
	__u8	mdiag_state;
	__u8	pad;
	__u32	mdiag_ino;
	__u32	mdiag_cookie[2];
};

/*
 * The attributes of a reply.  Ports are in host byte order, addresses in
 * network byte order.  The peer and the connection ids are those of a
 * socket that connects or is connected, or was: absent from listeners and
 * sockets that never connected.
 */
enum {
	MRC_DIAG_UNSPEC,
	MRC_DIAG_UID,		/* u32: the owner, in the requester's user
				 * namespace (SHOW_UID)
				 */
	MRC_DIAG_PORT,		/* u16: the local MRC port; absent while
				 * the socket is not bound (SHOW_CONN)
				 */
	MRC_DIAG_ADDR4,		/* __be32, or */
	MRC_DIAG_ADDR6,		/* struct in6_addr: the plane address the
				 * socket is bound to; absent for the
				 * wildcard (SHOW_CONN)
				 */
	MRC_DIAG_PEER_PORT,	/* u16: the peer's MRC port (SHOW_CONN) */
	MRC_DIAG_PEER_ADDR4,	/* __be32, or */
	MRC_DIAG_PEER_ADDR6,	/* struct in6_addr: the peer's address on the
				 * plane of the handshake: the one dialled,
				 * or the one the SYN came from (SHOW_CONN)
				 */
	MRC_DIAG_CONN_ID,	/* u32: our id of the connection, and */
	MRC_DIAG_PEER_CONN_ID,	/* u32: the peer's, once known; only to the
				 * socket's owner and CAP_NET_ADMIN, as the
				 * "mrc" family's conn-get does (SHOW_CONN)
				 */
	MRC_DIAG_PLANES,	/* u32: a bit for each plane id that both
				 * hosts have and the connection may use
				 * (SHOW_CONN)
				 */
	MRC_DIAG_SHUTDOWN,	/* u8: RCV_SHUTDOWN (1) and SEND_SHUTDOWN
				 * (2): what shutdown(), the peer's FIN or
				 * the connection's end shut (SHOW_CONN)
				 */
	MRC_DIAG_RQLEN,		/* struct mrc_diag_rqlen (SHOW_RQLEN) */
	MRC_DIAG_MEMINFO,	/* __u32[SK_MEMINFO_VARS] of
				 * <linux/sock_diag.h> (SHOW_MEMINFO)
				 */

	__MRC_DIAG_MAX,
};

#define MRC_DIAG_MAX	(__MRC_DIAG_MAX - 1)

/**
 * struct mrc_diag_rqlen - the socket's queues
 * @mdiag_rqueue: bytes received and not yet read; on a listener, the
 *	connections waiting for accept()
 * @mdiag_wqueue: bytes sent and not yet acknowledged by the peer, queued
 *	or in flight; on a listener, its backlog
 */
struct mrc_diag_rqlen {
	__u32	mdiag_rqueue;
	__u32	mdiag_wqueue;
};

#endif /* _UAPI_LINUX_MRC_DIAG_H */
