// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: memory accounting.  Every byte an MRC socket holds, sent and not
 * yet acknowledged or received and not yet read, is charged to the
 * socket's memory cgroup and to the total of all MRC sockets, which three
 * limits bound, as net.ipv4.tcp_mem bounds TCP's.  Global, like tcp_mem,
 * under net.mrc:
 *
 *   mem   pages: no pressure below, pressure above (until under the
 *         first again), never above the last
 *   wmem  bytes: a send buffer's guaranteed minimum, the default of a
 *         SOCK_STREAM socket, the default of a SOCK_SEQPACKET socket
 *         (which must hold whole messages)
 *   rmem  bytes: a receive buffer's guaranteed minimum, the default, and
 *         the largest the default may be
 *
 * The rest of net.mrc is per namespace, and bounded, since the root of a
 * user namespace may write it: what each connection takes when it is made
 * (timeouts, the retransmission timeout's bounds, the acknowledgment
 * delay, the initial window), and the namespace's limits (RSTs for
 * strays, orphans, half-open connections), which apply at once.
 * Documentation/networking/mrc-sysctl.rst describes each.
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
unsigned long mrc_memory_pressure;
struct percpu_counter mrc_sockets_allocated;
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

static const struct mrc_sysctl mrc_sysctl_defaults = {
	.conn = {
		.connect_timeout_ms	= 12000,
		.syn_recv_timeout_ms	= 3000,
		.dead_peer_timeout_ms	= 10000,
		.rto_min_us		= 1000,
		.rto_max_ms		= 1000,
		.ack_delay_us		= 50,
		.init_cwnd		= 32,
		.target_delay_us	= 2000,
	},
	.rst_rate		= 1000,
	.rst_rate_source	= 100,
	.max_orphans		= 4096,
	.half_open_max		= 256,
};

static const unsigned int mrc_u32_0;
static const unsigned int mrc_u32_1 = 1;
static const unsigned int mrc_u32_2 = 2;
static const unsigned int mrc_u32_10 = 10;
static const unsigned int mrc_u32_100 = 100;
static const unsigned int mrc_ring_size = MRC_RING_MIN;
static const unsigned int mrc_ms_minute = 60 * MSEC_PER_SEC;
static const unsigned int mrc_ms_10_minutes = 600 * MSEC_PER_SEC;
static const unsigned int mrc_ms_hour = 3600 * MSEC_PER_SEC;
static const unsigned int mrc_us_second = USEC_PER_SEC;
static const unsigned int mrc_us_100ms = 100 * USEC_PER_MSEC;
static const unsigned int mrc_u32_65536 = 65536;
static const unsigned int mrc_u32_100000 = 100000;

#ifdef MRC_HAVE_CONST_CTL_TABLE
#define MRC_CTL_TABLE const struct ctl_table
#else
#define MRC_CTL_TABLE struct ctl_table
#endif

static void mrc_rst_limit_set(struct ratelimit_state *rs, u32 burst)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&rs->lock, flags);
	rs->burst = burst;
	raw_spin_unlock_irqrestore(&rs->lock, flags);
}

/* A new RST rate takes effect at once. */
static int mrc_sysctl_rst_rate(MRC_CTL_TABLE *table, int write, void *buffer,
			       size_t *lenp, loff_t *ppos)
{
	struct mrc_net *mn = container_of((u32 *)table->data, struct mrc_net,
					  sysctl.rst_rate);
	int err;

	err = proc_douintvec_minmax(table, write, buffer, lenp, ppos);
	if (!err && write)
		mrc_rst_limit_set(&mn->rst_limit, READ_ONCE(mn->sysctl.rst_rate));
	return err;
}

/* ... in every bucket of sources. */
static int mrc_sysctl_rst_rate_source(MRC_CTL_TABLE *table, int write,
				      void *buffer, size_t *lenp, loff_t *ppos)
{
	struct mrc_net *mn = container_of((u32 *)table->data, struct mrc_net,
					  sysctl.rst_rate_source);
	int err, i;

	err = proc_douintvec_minmax(table, write, buffer, lenp, ppos);
	if (err || !write)
		return err;
	for (i = 0; i < MRC_RST_SOURCES; i++)
		mrc_rst_limit_set(&mn->rst_src_limit[i],
				  READ_ONCE(mn->sysctl.rst_rate_source));
	return 0;
}

/* .data holds the offset in struct mrc_net until a namespace's copy. */
#define MRC_SYSCTL(_name, _field, _min, _max, _handler) {		\
	.procname	= _name,					\
	.data		= (void *)offsetof(struct mrc_net, sysctl._field), \
	.maxlen		= sizeof(u32),					\
	.mode		= 0644,						\
	.proc_handler	= _handler,					\
	.extra1		= (void *)(_min),				\
	.extra2		= (void *)(_max),				\
}

#define MRC_SYSCTL_U32(_name, _field, _min, _max)			\
	MRC_SYSCTL(_name, _field, _min, _max, proc_douintvec_minmax)

static const struct ctl_table mrc_net_sysctl_template[] = {
	MRC_SYSCTL_U32("connect_timeout_ms", conn.connect_timeout_ms,
		       &mrc_u32_100, &mrc_ms_10_minutes),
	MRC_SYSCTL_U32("syn_recv_timeout_ms", conn.syn_recv_timeout_ms,
		       &mrc_u32_100, &mrc_ms_minute),
	MRC_SYSCTL_U32("dead_peer_timeout_ms", conn.dead_peer_timeout_ms,
		       &mrc_u32_100, &mrc_ms_hour),
	MRC_SYSCTL_U32("rto_min_us", conn.rto_min_us,
		       &mrc_u32_10, &mrc_us_second),
	MRC_SYSCTL_U32("rto_max_ms", conn.rto_max_ms,
		       &mrc_u32_1, &mrc_ms_minute),
	MRC_SYSCTL_U32("ack_delay_us", conn.ack_delay_us,
		       &mrc_u32_0, &mrc_us_100ms),
	MRC_SYSCTL_U32("init_cwnd", conn.init_cwnd,
		       &mrc_u32_2, &mrc_ring_size),
	MRC_SYSCTL_U32("target_delay_us", conn.target_delay_us,
		       &mrc_u32_0, &mrc_us_second),
	MRC_SYSCTL("rst_rate", rst_rate, &mrc_u32_0, &mrc_u32_100000,
		   mrc_sysctl_rst_rate),
	MRC_SYSCTL("rst_rate_per_source", rst_rate_source, &mrc_u32_0,
		   &mrc_u32_100000, mrc_sysctl_rst_rate_source),
	MRC_SYSCTL_U32("max_orphans", max_orphans,
		       &mrc_u32_0, &mrc_u32_65536),
	MRC_SYSCTL_U32("half_open_max", half_open_max,
		       &mrc_u32_1, &mrc_u32_65536),
	{ }
};

void mrc_sysctl_net_defaults(struct mrc_net *mn)
{
	mn->sysctl = mrc_sysctl_defaults;
}

int mrc_sysctl_net_init(struct mrc_net *mn)
{
	struct ctl_table *table;
	int i;

	table = kmemdup(mrc_net_sysctl_template,
			sizeof(mrc_net_sysctl_template), GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	for (i = 0; table[i].procname; i++)
		table[i].data = (char *)mn + (uintptr_t)table[i].data;
#ifdef MRC_HAVE_SYSCTL_SZ
	mn->sysctl_header = register_net_sysctl_sz(mn->net, "net/mrc", table,
						   ARRAY_SIZE(mrc_net_sysctl_template) - 1);
#else
	mn->sysctl_header = register_net_sysctl(mn->net, "net/mrc", table);
#endif
	if (!mn->sysctl_header) {
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

void mrc_sysctl_net_exit(struct mrc_net *mn)
{
	const struct ctl_table *table = mn->sysctl_header->ctl_table_arg;

	unregister_net_sysctl_table(mn->sysctl_header);
	kfree(table);
}

/*
 * Above mem[1], MRC is under pressure until it falls under mem[0] again
 * (the core leaves it): a socket then takes more than its guaranteed
 * minimum (wmem[0], rmem[0]) only while it holds less than its share of
 * mem[2] over all MRC sockets (mrc_sockets_allocated), as TCP's do.
 */
void mrc_enter_memory_pressure(struct sock *sk)
{
	if (!READ_ONCE(mrc_memory_pressure) &&
	    !cmpxchg(&mrc_memory_pressure, 0, 1))
		MRC_INC_STATS(mrc_pernet(sock_net(sk)), MRC_MIB_MEMORY_PRESSURES);
}

int mrc_sysctl_init(void)
{
	/* As TCP sizes tcp_mem: a sixteenth of the memory, in pages. */
	unsigned long limit = max(nr_free_buffer_pages() / 16, 128UL);
	int err;

	sysctl_mrc_mem[0] = limit / 4 * 3;
	sysctl_mrc_mem[1] = limit;
	sysctl_mrc_mem[2] = sysctl_mrc_mem[0] * 2;

	err = percpu_counter_init(&mrc_sockets_allocated, 0, GFP_KERNEL);
	if (err)
		return err;
#ifdef MRC_HAVE_SYSCTL_SZ
	mrc_sysctl_header = register_net_sysctl_sz(&init_net, "net/mrc",
						   mrc_sysctl_table,
						   ARRAY_SIZE(mrc_sysctl_table) - 1);
#else
	mrc_sysctl_header = register_net_sysctl(&init_net, "net/mrc",
						mrc_sysctl_table);
#endif
	if (mrc_sysctl_header)
		return 0;
	percpu_counter_destroy(&mrc_sockets_allocated);
	return -ENOMEM;
}

void mrc_sysctl_exit(void)
{
	unregister_net_sysctl_table(mrc_sysctl_header);
	percpu_counter_destroy(&mrc_sockets_allocated);
}
