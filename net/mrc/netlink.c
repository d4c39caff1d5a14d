// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: the "mrc" generic netlink family, control channel of the transport.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <net/genetlink.h>

#include "mrc.h"

static struct genl_family mrc_genl_family __ro_after_init = {
	.name		= "mrc",
	.version	= 1,
	.netnsok	= true,
	.module		= THIS_MODULE,
};

int mrc_netlink_init(void)
{
	return genl_register_family(&mrc_genl_family);
}

void mrc_netlink_exit(void)
{
	genl_unregister_family(&mrc_genl_family);
}
