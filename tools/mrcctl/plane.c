// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: "plane" commands, the network devices connections run over.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <string.h>
#include <arpa/inet.h>

#include "mrcctl.h"

enum plane_kw {
	PLANE_KW_DEV,
	PLANE_KW_ID,
	PLANE_KW_ADDR,
	PLANE_KW_EVS,
	PLANE_KW_BASE_RTT,
	PLANE_KW_UP,
	PLANE_KW_DOWN,
	PLANE_KW_COUNT,
};

static const char *const plane_keywords[PLANE_KW_COUNT] = {
	[PLANE_KW_DEV]	= "dev",
	[PLANE_KW_ID]	= "id",
	[PLANE_KW_ADDR]	= "addr",
	[PLANE_KW_EVS]	= "evs",
	[PLANE_KW_BASE_RTT] = "base-rtt",
	[PLANE_KW_UP]	= "up",
	[PLANE_KW_DOWN]	= "down",
};

/* A plane is named by its id or by its device. */
#define PLANE_KEY	(BIT(PLANE_KW_ID) | BIT(PLANE_KW_DEV))
#define PLANE_ADMIN	(BIT(PLANE_KW_UP) | BIT(PLANE_KW_DOWN))

struct plane_args {
	unsigned long seen;	/* BIT(PLANE_KW_*) of each keyword given */
	const char *ifname;
	__u32 id;
	__u32 evs;
	__u32 base_rtt_us;
	int family;
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} addr;
};

const char *const plane_usage_lines[] = {
	"plane add dev NAME [id ID] [addr ADDRESS] [evs N] [base-rtt USEC] [up|down]",
	"plane del { id ID | dev NAME }",
	"plane show [ id ID | dev NAME ]",
	"plane set { id ID | dev NAME } [up|down] [evs N] [base-rtt USEC]",
	"plane flush",
	"plane help",
	NULL
};

void plane_usage(FILE *out)
{
	usage_print(out, plane_usage_lines, false);
}

static const char *const plane_state_names[] = {
	[MRC_PLANE_STATE_UP]		= "up",
	[MRC_PLANE_STATE_ADMIN_DOWN]	= "admin-down",
	[MRC_PLANE_STATE_LINK_DOWN]	= "link-down",
	[MRC_PLANE_STATE_NO_ADDRESS]	= "no-address",
	[MRC_PLANE_STATE_NO_DEVICE]	= "no-device",
};

static bool plane_family(const struct nlattr *const *tb, char *buf)
{
	return field_addr_family(tb, MRC_PLANE_ATTR_ADDR4, MRC_PLANE_ATTR_ADDR6,
				 buf);
}

static bool plane_address(const struct nlattr *const *tb, char *buf)
{
	return field_addr_text(tb, MRC_PLANE_ATTR_ADDR4, MRC_PLANE_ATTR_ADDR6,
			       buf);
}

/* A plane state's name, or its number if this tool does not know it. */
bool plane_state_text(const struct nlattr *attr, char *buf)
{
	return field_enum(attr, plane_state_names,
			  ARRAY_SIZE(plane_state_names), buf);
}

static bool plane_state(const struct nlattr *const *tb, char *buf)
{
	return plane_state_text(tb[MRC_PLANE_ATTR_STATE], buf);
}

/* "400us", or absent when the operator gave none. */
static bool plane_base_rtt(const struct nlattr *const *tb, char *buf)
{
	const struct nlattr *attr = tb[MRC_PLANE_ATTR_BASE_RTT];

	if (!attr || !mnl_attr_get_u32(attr))
		return false;
	snprintf(buf, FIELD_LEN, "%uus", mnl_attr_get_u32(attr));
	return true;
}

static const struct nl_policy plane_policy[MRC_PLANE_ATTR_MAX + 1] = {
	[MRC_PLANE_ATTR_ID]		= { MNL_TYPE_U32 },
	[MRC_PLANE_ATTR_IFINDEX]	= { MNL_TYPE_U32 },
	[MRC_PLANE_ATTR_IFNAME]		= { MNL_TYPE_NUL_STRING },
	[MRC_PLANE_ATTR_ADDR4]		= { MNL_TYPE_U32 },
	[MRC_PLANE_ATTR_ADDR6]		= { MNL_TYPE_BINARY,
					    sizeof(struct in6_addr) },
	[MRC_PLANE_ATTR_ADMIN_UP]	= { MNL_TYPE_U8 },
	[MRC_PLANE_ATTR_STATE]		= { MNL_TYPE_U32 },
	[MRC_PLANE_ATTR_EVS]		= { MNL_TYPE_U32 },
	[MRC_PLANE_ATTR_MTU]		= { MNL_TYPE_U32 },
	[MRC_PLANE_ATTR_BASE_RTT]	= { MNL_TYPE_U32 },
};

static const struct field plane_field_list[] = {
	{ .json = "id", .label = "id", .header = "ID", .width = -2,
	  .type = FIELD_U32, .attr = MRC_PLANE_ATTR_ID },
	{ .json = "ifindex",
	  .type = FIELD_U32, .attr = MRC_PLANE_ATTR_IFINDEX },
	{ .json = "ifname", .label = "dev", .header = "DEV", .width = -7,
	  .type = FIELD_STRING, .attr = MRC_PLANE_ATTR_IFNAME },
	{ .json = "family",
	  .type = FIELD_TEXT, .format = plane_family },
	{ .json = "address", .label = "addr", .header = "ADDRESS", .width = -16,
	  .type = FIELD_TEXT, .format = plane_address },
	{ .json = "admin_up",
	  .type = FIELD_BOOL, .attr = MRC_PLANE_ATTR_ADMIN_UP },
	{ .json = "state", .label = "state", .header = "STATE", .width = -10,
	  .type = FIELD_TEXT, .format = plane_state },
	{ .json = "evs", .label = "evs", .header = "EVS", .width = 3,
	  .type = FIELD_U32, .attr = MRC_PLANE_ATTR_EVS },
	{ .json = "mtu", .label = "mtu", .header = "MTU",
	  .type = FIELD_U32, .attr = MRC_PLANE_ATTR_MTU },
	{ .label = "base-rtt", .header = "BASE-RTT",
	  .type = FIELD_TEXT, .format = plane_base_rtt },
	{ .json = "base_rtt_us",
	  .type = FIELD_U32, .attr = MRC_PLANE_ATTR_BASE_RTT },
};

const struct field_set plane_fields = {
	.policy	= plane_policy,
	.max	= MRC_PLANE_ATTR_MAX,
	.fields	= plane_field_list,
	.n	= ARRAY_SIZE(plane_field_list),
};

static int plane_parse_addr(const char *arg, struct plane_args *args)
{
	if (inet_pton(AF_INET, arg, &args->addr.v4) == 1)
		args->family = AF_INET;
	else if (inet_pton(AF_INET6, arg, &args->addr.v6) == 1)
		args->family = AF_INET6;
	else
		return usage_error(plane_usage, "invalid address \"%s\"", arg);
	return 0;
}

static int plane_parse_value(void *data, int kw, const char *val)
{
	struct plane_args *args = data;

	switch (kw) {
	case PLANE_KW_DEV:
		args->ifname = val;
		return 0;
	case PLANE_KW_ADDR:
		return plane_parse_addr(val, args);
	case PLANE_KW_ID:
		if (!parse_u32(val, &args->id))
			return 0;
		break;
	case PLANE_KW_EVS:
		if (!parse_u32(val, &args->evs))
			return 0;
		break;
	case PLANE_KW_BASE_RTT:
		if (!parse_u32(val, &args->base_rtt_us))
			return 0;
		break;
	}
	return usage_error(plane_usage, "invalid %s \"%s\"", plane_keywords[kw],
			   val);
}

static const struct keywords plane_kws = {
	.words	= plane_keywords,
	.n	= PLANE_KW_COUNT,
	.flags	= PLANE_ADMIN,
	.usage	= plane_usage,
};

/* Returns 0, or EXIT_USAGE after reporting the error. */
static int plane_parse_args(int argc, char **argv, unsigned long allowed,
			    struct plane_args *args)
{
	int err;

	memset(args, 0, sizeof(*args));
	err = keywords_parse(&plane_kws, allowed, argc, argv, &args->seen,
			     plane_parse_value, args);
	if (err)
		return err;
	if ((args->seen & PLANE_ADMIN) == PLANE_ADMIN)
		return usage_error(plane_usage,
				   "\"up\" and \"down\" exclude each other");
	return 0;
}

/* Check that the plane is named by id or device, not both. */
static int plane_check_key(const struct plane_args *args, bool required)
{
	unsigned long key = args->seen & PLANE_KEY;

	if (key == PLANE_KEY)
		return usage_error(plane_usage,
				   "name the plane by id or by dev, not both");
	if (!key && required)
		return usage_error(plane_usage,
				   "\"id\" or \"dev\" is required");
	return 0;
}

/* Add the arguments to a request; the device name last, as it may not fit. */
static int plane_put_args(struct nlmsghdr *nlh, const struct plane_args *args)
{
	if (args->seen & BIT(PLANE_KW_ID))
		mnl_attr_put_u32(nlh, MRC_PLANE_ATTR_ID, args->id);
	if (args->family == AF_INET)
		mnl_attr_put_u32(nlh, MRC_PLANE_ATTR_ADDR4,
				 args->addr.v4.s_addr);
	if (args->family == AF_INET6)
		mnl_attr_put(nlh, MRC_PLANE_ATTR_ADDR6,
			     sizeof(args->addr.v6), &args->addr.v6);
	if (args->seen & PLANE_ADMIN)
		mnl_attr_put_u8(nlh, MRC_PLANE_ATTR_ADMIN_UP,
				!!(args->seen & BIT(PLANE_KW_UP)));
	if (args->seen & BIT(PLANE_KW_EVS))
		mnl_attr_put_u32(nlh, MRC_PLANE_ATTR_EVS, args->evs);
	if (args->seen & BIT(PLANE_KW_BASE_RTT))
		mnl_attr_put_u32(nlh, MRC_PLANE_ATTR_BASE_RTT,
				 args->base_rtt_us);
	if ((args->seen & BIT(PLANE_KW_DEV)) &&
	    mrc_nl_put_strz(nlh, MRC_PLANE_ATTR_IFNAME, args->ifname) < 0) {
		fprintf(stderr, "mrcctl: device name too long\n");
		return -1;
	}
	return 0;
}

/* Send an add, del or set request; print the plane it returns if JSON. */
static int plane_do(struct mrcctl *ctl, __u8 cmd,
		    const struct plane_args *args)
{
	struct nlmsghdr *nlh = mrcctl_msg(ctl, cmd, NLM_F_ACK);

	if (!nlh || plane_put_args(nlh, args) < 0)
		return EXIT_FAILURE;
	return mrcctl_request(ctl, nlh, &plane_fields, false);
}

static int plane_add(struct mrcctl *ctl, int argc, char **argv)
{
	struct plane_args args;
	int err;

	err = plane_parse_args(argc, argv, KW_ALL, &args);
	if (err)
		return err;
	if (!(args.seen & BIT(PLANE_KW_DEV)))
		return usage_error(plane_usage, "\"dev\" is required");
	return plane_do(ctl, MRC_CMD_PLANE_ADD, &args);
}

static int plane_del(struct mrcctl *ctl, int argc, char **argv)
{
	struct plane_args args;
	int err;

	err = plane_parse_args(argc, argv, PLANE_KEY, &args);
	if (!err)
		err = plane_check_key(&args, true);
	if (err)
		return err;
	return plane_do(ctl, MRC_CMD_PLANE_DEL, &args);
}

static int plane_set(struct mrcctl *ctl, int argc, char **argv)
{
	unsigned long allowed = PLANE_KEY | PLANE_ADMIN | BIT(PLANE_KW_EVS) |
				BIT(PLANE_KW_BASE_RTT);
	struct plane_args args;
	int err;

	err = plane_parse_args(argc, argv, allowed, &args);
	if (!err)
		err = plane_check_key(&args, true);
	if (err)
		return err;
	return plane_do(ctl, MRC_CMD_PLANE_SET, &args);
}

struct plane_show {
	struct mrcctl *ctl;
	bool started;		/* header or '[' printed */
};

static void plane_show_start(struct plane_show *show)
{
	struct mrcctl *ctl = show->ctl;

	if (show->started)
		return;
	show->started = true;
	if (ctl->json) {
		json_init(&ctl->jw, stdout, ctl->pretty);
		json_arr_open(&ctl->jw, NULL);
	} else {
		field_header(stdout, &plane_fields);
	}
}

static int plane_show_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MRC_ATTR_TB_SIZE];
	struct plane_show *show = data;

	if (field_parse(&plane_fields, nlh, tb) < 0)
		return MNL_CB_ERROR;

	plane_show_start(show);
	if (show->ctl->json) {
		json_obj_open(&show->ctl->jw, NULL);
		field_json_members(&show->ctl->jw, &plane_fields, tb);
		if (show->ctl->stats &&
		    counters_show(show->ctl, nlh, MRC_PLANE_ATTR_COUNTER,
				  "stats") < 0)
			return MNL_CB_ERROR;
		json_obj_close(&show->ctl->jw);
	} else {
		field_row(stdout, &plane_fields, tb);
		if (show->ctl->stats &&
		    counters_show(show->ctl, nlh, MRC_PLANE_ATTR_COUNTER,
				  NULL) < 0)
			return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

/* Show one plane, or dump them all. */
static int plane_show(struct mrcctl *ctl, int argc, char **argv)
{
	struct plane_show show = { .ctl = ctl };
	struct plane_args args;
	struct nlmsghdr *nlh;
	int err;

	err = plane_parse_args(argc, argv, PLANE_KEY, &args);
	if (!err)
		err = plane_check_key(&args, false);
	if (err)
		return err;

	nlh = mrcctl_msg(ctl, MRC_CMD_PLANE_GET,
			 args.seen ? NLM_F_ACK : NLM_F_DUMP);
	if (!nlh || plane_put_args(nlh, &args) < 0 ||
	    mrc_nl_request(&ctl->nl, nlh, plane_show_cb, &show) < 0)
		return EXIT_FAILURE;

	/* No plane: no output as text, like "ip", but an empty JSON array. */
	if (ctl->json) {
		plane_show_start(&show);
		json_arr_close(&ctl->jw);
	}
	return EXIT_SUCCESS;
}

/* The planes of a dump, by id. */
struct plane_ids {
	__u32 id[MRC_PLANE_ID_MAX + 1];
	unsigned int n;
};

static int plane_ids_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MRC_ATTR_TB_SIZE];
	struct plane_ids *ids = data;

	if (field_parse(&plane_fields, nlh, tb) < 0 ||
	    !tb[MRC_PLANE_ATTR_ID] || ids->n == ARRAY_SIZE(ids->id))
		return MNL_CB_ERROR;
	ids->id[ids->n++] = mnl_attr_get_u32(tb[MRC_PLANE_ATTR_ID]);
	return MNL_CB_OK;
}

/* Delete every plane of the namespace. */
static int plane_flush(struct mrcctl *ctl, int argc, char **argv)
{
	struct plane_ids ids = {};
	struct nlmsghdr *nlh;
	unsigned int i;
	int err;

	err = args_none(argc, argv, plane_usage);
	if (err)
		return err;
	nlh = mrcctl_msg(ctl, MRC_CMD_PLANE_GET, NLM_F_DUMP);
	if (!nlh || mrc_nl_request(&ctl->nl, nlh, plane_ids_cb, &ids) < 0)
		return EXIT_FAILURE;
	for (i = 0; i < ids.n; i++) {
		nlh = mrcctl_msg(ctl, MRC_CMD_PLANE_DEL, NLM_F_ACK);
		if (!nlh)
			return EXIT_FAILURE;
		mnl_attr_put_u32(nlh, MRC_PLANE_ATTR_ID, ids.id[i]);
		if (mrc_nl_request(&ctl->nl, nlh, NULL, NULL) < 0)
			return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/*
 * One plane as the "plane add" command that makes it again.  A plane that
 * waits for its device cannot be added without it: it comes as a comment.
 */
static int plane_showconf_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MRC_ATTR_TB_SIZE];
	char addr[FIELD_LEN];

	(void)data;
	if (field_parse(&plane_fields, nlh, tb) < 0 ||
	    !tb[MRC_PLANE_ATTR_ID] || !tb[MRC_PLANE_ATTR_IFNAME])
		return MNL_CB_ERROR;
	if (tb[MRC_PLANE_ATTR_STATE] &&
	    mnl_attr_get_u32(tb[MRC_PLANE_ATTR_STATE]) ==
	    MRC_PLANE_STATE_NO_DEVICE)
		fputs("# no device: ", stdout);
	printf("plane add dev %s id %u",
	       mnl_attr_get_str(tb[MRC_PLANE_ATTR_IFNAME]),
	       mnl_attr_get_u32(tb[MRC_PLANE_ATTR_ID]));
	if (plane_address(tb, addr))
		printf(" addr %s", addr);
	if (tb[MRC_PLANE_ATTR_EVS])
		printf(" evs %u", mnl_attr_get_u32(tb[MRC_PLANE_ATTR_EVS]));
	if (tb[MRC_PLANE_ATTR_BASE_RTT] &&
	    mnl_attr_get_u32(tb[MRC_PLANE_ATTR_BASE_RTT]))
		printf(" base-rtt %u",
		       mnl_attr_get_u32(tb[MRC_PLANE_ATTR_BASE_RTT]));
	if (tb[MRC_PLANE_ATTR_ADMIN_UP] &&
	    !mnl_attr_get_u8(tb[MRC_PLANE_ATTR_ADMIN_UP]))
		fputs(" down", stdout);
	putchar('\n');
	return MNL_CB_OK;
}

/* The planes of the namespace as commands, for "showconf". */
int plane_showconf(struct mrcctl *ctl)
{
	struct nlmsghdr *nlh = mrcctl_msg(ctl, MRC_CMD_PLANE_GET, NLM_F_DUMP);

	if (!nlh || mrc_nl_request(&ctl->nl, nlh, plane_showconf_cb, NULL) < 0)
		return EXIT_FAILURE;
	return EXIT_SUCCESS;
}

enum plane_cmd {
	PLANE_ADD,
	PLANE_DEL,
	PLANE_SHOW,
	PLANE_SET,
	PLANE_FLUSH,
	PLANE_HELP,
	PLANE_CMD_COUNT,
};

static const char *const plane_commands[PLANE_CMD_COUNT] = {
	[PLANE_ADD]	= "add",
	[PLANE_DEL]	= "del",
	[PLANE_SHOW]	= "show",
	[PLANE_SET]	= "set",
	[PLANE_FLUSH]	= "flush",
	[PLANE_HELP]	= "help",
};

int do_plane(struct mrcctl *ctl, int argc, char **argv)
{
	if (!argc)
		return plane_show(ctl, 0, argv);

	switch (keyword_parse(argv[0], "command", plane_commands,
			      PLANE_CMD_COUNT, KW_ALL, plane_usage)) {
	case PLANE_ADD:
		return plane_add(ctl, argc - 1, argv + 1);
	case PLANE_DEL:
		return plane_del(ctl, argc - 1, argv + 1);
	case PLANE_SHOW:
		return plane_show(ctl, argc - 1, argv + 1);
	case PLANE_SET:
		return plane_set(ctl, argc - 1, argv + 1);
	case PLANE_FLUSH:
		return plane_flush(ctl, argc - 1, argv + 1);
	case PLANE_HELP:
		plane_usage(stdout);
		return EXIT_SUCCESS;
	default:
		return EXIT_USAGE;
	}
}
