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

#endif /* _UAPI_LINUX_MRC_H */
