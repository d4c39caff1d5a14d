// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: memory accounting.  Every byte an MRC socket holds, sent and not
 * yet acknowledged or received and not yet read, is charged to the
 * socket's memory cgroup and to the total of all MRC sockets, which three
 * limits bound, as net.ipv4.tcp_mem bounds TCP's.  Global, like tcp_mem,
 * under net.mrc:
 *
 *   mem   pages: no pressure below, pressure above, never above the last
 *   wmem  bytes: a send buffer's guaranteed minimum, the default of a
 *         SOCK_STREAM socket, the default of a SOCK_SEQPACKET socket
 *         (which must hold whole messages)
 *   rmem  bytes: a receive buffer's guaranteed minimum, the default, and
 *         the largest the default may be
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <linux/mm.h>
#include <linux/swap.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include "mrc.h"

atomic_long_t mrc_memory_allocated;
DEFINE_PER_CPU(int, mrc_memory_per_cpu_fw_alloc);
long sysctl_mrc_mem[3];
int sysctl_mrc_wmem[3] = { 4096, MRC_SNDBUF_STREAM, MRC_SNDBUF_SEQPACKET };
int sysctl_mrc_rmem[3] = { 4096, MRC_RCVBUF_DEFAULT, MRC_RCVBUF_DEFAULT };

static struct ctl_table mrc_sysctl_table[] = {
	{
		.procname	= "mem",
		.data		= &sysctl_mrc_mem,
		.maxlen		= sizeof(sysctl_mrc_mem),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
	},
	{
		.procname	= "wmem",
		.data		= &sysctl_mrc_wmem,
		.maxlen		= sizeof(sysctl_mrc_wmem),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ONE,
	},
	{
		.procname	= "rmem",
		.data		= &sysctl_mrc_rmem,
		.maxlen		= sizeof(sysctl_mrc_rmem),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ONE,
	},
	{ }	/* the end, for kernels that look for it */
};

static struct ctl_table_header *mrc_sysctl_header;

int mrc_sysctl_init(void)
{
	/* As TCP sizes tcp_mem: a sixteenth of the memory, in pages. */
	unsigned long limit = max(nr_free_buffer_pages() / 16, 128UL);

	sysctl_mrc_mem[0] = limit / 4 * 3;
	sysctl_mrc_mem[1] = limit;
	sysctl_mrc_mem[2] = sysctl_mrc_mem[0] * 2;

#ifdef MRC_HAVE_SYSCTL_SZ
	mrc_sysctl_header = register_net_sysctl_sz(&init_net, "net/mrc",
						   mrc_sysctl_table,
						   ARRAY_SIZE(mrc_sysctl_table) - 1);
#else
	mrc_sysctl_header = register_net_sysctl(&init_net, "net/mrc",
						mrc_sysctl_table);
#endif
	return mrc_sysctl_header ? 0 : -ENOMEM;
}

void mrc_sysctl_exit(void)
{
	unregister_net_sysctl_table(mrc_sysctl_header);
}
