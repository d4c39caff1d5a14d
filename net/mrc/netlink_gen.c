// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/mrc.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink_gen.h"

#include <uapi/linux/mrc_netlink.h>

/* Common nested types */
const struct nla_policy mrc_counter_nl_policy[MRC_COUNTER_ATTR_PAD + 1] = {
	[MRC_COUNTER_ATTR_NAME] = { .type = NLA_NUL_STRING, },
	[MRC_COUNTER_ATTR_VALUE] = { .type = NLA_U64, },
};

/* MRC_CMD_PLANE_GET - do */
const struct nla_policy mrc_plane_get_nl_policy[MRC_PLANE_ATTR_IFNAME + 1] = {
	[MRC_PLANE_ATTR_ID] = NLA_POLICY_MAX(NLA_U32, MRC_PLANE_ID_MAX),
	[MRC_PLANE_ATTR_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[MRC_PLANE_ATTR_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
};

/* MRC_CMD_PLANE_ADD - do */
const struct nla_policy mrc_plane_add_nl_policy[MRC_PLANE_ATTR_BASE_RTT + 1] = {
	[MRC_PLANE_ATTR_ID] = NLA_POLICY_MAX(NLA_U32, MRC_PLANE_ID_MAX),
	[MRC_PLANE_ATTR_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[MRC_PLANE_ATTR_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[MRC_PLANE_ATTR_ADDR4] = { .type = NLA_U32, },
	[MRC_PLANE_ATTR_ADDR6] = NLA_POLICY_EXACT_LEN(16),
	[MRC_PLANE_ATTR_ADMIN_UP] = NLA_POLICY_MAX(NLA_U8, 1),
	[MRC_PLANE_ATTR_EVS] = NLA_POLICY_RANGE(NLA_U32, 1, MRC_EVS_MAX),
	[MRC_PLANE_ATTR_BASE_RTT] = { .type = NLA_U32, },
};

/* MRC_CMD_PLANE_DEL - do */
const struct nla_policy mrc_plane_del_nl_policy[MRC_PLANE_ATTR_IFNAME + 1] = {
	[MRC_PLANE_ATTR_ID] = NLA_POLICY_MAX(NLA_U32, MRC_PLANE_ID_MAX),
	[MRC_PLANE_ATTR_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[MRC_PLANE_ATTR_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
};

/* MRC_CMD_PLANE_SET - do */
const struct nla_policy mrc_plane_set_nl_policy[MRC_PLANE_ATTR_BASE_RTT + 1] = {
	[MRC_PLANE_ATTR_ID] = NLA_POLICY_MAX(NLA_U32, MRC_PLANE_ID_MAX),
	[MRC_PLANE_ATTR_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[MRC_PLANE_ATTR_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[MRC_PLANE_ATTR_ADMIN_UP] = NLA_POLICY_MAX(NLA_U8, 1),
	[MRC_PLANE_ATTR_EVS] = NLA_POLICY_RANGE(NLA_U32, 1, MRC_EVS_MAX),
	[MRC_PLANE_ATTR_BASE_RTT] = { .type = NLA_U32, },
};

/* MRC_CMD_CONFIG_GET - do */
const struct nla_policy mrc_config_get_nl_policy[MRC_CONFIG_ATTR_UDP_PORT + 1] = {
	[MRC_CONFIG_ATTR_UDP_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
};

/* MRC_CMD_CONFIG_SET - do */
const struct nla_policy mrc_config_set_nl_policy[MRC_CONFIG_ATTR_DEFAULT_EVS + 1] = {
	[MRC_CONFIG_ATTR_UDP_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[MRC_CONFIG_ATTR_DEFAULT_EVS] = NLA_POLICY_RANGE(NLA_U32, 1, MRC_EVS_MAX),
};

/* MRC_CMD_CONN_GET - do */
const struct nla_policy mrc_conn_get_nl_policy[MRC_CONN_ATTR_ID + 1] = {
	[MRC_CONN_ATTR_ID] = { .type = NLA_U32, },
};

/* MRC_CMD_STATS_GET - do */
const struct nla_policy mrc_stats_get_nl_policy[MRC_STATS_ATTR_COUNTER + 1] = {
	[MRC_STATS_ATTR_COUNTER] = NLA_POLICY_NESTED(mrc_counter_nl_policy),
};

/* Ops table for mrc */
const struct genl_ops mrc_nl_ops[8] = {
	{
		.cmd		= MRC_CMD_PLANE_GET,
		.doit		= mrc_nl_plane_get_doit,
		.dumpit		= mrc_nl_plane_get_dumpit,
		.policy		= mrc_plane_get_nl_policy,
		.maxattr	= MRC_PLANE_ATTR_IFNAME,
	},
	{
		.cmd		= MRC_CMD_PLANE_ADD,
		.doit		= mrc_nl_plane_add_doit,
		.policy		= mrc_plane_add_nl_policy,
		.maxattr	= MRC_PLANE_ATTR_BASE_RTT,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= MRC_CMD_PLANE_DEL,
		.doit		= mrc_nl_plane_del_doit,
		.policy		= mrc_plane_del_nl_policy,
		.maxattr	= MRC_PLANE_ATTR_IFNAME,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= MRC_CMD_PLANE_SET,
		.doit		= mrc_nl_plane_set_doit,
		.policy		= mrc_plane_set_nl_policy,
		.maxattr	= MRC_PLANE_ATTR_BASE_RTT,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= MRC_CMD_CONFIG_GET,
		.doit		= mrc_nl_config_get_doit,
		.policy		= mrc_config_get_nl_policy,
		.maxattr	= MRC_CONFIG_ATTR_UDP_PORT,
	},
	{
		.cmd		= MRC_CMD_CONFIG_SET,
		.doit		= mrc_nl_config_set_doit,
		.policy		= mrc_config_set_nl_policy,
		.maxattr	= MRC_CONFIG_ATTR_DEFAULT_EVS,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= MRC_CMD_CONN_GET,
		.doit		= mrc_nl_conn_get_doit,
		.dumpit		= mrc_nl_conn_get_dumpit,
		.policy		= mrc_conn_get_nl_policy,
		.maxattr	= MRC_CONN_ATTR_ID,
	},
	{
		.cmd		= MRC_CMD_STATS_GET,
		.doit		= mrc_nl_stats_get_doit,
		.policy		= mrc_stats_get_nl_policy,
		.maxattr	= MRC_STATS_ATTR_COUNTER,
	},
};

static const struct genl_multicast_group mrc_nl_mcgrps[] = {
	[MRC_NLGRP_MONITOR] = { "monitor", },
	[MRC_NLGRP_CONN] = { "conn", },
	[MRC_NLGRP_PATH] = { "path", },
};
