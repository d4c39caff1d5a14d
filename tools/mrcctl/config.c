// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: "config" commands, the settings of a network namespace.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include "mrcctl.h"

enum config_kw {
	CONFIG_KW_PORT,
	CONFIG_KW_EVS,
	CONFIG_KW_COUNT,
};

static const char *const config_keywords[CONFIG_KW_COUNT] = {
	[CONFIG_KW_PORT]	= "port",
	[CONFIG_KW_EVS]		= "evs",
};

struct config_args {
	unsigned long seen;	/* BIT(CONFIG_KW_*) of each keyword given */
	__u16 port;
	__u32 evs;
};

const char *const config_usage_lines[] = {
	"config show",
	"config set [port PORT] [evs N]",
	"config help",
	NULL
};

void config_usage(FILE *out)
{
	usage_print(out, config_usage_lines, false);
}

static const struct nl_policy config_policy[MRC_CONFIG_ATTR_MAX + 1] = {
	[MRC_CONFIG_ATTR_UDP_PORT]	= { MNL_TYPE_U16 },
	[MRC_CONFIG_ATTR_DEFAULT_EVS]	= { MNL_TYPE_U32 },
	[MRC_CONFIG_ATTR_PLANES]	= { MNL_TYPE_U32 },
	[MRC_CONFIG_ATTR_RX_DROPPED]	= { MNL_TYPE_U64 },
	[MRC_CONFIG_ATTR_SYN_DROPPED]	= { MNL_TYPE_U64 },
};

/* The settings, then the namespace's counters, which -s adds. */
#define CONFIG_NR_SETTINGS	3

static const struct field config_field_list[] = {
	{ .json = "udp_port", .label = "udp_port",
	  .type = FIELD_U16, .attr = MRC_CONFIG_ATTR_UDP_PORT },
	{ .json = "default_evs", .label = "default_evs",
	  .type = FIELD_U32, .attr = MRC_CONFIG_ATTR_DEFAULT_EVS },
	{ .json = "planes", .label = "planes",
	  .type = FIELD_U32, .attr = MRC_CONFIG_ATTR_PLANES },
	{ .json = "rx_dropped", .label = "rx_dropped",
	  .type = FIELD_U64, .attr = MRC_CONFIG_ATTR_RX_DROPPED },
	{ .json = "syn_dropped", .label = "syn_dropped",
	  .type = FIELD_U64, .attr = MRC_CONFIG_ATTR_SYN_DROPPED },
};

const struct field_set config_fields = {
	.policy	= config_policy,
	.max	= MRC_CONFIG_ATTR_MAX,
	.fields	= config_field_list,
	.n	= CONFIG_NR_SETTINGS,
};

static const struct field_set config_stats_fields = {
	.policy	= config_policy,
	.max	= MRC_CONFIG_ATTR_MAX,
	.fields	= config_field_list,
	.n	= ARRAY_SIZE(config_field_list),
};

static int config_parse_value(void *data, int kw, const char *val)
{
	struct config_args *args = data;
	int err;

	if (kw == CONFIG_KW_PORT)
		err = parse_u16(val, &args->port);
	else
		err = parse_u32(val, &args->evs);
	if (err)
		return usage_error(config_usage, "invalid %s \"%s\"",
				   config_keywords[kw], val);
	return 0;
}

static const struct keywords config_kws = {
	.words	= config_keywords,
	.n	= CONFIG_KW_COUNT,
	.usage	= config_usage,
};

static int config_show(struct mrcctl *ctl, int argc, char **argv)
{
	struct nlmsghdr *nlh;

	if (argc)
		return usage_error(config_usage, "unexpected argument \"%s\"",
				   argv[0]);

	nlh = mrcctl_msg(ctl, MRC_CMD_CONFIG_GET, NLM_F_ACK);
	if (!nlh)
		return EXIT_FAILURE;
	return mrcctl_request(ctl, nlh, ctl->stats ? &config_stats_fields :
			      &config_fields, true);
}

static int config_set(struct mrcctl *ctl, int argc, char **argv)
{
	struct config_args args;
	struct nlmsghdr *nlh;
	int err;

	err = keywords_parse(&config_kws, KW_ALL, argc, argv, &args.seen,
			     config_parse_value, &args);
	if (err)
		return err;

	nlh = mrcctl_msg(ctl, MRC_CMD_CONFIG_SET, NLM_F_ACK);
	if (!nlh)
		return EXIT_FAILURE;
	if (args.seen & BIT(CONFIG_KW_PORT))
		mnl_attr_put_u16(nlh, MRC_CONFIG_ATTR_UDP_PORT, args.port);
	if (args.seen & BIT(CONFIG_KW_EVS))
		mnl_attr_put_u32(nlh, MRC_CONFIG_ATTR_DEFAULT_EVS, args.evs);
	return mrcctl_request(ctl, nlh, &config_fields, false);
}

static int config_showconf_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MRC_ATTR_TB_SIZE];

	(void)data;
	if (field_parse(&config_fields, nlh, tb) < 0 ||
	    !tb[MRC_CONFIG_ATTR_UDP_PORT] || !tb[MRC_CONFIG_ATTR_DEFAULT_EVS])
		return MNL_CB_ERROR;
	printf("config set port %u evs %u\n",
	       mnl_attr_get_u16(tb[MRC_CONFIG_ATTR_UDP_PORT]),
	       mnl_attr_get_u32(tb[MRC_CONFIG_ATTR_DEFAULT_EVS]));
	return MNL_CB_OK;
}

/* The settings of the namespace as a command, for "showconf". */
int config_showconf(struct mrcctl *ctl)
{
	struct nlmsghdr *nlh = mrcctl_msg(ctl, MRC_CMD_CONFIG_GET, NLM_F_ACK);

	if (!nlh ||
	    mrc_nl_request(&ctl->nl, nlh, config_showconf_cb, NULL) < 0)
		return EXIT_FAILURE;
	return EXIT_SUCCESS;
}

enum config_cmd {
	CONFIG_SHOW,
	CONFIG_SET,
	CONFIG_HELP,
	CONFIG_CMD_COUNT,
};

static const char *const config_commands[CONFIG_CMD_COUNT] = {
	[CONFIG_SHOW]	= "show",
	[CONFIG_SET]	= "set",
	[CONFIG_HELP]	= "help",
};

int do_config(struct mrcctl *ctl, int argc, char **argv)
{
	if (!argc)
		return config_show(ctl, 0, argv);

	switch (keyword_parse(argv[0], "command", config_commands,
			      CONFIG_CMD_COUNT, KW_ALL, config_usage)) {
	case CONFIG_SHOW:
		return config_show(ctl, argc - 1, argv + 1);
	case CONFIG_SET:
		return config_set(ctl, argc - 1, argv + 1);
	case CONFIG_HELP:
		config_usage(stdout);
		return EXIT_SUCCESS;
	default:
		return EXIT_USAGE;
	}
}
