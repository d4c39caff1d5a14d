// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: "conn" commands, the connections of a network namespace and the
 * planes each one uses.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
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

/* The name of an enum value, or its number if this tool does not know it. */
static bool enum_name(const struct nlattr *attr, const char *const *names,
		      size_t n, char *buf)
{
	__u32 val;

	if (!attr)
		return false;
	val = mnl_attr_get_u32(attr);
	if (val < n && names[val])
		snprintf(buf, FIELD_LEN, "%s", names[val]);
	else
		snprintf(buf, FIELD_LEN, "%u", val);
	return true;
}

/* An address attribute, IPv4 or IPv6, and its family. */
static const struct nlattr *addr_attr(const struct nlattr *const *tb,
				      int attr4, int attr6, int *family)
{
	*family = tb[attr4] ? AF_INET : AF_INET6;
	return tb[attr4] ? tb[attr4] : tb[attr6];
}

static bool addr_family(const struct nlattr *const *tb, int attr4, int attr6,
			char *buf)
{
	int family;

	if (!addr_attr(tb, attr4, attr6, &family))
		return false;
	snprintf(buf, FIELD_LEN, "%s", family == AF_INET ? "inet" : "inet6");
	return true;
}

static bool addr_text(const struct nlattr *const *tb, int attr4, int attr6,
		      char *buf)
{
	const struct nlattr *addr;
	int family;

	addr = addr_attr(tb, attr4, attr6, &family);
	return addr && inet_ntop(family, mnl_attr_get_payload(addr), buf,
				 FIELD_LEN);
}

static bool hex_u32(const struct nlattr *attr, char *buf)
{
	if (!attr)
		return false;
	snprintf(buf, FIELD_LEN, "0x%08x", mnl_attr_get_u32(attr));
	return true;
}

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
	return hex_u32(tb[MRC_CONN_ATTR_PEER_ID], buf);
}

static bool conn_type(const struct nlattr *const *tb, char *buf)
{
	return enum_name(tb[MRC_CONN_ATTR_TYPE], conn_type_names,
			 ARRAY_SIZE(conn_type_names), buf);
}

static bool conn_state(const struct nlattr *const *tb, char *buf)
{
	return enum_name(tb[MRC_CONN_ATTR_STATE], conn_state_names,
			 ARRAY_SIZE(conn_state_names), buf);
}

static bool conn_peer_family(const struct nlattr *const *tb, char *buf)
{
	return addr_family(tb, MRC_CONN_ATTR_PEER_ADDR4,
			   MRC_CONN_ATTR_PEER_ADDR6, buf);
}

static bool conn_peer_address(const struct nlattr *const *tb, char *buf)
{
	return addr_text(tb, MRC_CONN_ATTR_PEER_ADDR4,
			 MRC_CONN_ATTR_PEER_ADDR6, buf);
}

/* "10.0.1.2:40000" or "[fd00:1::2]:40000". */
static bool conn_peer(const struct nlattr *const *tb, char *buf)
{
	char addr[INET6_ADDRSTRLEN];
	int family;

	if (!tb[MRC_CONN_ATTR_PEER_PORT] ||
	    !addr_attr(tb, MRC_CONN_ATTR_PEER_ADDR4, MRC_CONN_ATTR_PEER_ADDR6,
		       &family) ||
	    !conn_peer_address(tb, addr))
		return false;
	snprintf(buf, FIELD_LEN, family == AF_INET ? "%s:%u" : "[%s]:%u",
		 addr, mnl_attr_get_u16(tb[MRC_CONN_ATTR_PEER_PORT]));
	return true;
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

static const struct field_set conn_stats_fields = {
	.policy	= conn_policy,
	.max	= MRC_CONN_ATTR_MAX,
	.fields	= conn_stats_field_list,
	.n	= ARRAY_SIZE(conn_stats_field_list),
};

/* The fields of a plane of the connection. */

static bool plane_peer_family(const struct nlattr *const *tb, char *buf)
{
	return addr_family(tb, MRC_CONN_PLANE_ATTR_PEER_ADDR4,
			   MRC_CONN_PLANE_ATTR_PEER_ADDR6, buf);
}

static bool plane_peer_address(const struct nlattr *const *tb, char *buf)
{
	return addr_text(tb, MRC_CONN_PLANE_ATTR_PEER_ADDR4,
			 MRC_CONN_PLANE_ATTR_PEER_ADDR6, buf);
}

static bool plane_srtt(const struct nlattr *const *tb, char *buf)
{
	if (!tb[MRC_CONN_PLANE_ATTR_SRTT])
		return false;
	snprintf(buf, FIELD_LEN, "%uus",
		 mnl_attr_get_u32(tb[MRC_CONN_PLANE_ATTR_SRTT]));
	return true;
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
		if (!hex_u32(tb[MRC_CONN_ATTR_ID], id))
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
