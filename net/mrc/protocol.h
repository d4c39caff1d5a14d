/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MRC: the wire format, inside a UDP datagram.  Documented with diagrams
 * in Documentation/networking/mrc.rst; every field is big-endian.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */
#ifndef _NET_MRC_PROTOCOL_H
#define _NET_MRC_PROTOCOL_H

#include <linux/types.h>

#define MRC_VERSION		1

enum mrc_pkt_type {
	MRC_PKT_SYN		= 1,
	MRC_PKT_SYN_ACK		= 2,
	MRC_PKT_DATA		= 3,
	MRC_PKT_ACK		= 4,
	MRC_PKT_PROBE		= 5,
	MRC_PKT_RST		= 6,
	MRC_PKT_NACK		= 7,
};

/* Flags of DATA packets. */
#define MRC_F_LAST		0x01	/* last packet of a message */
#define MRC_F_FIN		0x02	/* the sender sends no more data */
#define MRC_F_RETX		0x04	/* a resend */
#define MRC_F_TRIMMED		0x08	/* a switch cut the payload off */
#define MRC_F_ACK		0x10	/* an mrc_ack, no SACK, before the payload */

/* Flags of ACK and NACK packets. */
#define MRC_F_ECE		0x01	/* the echoed packet was marked CE */
#define MRC_F_PROBE_ECHO	0x02	/* the echoed packet was a PROBE */
#define MRC_F_ECHO_TOLD		0x04	/* an earlier ACK echoed it already */
#define MRC_F_ECHO_DUP		0x08	/* the echoed packet had arrived already */
#define MRC_F_NO_ROOM		0x10	/* NACK: no receive memory for it */
#define MRC_F_ROOM		0x20	/* reading made room since such a NACK */

/**
 * struct mrc_hdr - header of every MRC packet
 * @ver_type: version in the high four bits, &enum mrc_pkt_type in the low
 * @flags: MRC_F_* of the type, zero for types without flags
 * @ev: entropy value the packet was sent on (also its UDP source port)
 * @dst_cid: connection id chosen by the receiver; zero in a SYN
 * @src_cid: connection id chosen by the sender
 * @psn: packet sequence number: one per transmission, resends included
 * @dsn: data sequence number: one per DATA packet, kept across resends;
 *	the initial DSN in SYN and SYN_ACK
 * @msg_id: message the payload belongs to (SOCK_SEQPACKET)
 * @offset: place of the payload in its message, or in the byte stream
 */
struct mrc_hdr {
	__u8	ver_type;
	__u8	flags;
	__be16	ev;
	__be32	dst_cid;
	__be32	src_cid;
	__be32	psn;
	__be32	dsn;
	__be32	msg_id;
	__be32	offset;
};

/**
 * struct mrc_syn_plane - one plane announced in a handshake
 * @id: plane id
 * @family: 4 or 6
 * @reserved: zero
 * @addr: the IPv4 address in the first four bytes, or the IPv6 address
 */
struct mrc_syn_plane {
	__u8	id;
	__u8	family;
	__be16	reserved;
	__u8	addr[16];
};

/**
 * struct mrc_syn - body of SYN and SYN_ACK
 * @src_port: MRC port of the sender
 * @dst_port: MRC port of the receiver
 * @window: DATA packets the sender can take beyond its initial DSN
 * @max_payload: largest payload the sender's planes carry
 * @nr_planes: entries in @planes
 * @reserved: zero
 * @planes: the sender's planes
 */
struct mrc_syn {
	__be16			src_port;
	__be16			dst_port;
	__be32			window;
	__be16			max_payload;
	__u8			nr_planes;
	__u8			reserved;
	struct mrc_syn_plane	planes[];
};

/*
 * A SYN is padded to the size of the largest SYN_ACK, so that answering a
 * SYN from an address nobody proved never sends more bytes than came in.
 */
#define MRC_SYN_MAX_PLANES	16
#define MRC_SYN_BODY_LEN	(sizeof(struct mrc_syn) + \
				 MRC_SYN_MAX_PLANES * sizeof(struct mrc_syn_plane))

/* A run of DATA packets [start, end) that arrived. */
struct mrc_sack_block {
	__be32	start;
	__be32	end;
};

#define MRC_MAX_SACK_BLOCKS	16

/**
 * struct mrc_ack - body of ACK and NACK
 * @cum_dsn: every DSN before this one arrived
 * @wnd_end: the sender may send DSNs before this one
 * @echo_psn: PSN of the packet that triggered the acknowledgment
 * @echo_dsn: its DSN
 * @delay_us: how long the receiver held the acknowledgment
 * @echo_ev: its EV
 * @nr_sack: entries in @sack
 * @reserved: zero
 * @sack: what arrived beyond @cum_dsn: the run of the echoed packet
 *	first, when it lies beyond a hole, then the others lowest first
 */
struct mrc_ack {
	__be32			cum_dsn;
	__be32			wnd_end;
	__be32			echo_psn;
	__be32			echo_dsn;
	__be32			delay_us;
	__be16			echo_ev;
	__u8			nr_sack;
	__u8			reserved;
	struct mrc_sack_block	sack[];
};

static inline u8 mrc_hdr_type(const struct mrc_hdr *hdr)
{
	return hdr->ver_type & 0x0f;
}

static inline u8 mrc_hdr_version(const struct mrc_hdr *hdr)
{
	return hdr->ver_type >> 4;
}

#endif /* _NET_MRC_PROTOCOL_H */
