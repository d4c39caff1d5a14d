/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MRC: Multipath Reliable Connection transport, internal interfaces.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */
#ifndef _NET_MRC_MRC_H
#define _NET_MRC_MRC_H

#include <linux/hashtable.h>
#include <linux/hrtimer.h>
#include <linux/in6.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/ratelimit.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>
#include <uapi/linux/mrc_netlink.h>

#include "mib.h"

#include "protocol.h"

#define MRC_RST_SOURCES		64	/* buckets of sources for RST limits */

/**
 * struct mrc_conn_params - what a connection takes from net.mrc.* when it
 *	is made, and keeps
 * @connect_timeout_ms: connect() gives up after this
 * @syn_recv_timeout_ms: a half-open connection is forgotten after this
 * @dead_peer_timeout_ms: a connection whose peer answers nothing for this
 *	long is reset; half of it bounds the retransmission timeout
 * @rto_min_us: the retransmission timeout's floor
 * @rto_max_ms: the bound of the timeout's backoff
 * @ack_delay_us: how long an acknowledgment may wait for more data
 * @init_cwnd: each plane's first congestion window, in packets
 * @target_delay_us: the queueing delay a plane's window aims at; 0 for
 *	reactions to losses and CE marks only
 */
struct mrc_conn_params {
	u32	connect_timeout_ms;
	u32	syn_recv_timeout_ms;
	u32	dead_peer_timeout_ms;
	u32	rto_min_us;
	u32	rto_max_ms;
	u32	ack_delay_us;
	u32	init_cwnd;
	u32	target_delay_us;
};

/**
 * struct mrc_sysctl - a namespace's net.mrc.* tunables
 * @conn: taken by each connection when it is made
 * @rst_rate: RSTs a second for packets of no connection, in all
 * @rst_rate_source: ... and to one bucket of sources
 * @max_orphans: connections that may outlive their closed sockets
 * @half_open_max: half-open connections of one listener
 *
 * Written by sysctl (process context), read locklessly.
 */
struct mrc_sysctl {
	struct mrc_conn_params	conn;
	u32			rst_rate;
	u32			rst_rate_source;
	u32			max_orphans;
	u32			half_open_max;
};

/**
 * struct mrc_net - MRC state of one network namespace
 * @net: the namespace
 * @sockets: every MRC socket of the namespace, for /proc/net/mrc and
 *	sock_diag, by &mrc_sock.net_seq: a walk that stopped goes on from
 *	where it was, whoever came or went meanwhile, without walking again
 *	what it saw
 * @sockets_seq: the next socket's &mrc_sock.net_seq
 * @sockets_lock: protects @sockets and @sockets_seq
 * @planes: the namespace's planes, by id
 * @nr_planes: number of entries in @planes
 * @pending_planes: planes whose device went away, waiting for it
 * @udp_port: UDP port of the encapsulation, host order
 * @default_evs: entropy values per plane unless a plane sets its own
 * @refresh_work: recomputes plane states after address changes
 * @paths_work: makes the connections follow plane changes
 * @ports: bound sockets, by port
 * @ports_lock: protects @ports
 * @plane_by_id: the planes again, by id, for the data path (RCU)
 * @conns: connections, by our connection id (RCU readers)
 * @conns_by_peer: connections, by the peer's connection id (RCU readers)
 * @conns_lock: protects @conns and @conns_by_peer
 * @mib: the namespace's counters, per CPU (mib.h)
 * @sysctl: the namespace's tunables
 * @sysctl_header: their table, registered under net/mrc
 * @orphans: connections that outlive their closed socket
 * @rst_limit: bounds the RSTs sent for packets that name no connection
 * @rst_src_limit: the same for each source, by a keyed hash of its address,
 *	so that one host's junk does not use up everybody's RSTs
 *
 * @planes, @nr_planes, @pending_planes, @udp_port and @default_evs change
 * under RTNL; @planes is also an RCU list for readers on the data path, and
 * @pending_planes one for netlink readers.
 */
struct mrc_net {
	struct net		*net;
	struct rb_root		sockets;
	u64			sockets_seq;
	spinlock_t		sockets_lock;	/* taken with BHs off */
	struct list_head	planes;
	unsigned int		nr_planes;
	struct list_head	pending_planes;
	u16			udp_port;
	u32			default_evs;
	struct work_struct	refresh_work;
	struct work_struct	paths_work;
	DECLARE_HASHTABLE(ports, 8);
	spinlock_t		ports_lock;	/* taken with BHs off */
	struct mrc_plane __rcu	*plane_by_id[MRC_PLANE_ID_MAX + 1];
	DECLARE_HASHTABLE(conns, 10);
	DECLARE_HASHTABLE(conns_by_peer, 10);
	spinlock_t		conns_lock;	/* taken with BHs off */
	struct mrc_mib __percpu	*mib;
	struct mrc_sysctl	sysctl;
	struct ctl_table_header	*sysctl_header;
	atomic_t		orphans;
	struct ratelimit_state	rst_limit;
	struct ratelimit_state	rst_src_limit[MRC_RST_SOURCES];
};

/**
 * struct mrc_addr - an IPv4 or IPv6 address, or none
 * @family: AF_UNSPEC, AF_INET or AF_INET6
 * @v4: the address when @family is AF_INET
 * @v6: the address when @family is AF_INET6
 */
struct mrc_addr {
	sa_family_t		family;
	__be32			v4;
	struct in6_addr		v6;
};

/**
 * struct mrc_plane - a network device used as an MRC plane
 * @list: entry in &mrc_net.planes
 * @rcu: frees the plane after readers are done
 * @mn: the plane's namespace
 * @dev: the device, held while the plane exists
 * @dev_tracker: tracks the hold on @dev
 * @sock: UDP tunnel socket bound to @addr4 or @addr6 on @dev
 * @family: AF_INET or AF_INET6
 * @addr4: local IPv4 address when @family is AF_INET
 * @addr6: local IPv6 address when @family is AF_INET6
 * @id: plane id; plane k of one host talks to plane k of its peers
 * @admin_up: whether the administrator lets connections use the plane
 * @state: an &enum mrc_plane_state, derived from the rest
 * @evs: entropy values per connection, 0 for the namespace default
 * @base_rtt_us: the round trip of its paths without a queue, as the
 *	operator gives it; 0 for none (see mrc_cc_rtt_sample()); read
 *	locklessly on the data path
 * @mib: the plane's counters, per CPU (mib.h)
 * @addr_auto: the plane picked its address from the device's: it picks
 *	again when it comes back after losing its device
 *
 * Every field but @state is set under RTNL; @state is written under RTNL
 * and read locklessly on the data path.
 */
struct mrc_plane {
	struct list_head	list;
	struct rcu_head		rcu;
	struct mrc_net		*mn;
	struct net_device	*dev;
	netdevice_tracker	dev_tracker;
	struct socket		*sock;
	sa_family_t		family;
	__be32			addr4;
	struct in6_addr		addr6;
	u8			id;
	bool			admin_up;
	u8			state;
	u32			evs;
	u32			base_rtt_us;
	struct mrc_plane_mib __percpu *mib;
	bool			addr_auto;
};

/**
 * struct mrc_plane_pending - a plane that waits for its device to return
 * @list: entry in &mrc_net.pending_planes
 * @rcu: frees it after netlink readers are done
 * @ifname: name of the device it waits for, in its namespace
 * @family: AF_INET or AF_INET6 for an address given to "plane add";
 *	AF_UNSPEC when the plane picks the device's first address again
 * @addr4: that IPv4 address
 * @addr6: that IPv6 address
 * @id: the plane's id, which stays reserved for it
 * @admin_up: as in &struct mrc_plane
 * @evs: as in &struct mrc_plane
 * @base_rtt_us: as in &struct mrc_plane
 *
 * When a plane's device is unregistered (deleted, its driver unloaded, or
 * moved to another namespace), the plane's settings are kept here and the
 * plane itself is removed as "plane del" removes it: the data path never
 * sees a plane without a device.  When a device of that name registers in
 * the namespace, or takes that name, the plane is made again from these
 * settings, with the same id.  Created, changed and freed under RTNL; read
 * under RCU by netlink dumps.
 */
struct mrc_plane_pending {
	struct list_head	list;
	struct rcu_head		rcu;
	char			ifname[IFNAMSIZ];
	sa_family_t		family;
	__be32			addr4;
	struct in6_addr		addr6;
	u8			id;
	bool			admin_up;
	u32			evs;
	u32			base_rtt_us;
};

/* Parameters of a plane to add, from netlink. */
struct mrc_plane_cfg {
	struct net_device	*dev;
	int			id;		/* -1: lowest free */
	sa_family_t		family;		/* AF_UNSPEC: pick one */
	__be32			addr4;
	struct in6_addr		addr6;
	bool			admin_up;
	u32			evs;
	u32			base_rtt_us;
};

/* What "plane set" may change on a plane, or on one without a device. */
struct mrc_plane_settings {
	bool	admin_up;
	u32	evs;
	u32	base_rtt_us;
};

extern unsigned int mrc_net_id;

/* Runs the end of connections; flushed before the module goes. */
extern struct workqueue_struct *mrc_wq;

static inline struct mrc_net *mrc_pernet(const struct net *net)
{
	return net_generic(net, mrc_net_id);
}

/* Limits of one connection. */
#define MRC_MAX_PLANES		(MRC_PLANE_ID_MAX + 1)
#define MRC_MAX_EVS		256	/* entropy values, over all planes */
/*
 * DATA packets in flight, each way: a ring holds what the buffer on its
 * side holds, a power of two between these (see mrc_conn_ring_size()).
 */
#define MRC_RING_MIN		1024
#define MRC_RING_MAX		16384
/*
 * EVs are UDP source ports from here on, above the default ephemeral range
 * (ip_local_port_range ends at 60999), so that local sockets rarely hold
 * them.
 */
#define MRC_EV_MIN		61000
/* A plane's socket is a UDP tunnel: any non-zero encapsulation type. */
#define MRC_UDP_ENCAP_TYPE	1
#define MRC_MIN_MSS		64U	/* planes with less room are misconfigured */
#define MRC_RCV_MSS_MIN		496U	/* IPv4's min_pmtu, less the headers */

/**
 * struct mrc_conn_plane - a plane as one connection uses it
 * @raddr: the peer's address on the plane; AF_UNSPEC when not shared
 * @evs: this plane's entropy values, in &mrc_sock.ev_table; NULL while
 *	that is
 * @nr_evs: number of @evs, set with the handshake
 * @nr_active: entries of @evs in use, not retired
 * @next_ev: index of the next EV to send on
 * @probe_ev: index where the search for the next retired EV to probe starts
 * @probe_next: no probe of a retired EV on the plane before this time
 * @up: whether the local plane was up when last seen
 * @validated: the peer proved it receives at @raddr; only then does the
 *	plane carry more than validation probes
 * @val_tries: validation probes sent in this series
 * @val_rounds: series that went unanswered; after MRC_VALIDATE_SERIES,
 *	none until the local plane comes up again
 * @val_psn: PSN of the last one: only an answer to it counts (the tries
 *	grow apart until one outlasts the round trip), and one that echoes
 *	it without the challenge ends the validation of the plane
 * @val_challenge: the random value they carry, to be echoed
 * @val_next: when to send the next one, 0 for never
 * @answers_unproven: answers sent to the peer's probes on this plane
 *	before we validated it; at most MRC_VALIDATE_TRIES per series of
 *	our own
 * @inflight: DATA packets sent on the plane and not yet acknowledged, in
 *	sending order, linked by &sk_buff.list
 * @nr_inflight: entries in @inflight
 * @cwnd: congestion window, in packets
 * @ssthresh: slow start threshold, in packets
 * @acked: packets acknowledged since @cwnd last grew in avoidance, each
 *	counting 1 + @grow
 * @grow: packets a round adds to @cwnd in avoidance beyond Reno's one,
 *	spread over its acknowledgments (see mrc_cc_delay_growth())
 * @srtt_us: smoothed round-trip time; 0 before the first sample
 * @rttvar_us: its variation
 * @base_rtt_us: the smallest round trip measured, but no more than the
 *	local plane's base-rtt (mrc_path_base_rtt()); 0 before the first
 * @round_rtt_us: the smallest since the last round judged (a round of
 *	fewer than MRC_DELAY_SAMPLES samples is not: they count in the next)
 * @round_peak_us: the largest since then
 * @queue_peak_us: the largest queue of the last round judged
 * @round_samples: round trips measured since then (saturates)
 * @queue_streak: samples in a row that found a queue (saturates)
 * @grow_streak: samples in a row that found a queue of more than half
 *	the target and a sixteenth of the base (saturates): @grow stops
 * @backoff: timeouts on the plane since its last round-trip sample: its
 *	timeout doubles with each (Karn), whatever the other planes hear
 * @lost_ev_bits: EVs whose packets were found lost since the plane's last
 *	answer, a bit per EV index modulo 16; see mrc_silent_need()
 * @rack_sent: send time of the latest-sent packet known delivered
 * @last_acked: when the plane last answered: a packet sent on it
 *	acknowledged, or a probe on it answered
 * @doubt_since: when the probes that ask the plane (@doubt_due) went out,
 *	0 for none: the plane is silent if it answers none within its
 *	timeout while the peer answers on another (mrc_output_doubts_end())
 * @recovery_psn: losses of packets sent before this PSN belong to the
 *	current round of window reductions
 * @loss_round: number of that round (wraps); see &mrc_ev.cut_round
 * @round_evs: EVs in use when the round began, at least 1
 * @round_cwnd: @cwnd when the round began
 * @undo_cwnd: @cwnd when the last silence of every path began, given back
 *	if it proves a delay (mrc_cc_silence_undo())
 * @undo_ssthresh: @ssthresh then
 * @ce_acked: packets acknowledged in this round of ECN accounting
 * @ce_marked: of those, packets that arrived marked
 * @ce_round_psn: the round of ECN accounting and of queueing delay ends
 *	with the acknowledgment of this PSN or a later one
 * @ce_alpha: smoothed fraction of marked packets, in 1/1024
 * @tx_packets: DATA packets sent, resends included
 * @tx_bytes: payload bytes sent
 * @rx_packets: packets received
 * @retransmits: DATA packets resent after a loss on the plane
 * @retirements: EVs retired after a loss
 * @probes: probes sent on retired EVs
 * @restores: EVs back in use after a probe came through, or with their
 *	plane (@silenced)
 * @doubt_due: the plane lost packets on too few EVs to be found silent,
 *	and answered nothing for a timeout: probes of other EVs are due
 * @silenced: EVs of the plane are %MRC_EV_SILENCED: its next answer
 *	brings them back (mrc_path_answered())
 * @back_unproven: the plane came back whole at an answer, and no DATA
 *	sent on it since has arrived: found silent again, its EVs retire
 * @probe_backoff: silences of the plane since it came back and before
 *	any DATA sent on it arrived: its probe gap doubles with each
 * @val_ev: the EV of this series' validation probes, drawn with
 *	@val_challenge, to be echoed too
 * @ce_marks: acknowledgments of packets marked CE
 * @trims: packets the peer NACKed: trimmed by a switch, or no room
 */
struct mrc_conn_plane {
	struct mrc_addr		raddr;
	struct mrc_ev		*evs;
	u16			nr_evs;
	u16			nr_active;
	u16			next_ev;
	u16			probe_ev;
	u64			probe_next;
	bool			up;
	bool			validated;
	u8			val_tries;
	u8			val_rounds;
	u8			answers_unproven;
	u8			backoff;
	u16			lost_ev_bits;
	u32			val_psn;
	u32			val_challenge;
	u64			val_next;
	struct list_head	inflight;
	u32			nr_inflight;
	u32			cwnd;
	u32			ssthresh;
	u32			acked;
	u32			srtt_us;
	u32			rttvar_us;
	u32			base_rtt_us;
	u32			round_rtt_us;
	u32			round_peak_us;
	u32			queue_peak_us;
	u64			rack_sent;
	u64			last_acked;
	u64			doubt_since;
	u32			recovery_psn;
	u8			loss_round;
	u8			round_samples;
	u8			queue_streak;
	u8			grow_streak;
	u16			round_evs;
	u16			grow;
	u32			round_cwnd;
	u32			undo_cwnd;
	u32			undo_ssthresh;
	u32			ce_acked;
	u32			ce_marked;
	u32			ce_round_psn;
	u32			ce_alpha;
	u64			tx_packets;
	u64			tx_bytes;
	u64			rx_packets;
	u64			retransmits;
	u32			retirements;
	u32			probes;
	u32			restores;
	u8			doubt_due:1;
	u8			silenced:1;
	u8			back_unproven:1;
	u8			probe_backoff;
	u16			val_ev;
	u64			ce_marks;
	u64			trims;
};

/*
 * An EV out of use is retired for a loss of its own, or silenced with its
 * whole plane (mrc_path_silent()): both carry nothing but probes, but a
 * silenced one comes back as soon as its plane answers anything.
 */
enum mrc_ev_state {
	MRC_EV_ACTIVE,
	MRC_EV_RETIRED,
	MRC_EV_SILENCED,
};

/**
 * struct mrc_ev - one entropy value (path) of a connection
 * @port: the EV: UDP source port and IPv6 flow label
 * @state: an &enum mrc_ev_state
 * @probe_shift: backoff of the probes of a retired EV
 * @skip: picks to skip after a CE mark, so marked paths carry less
 * @ce_level: the @skip of its next CE mark: grows by %MRC_CE_SKIP at each
 *	mark, up to %MRC_CE_SKIP_MAX, shrinks by one at each acknowledgment
 *	that echoes a packet of it unmarked and at each round of its
 *	plane's ECN accounting, and is 0 after a round whose marks most of
 *	the plane's EVs heard (mrc_path_ce(), mrc_path_ce_round())
 * @cut_round: the plane's last round of window reductions that took this
 *	EV's share for a loss on it
 * @penalty: backoff of its first probe once retired: grows each time it
 *	is lost again before %MRC_EV_PROOF of its packets arrived
 * @unproven: its packets still to arrive since it was restored before a
 *	loss on it no longer counts as the same bad path
 * @ce_queued: a packet of it arrived marked CE, and none echoed since
 *	arrived unmarked, within %MRC_CE_ROUNDS rounds: its packets wait in
 *	a queue, and other EVs outrunning them do not make them lost while
 *	the plane answers (mrc_other_ev_since())
 * @ce_rounds: rounds of its plane's ECN accounting left in which it counts
 *	as marked: %MRC_CE_ROUNDS at a CE mark on it, less one a round
 * @acked_rounds: the same for carrying acknowledged packets
 * @probe_psn: PSN of the first probe sent on it since it was retired:
 *	an answer to any of them restores it
 * @losses: packets found lost on it, on any evidence
 * @srtt_us: smoothed round trip of its packets, in microseconds; 0 before
 *	the first was measured (mrc_cc_rtt_sample())
 * @rttvar_us: the variation of its round trips, in microseconds
 * @lost_pending: the packet of @lost_psn has not arrived since
 * @lost_psn: PSN of the last of its packets found lost
 * @lost_sent_us: when that packet was sent, in microseconds modulo 2^32:
 *	its round trip if it arrives after all (mrc_late_copy_rcvd())
 * @next_probe: when to probe a retired EV again
 * @tx_packets: DATA packets sent on it
 * @rack_sent: send time of the latest-sent packet of it known delivered
 * @rack_rtt_us: that packet's round trip, from its sending to the
 *	acknowledgment, in microseconds
 *
 * 64 bytes: a connection has up to %MRC_MAX_EVS of them.
 */
struct mrc_ev {
	u16	port;
	u16	state:2;
	u16	probe_shift:5;
	u16	penalty:4;
	u16	unproven:5;
	u8	skip;
	u8	cut_round;
	u8	ce_queued:1;
	u8	lost_pending:1;
	u8	ce_rounds:4;
	u8	acked_rounds:4;
	u32	probe_psn;
	u32	losses;
	u32	srtt_us;
	u32	rttvar_us;
	u32	lost_psn;
	u32	lost_sent_us;
	u32	rack_rtt_us;
	u8	ce_level;
	u64	next_probe;
	u64	tx_packets;
	u64	rack_sent;
};

/**
 * struct mrc_sock - an AF_MRC socket and its connection
 * @sk: the socket; must stay first, the core casts between the two
 * @net_node: entry in &mrc_net.sockets
 * @net_seq: its place there: sockets listed later have higher ones
 * @port_node: entry in &mrc_net.ports once bound
 * @port: bound port, host order; 0 until bound
 * @addr: bound address: AF_UNSPEC (any plane), AF_INET or AF_INET6
 * @lock: protects the connection state below, taken with BHs off
 * @cid_node: entry in &mrc_net.conns, by @lcid
 * @rcid_node: entry in &mrc_net.conns_by_peer, by @rcid
 * @hashed: whether the connection is in the tables (holds a reference)
 * @dead: the connection is over; timers no longer run
 * @closed: the user closed the socket; the connection may live on
 * @orphan: counted in &mrc_net.orphans
 * @listed: in /proc/net/mrc and counted in /proc/net/protocols
 * @rst_pending: input found the connection must be reset
 * @time_wait: both FINs are through; the end is near
 * @lcid: our connection id
 * @rcid: the peer's connection id
 * @dport: the peer's MRC port
 * @daddr: the peer's address that was dialled, or that the SYN came from
 * @syn_plane: plane of the handshake
 * @nr_planes: entries in @planes; 0 until the handshake told them
 * @next_plane: where the round robin over planes resumes
 * @nr_evs: EVs of all shared planes, as the handshake counted them
 * @plane_mask: ids of the shared planes, all below @nr_planes; once not
 *	0, it has @syn_plane
 * @planes: the planes, by id, up to the highest shared one; those not
 *	shared have no peer address.  NULL until the handshake told them
 *	(see below)
 * @ev_table: entropy values of all planes, @nr_evs of them; NULL until
 *	the connection sends (mrc_conn_evs_install()), and again once it
 *	gave them back with the send ring (written under @lock, read
 *	without it as a hint)
 * @mss: payload bytes per DATA packet, as agreed in the handshake
 * @path_mss: payload bytes per DATA packet cut now: @mss, or less once a
 *	plane's path MTU fell (written under @lock, read without it)
 * @write_queue: DATA packets cut and not yet sent
 * @rtx_queue: DATA packets found lost, to resend, linked by &sk_buff.list
 * @snd_ring: DATA packets sent and not acknowledged, by DSN; allocated
 *	before the first packet is queued, released once idle (written under
 *	@lock, read without it as a hint)
 * @snd_map: a bit per @snd_ring slot in use, with the ring: acknowledged
 *	ranges are walked a word at a time
 * @snd_ring_size: slots of @snd_ring, or of the last one; sized to the
 *	send buffer and the peer's first window when it is allocated
 * @snd_isn: first DSN, told in SYN and SYN_ACK
 * @snd_una: oldest DSN not acknowledged
 * @snd_nxt: next DSN to send
 * @snd_wnd_end: the peer takes DSNs before this one
 * @snd_wnd_syn: the window the peer's SYN or SYN_ACK offered, which its
 *	receive buffer, and so its ring, held then (written under @lock,
 *	read without it when a send ring is allocated)
 * @next_psn: next PSN
 * @snd_msg_id: message id of the next message cut
 * @snd_offset: stream offset of the next byte cut (SOCK_STREAM)
 * @fin_queued: a FIN packet is cut
 * @fin_acked: the peer acknowledged our FIN
 * @rcv_ring: DATA packets that arrived out of order, by DSN; allocated
 *	when the first one does, so that a connection whose data comes in
 *	order holds none, and released once idle
 * @rcv_map: bit per @rcv_ring slot in use
 * @rcv_ring_size: slots of @rcv_ring, and so the most the window offers;
 *	sized to the receive buffer when the connection is made
 * @rcv_nxt: next DSN to deliver
 * @rcv_wnd_end: window end offered; it never moves back
 * @rcv_wnd_told: window end last sent to the peer (handshake or ACK)
 * @rcv_ofo: packets in @rcv_ring
 * @rcv_ofo_mem: memory they take
 * @rcv_msgs: complete messages in the receive queue (SOCK_SEQPACKET)
 * @rcv_seq: packets that joined the receive queue, for readers to wait on
 * @rcv_in_msg: the head of the receive queue continues a message that
 *	recvmsg() has started to deliver
 * @rcv_busy: a reader sleeps in the middle of a message: others wait their
 *	turn (SOCK_SEQPACKET; under the socket lock)
 * @rcv_started: a DATA packet was taken: the window is ours to advertise
 * @snd_started: a send ring was installed once: the peer's window and
 *	what is in flight are ours to report
 * @rcv_copied: bytes readers took (SOCK_STREAM; under the socket lock), for
 *	a peek to find its place again after a wait
 * @rcv_truesize: largest truesize of a received DATA packet
 * @rcv_mss: payload of a full DATA packet of the peer's, as last seen
 * @rcv_last_len: payload of the last DATA packet shorter than that
 * @fin_rcvd: the peer's FIN was delivered
 * @rcv_fin_seen: the peer's FIN arrived, maybe out of order
 * @rcv_fin_dsn: its DSN: nothing after it is taken
 * @rcv_no_room: a DATA packet was NACKed for want of memory since
 *	reading last told the peer of room
 * @ack_pending: packets received since the last acknowledgment
 * @echo_psn: PSN of the last packet received, for the acknowledgment
 * @echo_dsn: its DSN
 * @echo_ev: its EV
 * @echo_plane: the plane it came on
 * @echo_time: when it arrived
 * @echo_dup: it had arrived already: one of its copies was sent in vain
 * @echo_told: an acknowledgment echoed it already
 * @rto_timer: retransmission, handshake and keepalive deadlines
 * @ack_timer: coalesces acknowledgments
 * @timer_expires: when @rto_timer is set to fire
 * @syn_start: when connect() sent the first SYN
 * @syn_next: when the SYN is sent again
 * @backoff: consecutive retransmission timeouts
 * @last_progress: when the peer last answered
 * @last_advance: when the peer last took data or opened its window
 * @last_rcv: when a packet of the peer last arrived
 * @silence_from: what was sent after this time met a silence of the peer
 *	on every path (a stall, or every path failing at once), found by
 *	timeouts: its losses say nothing of the paths it took
 * @silence_until: ... and before this one, when an acknowledgment came
 *	again; U64_MAX while none has, 0 before any silence
 * @silence_at: when its timeouts found it
 * @silence_undoable: the windows the planes had then are kept, to be
 *	given back if it proves a delay (&mrc_conn_plane.undo_cwnd); no
 *	other loss or CE mark came since
 * @reo_steps: steps the reorder window grew by, for copies the peer had
 *	already (mrc_gap_wait_ns(), mrc_other_ev_wait_ns())
 * @reo_persist: rounds of losses found by later packets of their plane
 *	left before it shrinks back
 * @wnd_probes: probes of a shut window, or of a peer out of receive
 *	memory, since it last took data or opened its window
 * @no_room_until: the peer NACKed DATA for want of memory: nothing is
 *	sent before this time, unless an acknowledgment says it took
 *	something; 0 when it did not
 * @reo_grown: when @reo_steps last grew
 * @reo_round: when the last round of such losses began
 * @close_deadline: an orphaned connection ends by then at the latest
 * @destroy_work: tears the connection down out of timer context
 * @synack_sent: SYN_ACKs a half-open connection sent
 * @syn_credit: bytes its SYN_ACKs may still take: %MRC_SYN_AMPLIFY
 *	times those of the SYNs it received, less those sent
 *	(mrc_output_syn())
 * @parent: listener of a connection not yet accepted
 * @half_open: the client has not yet proved it received our SYN_ACK
 * @nr_half_open: half-open connections in @accept_queue (listener)
 * @accept_queue: connections waiting for accept() (listener), half-open
 *	ones included
 * @accept_node: entry in the listener's @accept_queue
 * @stats: counters of the connection
 * @params: the namespace's tunables when the connection was made, but
 *	for the user timeout a socket option set
 * @user_timeout_ms: MRC_USER_TIMEOUT, 0 if not set
 * @keepalive: SO_KEEPALIVE
 * @keep_idle_s: MRC_KEEPIDLE, 0 if not set
 * @keep_intvl_s: MRC_KEEPINTVL, 0 if not set
 * @keep_cnt: MRC_KEEPCNT, 0 if not set
 * @keep_probes: keepalive probes sent since the peer last answered
 * @keep_probe_at: when the last one went
 * @tclass: MRC_TCLASS, the DSCP of our packets (ECN bits clear)
 *
 * The options are set in process context under both locks, and read under
 * @lock (@tclass, only copied to packets, locklessly).
 *
 * @planes and @nr_planes are set once, with @plane_mask, when the peer's
 * planes are known: under @lock at SYN_ACK on the client, before the
 * connection is hashed on a listener's child.  They stay until the
 * destructor, which frees @planes after the RCU grace period (the
 * socket is SOCK_RCU_FREE): whoever holds @lock may use them.  Loops over
 * @planes stop at @nr_planes; an id is used only once @plane_mask has it.
 *
 * The socket lock serialises the socket calls; @lock protects the protocol
 * state against the receive path (softirq) and the timers.  Calls that
 * sleep hold the socket lock and take @lock for short sections.
 */
struct mrc_sock {
	struct sock		sk;
	struct rb_node		net_node;
	u64			net_seq;
	struct hlist_node	port_node;
	u16			port;
	struct mrc_addr		addr;

	spinlock_t		lock;		/* see above */
	struct hlist_node	cid_node;
	struct hlist_node	rcid_node;
	bool			hashed;
	bool			dead;
	bool			closed;
	bool			orphan;
	bool			listed;
	bool			rst_pending;
	bool			time_wait;
	u32			lcid;
	u32			rcid;
	u16			dport;
	struct mrc_addr		daddr;
	u8			syn_plane;
	u8			nr_planes;
	u8			next_plane;
	u16			nr_evs;
	u32			plane_mask;
	struct mrc_conn_plane	*planes;
	struct mrc_ev		*ev_table;
	u32			mss;
	u32			path_mss;

	struct sk_buff_head	write_queue;
	struct list_head	rtx_queue;
	struct sk_buff		**snd_ring;
	unsigned long		*snd_map;
	u32			snd_ring_size;
	u32			snd_isn;
	u32			snd_una;
	u32			snd_nxt;
	u32			snd_wnd_end;
	u32			snd_wnd_syn;
	u32			next_psn;
	u32			snd_msg_id;
	u32			snd_offset;
	bool			fin_queued;
	bool			fin_acked;

	struct sk_buff		**rcv_ring;
	unsigned long		*rcv_map;
	u32			rcv_ring_size;
	u32			rcv_nxt;
	u32			rcv_wnd_end;
	u32			rcv_wnd_told;
	u32			rcv_ofo;
	u32			rcv_ofo_mem;
	u32			rcv_msgs;
	u32			rcv_seq;
	bool			rcv_in_msg;
	bool			rcv_busy;
	bool			rcv_started;
	bool			snd_started;
	u32			rcv_copied;
	u32			rcv_truesize;
	u32			rcv_mss;
	u32			rcv_last_len;
	bool			fin_rcvd;
	bool			rcv_fin_seen;
	u32			rcv_fin_dsn;
	bool			rcv_no_room;
	u32			ack_pending;
	u32			echo_psn;
	u32			echo_dsn;
	u16			echo_ev;
	u8			echo_plane;
	bool			echo_dup;
	u64			echo_time;
	bool			echo_told;

	struct hrtimer		rto_timer;
	struct hrtimer		ack_timer;
	u64			timer_expires;
	u64			syn_start;
	u64			syn_next;
	u32			backoff;
	u64			last_progress;
	u64			last_advance;
	u64			last_rcv;
	u64			silence_from;
	u64			silence_until;
	u64			silence_at;
	bool			silence_undoable;
	u8			reo_steps;
	u8			reo_persist;
	u32			wnd_probes;
	u64			no_room_until;
	u64			reo_grown;
	u64			reo_round;
	u64			close_deadline;
	struct work_struct	destroy_work;

	u8			synack_sent;
	u16			syn_credit;
	struct mrc_sock		*parent;
	bool			half_open;
	u32			nr_half_open;
	struct list_head	accept_queue;
	struct list_head	accept_node;

	struct mrc_conn_stats {
		u64	tx_packets;
		u64	rx_packets;
		u64	retransmits;
		u64	rx_dropped;
		u64	rx_duplicates;
		u64	acks_sent;
		u64	timeouts;
		u64	rx_ce;
		u64	rx_trimmed;
	} stats;
	struct mrc_conn_params	params;

	u32			user_timeout_ms;
	bool			keepalive;
	u16			keep_idle_s;
	u16			keep_intvl_s;
	u8			keep_cnt;
	u8			keep_probes;
	u64			keep_probe_at;
	u8			tclass;
};

/* Control block of our DATA packets, on the send and receive sides. */
struct mrc_skb_cb {
	u64	sent;		/* last transmission, ns */
	u64	first_sent;	/* first transmission, ns */
	u32	dsn;
	u32	psn;		/* of the last transmission */
	u32	first_psn;
	u32	msg_id;
	u32	offset;
	u32	consumed;	/* bytes recvmsg() took already */
	u16	len;
	u16	ev;
	u8	plane;
	u8	flags;		/* MRC_F_* */
	u8	ev_idx;	/* in &mrc_sock.ev_table */
	u8	sent_once:1,
		lost:1,
		outlived:1,	/* lost for want of an answer on its plane */
		first_plane:4,
		silenced:1;	/* a copy timed out in a silence of every path */
};

#define MRC_SKB_CB(skb)	((struct mrc_skb_cb *)(skb)->cb)

/* An EV drawn at random from the whole range. */
static inline u16 mrc_random_ev(void)
{
	return MRC_EV_MIN + get_random_u32_below(U16_MAX - MRC_EV_MIN + 1);
}

/* Before, modulo 2^32, as for TCP sequence numbers. */
static inline bool mrc_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static inline struct mrc_sock *mrc_sk(const struct sock *sk)
{
	return container_of(sk, struct mrc_sock, sk);
}

static inline struct mrc_net *mrc_msk_net(const struct mrc_sock *msk)
{
	return mrc_pernet(sock_net(&msk->sk));
}

#define MRC_MSK_INC_STATS(msk, field) MRC_INC_STATS(mrc_msk_net(msk), field)

/*
 * Whether the connection waits on its peer: data or a FIN in flight, to
 * resend, or queued (a shut window, or no plane that can carry it).
 * Under msk->lock.
 */
static inline bool mrc_conn_outstanding(const struct mrc_sock *msk)
{
	return msk->snd_una != msk->snd_nxt ||
	       !list_empty(&msk->rtx_queue) ||
	       !skb_queue_empty(&msk->write_queue);
}

/*
 * Protocol constants; the design document explains them.  Those an
 * operator may change are net.mrc.* (struct mrc_sysctl).
 */
/* Room for the headers below us, ours and an acknowledgment riding along. */
#define MRC_HEADROOM		(LL_MAX_HEADER + sizeof(struct ipv6hdr) + \
				 sizeof(struct udphdr) + sizeof(struct mrc_hdr) + \
				 sizeof(struct mrc_ack))
#define MRC_MIN_CWND		2
#define MRC_ACK_EVERY		16
#define MRC_PUSH_BURST		64
#define MRC_CE_SKIP		4
#define MRC_CE_SKIP_MAX		32	/* a marked EV's share: 1/33 at least */
#define MRC_CE_ROUNDS		8	/* rounds an EV's CE mark is remembered */
#define MRC_PROBE_MIN_NS	(500 * NSEC_PER_USEC)
#define MRC_PROBE_MAX_NS	(100 * NSEC_PER_MSEC)
#define MRC_PROBE_SHIFT_MAX	16
#define MRC_EV_PROOF		16	/* packets that prove an EV restored */
#define MRC_EV_PENALTY_MAX	8	/* 500 us << 8 is past MRC_PROBE_MAX_NS */
#define MRC_PROBE_GAP_NS	(5 * NSEC_PER_MSEC)	/* a plane's, at least */
#define MRC_PROBE_BACKOFF_MAX	6	/* a gap of 320 ms at the least */
#define MRC_VALIDATE_TRIES	8	/* a series: 20 ms doubling, 5 s in all */
#define MRC_VALIDATE_SERIES	4	/* 1 s, 2 s and 4 s apart: 27 s in all */
#define MRC_VALIDATE_RETRY_NS	(1ULL * NSEC_PER_SEC)
#define MRC_PSN_WINDOW		BIT(24)	/* echoes accepted, back from next_psn */
#define MRC_SYNACK_MAX		4	/* per half-open connection */
/*
 * Bytes of SYN_ACK a half-open connection may send per byte of SYN it
 * received: three, as QUIC's servers before they validate an address.
 * One would leave a listener of many planes no resend by its timer, which
 * a client that lost its ACK of the SYN_ACK and waits for the server to
 * speak first needs.
 */
#define MRC_SYN_AMPLIFY		3
#define MRC_ACK_DELAY_APP_NS	(500 * NSEC_PER_USEC)
#define MRC_RTO_INIT_NS		(20 * NSEC_PER_MSEC)
#define MRC_TIMER_MIN_NS	(10 * NSEC_PER_USEC)
#define MRC_RTO_VAR_MIN_NS	(2 * NSEC_PER_MSEC)
#define MRC_DELAY_SAMPLES	4	/* round trips a queue is judged on */
#define MRC_SS_EXIT_SAMPLES	8	/* in a row with a queue: slow start ends */
#define MRC_GROW_RTT_US		(800 * USEC_PER_MSEC)	/* a window's growth: */
#define MRC_GROW_MAX_SHIFT	3	/* base / 800 ms a round, 1/8 at most */
#define MRC_REORDER_MIN_NS	(200 * NSEC_PER_USEC)
#define MRC_REO_STEPS_MAX	3	/* the reorder window: a round trip */
#define MRC_REO_PERSIST		16	/* rounds of losses it stays grown */
#define MRC_SILENT_EVS		4	/* a plane's losses on so many: silent */
#define MRC_RING_IDLE_NS	(1ULL * NSEC_PER_SEC)	/* then rings go */
#define MRC_FIN_WAIT_NS		(10ULL * NSEC_PER_SEC)
#define MRC_ORPHAN_STALL_NS	(10ULL * NSEC_PER_SEC)
#define MRC_WND_PROBE_MAX_NS	(2ULL * NSEC_PER_SEC)
#define MRC_KEEPIDLE_DEFAULT	7200	/* s, as TCP's */
#define MRC_KEEPINTVL_DEFAULT	75	/* s */
#define MRC_KEEPCNT_DEFAULT	9
#define MRC_KEEP_MAX_S		32767
#define MRC_KEEPCNT_MAX		127
#define MRC_USER_TIMEOUT_MIN_MS	100	/* net.mrc.dead_peer_timeout_ms's */
#define MRC_USER_TIMEOUT_MAX_MS	(3600 * MSEC_PER_SEC)
#define MRC_TIME_WAIT_NS	(50 * NSEC_PER_MSEC)
#define MRC_SNDBUF_STREAM	(4 << 20)
#define MRC_SNDBUF_SEQPACKET	(40 << 20)
#define MRC_RCVBUF_DEFAULT	(4 << 20)

/* Why a DATA packet was taken for lost (tracepoint mrc_lost). */
enum mrc_loss {
	MRC_LOSS_GAP,		/* later packets of its EV arrived */
	MRC_LOSS_TIMEOUT,	/* nothing came back in time */
	MRC_LOSS_TRIM,		/* a switch cut the payload: congestion */
	MRC_LOSS_PLANE_DOWN,	/* the local plane went away */
	MRC_LOSS_ELSEWHERE,	/* later packets on other planes arrived */
	MRC_LOSS_PEER_SILENT,	/* timeouts on many paths, the peer silent */
	MRC_LOSS_OTHER_EV,	/* later packets of other EVs of its plane */
	MRC_LOSS_NO_ROOM,	/* the peer had no memory for it */
	MRC_LOSS_NR
};

#include "trace.h"

static inline void mrc_set_state(struct sock *sk, int state)
{
	trace_mrc_state(mrc_sk(sk), state);
	if (state == TCP_ESTABLISHED)
		MRC_MSK_INC_STATS(mrc_sk(sk), MRC_MIB_ESTABLISHED);
	else if (state == TCP_SYN_SENT)
		MRC_MSK_INC_STATS(mrc_sk(sk), MRC_MIB_ACTIVE_OPENS);
	else if (state == TCP_SYN_RECV)
		MRC_MSK_INC_STATS(mrc_sk(sk), MRC_MIB_PASSIVE_OPENS);
	/* Paired with the lockless readers in poll() and the waits. */
	smp_store_release(&sk->sk_state, state);
}

/* pernet.c */
int mrc_pernet_init(void);
void mrc_pernet_exit(void);
void mrc_pernet_link_sock(struct mrc_sock *msk);
void mrc_pernet_unlink_sock(struct mrc_sock *msk);
struct mrc_sock *mrc_pernet_sock_from(struct mrc_net *mn, u64 seq);
struct mrc_sock *mrc_pernet_sock_next(struct mrc_sock *msk);

/* plane.c */
int mrc_plane_init(void);
void mrc_plane_exit(void);
void mrc_plane_net_init(struct mrc_net *mn);
void mrc_plane_net_exit(struct mrc_net *mn);
struct mrc_plane *mrc_plane_find(struct mrc_net *mn, int id,
				 const struct net_device *dev);
bool mrc_plane_is_local(struct mrc_net *mn, const struct mrc_addr *addr);
struct mrc_plane *mrc_plane_add(struct mrc_net *mn,
				const struct mrc_plane_cfg *cfg,
				struct netlink_ext_ack *extack);
void mrc_plane_del(struct mrc_plane *plane);
void mrc_plane_update(struct mrc_plane *plane,
		      const struct mrc_plane_settings *set);
u32 mrc_plane_evs(const struct mrc_plane *plane);
struct mrc_plane_pending *mrc_plane_pending_find(struct mrc_net *mn, int id,
						 const char *ifname);
void mrc_plane_pending_del(struct mrc_net *mn,
			   struct mrc_plane_pending *pending);
void mrc_plane_pending_update(struct mrc_net *mn,
			      struct mrc_plane_pending *pending,
			      const struct mrc_plane_settings *set);

/* socket.c */
u32 mrc_mss_truesize(u32 mss);
u32 mrc_pkt_truesize(const struct mrc_sock *msk);
u32 mrc_snd_truesize(const struct mrc_sock *msk);
int mrc_sndbuf_free(const struct mrc_sock *msk);
struct mrc_sock *mrc_sock_create_child(struct mrc_sock *lmsk, int plane_id,
				       const struct mrc_hdr *hdr,
				       const struct mrc_syn *syn,
				       unsigned int len,
				       const struct mrc_addr *saddr,
				       struct sk_buff_head *queue);
u32 mrc_sock_queued(const struct mrc_sock *msk, bool out);
bool mrc_sock_child_established(struct mrc_sock *msk);
void mrc_sock_child_forget(struct mrc_sock *msk);
int mrc_socket_init(void);
void mrc_socket_exit(void);

/* The slots of DSN @dsn in the rings: their sizes are powers of two. */
static inline u32 mrc_snd_slot(const struct mrc_sock *msk, u32 dsn)
{
	return dsn & (msk->snd_ring_size - 1);
}

static inline u32 mrc_rcv_slot(const struct mrc_sock *msk, u32 dsn)
{
	return dsn & (msk->rcv_ring_size - 1);
}

/* conn.c */
void mrc_conn_init(struct mrc_sock *msk);
u32 mrc_conn_ring_size(u32 buf, u32 truesize);
struct sk_buff **mrc_conn_snd_ring_alloc(struct mrc_sock *msk, u32 *size,
					 unsigned long **map, gfp_t gfp);
bool mrc_conn_snd_ring_install(struct mrc_sock *msk, struct sk_buff ***spare,
			       unsigned long **spare_map, u32 size);
struct mrc_ev *mrc_conn_evs_alloc(u16 nr_evs, gfp_t gfp);
void mrc_conn_evs_install(struct mrc_sock *msk, struct mrc_ev **spare,
			  u16 nr_evs);
u64 mrc_conn_rings_idle_at(const struct mrc_sock *msk);
void mrc_conn_release_rings(struct mrc_sock *msk, u64 now);
int mrc_conn_rcv_ring(struct mrc_sock *msk);
void mrc_conn_free_rings(struct mrc_sock *msk);
int mrc_conn_hash(struct mrc_sock *msk);
void mrc_conn_unhash(struct mrc_sock *msk);
void mrc_conn_hash_peer(struct mrc_sock *msk);
struct mrc_sock *mrc_conn_lookup(struct mrc_net *mn, u32 lcid);
struct mrc_sock *mrc_conn_lookup_peer(struct mrc_net *mn, u32 rcid,
				      u16 rport, u16 lport,
				      const struct mrc_addr *raddr);
bool mrc_addr_equal(const struct mrc_addr *a, const struct mrc_addr *b);
bool mrc_addr_equal_plane(const struct mrc_addr *a,
			  const struct mrc_plane *plane);
int mrc_conn_fill_planes(struct mrc_sock *msk, struct mrc_syn *syn,
			 int max_planes);
u16 mrc_conn_local_mss(struct mrc_net *mn);
int mrc_conn_set_planes(struct mrc_sock *msk, const struct mrc_syn *syn,
			unsigned int len);
void mrc_conn_check_end(struct mrc_sock *msk);
void mrc_conn_done(struct mrc_sock *msk, int err, enum mrc_conn_end why);
void mrc_conn_purge(struct mrc_sock *msk);
void mrc_conn_destroy_work(struct work_struct *work);
u32 mrc_conn_report_state(const struct mrc_sock *msk);

/* sockopt.c */
u32 mrc_keep_idle_s(const struct mrc_sock *msk);
u32 mrc_keep_intvl_s(const struct mrc_sock *msk);
u32 mrc_keep_cnt(const struct mrc_sock *msk);
void mrc_sockopt_inherit(struct mrc_sock *msk, const struct mrc_sock *lmsk);
void mrc_keepalive(struct sock *sk, int valbool);
int mrc_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen);
int mrc_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen);

/* output.c */
struct sk_buff *mrc_alloc_skb(unsigned int len, gfp_t gfp);
void mrc_xmit(struct net *net, struct sk_buff_head *queue);
void mrc_output_queue(struct mrc_sock *msk, struct sk_buff_head *pkts);
void mrc_output_push(struct mrc_sock *msk, struct sk_buff_head *queue);
void mrc_output_free_skb(struct mrc_sock *msk, struct sk_buff *skb);
void mrc_output_ack_rcvd(struct mrc_sock *msk, const struct mrc_ack *ack,
			 unsigned int len, u8 type, u8 flags);
void mrc_output_requeue_plane(struct mrc_sock *msk, struct mrc_conn_plane *cp);
bool mrc_path_may_answer(struct mrc_sock *msk, int id, unsigned int len);
u32 mrc_output_probe_ev(struct mrc_sock *msk, int id, u16 ev, u32 dsn,
			unsigned int pad, struct sk_buff_head *queue);
void mrc_output_probe_answer(struct mrc_sock *msk, int id,
			     struct sk_buff_head *queue);
u64 mrc_output_next_timeout(struct mrc_sock *msk);
bool mrc_output_deadline(struct mrc_sock *msk, u64 now);
void mrc_output_ack(struct mrc_sock *msk, u8 type, u8 flags,
		    struct sk_buff_head *queue);
int mrc_output_syn(struct mrc_sock *msk, u8 type, struct sk_buff_head *queue);
void mrc_output_probe(struct mrc_sock *msk, struct sk_buff_head *queue);
void mrc_output_rst(struct mrc_sock *msk, struct sk_buff_head *queue);
void mrc_output_rst_to(struct sk_buff_head *queue, int id, u32 dst_cid,
		       u32 src_cid, u32 dsn, const struct mrc_addr *raddr);
u16 mrc_some_ev(struct mrc_sock *msk, int id);

/* input.c */
int mrc_input(struct sock *usk, struct sk_buff *skb);
int mrc_input_err_lookup(struct sock *usk, struct sk_buff *skb);
void mrc_rcv_update_window(struct mrc_sock *msk);
bool mrc_rcv_window_grew(struct mrc_sock *msk);
u32 mrc_rcv_initial_window(const struct mrc_sock *msk);

/* cc.c */
void mrc_cc_rtt_sample(const struct mrc_sock *msk, struct mrc_conn_plane *cp,
		       struct mrc_ev *ev, u32 rtt_us);
void mrc_cc_rtt_since(const struct mrc_sock *msk, struct mrc_conn_plane *cp,
		      u64 start, u64 now);
u64 mrc_srtt_ns(const struct mrc_conn_plane *cp);
u64 mrc_reorder_window_ns(const struct mrc_conn_plane *cp);
u64 mrc_gap_wait_ns(const struct mrc_sock *msk,
		    const struct mrc_conn_plane *cp);
u64 mrc_silence_ns(const struct mrc_sock *msk, const struct mrc_conn_plane *cp);
u64 mrc_other_ev_wait_ns(const struct mrc_sock *msk,
			 const struct mrc_conn_plane *cp);
u64 mrc_ev_wait_ns(const struct mrc_sock *msk, const struct mrc_ev *ev,
		   u64 wait);
u64 mrc_ev_gap_wait_ns(const struct mrc_sock *msk, const struct mrc_ev *ev,
		       u64 wait);
u64 mrc_rto_ceil_ns(const struct mrc_sock *msk);
u64 mrc_rto_ns(const struct mrc_sock *msk, const struct mrc_conn_plane *cp);
u64 mrc_wnd_probe_wait(const struct mrc_sock *msk);
void mrc_cc_on_ack(struct mrc_sock *msk, struct mrc_conn_plane *cp,
		   struct mrc_ev *ev, u32 psn);
void mrc_cc_delay_reset(struct mrc_sock *msk, struct mrc_conn_plane *cp);
void mrc_cc_on_loss(struct mrc_sock *msk, struct mrc_conn_plane *cp,
		    struct mrc_ev *ev, u32 psn);
void mrc_cc_on_silence(struct mrc_sock *msk, struct mrc_conn_plane *cp);
void mrc_cc_silence_begin(struct mrc_sock *msk);
void mrc_cc_silence_undo(struct mrc_sock *msk);

/* path.c */
bool mrc_path_plane_up(struct mrc_sock *msk, int id);
u32 mrc_path_base_rtt(const struct mrc_sock *msk, int id);
int mrc_path_pick_plane(struct mrc_sock *msk, int avoid, bool strict);
struct mrc_ev *mrc_path_next_ev(struct mrc_conn_plane *cp, u16 avoid);
void mrc_path_lost(struct mrc_sock *msk, struct mrc_conn_plane *cp,
		   struct mrc_ev *ev, bool timeout,
		   u64 now);
void mrc_path_silent(struct mrc_sock *msk, struct mrc_conn_plane *cp, u64 now);
void mrc_path_probe(struct mrc_sock *msk, u64 now, struct sk_buff_head *queue);
u64 mrc_path_next_probe(struct mrc_sock *msk);
void mrc_path_probe_answered(struct mrc_sock *msk, const struct mrc_ack *ack,
			     u64 now);
void mrc_path_delivered(struct mrc_conn_plane *cp, u64 now);
u64 mrc_path_probe_gap(const struct mrc_conn_plane *cp);
void mrc_path_answered(struct mrc_sock *msk, struct mrc_conn_plane *cp,
		       u64 now);
void mrc_path_doubt_clear(struct mrc_conn_plane *cp);
bool mrc_path_usable(struct mrc_sock *msk, int id);
void mrc_path_validate_start(struct mrc_sock *msk, u64 now);
void mrc_path_validate(struct mrc_sock *msk, u64 now,
		       struct sk_buff_head *queue);
u64 mrc_path_next_validation(struct mrc_sock *msk);
void mrc_path_ce(struct mrc_conn_plane *cp, struct mrc_ev *ev);
void mrc_path_unmarked(struct mrc_ev *ev);
bool mrc_path_ce_round(struct mrc_conn_plane *cp);
void mrc_path_acked(struct mrc_ev *ev);
struct mrc_ev *mrc_path_find_ev(struct mrc_sock *msk, u16 port,
				struct mrc_conn_plane **cpp);
void mrc_path_planes_changed(struct mrc_net *mn);
void mrc_path_planes_work(struct work_struct *work);

/* timer.c */
void mrc_timer_init(struct mrc_sock *msk);
void mrc_timer_update(struct mrc_sock *msk);
void mrc_rto_arm(struct mrc_sock *msk);
void mrc_ack_arm(struct mrc_sock *msk, u64 delay_ns);

/* data.c */
int mrc_send_pkts(struct mrc_sock *msk, struct sk_buff_head *pkts,
		  int reserved, gfp_t gfp);
int mrc_sendmsg(struct socket *sock, struct msghdr *msg, size_t len);
int mrc_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		int flags);
bool mrc_rcv_window_full(const struct mrc_sock *msk);
u32 mrc_rcv_pkt_cost(const struct mrc_sock *msk);

/* sysctl.c */
extern atomic_long_t mrc_memory_allocated;
DECLARE_PER_CPU(int, mrc_memory_per_cpu_fw_alloc);
extern long sysctl_mrc_mem[3];
extern unsigned long mrc_memory_pressure;
extern struct percpu_counter mrc_sockets_allocated;
void mrc_enter_memory_pressure(struct sock *sk);
extern int sysctl_mrc_wmem[3];
extern int sysctl_mrc_rmem[3];
int mrc_sysctl_init(void);
void mrc_sysctl_exit(void);
void mrc_sysctl_net_defaults(struct mrc_net *mn);
int mrc_sysctl_net_init(struct mrc_net *mn);
void mrc_sysctl_net_exit(struct mrc_net *mn);

static inline u64 mrc_ms_ns(u32 ms)
{
	return (u64)ms * NSEC_PER_MSEC;
}

static inline u64 mrc_us_ns(u32 us)
{
	return (u64)us * NSEC_PER_USEC;
}

/* netlink.c */
int mrc_netlink_init(void);
void mrc_netlink_exit(void);
void mrc_nl_notify_plane(const struct mrc_plane *plane, u8 cmd);
void mrc_nl_notify_pending(struct mrc_net *mn,
			   const struct mrc_plane_pending *pending, u8 cmd);
void mrc_nl_conn_up(struct mrc_sock *msk);
void mrc_nl_conn_down(struct mrc_sock *msk, enum mrc_conn_end why, int err);
void mrc_nl_conn_plane(struct mrc_sock *msk, int id, bool joined);
void mrc_nl_conn_ev(struct mrc_sock *msk, int id, const struct mrc_ev *ev,
		    bool restored);
bool mrc_nl_may_see_ids(const struct sk_buff *skb, kuid_t owner);
int mrc_nl_put_addr(struct sk_buff *skb, int attr4, int attr6,
		    const struct mrc_addr *addr);

/* diag.c */
int mrc_diag_init(void);
void mrc_diag_exit(void);

#endif /* _NET_MRC_MRC_H */
