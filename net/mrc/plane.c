// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: planes, the network devices that connections spray across.
 *
 * A plane is a device with a local address and an id.  Each plane owns a
 * UDP tunnel socket bound to its address and device.  Planes are added,
 * changed and removed under RTNL, from netlink requests and from device
 * and address notifiers, so that their state always follows the device.
 *
 * A plane whose device is unregistered (deleted, its driver unloaded or
 * reset, or moved to another namespace) leaves its settings behind as a
 * pending plane (struct mrc_plane_pending) that keeps its id.  A device of
 * the same name that registers in the namespace, arrives from another one
 * or is renamed to that name brings the plane back, without an operator.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ipv6.h>
#include <net/udp_tunnel.h>
#include <linux/mrc.h>
#include <linux/mrc_netlink.h>

#include "mrc.h"

static int mrc_plane_setsockopt(struct socket *sock, int level, int name)
{
	int one = 1;

	return sock->ops->setsockopt(sock, level, name, KERNEL_SOCKPTR(&one),
				     sizeof(one));
}

/*
 * The socket is bound with IP_FREEBIND so that it outlives the removal of
 * its address: the plane then only goes down, and comes back up with the
 * address, without reopening anything.
 */
static int mrc_plane_open_socket(struct mrc_plane *plane,
				 struct netlink_ext_ack *extack)
{
	struct net *net = plane->mn->net;
	struct udp_tunnel_sock_cfg tunnel_cfg = {
		.sk_user_data		= plane,
		.encap_type		= MRC_UDP_ENCAP_TYPE,
		.encap_rcv		= mrc_input,
		.encap_err_lookup	= mrc_input_err_lookup,
	};
	struct sockaddr_storage ss = {};
	struct socket *sock;
	int addrlen, err;

	err = sock_create_kern(net, plane->family, SOCK_DGRAM, IPPROTO_UDP,
			       &sock);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot create the plane's UDP socket");
		return err;
	}

	if (plane->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = plane->addr4;
		sin->sin_port = htons(plane->mn->udp_port);
		addrlen = sizeof(*sin);
		err = mrc_plane_setsockopt(sock, SOL_IP, IP_FREEBIND);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = plane->addr6;
		sin6->sin6_port = htons(plane->mn->udp_port);
		if (ipv6_addr_type(&plane->addr6) & IPV6_ADDR_LINKLOCAL)
			sin6->sin6_scope_id = plane->dev->ifindex;
		addrlen = sizeof(*sin6);
		err = mrc_plane_setsockopt(sock, SOL_IPV6, IPV6_V6ONLY) ?:
		      mrc_plane_setsockopt(sock, SOL_IPV6, IPV6_FREEBIND);
	}
	if (err)
		goto err_release;

	err = sock_bindtoindex(sock->sk, plane->dev->ifindex, true);
	if (err)
		goto err_release;

	err = kernel_bind(sock, (struct sockaddr *)&ss, addrlen);
	if (err == -EADDRINUSE) {
		NL_SET_ERR_MSG(extack, "UDP port is in use");
		sock_release(sock);
		return err;
	}
	if (err)
		goto err_release;

	setup_udp_tunnel_sock(net, sock, &tunnel_cfg);
	plane->sock = sock;
	return 0;

err_release:
	NL_SET_ERR_MSG(extack, "cannot bind the plane's UDP socket");
	sock_release(sock);
	return err;
}

static bool mrc_dev_has_addr4(struct net_device *dev, __be32 addr)
{
	struct in_device *in_dev = __in_dev_get_rtnl(dev);
	const struct in_ifaddr *ifa;

	if (!in_dev)
		return false;
	in_dev_for_each_ifa_rtnl(ifa, in_dev)
		if (ifa->ifa_local == addr)
			return true;
	return false;
}

static bool mrc_plane_has_addr(const struct mrc_plane *plane)
{
	if (plane->family == AF_INET)
		return mrc_dev_has_addr4(plane->dev, plane->addr4);
	/*
	 * Strict: the same address on another device does not count.
	 * Tentative addresses do: the end of DAD raises no notifier event.
	 */
	return ipv6_chk_addr_and_flags(dev_net(plane->dev), &plane->addr6,
				       plane->dev, false, 1, IFA_F_DADFAILED);
}

/* The device's first global address: IPv4 first, then IPv6. */
static int mrc_plane_pick_addr(struct mrc_plane *plane)
{
	struct in_device *in_dev = __in_dev_get_rtnl(plane->dev);
	struct inet6_dev *idev = __in6_dev_get(plane->dev);
	const struct inet6_ifaddr *ifp;
	const struct in_ifaddr *ifa;
	int err = -EADDRNOTAVAIL;

	if (in_dev) {
		in_dev_for_each_ifa_rtnl(ifa, in_dev) {
			if (ifa->ifa_scope != RT_SCOPE_UNIVERSE)
				continue;
			plane->family = AF_INET;
			plane->addr4 = ifa->ifa_local;
			return 0;
		}
	}

	if (!idev)
		return err;
	read_lock_bh(&idev->lock);
	list_for_each_entry(ifp, &idev->addr_list, if_list) {
		if (ifp->scope != RT_SCOPE_UNIVERSE ||
		    ifp->flags & IFA_F_DADFAILED)
			continue;
		plane->family = AF_INET6;
		plane->addr6 = ifp->addr;
		err = 0;
		break;
	}
	read_unlock_bh(&idev->lock);
	return err;
}

/* Set when the module goes: devices then leave no pending planes. */
static bool mrc_plane_unloading;

static u8 mrc_plane_compute_state(const struct mrc_plane *plane)
{
	if (!plane->admin_up)
		return MRC_PLANE_STATE_ADMIN_DOWN;
	if (!netif_running(plane->dev) || !netif_carrier_ok(plane->dev))
		return MRC_PLANE_STATE_LINK_DOWN;
	if (!mrc_plane_has_addr(plane))
		return MRC_PLANE_STATE_NO_ADDRESS;
	return MRC_PLANE_STATE_UP;
}

/* Recompute the state; tell listeners when it changed or when @force. */
static void mrc_plane_refresh(struct mrc_plane *plane, bool force)
{
	u8 state = mrc_plane_compute_state(plane);

	ASSERT_RTNL();
	if (state == plane->state && !force)
		return;
	WRITE_ONCE(plane->state, state);
	mrc_path_planes_changed(plane->mn);
	mrc_nl_notify_plane(plane, MRC_CMD_PLANE_CHANGE_NTF);
}

u32 mrc_plane_evs(const struct mrc_plane *plane)
{
	/* Read on connect, without RTNL. */
	return READ_ONCE(plane->evs) ?: READ_ONCE(plane->mn->default_evs);
}

struct mrc_plane *mrc_plane_find(struct mrc_net *mn, int id,
				 const struct net_device *dev)
{
	struct mrc_plane *plane;

	ASSERT_RTNL();
	list_for_each_entry(plane, &mn->planes, list)
		if (plane->id == id || plane->dev == dev)
			return plane;
	return NULL;
}

/* Whether @addr is the address of one of the namespace's planes. */
bool mrc_plane_is_local(struct mrc_net *mn, const struct mrc_addr *addr)
{
	struct mrc_plane *plane;
	bool found = false;

	rcu_read_lock();
	list_for_each_entry_rcu(plane, &mn->planes, list) {
		if (plane->family != addr->family)
			continue;
		if (addr->family == AF_INET ? plane->addr4 == addr->v4 :
		    ipv6_addr_equal(&plane->addr6, &addr->v6)) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * The pending plane of id @id, or that waits for a device named @ifname.
 * Under RTNL, or RCU for readers.
 */
struct mrc_plane_pending *mrc_plane_pending_find(struct mrc_net *mn, int id,
						 const char *ifname)
{
	struct mrc_plane_pending *pending;

	list_for_each_entry_rcu(pending, &mn->pending_planes, list,
				lockdep_rtnl_is_held())
		if (pending->id == id ||
		    (ifname && !strncmp(pending->ifname, ifname, IFNAMSIZ)))
			return pending;
	return NULL;
}

/* Pending planes keep their ids. */
static bool mrc_plane_id_used(struct mrc_net *mn, int id)
{
	return mrc_plane_find(mn, id, NULL) ||
	       mrc_plane_pending_find(mn, id, NULL);
}

static int mrc_plane_free_id(struct mrc_net *mn)
{
	int id;

	for (id = 0; id <= MRC_PLANE_ID_MAX; id++)
		if (!mrc_plane_id_used(mn, id))
			return id;
	return -1;
}

/* Keep the list sorted by id, for dumps. */
static void mrc_plane_link(struct mrc_net *mn, struct mrc_plane *plane)
{
	struct mrc_plane *pos;

	list_for_each_entry(pos, &mn->planes, list) {
		if (pos->id > plane->id) {
			list_add_tail_rcu(&plane->list, &pos->list);
			goto out;
		}
	}
	list_add_tail_rcu(&plane->list, &mn->planes);
out:
	rcu_assign_pointer(mn->plane_by_id[plane->id], plane);
	WRITE_ONCE(mn->nr_planes, mn->nr_planes + 1);
}

static int mrc_plane_check_dev(struct mrc_net *mn, struct net_device *dev,
			       struct netlink_ext_ack *extack)
{
	if (dev->flags & IFF_LOOPBACK) {
		NL_SET_ERR_MSG(extack, "loopback device cannot be a plane");
		return -EINVAL;
	}
	if (mrc_plane_find(mn, -1, dev)) {
		NL_SET_ERR_MSG(extack, "device is already a plane");
		return -EEXIST;
	}
	if (mrc_plane_pending_find(mn, -1, dev->name)) {
		NL_SET_ERR_MSG(extack,
			       "a plane that lost its device waits for this name; delete it first");
		return -EEXIST;
	}
	return 0;
}

/*
 * A plane that comes back with its own address may come before it: its
 * socket is bound with FREEBIND, and the plane is up once the address is.
 */
static int mrc_plane_set_addr(struct mrc_plane *plane,
			      const struct mrc_plane_cfg *cfg, bool restore,
			      struct netlink_ext_ack *extack)
{
	plane->family = cfg->family;
	plane->addr4 = cfg->addr4;
	plane->addr6 = cfg->addr6;
	plane->addr_auto = cfg->family == AF_UNSPEC;

	if (cfg->family == AF_UNSPEC) {
		if (mrc_plane_pick_addr(plane)) {
			NL_SET_ERR_MSG(extack, "device has no usable address");
			return -EADDRNOTAVAIL;
		}
	} else if (!restore && !mrc_plane_has_addr(plane)) {
		NL_SET_ERR_MSG(extack, "address is not on the device");
		return -EADDRNOTAVAIL;
	}
	return 0;
}

/* Make the plane of @cfg, whose id is free, and tell the connections. */
static struct mrc_plane *mrc_plane_create(struct mrc_net *mn,
					  const struct mrc_plane_cfg *cfg,
					  bool restore,
					  struct netlink_ext_ack *extack)
{
	struct mrc_plane *plane;
	int err;

	plane = kzalloc(sizeof(*plane), GFP_KERNEL_ACCOUNT);
	if (!plane)
		return ERR_PTR(-ENOMEM);
	plane->mn = mn;
	plane->dev = cfg->dev;
	plane->id = cfg->id;
	plane->admin_up = cfg->admin_up;
	plane->evs = cfg->evs;
	plane->base_rtt_us = cfg->base_rtt_us;
	plane->mib = alloc_percpu_gfp(struct mrc_plane_mib, GFP_KERNEL_ACCOUNT);
	if (!plane->mib) {
		err = -ENOMEM;
		goto err_free;
	}

	err = mrc_plane_set_addr(plane, cfg, restore, extack);
	if (err)
		goto err_free;

	err = mrc_plane_open_socket(plane, extack);
	if (err)
		goto err_free;

	netdev_hold(plane->dev, &plane->dev_tracker, GFP_KERNEL);
	plane->state = mrc_plane_compute_state(plane);
	mrc_plane_link(mn, plane);
	mrc_path_planes_changed(mn);
	return plane;

err_free:
	free_percpu(plane->mib);
	kfree(plane);
	return ERR_PTR(err);
}

struct mrc_plane *mrc_plane_add(struct mrc_net *mn,
				const struct mrc_plane_cfg *cfg,
				struct netlink_ext_ack *extack)
{
	struct mrc_plane_cfg c = *cfg;
	struct mrc_plane *plane;
	int err;

	ASSERT_RTNL();
	err = mrc_plane_check_dev(mn, cfg->dev, extack);
	if (err)
		return ERR_PTR(err);

	if (c.id < 0) {
		c.id = mrc_plane_free_id(mn);
		if (c.id < 0) {
			NL_SET_ERR_MSG(extack, "all plane ids are in use");
			return ERR_PTR(-ENOSPC);
		}
	} else if (mrc_plane_id_used(mn, c.id)) {
		NL_SET_ERR_MSG(extack, "plane id is in use");
		return ERR_PTR(-EEXIST);
	}

	plane = mrc_plane_create(mn, &c, false, extack);
	if (!IS_ERR(plane))
		mrc_nl_notify_plane(plane, MRC_CMD_PLANE_ADD_NTF);
	return plane;
}

static void mrc_plane_free_rcu(struct rcu_head *head)
{
	struct mrc_plane *plane = container_of(head, struct mrc_plane, rcu);

	netdev_put(plane->dev, &plane->dev_tracker);
	free_percpu(plane->mib);
	kfree(plane);
}

static void __mrc_plane_del(struct mrc_plane *plane, bool notify)
{
	struct mrc_net *mn = plane->mn;

	ASSERT_RTNL();
	list_del_rcu(&plane->list);
	RCU_INIT_POINTER(mn->plane_by_id[plane->id], NULL);
	WRITE_ONCE(mn->nr_planes, mn->nr_planes - 1);
	mrc_path_planes_changed(mn);
	if (notify)
		mrc_nl_notify_plane(plane, MRC_CMD_PLANE_DEL_NTF);
	/*
	 * Senders use plane->sock under RCU: let them finish before the
	 * socket goes.  The receive path reads the plane under RCU too.
	 */
	synchronize_net();
	udp_tunnel_sock_release(plane->sock);
	plane->sock = NULL;
	call_rcu(&plane->rcu, mrc_plane_free_rcu);
}

void mrc_plane_del(struct mrc_plane *plane)
{
	__mrc_plane_del(plane, true);
}

/*
 * The plane's device is going: keep the plane's settings for its return,
 * and remove the plane as "plane del" does.  Without memory for them the
 * plane is only removed.
 */
static void mrc_plane_keep(struct mrc_plane *plane)
{
	struct mrc_net *mn = plane->mn;
	struct mrc_plane_pending *pending;

	ASSERT_RTNL();
	pending = kzalloc(sizeof(*pending), GFP_KERNEL_ACCOUNT);
	if (!pending) {
		mrc_plane_del(plane);
		return;
	}
	strscpy(pending->ifname, plane->dev->name, IFNAMSIZ);
	if (!plane->addr_auto) {
		pending->family = plane->family;
		pending->addr4 = plane->addr4;
		pending->addr6 = plane->addr6;
	}
	pending->id = plane->id;
	pending->admin_up = plane->admin_up;
	pending->evs = plane->evs;
	pending->base_rtt_us = plane->base_rtt_us;

	__mrc_plane_del(plane, false);
	list_add_tail_rcu(&pending->list, &mn->pending_planes);
	mrc_nl_notify_pending(mn, pending, MRC_CMD_PLANE_CHANGE_NTF);
}

/*
 * Bring the pending plane back on @dev, which has its name.  When that
 * fails (a plane that picks its address and the device has none yet, the
 * UDP port taken, no memory), it stays pending and is tried again on the
 * next address change.
 */
static void mrc_plane_restore(struct mrc_net *mn,
			      struct mrc_plane_pending *pending,
			      struct net_device *dev)
{
	struct mrc_plane_cfg cfg = {
		.dev		= dev,
		.id		= pending->id,
		.family		= pending->family,
		.addr4		= pending->addr4,
		.addr6		= pending->addr6,
		.admin_up	= pending->admin_up,
		.evs		= pending->evs,
		.base_rtt_us	= pending->base_rtt_us,
	};
	struct mrc_plane *plane;

	ASSERT_RTNL();
	if (dev->flags & IFF_LOOPBACK || mrc_plane_find(mn, -1, dev))
		return;
	plane = mrc_plane_create(mn, &cfg, true, NULL);
	if (IS_ERR(plane))
		return;
	list_del_rcu(&pending->list);
	kfree_rcu(pending, rcu);
	mrc_nl_notify_plane(plane, MRC_CMD_PLANE_CHANGE_NTF);
}

/* A device took a name, or arrived: is a plane waiting for it? */
static void mrc_plane_restore_dev(struct mrc_net *mn, struct net_device *dev)
{
	struct mrc_plane_pending *pending;

	pending = mrc_plane_pending_find(mn, -1, dev->name);
	if (pending)
		mrc_plane_restore(mn, pending, dev);
}

/* Retry the pending planes whose device is there. */
static void mrc_plane_restore_all(struct mrc_net *mn)
{
	struct mrc_plane_pending *pending, *tmp;
	struct net_device *dev;

	list_for_each_entry_safe(pending, tmp, &mn->pending_planes, list) {
		dev = __dev_get_by_name(mn->net, pending->ifname);
		if (dev)
			mrc_plane_restore(mn, pending, dev);
	}
}

static void __mrc_plane_pending_del(struct mrc_net *mn,
				    struct mrc_plane_pending *pending,
				    bool notify)
{
	ASSERT_RTNL();
	list_del_rcu(&pending->list);
	if (notify)
		mrc_nl_notify_pending(mn, pending, MRC_CMD_PLANE_DEL_NTF);
	kfree_rcu(pending, rcu);
}

void mrc_plane_pending_del(struct mrc_net *mn,
			   struct mrc_plane_pending *pending)
{
	__mrc_plane_pending_del(mn, pending, true);
}

/* "plane set" on a pending plane changes what it comes back with. */
void mrc_plane_pending_update(struct mrc_net *mn,
			      struct mrc_plane_pending *pending,
			      const struct mrc_plane_settings *set)
{
	ASSERT_RTNL();
	if (pending->admin_up == set->admin_up && pending->evs == set->evs &&
	    pending->base_rtt_us == set->base_rtt_us)
		return;
	WRITE_ONCE(pending->admin_up, set->admin_up);
	WRITE_ONCE(pending->evs, set->evs);
	WRITE_ONCE(pending->base_rtt_us, set->base_rtt_us);
	mrc_nl_notify_pending(mn, pending, MRC_CMD_PLANE_CHANGE_NTF);
}

/* Connections read @evs when they are made, @base_rtt_us at every sample. */
void mrc_plane_update(struct mrc_plane *plane,
		      const struct mrc_plane_settings *set)
{
	bool changed = plane->admin_up != set->admin_up ||
		       plane->evs != set->evs ||
		       plane->base_rtt_us != set->base_rtt_us;

	WRITE_ONCE(plane->admin_up, set->admin_up);
	WRITE_ONCE(plane->evs, set->evs);
	WRITE_ONCE(plane->base_rtt_us, set->base_rtt_us);
	mrc_plane_refresh(plane, changed);
}

static void mrc_plane_refresh_all(struct mrc_net *mn)
{
	struct mrc_plane *plane;

	list_for_each_entry(plane, &mn->planes, list)
		mrc_plane_refresh(plane, false);
}

static void mrc_plane_refresh_work(struct work_struct *work)
{
	struct mrc_net *mn = container_of(work, struct mrc_net, refresh_work);

	rtnl_lock();
	mrc_plane_refresh_all(mn);
	/* A plane that picks its address waits for one on its device. */
	mrc_plane_restore_all(mn);
	rtnl_unlock();
}

static int mrc_plane_netdev_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct mrc_net *mn = mrc_pernet(dev_net(dev));
	struct mrc_plane *plane = mrc_plane_find(mn, -1, dev);

	if (!plane) {
		/* Also how a device arrives from another namespace. */
		if (event == NETDEV_REGISTER || event == NETDEV_CHANGENAME)
			mrc_plane_restore_dev(mn, dev);
		return NOTIFY_DONE;
	}

	switch (event) {
	case NETDEV_UNREGISTER:
		/*
		 * Also how a device leaves for another namespace: the plane
		 * stays in this one and waits for a device of that name.
		 */
		if (mrc_plane_unloading)
			mrc_plane_del(plane);
		else
			mrc_plane_keep(plane);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		mrc_plane_refresh(plane, false);
		break;
	case NETDEV_CHANGEMTU:
	case NETDEV_CHANGENAME:
		mrc_plane_refresh(plane, true);
		break;
	}
	return NOTIFY_DONE;
}

/*
 * Address notifiers run in contexts that may not sleep (IPv6) or before
 * the address list settles; recompute plane states from a work item.
 */
static void mrc_plane_addr_event(struct net_device *dev)
{
	struct mrc_net *mn = mrc_pernet(dev_net(dev));

	if (READ_ONCE(mn->nr_planes) || !list_empty(&mn->pending_planes))
		schedule_work(&mn->refresh_work);
}

static int mrc_plane_inetaddr_event(struct notifier_block *nb,
				    unsigned long event, void *ptr)
{
	const struct in_ifaddr *ifa = ptr;

	mrc_plane_addr_event(ifa->ifa_dev->dev);
	return NOTIFY_DONE;
}

static int mrc_plane_inet6addr_event(struct notifier_block *nb,
				     unsigned long event, void *ptr)
{
	const struct inet6_ifaddr *ifp = ptr;

	mrc_plane_addr_event(ifp->idev->dev);
	return NOTIFY_DONE;
}

static struct notifier_block mrc_plane_netdev_nb = {
	.notifier_call = mrc_plane_netdev_event,
};

static struct notifier_block mrc_plane_inetaddr_nb = {
	.notifier_call = mrc_plane_inetaddr_event,
};

static struct notifier_block mrc_plane_inet6addr_nb = {
	.notifier_call = mrc_plane_inet6addr_event,
};

void mrc_plane_net_init(struct mrc_net *mn)
{
	INIT_LIST_HEAD(&mn->planes);
	INIT_LIST_HEAD(&mn->pending_planes);
	INIT_WORK(&mn->refresh_work, mrc_plane_refresh_work);
	INIT_WORK(&mn->paths_work, mrc_path_planes_work);
	mn->udp_port = MRC_DEFAULT_UDP_PORT;
	mn->default_evs = MRC_DEFAULT_EVS;
}

/*
 * The namespace is going away, or the module: nobody is left to listen to
 * events (and on unload the netlink family is gone already).
 */
void mrc_plane_net_exit(struct mrc_net *mn)
{
	struct mrc_plane_pending *pending, *ptmp;
	struct mrc_plane *plane, *tmp;

	rtnl_lock();
	list_for_each_entry_safe(plane, tmp, &mn->planes, list)
		__mrc_plane_del(plane, false);
	list_for_each_entry_safe(pending, ptmp, &mn->pending_planes, list)
		__mrc_plane_pending_del(mn, pending, false);
	rtnl_unlock();
	/* No device is left to raise address events for this namespace. */
	cancel_work_sync(&mn->refresh_work);
	cancel_work_sync(&mn->paths_work);
}

int mrc_plane_init(void)
{
	int err;

	err = register_netdevice_notifier(&mrc_plane_netdev_nb);
	if (err)
		return err;
	err = register_inetaddr_notifier(&mrc_plane_inetaddr_nb);
	if (err)
		goto err_netdev;
	err = register_inet6addr_notifier(&mrc_plane_inet6addr_nb);
	if (err)
		goto err_inetaddr;
	return 0;

err_inetaddr:
	unregister_inetaddr_notifier(&mrc_plane_inetaddr_nb);
err_netdev:
	unregister_netdevice_notifier(&mrc_plane_netdev_nb);
	return err;
}

void mrc_plane_exit(void)
{
	/* Unregistering the notifier replays NETDEV_UNREGISTER: delete. */
	rtnl_lock();
	mrc_plane_unloading = true;
	rtnl_unlock();
	unregister_inet6addr_notifier(&mrc_plane_inet6addr_nb);
	unregister_inetaddr_notifier(&mrc_plane_inetaddr_nb);
	unregister_netdevice_notifier(&mrc_plane_netdev_nb);
}
