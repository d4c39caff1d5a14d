/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/mrc.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_MRC_GEN_H
#define _LINUX_MRC_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/mrc_netlink.h>

/* Common nested types */
extern const struct nla_policy mrc_counter_nl_policy[MRC_COUNTER_ATTR_PAD + 1];

extern const struct nla_policy mrc_plane_get_nl_policy[MRC_PLANE_ATTR_IFNAME + 1];

extern const struct nla_policy mrc_plane_add_nl_policy[MRC_PLANE_ATTR_BASE_RTT + 1];

extern const struct nla_policy mrc_plane_del_nl_policy[MRC_PLANE_ATTR_IFNAME + 1];

extern const struct nla_policy mrc_plane_set_nl_policy[MRC_PLANE_ATTR_BASE_RTT + 1];

extern const struct nla_policy mrc_config_get_nl_policy[MRC_CONFIG_ATTR_UDP_PORT + 1];

extern const struct nla_policy mrc_config_set_nl_policy[MRC_CONFIG_ATTR_DEFAULT_EVS + 1];

extern const struct nla_policy mrc_conn_get_nl_policy[MRC_CONN_ATTR_ID + 1];

extern const struct nla_policy mrc_stats_get_nl_policy[MRC_STATS_ATTR_COUNTER + 1];

/* Ops table for mrc */
extern const struct genl_ops mrc_nl_ops[8];

int mrc_nl_conn_dump_start(struct netlink_callback *cb);

int mrc_nl_plane_get_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_plane_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int mrc_nl_plane_add_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_plane_del_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_plane_set_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_conn_get_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_conn_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int mrc_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	MRC_NLGRP_MONITOR,
	MRC_NLGRP_CONN,
	MRC_NLGRP_PATH,
};

#endif /* _LINUX_MRC_GEN_H */
