// SPDX-License-Identifier: GPL-2.0
/*
 * Test module: registers a socket family on AF_MRC's number so that the
 * selftests can check that mrc.ko refuses to load next to it.
 */

#include <linux/module.h>
#include <linux/net.h>

#define SQUATTED_FAMILY	25

static int squatter_create(struct net *net, struct socket *sock, int protocol,
			   int kern)
{
	return -EPROTONOSUPPORT;
}

static const struct net_proto_family squatter_family = {
	.family	= SQUATTED_FAMILY,
	.create	= squatter_create,
	.owner	= THIS_MODULE,
};

static int __init squatter_init(void)
{
	return sock_register(&squatter_family);
}

static void __exit squatter_exit(void)
{
	sock_unregister(SQUATTED_FAMILY);
}

module_init(squatter_init);
module_exit(squatter_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("MRC selftest: holds address family 25");
