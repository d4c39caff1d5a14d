// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: Multipath Reliable Connection transport, module glue.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <net/genetlink.h>
#include <linux/mrc.h>

#include "mrc.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

struct workqueue_struct *mrc_wq;

static int __init mrc_init(void)
{
	int err;

	mrc_wq = alloc_workqueue("mrc", 0, 0);
	if (!mrc_wq)
		return -ENOMEM;

	err = mrc_sysctl_init();
	if (err)
		goto err_wq;

	err = mrc_pernet_init();
	if (err)
		goto err_sysctl;

	/* Planes follow their devices from the first one added. */
	err = mrc_plane_init();
	if (err)
		goto err_pernet;

	err = mrc_netlink_init();
	if (err)
		goto err_plane;

	err = mrc_diag_init();
	if (err)
		goto err_netlink;

	/* Last: once the family is registered, sockets can be created. */
	err = mrc_socket_init();
	if (err)
		goto err_diag;

	pr_info("Multipath Reliable Connection, address family %d\n", AF_MRC);
	return 0;

err_diag:
	mrc_diag_exit();
err_netlink:
	mrc_netlink_exit();
err_plane:
	mrc_plane_exit();
err_pernet:
	mrc_pernet_exit();
	/* Planes are freed by RCU callbacks in this module. */
	rcu_barrier();
err_sysctl:
	mrc_sysctl_exit();
err_wq:
	destroy_workqueue(mrc_wq);
	return err;
}

static void __exit mrc_exit(void)
{
	mrc_socket_exit();
	mrc_diag_exit();
	mrc_plane_exit();
	/*
	 * Removes the planes left in every namespace and cancels the works
	 * that report plane changes: before the family that reports goes.
	 */
	mrc_pernet_exit();
	mrc_netlink_exit();
	/* Planes are freed by RCU callbacks in this module. */
	rcu_barrier();
	/* The last connection's teardown may still be returning. */
	destroy_workqueue(mrc_wq);
	mrc_sysctl_exit();
}

module_init(mrc_init);
module_exit(mrc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("MRC: Multipath Reliable Connection transport");
MODULE_AUTHOR("The MRC for Linux authors");
MODULE_VERSION(MRC_PACKAGE_VERSION);
MODULE_ALIAS_NETPROTO(PF_MRC);
MODULE_ALIAS_GENL_FAMILY("mrc");
