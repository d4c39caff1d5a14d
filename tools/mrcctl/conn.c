// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: "conn" commands, the connections of a network namespace and the
 * planes each one uses.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <linux/genetlink.h>

#include "mrcctl.h"

enum conn_kw {
	CONN_KW_ID,
	CONN_KW_COUNT,
};

static const char *const conn_keywords[CONN_KW_COUNT] = {
	[CONN_KW_ID]	= "id",
};

struct conn_args {
	unsigned long seen;	/* BIT(CONN_KW_*) of each keyword given */
	__u32 id;
};

const char *const conn_usage_lines[] = {
	"conn { show | list } [ id ID ]",
	"conn help",
	NULL
};

void conn_usage(FILE *out)
{
	usage_print(out, conn_usage_lines, false);
}

static const char *const conn_state_names[] = {
	[MRC_CONN_STATE_SYN_SENT]	= "syn-sent",
	[MRC_CONN_STATE_ESTABLISHED]	= "established",
	[MRC_CONN_STATE_CLOSING]	= "closing",
	[MRC_CONN_STATE_CLOSED]		= "closed",
	[MRC_CONN_STATE_SYN_RECV]	= "syn-recv",
};

static const char *const conn_type_names[] = {
	[MRC_CONN_TYPE_STREAM]		= "stream",
	[MRC_CONN_TYPE_SEQPACKET]	= "seqpacket",
};

/* A number of bytes for people: 999B, 1.2kB, 3.4MB, in powers of 1000. */
static void bytes_text(unsigned long long n, char *buf, size_t len)
{
	static const char *const units[] = { "kB", "MB", "GB", "TB", "PB", "EB" };
	double v = n;
	size_t u = 0;

	if (n < 1000) {
		snprintf(buf, len, "%lluB", n);
		return;
	}
	for (v /= 1000; v >= 999.95 && u + 1 < ARRAY_SIZE(units); u++)
		v /= 1000;
	snprintf(buf, len, "%.1f%s", v, units[u]);
}

/* The connection's fields. */

static bool conn_peer_id(const struct nlattr *const *tb, char *buf)
{
	return field_hex_u32(tb[MRC_CONN_ATTR_PEER_ID], buf);
}

static bool conn_type(const struct nlattr *const *tb, char *buf)
{
	return field_enum(tb[MRC_CONN_ATTR_TYPE], conn_type_names,
			  ARRAY_SIZE(conn_type_names), buf);
}

static bool conn_state(const struct nlattr *const *tb, char *buf)
{
	return field_enum(tb[MRC_CONN_ATTR_STATE], conn_state_names,
			  ARRAY_SIZE(conn_state_names), buf);
}

static bool conn_peer_family(const struct nlattr *const *tb, char *buf)
{
	return field_addr_family(tb, MRC_CONN_ATTR_PEER_ADDR4,
				 MRC_CONN_ATTR_PEER_ADDR6, buf);
}

static bool conn_peer_address(const struct nlattr *const *tb, char *buf)
{
	return field_addr_text(tb, MRC_CONN_ATTR_PEER_ADDR4,
			       MRC_CONN_ATTR_PEER_ADDR6, buf);
}

/* "10.0.1.2:40000" or "[fd00:1::2]:40000". */
static bool conn_peer(const struct nlattr *const *tb, char *buf)
{
	return tb[MRC_CONN_ATTR_PEER_PORT] &&
	       field_addr_port(tb, MRC_CONN_ATTR_PEER_ADDR4,
			       MRC_CONN_ATTR_PEER_ADDR6,
			       tb[MRC_CONN_ATTR_PEER_PORT], buf);
}

static const struct nl_policy conn_policy[MRC_CONN_ATTR_MAX + 1] = {
	[MRC_CONN_ATTR_ID]		= { MNL_TYPE_U32 },
	[MRC_CONN_ATTR_PEER_ID]		= { MNL_TYPE_U32 },
	[MRC_CONN_ATTR_STATE]		= { MNL_TYPE_U32 },
	[MRC_CONN_ATTR_TYPE]		= { MNL_TYPE_U32 },
	[MRC_CONN_ATTR_PORT]		= { MNL_TYPE_U16 },
	[MRC_CONN_ATTR_PEER_PORT]	= { MNL_TYPE_U16 },
	[MRC_CONN_ATTR_PEER_ADDR4]	= { MNL_TYPE_U32 },
	[MRC_CONN_ATTR_PEER_ADDR6]	= { MNL_TYPE_BINARY,
					    sizeof(struct in6_addr) },
	[MRC_CONN_ATTR_MSS]		= { MNL_TYPE_U32 },
	[MRC_CONN_ATTR_SND_WND]		= { MNL_TYPE_U32 },
	[MRC_CONN_ATTR_RCV_WND]		= { MNL_TYPE_U32 },
	[MRC_CONN_ATTR_INFLIGHT]	= { MNL_TYPE_U32 },
	[MRC_CONN_ATTR_PAD]		= { MNL_TYPE_UNSPEC },
	[MRC_CONN_ATTR_TX_PACKETS]	= { MNL_TYPE_U64 },
	[MRC_CONN_ATTR_RX_PACKETS]	= { MNL_TYPE_U64 },
	[MRC_CONN_ATTR_RETRANSMITS]	= { MNL_TYPE_U64 },
	[MRC_CONN_ATTR_TIMEOUTS]	= { MNL_TYPE_U64 },
	[MRC_CONN_ATTR_RX_DROPPED]	= { MNL_TYPE_U64 },
	[MRC_CONN_ATTR_RX_DUPLICATES]	= { MNL_TYPE_U64 },
	[MRC_CONN_ATTR_ACKS_SENT]	= { MNL_TYPE_U64 },
	[MRC_CONN_ATTR_PLANE]		= { MNL_TYPE_NESTED },
	[MRC_CONN_ATTR_END_REASON]	= { MNL_TYPE_U32 },
	[MRC_CONN_ATTR_ERROR]		= { MNL_TYPE_U32 },
};

/*
 * The text line starts with "conn ID", printed apart; the fields without a
 * label are for JSON only, those without a JSON key for text only.
 */
static const struct field conn_field_list[] = {
	{ .json = "id",
	  .type = FIELD_U32, .attr = MRC_CONN_ATTR_ID },
	{ .label = "peer",
	  .type = FIELD_TEXT, .format = conn_peer_id },
	{ .json = "peer_id",
	  .type = FIELD_U32, .attr = MRC_CONN_ATTR_PEER_ID },
	{ .json = "type", .label = "type",
	  .type = FIELD_TEXT, .format = conn_type },
	{ .json = "state", .label = "state",
	  .type = FIELD_TEXT, .format = conn_state },
	{ .json = "port", .label = "port",
	  .type = FIELD_U16, .attr = MRC_CONN_ATTR_PORT },
	{ .label = "peer",
	  .type = FIELD_TEXT, .format = conn_peer },
	{ .json = "peer_family",
	  .type = FIELD_TEXT, .format = conn_peer_family },
	{ .json = "peer_address",
	  .type = FIELD_TEXT, .format = conn_peer_address },
	{ .json = "peer_port",
	  .type = FIELD_U16, .attr = MRC_CONN_ATTR_PEER_PORT },
	{ .json = "mss", .label = "mss",
	  .type = FIELD_U32, .attr = MRC_CONN_ATTR_MSS },
	{ .json = "snd_wnd", .label = "snd_wnd",
	  .type = FIELD_U32, .attr = MRC_CONN_ATTR_SND_WND },
	{ .json = "rcv_wnd", .label = "rcv_wnd",
	  .type = FIELD_U32, .attr = MRC_CONN_ATTR_RCV_WND },
	{ .json = "inflight", .label = "inflight",
	  .type = FIELD_U32, .attr = MRC_CONN_ATTR_INFLIGHT },
};

static const struct field_set conn_fields = {
	.policy	= conn_policy,
	.max	= MRC_CONN_ATTR_MAX,
	.fields	= conn_field_list,
	.n	= ARRAY_SIZE(conn_field_list),
};

/* The counters, shown with -s. */
static const struct field conn_stats_field_list[] = {
	{ .json = "tx_packets", .label = "tx",
	  .type = FIELD_U64, .attr = MRC_CONN_ATTR_TX_PACKETS },
	{ .json = "rx_packets", .label = "rx",
	  .type = FIELD_U64, .attr = MRC_CONN_ATTR_RX_PACKETS },
	{ .json = "retransmits", .label = "retx",
	  .type = FIELD_U64, .attr = MRC_CONN_ATTR_RETRANSMITS },
	{ .json = "timeouts", .label = "timeouts",
	  .type = FIELD_U64, .attr = MRC_CONN_ATTR_TIMEOUTS },
	{ .json = "rx_dropped", .label = "rx_dropped",
	  .type = FIELD_U64, .attr = MRC_CONN_ATTR_RX_DROPPED },
	{ .json = "rx_duplicates", .label = "rx_duplicates",
	  .type = FIELD_U64, .attr = MRC_CONN_ATTR_RX_DUPLICATES },
	{ .json = "acks_sent", .label = "acks_sent",
	  .type = FIELD_U64, .attr = MRC_CONN_ATTR_ACKS_SENT },
};

const struct field_set conn_stats_fields = {
	.policy	= conn_policy,
	.max	= MRC_CONN_ATTR_MAX,
	.fields	= conn_stats_field_list,
	.n	= ARRAY_SIZE(conn_stats_field_list),
};

/* The fields of a plane of the connection. */

static bool plane_peer_family(const struct nlattr *const *tb, char *buf)
{
	return field_addr_family(tb, MRC_CONN_PLANE_ATTR_PEER_ADDR4,
				 MRC_CONN_PLANE_ATTR_PEER_ADDR6, buf);
}

static bool plane_peer_address(const struct nlattr *const *tb, char *buf)
{
	return field_addr_text(tb, MRC_CONN_PLANE_ATTR_PEER_ADDR4,
			       MRC_CONN_PLANE_ATTR_PEER_ADDR6, buf);
}

static bool plane_us(const struct nlattr *attr, char *buf)
{
	if (!attr)
		return false;
	snprintf(buf, FIELD_LEN, "%uus", mnl_attr_get_u32(attr));
	return true;
}

static bool plane_srtt(const struct nlattr *const *tb, char *buf)
{
	return plane_us(tb[MRC_CONN_PLANE_ATTR_SRTT], buf);
}

static bool plane_base_rtt(const struct nlattr *const *tb, char *buf)
{
	return plane_us(tb[MRC_CONN_PLANE_ATTR_BASE_RTT], buf);
}

static bool plane_probe_gap(const struct nlattr *const *tb, char *buf)
{
	return plane_us(tb[MRC_CONN_PLANE_ATTR_PROBE_GAP], buf);
}

static bool plane_reorder(const struct nlattr *const *tb, char *buf)
{
	return plane_us(tb[MRC_CONN_PLANE_ATTR_REORDER_WINDOW], buf);
}

/* "1234 pkts 1.7MB" */
static bool plane_tx(const struct nlattr *const *tb, char *buf)
{
	const struct nlattr *pkts = tb[MRC_CONN_PLANE_ATTR_TX_PACKETS];
	const struct nlattr *bytes = tb[MRC_CONN_PLANE_ATTR_TX_BYTES];
	char size[16];

	if (!pkts || !bytes)
		return false;
	bytes_text(mnl_attr_get_u64(bytes), size, sizeof(size));
	snprintf(buf, FIELD_LEN, "%llu pkts %s",
		 (unsigned long long)mnl_attr_get_u64(pkts), size);
	return true;
}

static const struct nl_policy conn_plane_policy[MRC_CONN_PLANE_ATTR_MAX + 1] = {
	[MRC_CONN_PLANE_ATTR_ID]		= { MNL_TYPE_U32 },
	[MRC_CONN_PLANE_ATTR_PEER_ADDR4]	= { MNL_TYPE_U32 },
	[MRC_CONN_PLANE_ATTR_PEER_ADDR6]	= { MNL_TYPE_BINARY,
						    sizeof(struct in6_addr) },
	[MRC_CONN_PLANE_ATTR_EVS]		= { MNL_TYPE_U32 },
	[MRC_CONN_PLANE_ATTR_CWND]		= { MNL_TYPE_U32 },
	[MRC_CONN_PLANE_ATTR_SRTT]		= { MNL_TYPE_U32 },
	[MRC_CONN_PLANE_ATTR_INFLIGHT]		= { MNL_TYPE_U32 },
	[MRC_CONN_PLANE_ATTR_PAD]		= { MNL_TYPE_UNSPEC },
	[MRC_CONN_PLANE_ATTR_TX_PACKETS]	= { MNL_TYPE_U64 },
	[MRC_CONN_PLANE_ATTR_TX_BYTES]		= { MNL_TYPE_U64 },
	[MRC_CONN_PLANE_ATTR_RX_PACKETS]	= { MNL_TYPE_U64 },
	[MRC_CONN_PLANE_ATTR_RETRANSMITS]	= { MNL_TYPE_U64 },
	[MRC_CONN_PLANE_ATTR_EVS_ACTIVE]	= { MNL_TYPE_U32 },
	[MRC_CONN_PLANE_ATTR_UP]		= { MNL_TYPE_U8 },
	[MRC_CONN_PLANE_ATTR_RETIREMENTS]	= { MNL_TYPE_U64 },
	[MRC_CONN_PLANE_ATTR_PROBES]		= { MNL_TYPE_U64 },
	[MRC_CONN_PLANE_ATTR_RESTORES]		= { MNL_TYPE_U64 },
	[MRC_CONN_PLANE_ATTR_CE_MARKS]		= { MNL_TYPE_U64 },
	[MRC_CONN_PLANE_ATTR_NACKS]		= { MNL_TYPE_U64 },
	[MRC_CONN_PLANE_ATTR_RETIRED_EV]	= { MNL_TYPE_U16 },
	[MRC_CONN_PLANE_ATTR_ADDR4]		= { MNL_TYPE_U32 },
	[MRC_CONN_PLANE_ATTR_ADDR6]		= { MNL_TYPE_BINARY,
						    sizeof(struct in6_addr) },
	[MRC_CONN_PLANE_ATTR_UDP_PORT]		= { MNL_TYPE_U16 },
	[MRC_CONN_PLANE_ATTR_EV]		= { MNL_TYPE_U16 },
	[MRC_CONN_PLANE_ATTR_FLOW_LABEL]	= { MNL_TYPE_U32 },
	[MRC_CONN_PLANE_ATTR_LOSSES]		= { MNL_TYPE_U32 },
	[MRC_CONN_PLANE_ATTR_STATE]		= { MNL_TYPE_U32 },
	[MRC_CONN_PLANE_ATTR_BASE_RTT]		= { MNL_TYPE_U32 },
	[MRC_CONN_PLANE_ATTR_EVS_SILENCED]	= { MNL_TYPE_U32 },
	[MRC_CONN_PLANE_ATTR_PROBE_GAP]		= { MNL_TYPE_U32 },
	[MRC_CONN_PLANE_ATTR_REORDER_WINDOW]	= { MNL_TYPE_U32 },
};

/* The text line starts with "plane ID", printed apart. */
static const struct field conn_plane_field_list[] = {
	{ .json = "id",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_ID },
	{ .json = "peer_family",
	  .type = FIELD_TEXT, .format = plane_peer_family },
	{ .json = "peer_address", .label = "peer",
	  .type = FIELD_TEXT, .format = plane_peer_address },
	{ .json = "evs", .label = "evs",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_EVS },
	{ .json = "evs_active", .label = "active",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_EVS_ACTIVE },
	{ .json = "cwnd", .label = "cwnd",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_CWND },
	{ .label = "srtt",
	  .type = FIELD_TEXT, .format = plane_srtt },
	{ .json = "srtt_us",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_SRTT },
	{ .label = "base",
	  .type = FIELD_TEXT, .format = plane_base_rtt },
	{ .json = "base_rtt_us",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_BASE_RTT },
	{ .json = "inflight", .label = "inflight",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_INFLIGHT },
};

static const struct field_set conn_plane_fields = {
	.policy	= conn_plane_policy,
	.max	= MRC_CONN_PLANE_ATTR_MAX,
	.fields	= conn_plane_field_list,
	.n	= ARRAY_SIZE(conn_plane_field_list),
};

static const struct field conn_plane_stats_field_list[] = {
	{ .label = "tx",
	  .type = FIELD_TEXT, .format = plane_tx },
	{ .json = "tx_packets",
	  .type = FIELD_U64, .attr = MRC_CONN_PLANE_ATTR_TX_PACKETS },
	{ .json = "tx_bytes",
	  .type = FIELD_U64, .attr = MRC_CONN_PLANE_ATTR_TX_BYTES },
	{ .json = "rx_packets", .label = "rx",
	  .type = FIELD_U64, .attr = MRC_CONN_PLANE_ATTR_RX_PACKETS },
	{ .json = "retransmits", .label = "retx",
	  .type = FIELD_U64, .attr = MRC_CONN_PLANE_ATTR_RETRANSMITS },
	{ .json = "retirements", .label = "retired",
	  .type = FIELD_U64, .attr = MRC_CONN_PLANE_ATTR_RETIREMENTS },
	{ .json = "probes", .label = "probes",
	  .type = FIELD_U64, .attr = MRC_CONN_PLANE_ATTR_PROBES },
	{ .json = "restores", .label = "restored",
	  .type = FIELD_U64, .attr = MRC_CONN_PLANE_ATTR_RESTORES },
	{ .json = "evs_silenced", .label = "silenced",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_EVS_SILENCED },
	{ .label = "probe_gap",
	  .type = FIELD_TEXT, .format = plane_probe_gap },
	{ .json = "probe_gap_us",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_PROBE_GAP },
	{ .label = "reorder",
	  .type = FIELD_TEXT, .format = plane_reorder },
	{ .json = "reorder_us",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_REORDER_WINDOW },
	{ .json = "ce_marks", .label = "ce",
	  .type = FIELD_U64, .attr = MRC_CONN_PLANE_ATTR_CE_MARKS },
	{ .json = "nacks", .label = "nacks",
	  .type = FIELD_U64, .attr = MRC_CONN_PLANE_ATTR_NACKS },
};

static const struct field_set conn_plane_stats_fields = {
	.policy	= conn_plane_policy,
	.max	= MRC_CONN_PLANE_ATTR_MAX,
	.fields	= conn_plane_stats_field_list,
	.n	= ARRAY_SIZE(conn_plane_stats_field_list),
};

/*
 * Events of the "conn" and "path" groups, for monitor.c: a connection
 * named by its ids and ports, and one plane of it or each.
 */

static const char *const conn_end_names[] = {
	[MRC_CONN_END_CLOSED]		= "closed",
	[MRC_CONN_END_RESET]		= "reset",
	[MRC_CONN_END_REFUSED]		= "refused",
	[MRC_CONN_END_TIMEOUT]		= "timeout",
	[MRC_CONN_END_DEAD_PEER]	= "dead-peer",
	[MRC_CONN_END_ABORTED]		= "aborted",
	[MRC_CONN_END_ERROR]		= "error",
};

static bool conn_id(const struct nlattr *const *tb, char *buf)
{
	return field_hex_u32(tb[MRC_CONN_ATTR_ID], buf);
}

static bool conn_end(const struct nlattr *const *tb, char *buf)
{
	return field_enum(tb[MRC_CONN_ATTR_END_REASON], conn_end_names,
			  ARRAY_SIZE(conn_end_names), buf);
}

/* The socket's error by its name, "ECONNRESET"; none when 0. */
static bool conn_error(const struct nlattr *const *tb, char *buf)
{
	const char *name;
	__u32 err;

	if (!tb[MRC_CONN_ATTR_ERROR])
		return false;
	err = mnl_attr_get_u32(tb[MRC_CONN_ATTR_ERROR]);
	if (!err)
		return false;
	name = err <= INT_MAX ? strerrorname_np(err) : NULL;
	if (name)
		snprintf(buf, FIELD_LEN, "%s", name);
	else
		snprintf(buf, FIELD_LEN, "%u", err);
	return true;
}

/* Up, down, and a plane left or joined: "conn up id 0x6b8b4567 ...". */
static const struct field conn_event_field_list[] = {
	{ .json = "id",
	  .type = FIELD_U32, .attr = MRC_CONN_ATTR_ID },
	{ .label = "id",
	  .type = FIELD_TEXT, .format = conn_id },
	{ .label = "peer",
	  .type = FIELD_TEXT, .format = conn_peer_id },
	{ .json = "peer_id",
	  .type = FIELD_U32, .attr = MRC_CONN_ATTR_PEER_ID },
	{ .json = "type", .label = "type",
	  .type = FIELD_TEXT, .format = conn_type },
	{ .json = "port", .label = "port",
	  .type = FIELD_U16, .attr = MRC_CONN_ATTR_PORT },
	{ .label = "peer",
	  .type = FIELD_TEXT, .format = conn_peer },
	{ .json = "peer_family",
	  .type = FIELD_TEXT, .format = conn_peer_family },
	{ .json = "peer_address",
	  .type = FIELD_TEXT, .format = conn_peer_address },
	{ .json = "peer_port",
	  .type = FIELD_U16, .attr = MRC_CONN_ATTR_PEER_PORT },
	{ .json = "reason", .label = "reason",
	  .type = FIELD_TEXT, .format = conn_end },
	{ .json = "error",
	  .type = FIELD_U32, .attr = MRC_CONN_ATTR_ERROR },
	{ .label = "error",
	  .type = FIELD_TEXT, .format = conn_error },
};

const struct field_set conn_event_fields = {
	.policy	= conn_policy,
	.max	= MRC_CONN_ATTR_MAX,
	.fields	= conn_event_field_list,
	.n	= ARRAY_SIZE(conn_event_field_list),
};

/* An EV retired or restored: "ev retired conn 0x6b8b4567 ...". */
static const struct field ev_event_field_list[] = {
	{ .json = "id",
	  .type = FIELD_U32, .attr = MRC_CONN_ATTR_ID },
	{ .label = "conn",
	  .type = FIELD_TEXT, .format = conn_id },
	{ .label = "peer",
	  .type = FIELD_TEXT, .format = conn_peer_id },
	{ .json = "peer_id",
	  .type = FIELD_U32, .attr = MRC_CONN_ATTR_PEER_ID },
	{ .json = "port",
	  .type = FIELD_U16, .attr = MRC_CONN_ATTR_PORT },
	{ .json = "peer_port",
	  .type = FIELD_U16, .attr = MRC_CONN_ATTR_PEER_PORT },
};

const struct field_set ev_event_fields = {
	.policy	= conn_policy,
	.max	= MRC_CONN_ATTR_MAX,
	.fields	= ev_event_field_list,
	.n	= ARRAY_SIZE(ev_event_field_list),
};

static bool event_plane_address(const struct nlattr *const *tb, char *buf)
{
	return field_addr_text(tb, MRC_CONN_PLANE_ATTR_ADDR4,
			       MRC_CONN_PLANE_ATTR_ADDR6, buf);
}

/* Where the plane's packets come from: our address, and the EV's port. */
static bool event_plane_from(const struct nlattr *const *tb, char *buf)
{
	return field_addr_port(tb, MRC_CONN_PLANE_ATTR_ADDR4,
			       MRC_CONN_PLANE_ATTR_ADDR6,
			       tb[MRC_CONN_PLANE_ATTR_EV], buf);
}

/* Where they go: the peer's address, and the UDP port. */
static bool event_plane_to(const struct nlattr *const *tb, char *buf)
{
	return field_addr_port(tb, MRC_CONN_PLANE_ATTR_PEER_ADDR4,
			       MRC_CONN_PLANE_ATTR_PEER_ADDR6,
			       tb[MRC_CONN_PLANE_ATTR_UDP_PORT], buf);
}

static bool event_plane_flow_label(const struct nlattr *const *tb, char *buf)
{
	if (!tb[MRC_CONN_PLANE_ATTR_FLOW_LABEL])
		return false;
	snprintf(buf, FIELD_LEN, "0x%05x",
		 mnl_attr_get_u32(tb[MRC_CONN_PLANE_ATTR_FLOW_LABEL]));
	return true;
}

static bool event_plane_state(const struct nlattr *const *tb, char *buf)
{
	return plane_state_text(tb[MRC_CONN_PLANE_ATTR_STATE], buf);
}

/*
 * The plane of an event: "plane 1 ev 61234 flowlabel 0x0ef32 from
 * [fd00:1::1]:61234 to [fd00:1::2]:4793 losses 1 active 31", the 5-tuple
 * and the flow label of an EV's packets, as a fabric's ECMP hashes them.
 */
static const struct field event_plane_field_list[] = {
	{ .json = "id", .label = "plane",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_ID },
	{ .json = "ev", .label = "ev",
	  .type = FIELD_U16, .attr = MRC_CONN_PLANE_ATTR_EV },
	{ .json = "flowlabel",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_FLOW_LABEL },
	{ .label = "flowlabel",
	  .type = FIELD_TEXT, .format = event_plane_flow_label },
	{ .json = "family",
	  .type = FIELD_TEXT, .format = plane_peer_family },
	{ .json = "address",
	  .type = FIELD_TEXT, .format = event_plane_address },
	{ .label = "from",
	  .type = FIELD_TEXT, .format = event_plane_from },
	{ .json = "peer_address",
	  .type = FIELD_TEXT, .format = plane_peer_address },
	{ .label = "to",
	  .type = FIELD_TEXT, .format = event_plane_to },
	{ .json = "udp_port",
	  .type = FIELD_U16, .attr = MRC_CONN_PLANE_ATTR_UDP_PORT },
	{ .json = "state", .label = "state",
	  .type = FIELD_TEXT, .format = event_plane_state },
	{ .json = "losses", .label = "losses",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_LOSSES },
	{ .json = "evs",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_EVS },
	{ .json = "evs_active", .label = "active",
	  .type = FIELD_U32, .attr = MRC_CONN_PLANE_ATTR_EVS_ACTIVE },
};

const struct field_set event_plane_fields = {
	.policy	= conn_plane_policy,
	.max	= MRC_CONN_PLANE_ATTR_MAX,
	.fields	= event_plane_field_list,
	.n	= ARRAY_SIZE(event_plane_field_list),
};

/* A connection id: decimal, or hexadecimal after "0x" as it is shown. */
int conn_parse_id(const char *arg, __u32 *id)
{
	unsigned long v;
	char *end;

	if (strncmp(arg, "0x", 2) && strncmp(arg, "0X", 2))
		return parse_u32(arg, id);
	if (!isxdigit((unsigned char)arg[2]))
		return -1;
	errno = 0;
	v = strtoul(arg + 2, &end, 16);
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*id = v;
	return 0;
}

static int conn_parse_value(void *data, int kw, const char *val)
{
	struct conn_args *args = data;

	if (!conn_parse_id(val, &args->id))
		return 0;
	return usage_error(conn_usage, "invalid %s \"%s\"", conn_keywords[kw],
			   val);
}

static const struct keywords conn_kws = {
	.words	= conn_keywords,
	.n	= CONN_KW_COUNT,
	.usage	= conn_usage,
};

struct conn_show {
	struct mrcctl *ctl;
	bool started;		/* '[' printed */
};

static void conn_show_start(struct conn_show *show)
{
	struct mrcctl *ctl = show->ctl;

	if (show->started)
		return;
	show->started = true;
	if (ctl->json) {
		json_init(&ctl->jw, stdout, ctl->pretty);
		json_arr_open(&ctl->jw, NULL);
	}
}

/*
 * The EVs of a plane out of use (-s): the UDP source ports, and on IPv6
 * the flow labels, that a network engineer maps to fabric links.
 */
static void conn_show_retired(struct mrcctl *ctl, const struct nlattr *plane)
{
	const struct nlattr *attr;
	bool first = true;

	if (ctl->json)
		json_arr_open(&ctl->jw, "retired_evs");
	mnl_attr_for_each_nested(attr, plane) {
		if (mnl_attr_get_type(attr) != MRC_CONN_PLANE_ATTR_RETIRED_EV)
			continue;
		if (ctl->json)
			json_uint(&ctl->jw, NULL, mnl_attr_get_u16(attr));
		else
			printf("%s%u", first ? " retired_evs " : ",",
			       mnl_attr_get_u16(attr));
		first = false;
	}
	if (ctl->json)
		json_arr_close(&ctl->jw);
}

/* Print the planes of a connection, as lines or as a JSON array. */
static int conn_show_planes(struct conn_show *show, const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[MRC_ATTR_TB_SIZE];
	struct mrcctl *ctl = show->ctl;
	const struct nlattr *attr;
	char id[FIELD_LEN];

	if (ctl->json)
		json_arr_open(&ctl->jw, "planes");
	mnl_attr_for_each(attr, nlh, GENL_HDRLEN) {
		if (mnl_attr_get_type(attr) != MRC_CONN_ATTR_PLANE)
			continue;
		if (nl_parse_nested(attr, conn_plane_policy,
				    MRC_CONN_PLANE_ATTR_MAX, tb) < 0)
			return -1;
		if (ctl->json) {
			json_obj_open(&ctl->jw, NULL);
			field_json_members(&ctl->jw, &conn_plane_fields, tb);
			if (ctl->stats) {
				field_json_members(&ctl->jw,
						   &conn_plane_stats_fields, tb);
				conn_show_retired(ctl, attr);
			}
			json_obj_close(&ctl->jw);
			continue;
		}
		if (tb[MRC_CONN_PLANE_ATTR_ID])
			snprintf(id, sizeof(id), "%u",
				 mnl_attr_get_u32(tb[MRC_CONN_PLANE_ATTR_ID]));
		else
			snprintf(id, sizeof(id), "-");
		printf("  plane %s", id);
		field_pairs(stdout, &conn_plane_fields, tb, " ", "");
		if (ctl->stats) {
			field_pairs(stdout, &conn_plane_stats_fields, tb, " ",
				    "");
			conn_show_retired(ctl, attr);
		}
		putchar('\n');
	}
	if (ctl->json)
		json_arr_close(&ctl->jw);
	return 0;
}

static int conn_show_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MRC_ATTR_TB_SIZE];
	struct conn_show *show = data;
	struct mrcctl *ctl = show->ctl;
	char id[FIELD_LEN];

	if (field_parse(&conn_fields, nlh, tb) < 0)
		return MNL_CB_ERROR;

	conn_show_start(show);
	if (ctl->json) {
		json_obj_open(&ctl->jw, NULL);
		field_json_members(&ctl->jw, &conn_fields, tb);
		if (ctl->stats)
			field_json_members(&ctl->jw, &conn_stats_fields, tb);
	} else {
		if (!field_hex_u32(tb[MRC_CONN_ATTR_ID], id))
			snprintf(id, sizeof(id), "-");
		printf("conn %s", id);
		field_pairs(stdout, &conn_fields, tb, " ", "");
		putchar('\n');
		if (ctl->stats) {
			putchar(' ');
			field_pairs(stdout, &conn_stats_fields, tb, " ", "");
			putchar('\n');
		}
	}
	if (conn_show_planes(show, nlh) < 0)
		return MNL_CB_ERROR;
	if (ctl->json)
		json_obj_close(&ctl->jw);
	return MNL_CB_OK;
}

/* Show one connection, or dump them all. */
static int conn_show(struct mrcctl *ctl, int argc, char **argv)
{
	struct conn_show show = { .ctl = ctl };
	struct conn_args args = { 0 };
	struct nlmsghdr *nlh;
	int err;

	err = keywords_parse(&conn_kws, KW_ALL, argc, argv, &args.seen,
			     conn_parse_value, &args);
	if (err)
		return err;

	nlh = mrcctl_msg(ctl, MRC_CMD_CONN_GET,
			 args.seen ? NLM_F_ACK : NLM_F_DUMP);
	if (!nlh)
		return EXIT_FAILURE;
	if (args.seen & BIT(CONN_KW_ID))
		mnl_attr_put_u32(nlh, MRC_CONN_ATTR_ID, args.id);
	if (mrc_nl_request(&ctl->nl, nlh, conn_show_cb, &show) < 0)
		return EXIT_FAILURE;

	/* No connection: no output as text, but an empty JSON array. */
	if (ctl->json) {
		conn_show_start(&show);
		json_arr_close(&ctl->jw);
	}
	return EXIT_SUCCESS;
}

enum conn_cmd {
	CONN_SHOW,
	CONN_LIST,
	CONN_HELP,
	CONN_CMD_COUNT,
};

static const char *const conn_commands[CONN_CMD_COUNT] = {
	[CONN_SHOW]	= "show",
	[CONN_LIST]	= "list",
	[CONN_HELP]	= "help",
};

int do_conn(struct mrcctl *ctl, int argc, char **argv)
{
	if (!argc)
		return conn_show(ctl, 0, argv);

	switch (keyword_parse(argv[0], "command", conn_commands,
			      CONN_CMD_COUNT, KW_ALL, conn_usage)) {
	case CONN_SHOW:
	case CONN_LIST:
		return conn_show(ctl, argc - 1, argv + 1);
	case CONN_HELP:
		conn_usage(stdout);
		return EXIT_SUCCESS;
	default:
		return EXIT_USAGE;
	}
}
