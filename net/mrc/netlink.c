// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: the "mrc" generic netlink family, control channel of the transport.
 *
 * Policies and the op table are generated from
 * Documentation/netlink/specs/mrc.yaml into netlink_gen.c.  Requests that
 * change planes or settings run under RTNL, as do the device notifiers.
 * Connections are read under RCU, each one copied under its own lock.
 * Connection and path events are sent under the connection's lock.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <linux/mrc_netlink.h>

#include "mrc.h"
#include "netlink_gen.h"

/*
 * Connection and path events name connections by their ids, which only
 * CAP_NET_ADMIN sees of other users' connections (mrc_nl_may_see_ids()):
 * their groups are for CAP_NET_ADMIN in the namespace's user namespace.
 */
static const struct genl_multicast_group mrc_mcgrps[] = {
	[MRC_NLGRP_MONITOR] = { .name = MRC_MCGRP_MONITOR, },
	[MRC_NLGRP_CONN] = { .name = MRC_MCGRP_CONN,
			     .flags = GENL_MCAST_CAP_NET_ADMIN, },
	[MRC_NLGRP_PATH] = { .name = MRC_MCGRP_PATH,
			     .flags = GENL_MCAST_CAP_NET_ADMIN, },
};

/*
 * The generated ops, with the dump's start that the spec names (a "pre"
 * hook): the generator wires those in split ops only, which 6.1 has not.
 */
static struct genl_ops mrc_genl_ops[ARRAY_SIZE(mrc_nl_ops)] __ro_after_init;

/* resv_start_op stays 0: a new family validates every op strictly. */
static struct genl_family mrc_genl_family __ro_after_init = {
	.name		= MRC_FAMILY_NAME,
	.version	= MRC_FAMILY_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= mrc_genl_ops,
	.n_ops		= ARRAY_SIZE(mrc_genl_ops),
	.mcgrps		= mrc_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(mrc_mcgrps),
};

static int mrc_nl_fill_plane(struct sk_buff *skb, const struct mrc_plane *plane,
			     u32 portid, u32 seq, int flags, u8 cmd)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &mrc_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(skb, MRC_PLANE_ATTR_ID, plane->id) ||
	    nla_put_u32(skb, MRC_PLANE_ATTR_IFINDEX, plane->dev->ifindex) ||
	    nla_put_string(skb, MRC_PLANE_ATTR_IFNAME, plane->dev->name) ||
	    nla_put_u8(skb, MRC_PLANE_ATTR_ADMIN_UP, READ_ONCE(plane->admin_up)) ||
	    nla_put_u32(skb, MRC_PLANE_ATTR_STATE, READ_ONCE(plane->state)) ||
	    nla_put_u32(skb, MRC_PLANE_ATTR_EVS, mrc_plane_evs(plane)) ||
	    nla_put_u32(skb, MRC_PLANE_ATTR_BASE_RTT,
			READ_ONCE(plane->base_rtt_us)) ||
	    nla_put_u32(skb, MRC_PLANE_ATTR_MTU, READ_ONCE(plane->dev->mtu)))
		goto nla_put_failure;

	if (plane->family == AF_INET) {
		if (nla_put_in_addr(skb, MRC_PLANE_ATTR_ADDR4, plane->addr4))
			goto nla_put_failure;
	} else if (nla_put_in6_addr(skb, MRC_PLANE_ATTR_ADDR6, &plane->addr6)) {
		goto nla_put_failure;
	}
	if (mrc_plane_mib_fill(skb, plane))
		goto nla_put_failure;

	genlmsg_end(skb, hdr);
	return 0;

nla_put_failure:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* A pending plane has no device: no ifindex, no MTU. */
static int mrc_nl_fill_pending(struct sk_buff *skb, const struct mrc_net *mn,
			       const struct mrc_plane_pending *pending,
			       u32 portid, u32 seq, int flags, u8 cmd)
{
	u32 evs = READ_ONCE(pending->evs) ?: READ_ONCE(mn->default_evs);
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &mrc_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(skb, MRC_PLANE_ATTR_ID, pending->id) ||
	    nla_put_string(skb, MRC_PLANE_ATTR_IFNAME, pending->ifname) ||
	    nla_put_u8(skb, MRC_PLANE_ATTR_ADMIN_UP,
		       READ_ONCE(pending->admin_up)) ||
	    nla_put_u32(skb, MRC_PLANE_ATTR_STATE,
			MRC_PLANE_STATE_NO_DEVICE) ||
	    nla_put_u32(skb, MRC_PLANE_ATTR_EVS, evs) ||
	    nla_put_u32(skb, MRC_PLANE_ATTR_BASE_RTT,
			READ_ONCE(pending->base_rtt_us)))
		goto nla_put_failure;

	if (pending->family == AF_INET) {
		if (nla_put_in_addr(skb, MRC_PLANE_ATTR_ADDR4, pending->addr4))
			goto nla_put_failure;
	} else if (pending->family == AF_INET6) {
		if (nla_put_in6_addr(skb, MRC_PLANE_ATTR_ADDR6,
				     &pending->addr6))
			goto nla_put_failure;
	}

	genlmsg_end(skb, hdr);
	return 0;

nla_put_failure:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * Reply with @plane, or with @pending when there is no plane, in @msg,
 * which the caller allocated before the change: a change is never
 * reported as failed for want of memory to tell it.  Consumes @msg.
 */
static int mrc_nl_reply_plane(struct mrc_net *mn, struct sk_buff *msg,
			      const struct mrc_plane *plane,
			      const struct mrc_plane_pending *pending,
			      struct genl_info *info)
{
	int err;

	if (plane)
		err = mrc_nl_fill_plane(msg, plane, info->snd_portid,
					info->snd_seq, 0, info->genlhdr->cmd);
	else
		err = mrc_nl_fill_pending(msg, mn, pending, info->snd_portid,
					  info->snd_seq, 0,
					  info->genlhdr->cmd);
	if (err) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return genlmsg_reply(msg, info);
}

/* Called under RTNL; the namespace's listeners learn of every change. */
void mrc_nl_notify_plane(const struct mrc_plane *plane, u8 cmd)
{
	struct net *net = plane->mn->net;
	struct sk_buff *msg;

	if (!genl_has_listeners(&mrc_genl_family, net, MRC_NLGRP_MONITOR))
		return;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return;
	if (mrc_nl_fill_plane(msg, plane, 0, 0, 0, cmd)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_multicast_netns(&mrc_genl_family, net, msg, 0,
				MRC_NLGRP_MONITOR, GFP_KERNEL);
}

/* The same for a plane that lost its device; under RTNL too. */
void mrc_nl_notify_pending(struct mrc_net *mn,
			   const struct mrc_plane_pending *pending, u8 cmd)
{
	struct sk_buff *msg;

	if (!genl_has_listeners(&mrc_genl_family, mn->net, MRC_NLGRP_MONITOR))
		return;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return;
	if (mrc_nl_fill_pending(msg, mn, pending, 0, 0, 0, cmd)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_multicast_netns(&mrc_genl_family, mn->net, msg, 0,
				MRC_NLGRP_MONITOR, GFP_KERNEL);
}

/*
 * The device that a request names by ifindex or ifname, held.  When both
 * are given they must agree.
 */
static struct net_device *mrc_nl_get_dev(struct net *net,
					 struct genl_info *info)
{
	struct nlattr *ifindex = info->attrs[MRC_PLANE_ATTR_IFINDEX];
	struct nlattr *ifname = info->attrs[MRC_PLANE_ATTR_IFNAME];
	struct net_device *dev = NULL;

	if (ifindex)
		dev = __dev_get_by_index(net, nla_get_u32(ifindex));
	else if (ifname)
		dev = __dev_get_by_name(net, nla_data(ifname));
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, ifindex ?: ifname,
				    "no such device");
		return ERR_PTR(-ENODEV);
	}
	if (ifindex && ifname && nla_strcmp(ifname, dev->name)) {
		NL_SET_ERR_MSG_ATTR(info->extack, ifname,
				    "ifindex and ifname name different devices");
		return ERR_PTR(-EINVAL);
	}
	return dev;
}

/*
 * The plane that a request names by id or device, in *@planep, or the
 * pending plane in *@pendingp.  A pending plane is named by its id, or by
 * the name of its device when no device has that name.  Under RTNL.
 */
static int mrc_nl_get_plane(struct mrc_net *mn, struct genl_info *info,
			    struct mrc_plane **planep,
			    struct mrc_plane_pending **pendingp)
{
	struct nlattr *ifname = info->attrs[MRC_PLANE_ATTR_IFNAME];
	struct nlattr *id = info->attrs[MRC_PLANE_ATTR_ID];
	struct mrc_plane_pending *pending = NULL;
	struct net_device *dev = NULL;
	struct mrc_plane *plane;
	char name[IFNAMSIZ];

	*planep = NULL;
	*pendingp = NULL;
	if (!id && !info->attrs[MRC_PLANE_ATTR_IFINDEX] && !ifname) {
		NL_SET_ERR_MSG(info->extack,
			       "a plane id, ifindex or ifname is required");
		return -EINVAL;
	}
	if (id) {
		plane = mrc_plane_find(mn, nla_get_u32(id), NULL);
		if (!plane)
			pending = mrc_plane_pending_find(mn, nla_get_u32(id),
							 NULL);
	} else {
		plane = NULL;
		if (ifname && !info->attrs[MRC_PLANE_ATTR_IFINDEX]) {
			nla_strscpy(name, ifname, sizeof(name));
			if (!__dev_get_by_name(mn->net, name))
				pending = mrc_plane_pending_find(mn, -1, name);
		}
		if (!pending) {
			dev = mrc_nl_get_dev(mn->net, info);
			if (IS_ERR(dev))
				return PTR_ERR(dev);
			plane = mrc_plane_find(mn, -1, dev);
		}
		/*
		 * A device of the name that is no plane: a plane may wait for
		 * the name still, as when the device came back without the
		 * address it needs.
		 */
		if (!plane && !pending && ifname &&
		    !info->attrs[MRC_PLANE_ATTR_IFINDEX])
			pending = mrc_plane_pending_find(mn, -1, name);
	}

	if (!plane && !pending) {
		NL_SET_ERR_MSG(info->extack, "no such plane");
		return -ENOENT;
	}
	*planep = plane;
	*pendingp = pending;
	return 0;
}

/*
 * Reads take no RTNL, which any user could otherwise keep busy: planes are
 * found and reported under RCU, which frees them after a grace period.
 */
static struct mrc_plane *mrc_nl_find_plane_rcu(struct mrc_net *mn,
					       struct genl_info *info,
					       struct mrc_plane_pending **pendingp)
{
	struct nlattr *id = info->attrs[MRC_PLANE_ATTR_ID];
	struct nlattr *ifindex = info->attrs[MRC_PLANE_ATTR_IFINDEX];
	struct nlattr *ifname = info->attrs[MRC_PLANE_ATTR_IFNAME];
	struct net_device *dev = NULL;
	struct mrc_plane *plane;
	char name[IFNAMSIZ];

	*pendingp = NULL;
	if (id) {
		plane = rcu_dereference(mn->plane_by_id[nla_get_u32(id)]);
		if (!plane)
			*pendingp = mrc_plane_pending_find(mn, nla_get_u32(id),
							   NULL);
		return plane;
	}
	if (ifindex)
		dev = dev_get_by_index_rcu(mn->net, nla_get_u32(ifindex));
	else if (ifname)
		dev = dev_get_by_name_rcu(mn->net, nla_data(ifname));
	if (!dev) {
		if (!ifindex && ifname) {
			nla_strscpy(name, ifname, sizeof(name));
			*pendingp = mrc_plane_pending_find(mn, -1, name);
		}
		return NULL;
	}
	list_for_each_entry_rcu(plane, &mn->planes, list)
		if (plane->dev == dev)
			return plane;
	/* As mrc_nl_get_plane(): a plane may wait for the device's name. */
	if (!ifindex) {
		nla_strscpy(name, ifname, sizeof(name));
		*pendingp = mrc_plane_pending_find(mn, -1, name);
	}
	return NULL;
}

int mrc_nl_plane_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_pernet(genl_info_net(info));
	struct mrc_plane_pending *pending;
	struct mrc_plane *plane;
	struct sk_buff *msg;
	int err;

	if (!info->attrs[MRC_PLANE_ATTR_ID] &&
	    !info->attrs[MRC_PLANE_ATTR_IFINDEX] &&
	    !info->attrs[MRC_PLANE_ATTR_IFNAME]) {
		NL_SET_ERR_MSG(info->extack,
			       "a plane id, ifindex or ifname is required");
		return -EINVAL;
	}
	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rcu_read_lock();
	plane = mrc_nl_find_plane_rcu(mn, info, &pending);
	if (plane)
		err = mrc_nl_fill_plane(msg, plane, info->snd_portid,
					info->snd_seq, 0, MRC_CMD_PLANE_GET);
	else if (pending)
		err = mrc_nl_fill_pending(msg, mn, pending, info->snd_portid,
					  info->snd_seq, 0, MRC_CMD_PLANE_GET);
	else
		err = -ENOENT;
	rcu_read_unlock();
	if (err) {
		nlmsg_free(msg);
		if (err == -ENOENT)
			NL_SET_ERR_MSG(info->extack, "no such plane");
		return err;
	}
	return genlmsg_reply(msg, info);
}

int mrc_nl_plane_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mrc_net *mn = mrc_pernet(sock_net(skb->sk));
	u32 portid = NETLINK_CB(cb->skb).portid;
	u32 seq = cb->nlh->nlmsg_seq;
	struct mrc_plane_pending *pending;
	struct mrc_plane *plane;
	long id;
	int err = 0;

	rcu_read_lock();
	/* Planes and pending planes by id: resume after the last id sent. */
	for (id = cb->args[0]; id <= MRC_PLANE_ID_MAX; id++) {
		plane = rcu_dereference(mn->plane_by_id[id]);
		pending = plane ? NULL : mrc_plane_pending_find(mn, id, NULL);
		if (plane)
			err = mrc_nl_fill_plane(skb, plane, portid, seq,
						NLM_F_MULTI, MRC_CMD_PLANE_GET);
		else if (pending)
			err = mrc_nl_fill_pending(skb, mn, pending, portid, seq,
						  NLM_F_MULTI,
						  MRC_CMD_PLANE_GET);
		if (err)
			break;
		cb->args[0] = id + 1;
	}
	rcu_read_unlock();
	return err == -EMSGSIZE && skb->len ? skb->len : err;
}

static int mrc_nl_parse_addr(struct genl_info *info, struct mrc_plane_cfg *cfg)
{
	struct nlattr *addr4 = info->attrs[MRC_PLANE_ATTR_ADDR4];
	struct nlattr *addr6 = info->attrs[MRC_PLANE_ATTR_ADDR6];

	if (addr4 && addr6) {
		NL_SET_ERR_MSG_ATTR(info->extack, addr6,
				    "give one address only");
		return -EINVAL;
	}
	cfg->family = AF_UNSPEC;
	if (addr4) {
		cfg->family = AF_INET;
		cfg->addr4 = nla_get_in_addr(addr4);
	} else if (addr6) {
		cfg->family = AF_INET6;
		cfg->addr6 = nla_get_in6_addr(addr6);
	}
	return 0;
}

/*
 * A base round trip for a plane, in @val: up to MRC_BASE_RTT_MAX, which
 * the policy does not check (the policies of older kernels take bounds of
 * 16 bits only).
 */
static int mrc_nl_parse_base_rtt(struct genl_info *info, u32 *val)
{
	struct nlattr *attr = info->attrs[MRC_PLANE_ATTR_BASE_RTT];

	if (!attr)
		return 0;
	if (nla_get_u32(attr) > MRC_BASE_RTT_MAX) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "base round trip above 10 s");
		return -ERANGE;
	}
	*val = nla_get_u32(attr);
	return 0;
}

int mrc_nl_plane_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_pernet(genl_info_net(info));
	struct nlattr **attrs = info->attrs;
	struct mrc_plane_cfg cfg = {
		.id		= -1,
		.admin_up	= true,
	};
	struct mrc_plane *plane;
	struct sk_buff *msg;
	int err;

	if (!attrs[MRC_PLANE_ATTR_IFINDEX] && !attrs[MRC_PLANE_ATTR_IFNAME]) {
		NL_SET_ERR_MSG(info->extack,
			       "a device is required (ifindex or ifname)");
		return -EINVAL;
	}
	err = mrc_nl_parse_addr(info, &cfg);
	if (err)
		return err;
	if (attrs[MRC_PLANE_ATTR_ID])
		cfg.id = nla_get_u32(attrs[MRC_PLANE_ATTR_ID]);
	if (attrs[MRC_PLANE_ATTR_ADMIN_UP])
		cfg.admin_up = nla_get_u8(attrs[MRC_PLANE_ATTR_ADMIN_UP]);
	if (attrs[MRC_PLANE_ATTR_EVS])
		cfg.evs = nla_get_u32(attrs[MRC_PLANE_ATTR_EVS]);
	err = mrc_nl_parse_base_rtt(info, &cfg.base_rtt_us);
	if (err)
		return err;
	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	rtnl_lock();
	cfg.dev = mrc_nl_get_dev(mn->net, info);
	if (IS_ERR(cfg.dev)) {
		err = PTR_ERR(cfg.dev);
		goto out;
	}
	plane = mrc_plane_add(mn, &cfg, info->extack);
	if (IS_ERR(plane)) {
		err = PTR_ERR(plane);
		goto out;
	}
	err = mrc_nl_reply_plane(mn, msg, plane, NULL, info);
	msg = NULL;
out:
	rtnl_unlock();
	nlmsg_free(msg);
	return err;
}

int mrc_nl_plane_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_pernet(genl_info_net(info));
	struct mrc_plane_pending *pending;
	struct mrc_plane *plane;
	int err;

	rtnl_lock();
	err = mrc_nl_get_plane(mn, info, &plane, &pending);
	if (!err && plane)
		mrc_plane_del(plane);
	else if (!err)
		mrc_plane_pending_del(mn, pending);
	rtnl_unlock();
	return err;
}

/* On a pending plane, changes the settings it comes back with. */
int mrc_nl_plane_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_pernet(genl_info_net(info));
	struct nlattr **attrs = info->attrs;
	struct mrc_plane_pending *pending;
	struct mrc_plane_settings set;
	struct mrc_plane *plane;
	struct sk_buff *msg;
	int err;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rtnl_lock();
	err = mrc_nl_get_plane(mn, info, &plane, &pending);
	if (err)
		goto out;
	set.admin_up = plane ? plane->admin_up : pending->admin_up;
	set.evs = plane ? plane->evs : pending->evs;
	set.base_rtt_us = plane ? plane->base_rtt_us : pending->base_rtt_us;
	if (attrs[MRC_PLANE_ATTR_ADMIN_UP])
		set.admin_up = nla_get_u8(attrs[MRC_PLANE_ATTR_ADMIN_UP]);
	if (attrs[MRC_PLANE_ATTR_EVS])
		set.evs = nla_get_u32(attrs[MRC_PLANE_ATTR_EVS]);
	err = mrc_nl_parse_base_rtt(info, &set.base_rtt_us);
	if (err)
		goto out;
	if (plane)
		mrc_plane_update(plane, &set);
	else
		mrc_plane_pending_update(mn, pending, &set);
	err = mrc_nl_reply_plane(mn, msg, plane, pending, info);
	msg = NULL;
out:
	rtnl_unlock();
	nlmsg_free(msg);
	return err;
}

static int mrc_nl_fill_config(struct sk_buff *skb, const struct mrc_net *mn,
			      u32 portid, u32 seq, u8 cmd)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &mrc_genl_family, 0, cmd);
	if (!hdr)
		return -EMSGSIZE;
	/* Settings change under RTNL; readers do not take it. */
	if (nla_put_u16(skb, MRC_CONFIG_ATTR_UDP_PORT, READ_ONCE(mn->udp_port)) ||
	    nla_put_u32(skb, MRC_CONFIG_ATTR_DEFAULT_EVS,
			READ_ONCE(mn->default_evs)) ||
	    nla_put_u32(skb, MRC_CONFIG_ATTR_PLANES, READ_ONCE(mn->nr_planes)) ||
	    nla_put_u64_64bit(skb, MRC_CONFIG_ATTR_RX_DROPPED,
			      mrc_mib_rx_dropped(mn), MRC_CONFIG_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_CONFIG_ATTR_SYN_DROPPED,
			      mrc_mib_read(mn, MRC_MIB_SYN_DROPPED),
			      MRC_CONFIG_ATTR_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static struct sk_buff *mrc_nl_config_msg(const struct mrc_net *mn, u32 portid,
					 u32 seq, u8 cmd)
{
	struct sk_buff *msg;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (msg && mrc_nl_fill_config(msg, mn, portid, seq, cmd)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

int mrc_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_pernet(genl_info_net(info));
	struct sk_buff *msg;

	msg = mrc_nl_config_msg(mn, info->snd_portid, info->snd_seq,
				MRC_CMD_CONFIG_GET);
	return msg ? genlmsg_reply(msg, info) : -ENOMEM;
}

int mrc_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_pernet(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mrc_genl_family, 0,
				MRC_CMD_STATS_GET);
	if (!hdr || mrc_mib_fill(msg, mn)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

int mrc_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_pernet(genl_info_net(info));
	struct nlattr *port = info->attrs[MRC_CONFIG_ATTR_UDP_PORT];
	struct nlattr *evs = info->attrs[MRC_CONFIG_ATTR_DEFAULT_EVS];
	struct sk_buff *msg, *ntf = NULL;
	int err;

	/* Allocate the reply first: a change is never reported as failed. */
	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	rtnl_lock();
	if (port && nla_get_u16(port) != mn->udp_port && mn->nr_planes) {
		NL_SET_ERR_MSG_ATTR(info->extack, port,
				    "cannot change the UDP port while planes exist");
		rtnl_unlock();
		nlmsg_free(msg);
		return -EBUSY;
	}
	if (port)
		WRITE_ONCE(mn->udp_port, nla_get_u16(port));
	if (evs)
		WRITE_ONCE(mn->default_evs, nla_get_u32(evs));

	err = mrc_nl_fill_config(msg, mn, info->snd_portid, info->snd_seq,
				 MRC_CMD_CONFIG_SET);
	if (genl_has_listeners(&mrc_genl_family, mn->net, MRC_NLGRP_MONITOR))
		ntf = mrc_nl_config_msg(mn, 0, 0, MRC_CMD_CONFIG_CHANGE_NTF);
	if (ntf)
		genlmsg_multicast_netns(&mrc_genl_family, mn->net, ntf, 0,
					MRC_NLGRP_MONITOR, GFP_KERNEL);
	rtnl_unlock();

	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* A connection as reported, copied under its lock. */
struct mrc_nl_conn {
	kuid_t			uid;
	bool			show_ids;
	u32			id;
	u32			peer_id;
	u32			state;
	u32			type;
	u16			port;
	u16			peer_port;
	struct mrc_addr		peer_addr;
	u32			mss;
	u32			snd_wnd;
	u32			rcv_wnd;
	u32			inflight;
	struct mrc_conn_stats	stats;
	u32			plane_mask;
	struct mrc_nl_conn_plane {
		struct mrc_addr	peer_addr;
		u32		evs;
		u32		cwnd;
		u32		srtt_us;
		u32		base_rtt_us;
		u32		inflight;
		u64		tx_packets;
		u64		tx_bytes;
		u64		rx_packets;
		u64		retransmits;
		u32		evs_active;
		u32		evs_silenced;
		u32		probe_gap_us;
		u32		reorder_us;
		bool		up;
		u64		retirements;
		u64		probes;
		u64		restores;
		u64		ce_marks;
		u64		nacks;
		u16		first_retired;	/* in @retired */
		u16		nr_retired;
	} planes[MRC_MAX_PLANES];
	u16			retired[MRC_MAX_EVS];	/* EV ports, by plane */
};

/*
 * Copy what is reported of a connection.  The caller holds a reference or
 * the RCU read lock: MRC sockets are freed after a grace period.
 */
static void mrc_nl_conn_snapshot(struct mrc_sock *msk, struct mrc_nl_conn *c)
{
	u16 nr_retired = 0;
	int id;

	spin_lock_bh(&msk->lock);
	c->uid = msk->sk.sk_uid;
	c->id = msk->lcid;
	c->peer_id = msk->rcid;
	c->state = mrc_conn_report_state(msk);
	c->type = msk->sk.sk_type == SOCK_SEQPACKET ?
		  MRC_CONN_TYPE_SEQPACKET : MRC_CONN_TYPE_STREAM;
	c->port = READ_ONCE(msk->port);
	c->peer_port = msk->dport;
	c->peer_addr = msk->daddr;
	c->mss = msk->path_mss;
	c->snd_wnd = msk->snd_wnd_end - msk->snd_una;
	c->rcv_wnd = msk->rcv_wnd_end - msk->rcv_nxt;
	c->inflight = msk->snd_nxt - msk->snd_una;
	c->stats = msk->stats;
	c->plane_mask = msk->plane_mask;
	for (id = 0; id < msk->nr_planes; id++) {
		const struct mrc_conn_plane *cp = &msk->planes[id];
		struct mrc_nl_conn_plane *p = &c->planes[id];
		u32 i;

		if (!(c->plane_mask & BIT(id)))
			continue;
		/*
		 * The planes' EVs together are at most MRC_MAX_EVS; none is
		 * retired before the connection drew them.
		 */
		p->first_retired = nr_retired;
		p->evs_silenced = 0;
		for (i = 0; cp->evs && i < cp->nr_evs; i++) {
			if (cp->evs[i].state == MRC_EV_SILENCED)
				p->evs_silenced++;
			if (cp->evs[i].state != MRC_EV_ACTIVE &&
			    nr_retired < MRC_MAX_EVS)
				c->retired[nr_retired++] = cp->evs[i].port;
		}
		p->nr_retired = nr_retired - p->first_retired;
		p->probe_gap_us = div_u64(mrc_path_probe_gap(cp), NSEC_PER_USEC);
		p->reorder_us = div_u64(mrc_gap_wait_ns(msk, cp) -
					mrc_srtt_ns(cp), NSEC_PER_USEC);
		p->peer_addr = cp->raddr;
		p->evs = cp->nr_evs;
		p->cwnd = cp->cwnd;
		p->srtt_us = cp->srtt_us;
		p->base_rtt_us = cp->base_rtt_us;
		p->inflight = cp->nr_inflight;
		p->tx_packets = cp->tx_packets;
		p->tx_bytes = cp->tx_bytes;
		p->rx_packets = cp->rx_packets;
		p->retransmits = cp->retransmits;
		p->evs_active = cp->nr_active;
		p->up = cp->up;
		p->retirements = cp->retirements;
		p->probes = cp->probes;
		p->restores = cp->restores;
		p->ce_marks = cp->ce_marks;
		p->nacks = cp->trims;
	}
	spin_unlock_bh(&msk->lock);
}

/*
 * Room for the message of a connection with @planes planes and @retired of
 * its EVs retired, its addresses counted as IPv6.
 */
static size_t mrc_nl_conn_room(unsigned int planes, unsigned int retired)
{
	size_t plane = nla_total_size(0) +			/* the nest */
		       10 * nla_total_size(sizeof(u32)) +
		       nla_total_size(sizeof(u8)) +
		       nla_total_size(sizeof(struct in6_addr)) +
		       9 * nla_total_size_64bit(sizeof(u64));

	return 8 * nla_total_size(sizeof(u32)) +
	       2 * nla_total_size(sizeof(u16)) +
	       nla_total_size(sizeof(struct in6_addr)) +
	       7 * nla_total_size_64bit(sizeof(u64)) +
	       planes * plane +
	       retired * nla_total_size(sizeof(u16));
}

static size_t mrc_nl_conn_size(const struct mrc_nl_conn *c)
{
	unsigned int retired = 0;
	int id;

	for (id = 0; id < MRC_MAX_PLANES; id++)
		if (c->plane_mask & BIT(id))
			retired += c->planes[id].nr_retired;
	return mrc_nl_conn_room(hweight32(c->plane_mask), retired);
}

/* An address as @attr4 or @attr6, by its family; nothing for AF_UNSPEC. */
int mrc_nl_put_addr(struct sk_buff *skb, int attr4, int attr6,
		    const struct mrc_addr *addr)
{
	if (addr->family == AF_INET)
		return nla_put_in_addr(skb, attr4, addr->v4);
	if (addr->family == AF_INET6)
		return nla_put_in6_addr(skb, attr6, &addr->v6);
	return 0;
}

static int mrc_nl_fill_conn_plane(struct sk_buff *skb,
				  const struct mrc_nl_conn *c, int id)
{
	const struct mrc_nl_conn_plane *p = &c->planes[id];
	struct nlattr *nest;
	u16 i;

	nest = nla_nest_start(skb, MRC_CONN_ATTR_PLANE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MRC_CONN_PLANE_ATTR_ID, id) ||
	    mrc_nl_put_addr(skb, MRC_CONN_PLANE_ATTR_PEER_ADDR4,
			    MRC_CONN_PLANE_ATTR_PEER_ADDR6, &p->peer_addr) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_EVS, p->evs) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_CWND, p->cwnd) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_SRTT, p->srtt_us) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_BASE_RTT, p->base_rtt_us) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_INFLIGHT, p->inflight) ||
	    nla_put_u64_64bit(skb, MRC_CONN_PLANE_ATTR_TX_PACKETS,
			      p->tx_packets, MRC_CONN_PLANE_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_CONN_PLANE_ATTR_TX_BYTES,
			      p->tx_bytes, MRC_CONN_PLANE_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_CONN_PLANE_ATTR_RX_PACKETS,
			      p->rx_packets, MRC_CONN_PLANE_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_CONN_PLANE_ATTR_RETRANSMITS,
			      p->retransmits, MRC_CONN_PLANE_ATTR_PAD) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_EVS_ACTIVE, p->evs_active) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_EVS_SILENCED,
			p->evs_silenced) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_PROBE_GAP, p->probe_gap_us) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_REORDER_WINDOW,
			p->reorder_us) ||
	    nla_put_u8(skb, MRC_CONN_PLANE_ATTR_UP, p->up) ||
	    nla_put_u64_64bit(skb, MRC_CONN_PLANE_ATTR_RETIREMENTS,
			      p->retirements, MRC_CONN_PLANE_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_CONN_PLANE_ATTR_PROBES,
			      p->probes, MRC_CONN_PLANE_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_CONN_PLANE_ATTR_RESTORES,
			      p->restores, MRC_CONN_PLANE_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_CONN_PLANE_ATTR_CE_MARKS,
			      p->ce_marks, MRC_CONN_PLANE_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_CONN_PLANE_ATTR_NACKS,
			      p->nacks, MRC_CONN_PLANE_ATTR_PAD))
		goto nla_put_failure;
	for (i = 0; i < p->nr_retired; i++)
		if (nla_put_u16(skb, MRC_CONN_PLANE_ATTR_RETIRED_EV,
				c->retired[p->first_retired + i]))
			goto nla_put_failure;
	nla_nest_end(skb, nest);
	return 0;

nla_put_failure:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int mrc_nl_put_conn_stats(struct sk_buff *skb,
				 const struct mrc_conn_stats *st)
{
	if (nla_put_u64_64bit(skb, MRC_CONN_ATTR_TX_PACKETS, st->tx_packets,
			      MRC_CONN_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_CONN_ATTR_RX_PACKETS, st->rx_packets,
			      MRC_CONN_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_CONN_ATTR_RETRANSMITS, st->retransmits,
			      MRC_CONN_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_CONN_ATTR_TIMEOUTS, st->timeouts,
			      MRC_CONN_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_CONN_ATTR_RX_DROPPED, st->rx_dropped,
			      MRC_CONN_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_CONN_ATTR_RX_DUPLICATES,
			      st->rx_duplicates, MRC_CONN_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_CONN_ATTR_ACKS_SENT, st->acks_sent,
			      MRC_CONN_ATTR_PAD))
		return -EMSGSIZE;
	return 0;
}

static int mrc_nl_fill_conn(struct sk_buff *skb, const struct mrc_nl_conn *c,
			    u32 portid, u32 seq, int flags)
{
	void *hdr;
	int id;

	hdr = genlmsg_put(skb, portid, seq, &mrc_genl_family, flags,
			  MRC_CMD_CONN_GET);
	if (!hdr)
		return -EMSGSIZE;

	if ((c->show_ids &&
	     (nla_put_u32(skb, MRC_CONN_ATTR_ID, c->id) ||
	      nla_put_u32(skb, MRC_CONN_ATTR_PEER_ID, c->peer_id))) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_STATE, c->state) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_TYPE, c->type) ||
	    nla_put_u16(skb, MRC_CONN_ATTR_PORT, c->port) ||
	    nla_put_u16(skb, MRC_CONN_ATTR_PEER_PORT, c->peer_port) ||
	    mrc_nl_put_addr(skb, MRC_CONN_ATTR_PEER_ADDR4,
			    MRC_CONN_ATTR_PEER_ADDR6, &c->peer_addr) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_MSS, c->mss) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_SND_WND, c->snd_wnd) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_RCV_WND, c->rcv_wnd) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_INFLIGHT, c->inflight) ||
	    mrc_nl_put_conn_stats(skb, &c->stats))
		goto nla_put_failure;

	for (id = 0; id < MRC_MAX_PLANES; id++)
		if ((c->plane_mask & BIT(id)) &&
		    mrc_nl_fill_conn_plane(skb, c, id))
			goto nla_put_failure;

	genlmsg_end(skb, hdr);
	return 0;

nla_put_failure:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * Connection ids are what a packet needs to be taken for the peer's: only
 * CAP_NET_ADMIN and the socket's owner see them, here and in sock_diag
 * (diag.c).  @skb is the netlink request.
 */
bool mrc_nl_may_see_ids(const struct sk_buff *skb, kuid_t owner)
{
	return uid_eq(NETLINK_CB(skb).creds.uid, owner) ||
	       netlink_net_capable(skb, CAP_NET_ADMIN);
}

int mrc_nl_conn_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_pernet(genl_info_net(info));
	struct nlattr *id = info->attrs[MRC_CONN_ATTR_ID];
	struct mrc_nl_conn *conn;
	struct mrc_sock *msk;
	struct sk_buff *msg;
	int err;

	if (!id) {
		NL_SET_ERR_MSG(info->extack, "a connection id is required");
		return -EINVAL;
	}

	rcu_read_lock();
	msk = mrc_conn_lookup(mn, nla_get_u32(id));
	rcu_read_unlock();
	if (!msk) {
		NL_SET_ERR_MSG_ATTR(info->extack, id, "no such connection");
		return -ENOENT;
	}

	conn = kmalloc(sizeof(*conn), GFP_KERNEL);
	if (conn)
		mrc_nl_conn_snapshot(msk, conn);
	sock_put(&msk->sk);
	if (!conn)
		return -ENOMEM;
	/* Others learn nothing, not even that the id exists. */
	conn->show_ids = mrc_nl_may_see_ids(skb, conn->uid);
	if (!conn->show_ids) {
		kfree(conn);
		NL_SET_ERR_MSG_ATTR(info->extack, id, "no such connection");
		return -ENOENT;
	}

	err = -ENOMEM;
	msg = genlmsg_new(mrc_nl_conn_size(conn), GFP_KERNEL);
	if (!msg)
		goto out;
	err = mrc_nl_fill_conn(msg, conn, info->snd_portid, info->snd_seq, 0);
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	err = genlmsg_reply(msg, info);
out:
	kfree(conn);
	return err;
}

/*
 * Netlink makes the first part of a dump before it knows the reader's
 * buffer, in a skb of about a page, which a connection over 16 IPv6
 * planes with a few retired EVs outgrows: its -EMSGSIZE would end the
 * dump.  Every part has room for the largest connection: about 6 KiB,
 * within the 16 KiB that netlink expects a dump's reader to offer.
 */
int mrc_nl_conn_dump_start(struct netlink_callback *cb)
{
	cb->min_dump_alloc = nlmsg_total_size(GENL_HDRLEN +
					      mrc_nl_conn_room(MRC_MAX_PLANES,
							       MRC_MAX_EVS));
	return 0;
}

/*
 * Dump the connections of the namespace, bucket by bucket of the table by
 * id; cb->args[0] is the bucket to resume in, cb->args[1] the number of
 * its entries already sent.  Connections that come or go between two
 * parts of a dump may be missed or repeated, as in other socket dumps.
 */
int mrc_nl_conn_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mrc_net *mn = mrc_pernet(sock_net(skb->sk));
	unsigned long bkt = cb->args[0], skip = cb->args[1], idx;
	struct mrc_nl_conn *conn;
	struct mrc_sock *msk;
	int err = 0;

	conn = kmalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return -ENOMEM;

	rcu_read_lock();
	for (; bkt < HASH_SIZE(mn->conns); bkt++, skip = 0) {
		idx = 0;
		hlist_for_each_entry_rcu(msk, &mn->conns[bkt], cid_node) {
			if (idx++ < skip)
				continue;
			mrc_nl_conn_snapshot(msk, conn);
			conn->show_ids = mrc_nl_may_see_ids(cb->skb, conn->uid);
			err = mrc_nl_fill_conn(skb, conn,
					       NETLINK_CB(cb->skb).portid,
					       cb->nlh->nlmsg_seq, NLM_F_MULTI);
			if (err) {
				skip = idx - 1;
				goto out;
			}
		}
	}
out:
	rcu_read_unlock();
	cb->args[0] = bkt;
	cb->args[1] = skip;
	kfree(conn);
	return err == -EMSGSIZE && skb->len ? skb->len : err;
}

/*
 * Connection and path events, for the "conn" and "path" groups.
 *
 * They come from the receive path and the timers (softirq), from the work
 * that follows plane changes and from socket calls, always under msk->lock
 * with BHs off.  A message is built only when the group has a listener (in
 * any namespace: netlink keeps one bitmap of them), with GFP_ATOMIC, and
 * multicast to the connection's namespace before the lock is dropped, so
 * that listeners get the events of a connection in the order they
 * happened: an EV's retirement and its restore can come from two CPUs.
 * netlink_broadcast() takes none of MRC's locks.
 *
 * A peer can make EVs retire and come back, at most as fast as it answers
 * probes (MRC_PROBE_GAP_NS per plane), and open connections: each event is
 * one small message.  A listener that does not keep up loses the excess
 * and learns it from ENOBUFS, as with any netlink multicast, and so does
 * every listener of the group when a message cannot be allocated.
 */

/* Room for an address attribute, counted as IPv6. */
#define MRC_NL_ADDR_SIZE	nla_total_size(sizeof(struct in6_addr))

/* Ids and ports, in every event; and the plane nest's common part. */
#define MRC_NL_EV_IDS_SIZE	(2 * nla_total_size(sizeof(u32)) + \
				 2 * nla_total_size(sizeof(u16)))
#define MRC_NL_EV_PLANE_SIZE	(nla_total_size(0) + \
				 nla_total_size(sizeof(u32)) + \
				 2 * MRC_NL_ADDR_SIZE)

/*
 * A message of @cmd for the listeners of @group with the connection's ids
 * and ports and room for @size bytes more, or NULL when nobody listens or
 * memory is short.  *@hdr is for mrc_nl_event_send().
 */
static struct sk_buff *mrc_nl_event_new(struct mrc_sock *msk,
					unsigned int group, u8 cmd,
					size_t size, void **hdr)
{
	struct net *net = sock_net(&msk->sk);
	struct sk_buff *msg;

	lockdep_assert_held(&msk->lock);
	if (!genl_has_listeners(&mrc_genl_family, net, group))
		return NULL;
	msg = genlmsg_new(MRC_NL_EV_IDS_SIZE + size, GFP_ATOMIC);
	if (!msg) {
		genl_set_err(&mrc_genl_family, net, 0, group, -ENOBUFS);
		return NULL;
	}
	*hdr = genlmsg_put(msg, 0, 0, &mrc_genl_family, 0, cmd);
	/* Failures to fill an event mean that its size is counted wrong. */
	if (WARN_ON_ONCE(!*hdr ||
			 nla_put_u32(msg, MRC_CONN_ATTR_ID, msk->lcid) ||
			 nla_put_u32(msg, MRC_CONN_ATTR_PEER_ID, msk->rcid) ||
			 nla_put_u16(msg, MRC_CONN_ATTR_PORT,
				     READ_ONCE(msk->port)) ||
			 nla_put_u16(msg, MRC_CONN_ATTR_PEER_PORT,
				     msk->dport))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Send what mrc_nl_event_new() began; @err from filling it. */
static void mrc_nl_event_send(struct mrc_sock *msk, struct sk_buff *msg,
			      void *hdr, unsigned int group, int err)
{
	if (WARN_ON_ONCE(err)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&mrc_genl_family, sock_net(&msk->sk), msg, 0,
				group, GFP_ATOMIC);
}

/*
 * Open a plane nest with the plane's id, our address on it and the
 * peer's.  *@state is our plane's state, or -1 when it was deleted.
 */
static struct nlattr *mrc_nl_event_plane(struct sk_buff *skb,
					 struct mrc_sock *msk, int id,
					 int *state)
{
	struct mrc_net *mn = mrc_msk_net(msk);
	struct mrc_addr addr = { .family = AF_UNSPEC };
	const struct mrc_plane *plane;
	struct nlattr *nest;

	*state = -1;
	rcu_read_lock();
	plane = rcu_dereference(mn->plane_by_id[id]);
	if (plane) {
		addr.family = plane->family;
		addr.v4 = plane->addr4;
		addr.v6 = plane->addr6;
		*state = READ_ONCE(plane->state);
	} else if (mrc_plane_pending_find(mn, id, NULL)) {
		*state = MRC_PLANE_STATE_NO_DEVICE;
	}
	rcu_read_unlock();

	nest = nla_nest_start(skb, MRC_CONN_ATTR_PLANE);
	if (!nest)
		return NULL;
	if (nla_put_u32(skb, MRC_CONN_PLANE_ATTR_ID, id) ||
	    mrc_nl_put_addr(skb, MRC_CONN_PLANE_ATTR_ADDR4,
			    MRC_CONN_PLANE_ATTR_ADDR6, &addr) ||
	    mrc_nl_put_addr(skb, MRC_CONN_PLANE_ATTR_PEER_ADDR4,
			    MRC_CONN_PLANE_ATTR_PEER_ADDR6,
			    &msk->planes[id].raddr)) {
		nla_nest_cancel(skb, nest);
		return NULL;
	}
	return nest;
}

static int mrc_nl_event_conn(struct sk_buff *skb, const struct mrc_sock *msk)
{
	u32 type = msk->sk.sk_type == SOCK_SEQPACKET ?
		   MRC_CONN_TYPE_SEQPACKET : MRC_CONN_TYPE_STREAM;

	if (nla_put_u32(skb, MRC_CONN_ATTR_TYPE, type) ||
	    mrc_nl_put_addr(skb, MRC_CONN_ATTR_PEER_ADDR4,
			    MRC_CONN_ATTR_PEER_ADDR6, &msk->daddr))
		return -EMSGSIZE;
	return 0;
}

/* The connection is established; under msk->lock. */
void mrc_nl_conn_up(struct mrc_sock *msk)
{
	size_t size = nla_total_size(sizeof(u32)) + MRC_NL_ADDR_SIZE +
		      hweight32(msk->plane_mask) *
		      (MRC_NL_EV_PLANE_SIZE + nla_total_size(sizeof(u32)));
	struct sk_buff *msg;
	struct nlattr *nest;
	int id, state, err;
	void *hdr;

	msg = mrc_nl_event_new(msk, MRC_NLGRP_CONN, MRC_CMD_CONN_UP_NTF, size,
			       &hdr);
	if (!msg)
		return;
	err = mrc_nl_event_conn(msg, msk);
	for (id = 0; !err && id < msk->nr_planes; id++) {
		if (!(msk->plane_mask & BIT(id)))
			continue;
		nest = mrc_nl_event_plane(msg, msk, id, &state);
		if (!nest ||
		    nla_put_u32(msg, MRC_CONN_PLANE_ATTR_EVS,
				msk->planes[id].nr_evs))
			err = -EMSGSIZE;
		else
			nla_nest_end(msg, nest);
	}
	mrc_nl_event_send(msk, msg, hdr, MRC_NLGRP_CONN, err);
}

/*
 * The connection ends, for @why, its socket reporting @err (positive, or
 * 0); under msk->lock.  Only connections that were established or
 * connecting: a half-open one that a SYN made is no event.
 */
void mrc_nl_conn_down(struct mrc_sock *msk, enum mrc_conn_end why, int err)
{
	size_t size = nla_total_size(sizeof(u32)) + MRC_NL_ADDR_SIZE +
		      2 * nla_total_size(sizeof(u32)) +
		      7 * nla_total_size_64bit(sizeof(u64));
	struct sk_buff *msg;
	void *hdr;
	int fill;

	if (msk->sk.sk_state != TCP_ESTABLISHED &&
	    msk->sk.sk_state != TCP_SYN_SENT)
		return;
	msg = mrc_nl_event_new(msk, MRC_NLGRP_CONN, MRC_CMD_CONN_DOWN_NTF,
			       size, &hdr);
	if (!msg)
		return;
	fill = mrc_nl_event_conn(msg, msk);
	if (!fill &&
	    (nla_put_u32(msg, MRC_CONN_ATTR_END_REASON, why) ||
	     nla_put_u32(msg, MRC_CONN_ATTR_ERROR, err) ||
	     mrc_nl_put_conn_stats(msg, &msk->stats)))
		fill = -EMSGSIZE;
	mrc_nl_event_send(msk, msg, hdr, MRC_NLGRP_CONN, fill);
}

/* The connection left plane @id, or joined it again; under msk->lock. */
void mrc_nl_conn_plane(struct mrc_sock *msk, int id, bool joined)
{
	size_t size = MRC_NL_EV_PLANE_SIZE + 2 * nla_total_size(sizeof(u32));
	struct sk_buff *msg;
	struct nlattr *nest;
	int state, err = -EMSGSIZE;
	void *hdr;

	msg = mrc_nl_event_new(msk, MRC_NLGRP_CONN,
			       joined ? MRC_CMD_CONN_PLANE_JOIN_NTF :
					MRC_CMD_CONN_PLANE_LEAVE_NTF,
			       size, &hdr);
	if (!msg)
		return;
	nest = mrc_nl_event_plane(msg, msk, id, &state);
	if (nest &&
	    (state < 0 ||
	     !nla_put_u32(msg, MRC_CONN_PLANE_ATTR_STATE, state)) &&
	    !nla_put_u32(msg, MRC_CONN_PLANE_ATTR_EVS_ACTIVE,
			 msk->planes[id].nr_active)) {
		nla_nest_end(msg, nest);
		err = 0;
	}
	mrc_nl_event_send(msk, msg, hdr, MRC_NLGRP_CONN, err);
}

/*
 * EV @ev of plane @id was retired, or restored: the path it names, with
 * the ports and the flow label of its packets.  Under msk->lock.
 */
void mrc_nl_conn_ev(struct mrc_sock *msk, int id, const struct mrc_ev *ev,
		    bool restored)
{
	size_t size = MRC_NL_EV_PLANE_SIZE + 2 * nla_total_size(sizeof(u16)) +
		      3 * nla_total_size(sizeof(u32));
	const struct mrc_conn_plane *cp = &msk->planes[id];
	struct sk_buff *msg;
	struct nlattr *nest;
	int state, err = -EMSGSIZE;
	void *hdr;

	msg = mrc_nl_event_new(msk, MRC_NLGRP_PATH,
			       restored ? MRC_CMD_EV_RESTORE_NTF :
					  MRC_CMD_EV_RETIRE_NTF,
			       size, &hdr);
	if (!msg)
		return;
	nest = mrc_nl_event_plane(msg, msk, id, &state);
	/* mrc_xmit6() puts the EV in the flow label. */
	if (nest &&
	    !nla_put_u16(msg, MRC_CONN_PLANE_ATTR_UDP_PORT,
			 READ_ONCE(mrc_msk_net(msk)->udp_port)) &&
	    !nla_put_u16(msg, MRC_CONN_PLANE_ATTR_EV, ev->port) &&
	    (cp->raddr.family != AF_INET6 ||
	     !nla_put_u32(msg, MRC_CONN_PLANE_ATTR_FLOW_LABEL, ev->port)) &&
	    !nla_put_u32(msg, MRC_CONN_PLANE_ATTR_LOSSES, ev->losses) &&
	    !nla_put_u32(msg, MRC_CONN_PLANE_ATTR_EVS_ACTIVE, cp->nr_active)) {
		nla_nest_end(msg, nest);
		err = 0;
	}
	mrc_nl_event_send(msk, msg, hdr, MRC_NLGRP_PATH, err);
}

int mrc_netlink_init(void)
{
	int i;

	memcpy(mrc_genl_ops, mrc_nl_ops, sizeof(mrc_genl_ops));
	for (i = 0; i < ARRAY_SIZE(mrc_genl_ops); i++)
		if (mrc_genl_ops[i].cmd == MRC_CMD_CONN_GET)
			mrc_genl_ops[i].start = mrc_nl_conn_dump_start;
	return genl_register_family(&mrc_genl_family);
}

void mrc_netlink_exit(void)
{
	genl_unregister_family(&mrc_genl_family);
}
