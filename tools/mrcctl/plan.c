// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: "plan", the arithmetic of a long link between sites: round trip,
 * bandwidth-delay product, the window and buffers that fill it, and how
 * they compare with what the namespace allows.  It needs no netlink, nor
 * the module loaded.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/udp.h>

#include "mrcctl.h"

/* Fibre: light takes about 5 us per km, 5 ns per metre. */
#define PLAN_NS_PER_M		5ULL

/*
 * DATA packets one connection keeps in flight each way: the slots of its
 * rings, MRC_RING_MIN and MRC_RING_MAX in net/mrc/mrc.h.  A ring has a
 * slot for each full packet its side's buffer holds, rounded down to a
 * power of two and within these, as mrc_conn_ring_size() in
 * net/mrc/conn.c sizes it: the receive ring to the receive buffer, the
 * send ring to the send buffer and the peer's first window.  The kernel
 * does not export them and no sysctl changes them.
 */
#define PLAN_RING_MIN		1024ULL
#define PLAN_RING_MAX		16384ULL

/* struct mrc_hdr, the header of every MRC packet (net/mrc/protocol.h). */
#define PLAN_MRC_HDR_LEN	28U
/* struct mrc_ack, which may ride before a DATA packet's payload. */
#define PLAN_MRC_ACK_LEN	24U

/*
 * What a DATA packet costs in a socket buffer, as mrc_mss_truesize() in
 * net/mrc/socket.c counts it on the x86-64 kernels of Debian 12 (6.1 and
 * 6.12): LL_MAX_HEADER (128), an IPv6, UDP and MRC header and an ack
 * before the payload, and struct skb_shared_info (320 bytes) after it,
 * rounded up to a power of two; then struct sk_buff (256 bytes aligned)
 * and the shared info again, as SKB_TRUESIZE() adds them.
 */
#define PLAN_LL_MAX_HEADER	128U
#define PLAN_SKB_SIZE		256U
#define PLAN_SHINFO_SIZE	320U

/* The largest buffer SO_SNDBUF or SO_RCVBUF gets: INT_MAX / 2, doubled. */
#define PLAN_BUF_MAX		((unsigned long long)(INT_MAX / 2) * 2)

#define PLAN_MAX_M		100000000ULL		/* 100,000 km */
#define PLAN_MAX_RATE		1000000000000000ULL	/* 1 Pbit/s */
#define PLAN_MAX_EXTRA_NS	10000000000ULL		/* 10 s */
#define PLAN_MIN_MTU		576U

#define PLAN_PAGE_SIZE		4096ULL

#define NSEC_PER_SEC		1000000000ULL

enum plan_kw {
	PLAN_KW_DISTANCE,
	PLAN_KW_RATE,
	PLAN_KW_PLANES,
	PLAN_KW_MTU,
	PLAN_KW_RTT_EXTRA,
	PLAN_KW_FAMILY,
	PLAN_KW_COUNT,
};

static const char *const plan_keywords[PLAN_KW_COUNT] = {
	[PLAN_KW_DISTANCE]	= "distance",
	[PLAN_KW_RATE]		= "rate",
	[PLAN_KW_PLANES]	= "planes",
	[PLAN_KW_MTU]		= "mtu",
	[PLAN_KW_RTT_EXTRA]	= "rtt-extra",
	[PLAN_KW_FAMILY]	= "family",
};

const char *const plan_usage_lines[] = {
	"plan distance DISTANCE rate RATE planes N [mtu MTU]\n"
	"                   [rtt-extra TIME] [family { 4 | 6 }]",
	"plan help",
	NULL
};

void plan_usage(FILE *out)
{
	usage_print(out, plan_usage_lines, false);
	fputs("where  DISTANCE := NUMBER{km|m}  RATE := NUMBER{bit|kbit|mbit|gbit|tbit}\n"
	      "       TIME := NUMBER{s|ms|us|ns}\n", out);
}

struct plan_unit {
	const char *name;
	unsigned long long scale;
};

static const struct plan_unit distance_units[] = {
	{ "km", 1000 },
	{ "m", 1 },
	{ NULL, 0 }
};

static const struct plan_unit rate_units[] = {
	{ "bit", 1 },
	{ "kbit", 1000ULL },
	{ "mbit", 1000000ULL },
	{ "gbit", 1000000000ULL },
	{ "tbit", 1000000000000ULL },
	{ NULL, 0 }
};

static const struct plan_unit time_units[] = {
	{ "s", NSEC_PER_SEC },
	{ "ms", 1000000ULL },
	{ "us", 1000ULL },
	{ "ns", 1 },
	{ NULL, 0 }
};

struct plan_args {
	unsigned long seen;
	unsigned long long distance_m;
	unsigned long long rate;	/* bit/s of each plane */
	unsigned long long extra_ns;
	__u32 planes;
	__u32 mtu;
	__u32 family;
};

/*
 * "NUMBER[.FRACTION]UNIT" with a unit of @units (which must be given),
 * into whole units of the smallest scale, up to @max; 0 or -1.  A fraction
 * finer than that scale is refused rather than rounded.
 */
static int parse_scaled(const char *arg, const struct plan_unit *units,
			unsigned long long max, unsigned long long *val)
{
	unsigned long long whole = 0, frac = 0, div = 1, scale;
	const char *p = arg;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (ULLONG_MAX - 9) / 10)
			return -1;
		whole = whole * 10 + (*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (div > ULLONG_MAX / 100)
				return -1;
			frac = frac * 10 + (*p - '0');
			div *= 10;
		}
		if (div == 1)
			return -1;
	}
	for (; units->name; units++)
		if (!strcasecmp(p, units->name))
			break;
	if (!units->name)
		return -1;
	scale = units->scale;
	if (whole > max / scale)
		return -1;
	/* frac < div <= 10^18 and scale <= 10^12: no overflow in 128 bits. */
	if ((__uint128_t)frac * scale % div)
		return -1;
	*val = whole * scale + (unsigned long long)
	       ((__uint128_t)frac * scale / div);
	return *val <= max ? 0 : -1;
}

static int plan_parse_value(void *data, int kw, const char *val)
{
	struct plan_args *args = data;
	int err;

	switch (kw) {
	case PLAN_KW_DISTANCE:
		err = parse_scaled(val, distance_units, PLAN_MAX_M,
				   &args->distance_m);
		break;
	case PLAN_KW_RATE:
		err = parse_scaled(val, rate_units, PLAN_MAX_RATE, &args->rate);
		err = err ?: -!args->rate;
		break;
	case PLAN_KW_RTT_EXTRA:
		err = parse_scaled(val, time_units, PLAN_MAX_EXTRA_NS,
				   &args->extra_ns);
		break;
	case PLAN_KW_PLANES:
		err = parse_u32(val, &args->planes);
		err = err ?: -(args->planes < 1 ||
			       args->planes > MRC_PLANE_ID_MAX + 1);
		break;
	case PLAN_KW_MTU:
		err = parse_u32(val, &args->mtu);
		err = err ?: -(args->mtu < PLAN_MIN_MTU || args->mtu > 65535);
		break;
	default:
		err = parse_u32(val, &args->family);
		err = err ?: -(args->family != 4 && args->family != 6);
		break;
	}
	if (err)
		return usage_error(plan_usage, "invalid %s \"%s\"",
				   plan_keywords[kw], val);
	return 0;
}

static const struct keywords plan_kws = {
	.words	= plan_keywords,
	.n	= PLAN_KW_COUNT,
	.usage	= plan_usage,
};

/* What the link needs. */
struct plan {
	unsigned long long rtt_ns;
	unsigned int payload;		/* bytes of data per packet */
	unsigned long long bdp_plane;	/* bytes */
	unsigned long long bdp_conn;
	unsigned long long pkts_plane;	/* packets of @payload bytes */
	unsigned long long pkts_conn;
	unsigned int truesize;		/* bytes a packet costs in a buffer */
	unsigned long long slots;	/* packets @buffer holds */
	unsigned long long buffer;	/* bytes: the window and its ring */
	unsigned long long ring;	/* slots the ring of @buffer has */
	unsigned long long ring_rate;	/* bit/s that ring allows */
};

static unsigned long long div_up(__uint128_t a, unsigned long long b)
{
	return (unsigned long long)((a + b - 1) / b);
}

static unsigned int pow2_up(unsigned int x)
{
	unsigned int p = 1;

	while (p < x)
		p <<= 1;
	return p;
}

static unsigned long long min_ull(unsigned long long a, unsigned long long b)
{
	return a < b ? a : b;
}

static unsigned long long max_ull(unsigned long long a, unsigned long long b)
{
	return a > b ? a : b;
}

/* The ring of a buffer of @buf bytes, as mrc_conn_ring_size() sizes it. */
static unsigned long long plan_ring(unsigned long long buf,
				    unsigned int truesize)
{
	unsigned long long pkts = buf / truesize, ring = PLAN_RING_MIN;

	while (ring < PLAN_RING_MAX && ring * 2 <= pkts)
		ring <<= 1;
	return ring;
}

static void plan_compute(const struct plan_args *args, struct plan *p)
{
	unsigned int iph = args->family == 4 ? sizeof(struct iphdr) :
			   sizeof(struct ip6_hdr);
	unsigned int hdrs = iph + sizeof(struct udphdr) + PLAN_MRC_HDR_LEN;
	unsigned int data;

	p->rtt_ns = 2 * args->distance_m * PLAN_NS_PER_M + args->extra_ns;
	p->payload = args->mtu - hdrs;
	/* bit/s * ns / (8 bit/B * 10^9 ns/s), rounded up. */
	p->bdp_plane = div_up((__uint128_t)args->rate * p->rtt_ns,
			      8 * NSEC_PER_SEC);
	p->bdp_conn = div_up((__uint128_t)args->rate * args->planes *
			     p->rtt_ns, 8 * NSEC_PER_SEC);
	p->pkts_plane = div_up(p->bdp_plane, p->payload);
	p->pkts_conn = div_up(p->bdp_conn, p->payload);

	data = PLAN_LL_MAX_HEADER + sizeof(struct ip6_hdr) +
	       sizeof(struct udphdr) + PLAN_MRC_HDR_LEN + PLAN_MRC_ACK_LEN +
	       p->payload + PLAN_SHINFO_SIZE;
	p->truesize = pow2_up(data) + PLAN_SKB_SIZE + PLAN_SHINFO_SIZE;
	/*
	 * The buffers hold the window, and make rings that do: the ring is
	 * the packets a buffer holds rounded down to a power of two, so a
	 * window past PLAN_RING_MIN takes a buffer of the power of two at or
	 * above it.  Past PLAN_RING_MAX no buffer makes a ring that holds
	 * it, and the buffer is the window's alone.
	 */
	p->slots = p->pkts_conn;
	if (p->slots > PLAN_RING_MIN && p->slots <= PLAN_RING_MAX)
		p->slots = pow2_up(p->slots);
	p->buffer = p->slots * p->truesize;
	/* What the buffer one can have gives, and the rate of that ring. */
	p->ring = plan_ring(min_ull(p->buffer, PLAN_BUF_MAX), p->truesize);
	p->ring_rate = p->rtt_ns ?
		(unsigned long long)((__uint128_t)p->ring * p->payload * 8 *
				     NSEC_PER_SEC / p->rtt_ns) : 0;
}

/* The sysctls that bound a connection's buffers, as read. */
struct plan_limits {
	bool have_core;			/* net.core.* visible */
	unsigned long long rmem_max;
	unsigned long long wmem_max;
	bool have_mrc;			/* net.mrc.* visible */
	bool module;			/* /sys/module/mrc exists */
	unsigned long long mrc_rmem[3];
	unsigned long long mrc_wmem[3];
	unsigned long long mrc_mem[3];
};

/* Read up to @n numbers of a /proc/sys file; 0, or -1 if absent or bad. */
static int sysctl_read(const char *name, unsigned long long *vals,
		       unsigned int n)
{
	char path[128];
	unsigned int i;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	for (i = 0; i < n && ret == 0; i++)
		if (fscanf(f, "%llu", &vals[i]) != 1)
			ret = -1;
	fclose(f);
	return ret;
}

static void limits_read(struct plan_limits *l)
{
	memset(l, 0, sizeof(*l));
	l->have_core = !sysctl_read("net/core/rmem_max", &l->rmem_max, 1) &&
		       !sysctl_read("net/core/wmem_max", &l->wmem_max, 1);
	l->have_mrc = !sysctl_read("net/mrc/rmem", l->mrc_rmem, 3) &&
		      !sysctl_read("net/mrc/wmem", l->mrc_wmem, 3) &&
		      !sysctl_read("net/mrc/mem", l->mrc_mem, 3);
	l->module = !access("/sys/module/mrc", F_OK);
}

/*
 * The limits as a socket of the namespace of -n sees them.  The kernels
 * we support keep net.core.[rw]mem_max and net.mrc.* for every namespace
 * at once but show them only in the initial one (6.1), or net.core only,
 * read-only, in the others (6.12): what the namespace of -n does not show
 * is taken from the namespace mrcctl started in.
 */
static int limits_get(struct mrcctl *ctl, struct plan_limits *l)
{
	struct plan_limits outer;

	limits_read(&outer);
	if (!ctl->netns) {
		*l = outer;
		return 0;
	}
	if (mrcctl_enter_netns(ctl) < 0)
		return -1;
	limits_read(l);
	if (!l->have_core && outer.have_core) {
		l->have_core = true;
		l->rmem_max = outer.rmem_max;
		l->wmem_max = outer.wmem_max;
	}
	if (!l->have_mrc && outer.have_mrc) {
		l->have_mrc = true;
		memcpy(l->mrc_rmem, outer.mrc_rmem, sizeof(l->mrc_rmem));
		memcpy(l->mrc_wmem, outer.mrc_wmem, sizeof(l->mrc_wmem));
		memcpy(l->mrc_mem, outer.mrc_mem, sizeof(l->mrc_mem));
	}
	return 0;
}

enum plan_short {
	SHORT_RING,		/* no sysctl helps */
	SHORT_BUF,		/* beyond any socket buffer */
	SHORT_RMEM_MAX,
	SHORT_WMEM_MAX,
	SHORT_MRC_RMEM,
	SHORT_MRC_WMEM,
	SHORT_MRC_MEM,
	SHORT_COUNT,
};

static const char *const short_names[SHORT_COUNT] = {
	[SHORT_RING]		= "ring",
	[SHORT_BUF]		= "buffer",
	[SHORT_RMEM_MAX]	= "net.core.rmem_max",
	[SHORT_WMEM_MAX]	= "net.core.wmem_max",
	[SHORT_MRC_RMEM]	= "net.mrc.rmem",
	[SHORT_MRC_WMEM]	= "net.mrc.wmem",
	[SHORT_MRC_MEM]		= "net.mrc.mem",
};

#define PLAN_SYSCTL_LEN		96

struct plan_check {
	unsigned long shorts;		/* BIT(SHORT_*) */
	unsigned long long buf;		/* the buffer to ask for, bounded */
	unsigned long long mem_pages;
	char sysctl[SHORT_COUNT][PLAN_SYSCTL_LEN];
	unsigned int nr_sysctl;
};

static void plan_sysctl(struct plan_check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->sysctl[c->nr_sysctl++], PLAN_SYSCTL_LEN, fmt, ap);
	va_end(ap);
}

/*
 * Which limits are short, and the sysctl settings that lift those a
 * sysctl can lift.  SO_RCVBUF and SO_SNDBUF double what they are given, up
 * to net.core.[rw]mem_max; the defaults come from net.mrc.rmem (the lower
 * of its last two) and net.mrc.wmem (the second for streams, the third for
 * messages), undoubled.
 */
static void plan_check(const struct plan *p, const struct plan_limits *l,
		       struct plan_check *c)
{
	unsigned long long half;

	memset(c, 0, sizeof(*c));
	if (p->pkts_conn > PLAN_RING_MAX)
		c->shorts |= BIT(SHORT_RING);
	c->buf = p->buffer;
	if (c->buf > PLAN_BUF_MAX) {
		c->shorts |= BIT(SHORT_BUF);
		c->buf = PLAN_BUF_MAX;
	}
	half = div_up(c->buf, 2);
	c->mem_pages = div_up(c->buf, PLAN_PAGE_SIZE);

	if (l->have_core && l->rmem_max < half) {
		c->shorts |= BIT(SHORT_RMEM_MAX);
		plan_sysctl(c, "net.core.rmem_max=%llu", half);
	}
	if (l->have_core && l->wmem_max < half) {
		c->shorts |= BIT(SHORT_WMEM_MAX);
		plan_sysctl(c, "net.core.wmem_max=%llu", half);
	}
	if (!l->have_mrc)
		return;
	if (l->mrc_rmem[1] < c->buf || l->mrc_rmem[2] < c->buf) {
		c->shorts |= BIT(SHORT_MRC_RMEM);
		plan_sysctl(c, "net.mrc.rmem=\"%llu %llu %llu\"",
			    l->mrc_rmem[0], max_ull(l->mrc_rmem[1], c->buf),
			    max_ull(l->mrc_rmem[2], c->buf));
	}
	if (l->mrc_wmem[1] < c->buf || l->mrc_wmem[2] < c->buf) {
		c->shorts |= BIT(SHORT_MRC_WMEM);
		plan_sysctl(c, "net.mrc.wmem=\"%llu %llu %llu\"",
			    l->mrc_wmem[0], max_ull(l->mrc_wmem[1], c->buf),
			    max_ull(l->mrc_wmem[2], c->buf));
	}
	if (l->mrc_mem[2] < c->mem_pages) {
		c->shorts |= BIT(SHORT_MRC_MEM);
		plan_sysctl(c, "net.mrc.mem=\"%llu %llu %llu\"",
			    l->mrc_mem[0], max_ull(l->mrc_mem[1], c->mem_pages),
			    max_ull(l->mrc_mem[2], c->mem_pages));
	}
}

/* @v with a decimal prefix and @unit, three significant digits or more. */
static const char *human(char *buf, size_t len, unsigned long long v,
			 const char *unit)
{
	static const char *const prefixes[] = { "", "k", "M", "G", "T", "P" };
	unsigned int i = 0;
	double d = v;

	while (d >= 1000 && i < ARRAY_SIZE(prefixes) - 1) {
		d /= 1000;
		i++;
	}
	snprintf(buf, len, "%.*f %s%s", d == (unsigned long long)d ? 0 :
		 d < 10 ? 2 : d < 100 ? 1 : 0, d, prefixes[i], unit);
	return buf;
}

static const char *human_time(char *buf, size_t len, unsigned long long ns)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	unsigned int i = 0;
	double d = ns;

	while (d >= 1000 && i < ARRAY_SIZE(units) - 1) {
		d /= 1000;
		i++;
	}
	snprintf(buf, len, "%.*f %s", d == (unsigned long long)d ? 0 :
		 d < 10 ? 2 : d < 100 ? 1 : 0, d, units[i]);
	return buf;
}

static void plan_json(struct mrcctl *ctl, const struct plan_args *a,
		      const struct plan *p, const struct plan_limits *l,
		      const struct plan_check *c)
{
	struct json_writer *w = &ctl->jw;
	unsigned int i;

	json_init(w, stdout, ctl->pretty);
	json_obj_open(w, NULL);
	json_uint(w, "distance_m", a->distance_m);
	json_uint(w, "rate", a->rate);
	json_uint(w, "planes", a->planes);
	json_uint(w, "mtu", a->mtu);
	json_uint(w, "family", a->family);
	json_uint(w, "rtt_extra_ns", a->extra_ns);
	json_uint(w, "rtt_ns", p->rtt_ns);
	json_uint(w, "payload", p->payload);
	json_uint(w, "bdp_plane", p->bdp_plane);
	json_uint(w, "bdp_conn", p->bdp_conn);
	json_uint(w, "rate_conn", a->rate * a->planes);
	json_uint(w, "packets_plane", p->pkts_plane);
	json_uint(w, "packets_conn", p->pkts_conn);
	json_uint(w, "packet_truesize", p->truesize);
	json_uint(w, "buffer", p->buffer);

	json_obj_open(w, "limits");
	json_uint(w, "ring_packets", p->ring);
	json_uint(w, "ring_rate", p->ring_rate);
	json_uint(w, "buffer_max", PLAN_BUF_MAX);
	if (l->have_core) {
		json_uint(w, "rmem_max", l->rmem_max);
		json_uint(w, "wmem_max", l->wmem_max);
	}
	json_bool(w, "module", l->module || l->have_mrc);
	if (l->have_mrc) {
		json_arr_open(w, "mrc_rmem");
		for (i = 0; i < 3; i++)
			json_uint(w, NULL, l->mrc_rmem[i]);
		json_arr_close(w);
		json_arr_open(w, "mrc_wmem");
		for (i = 0; i < 3; i++)
			json_uint(w, NULL, l->mrc_wmem[i]);
		json_arr_close(w);
		json_arr_open(w, "mrc_mem");
		for (i = 0; i < 3; i++)
			json_uint(w, NULL, l->mrc_mem[i]);
		json_arr_close(w);
	}
	json_obj_close(w);

	json_arr_open(w, "short");
	for (i = 0; i < SHORT_COUNT; i++)
		if (c->shorts & BIT(i))
			json_str(w, NULL, short_names[i]);
	json_arr_close(w);
	json_arr_open(w, "sysctl");
	for (i = 0; i < c->nr_sysctl; i++)
		json_str(w, NULL, c->sysctl[i]);
	json_arr_close(w);
	json_obj_close(w);
}

static const char *ok_short(const struct plan_check *c, enum plan_short s)
{
	return c->shorts & BIT(s) ? "SHORT" : "ok";
}

static void plan_text(const struct plan_args *a, const struct plan *p,
		      const struct plan_limits *l, const struct plan_check *c)
{
	char b1[32], b2[32], b3[32];
	unsigned int i;

	if (a->distance_m >= 1000)
		snprintf(b1, sizeof(b1), "%.15g km", a->distance_m / 1000.0);
	else
		snprintf(b1, sizeof(b1), "%llu m", a->distance_m);
	printf("link: %s, %u plane%s of %s, MTU %u, IPv%u\n", b1, a->planes,
	       a->planes == 1 ? "" : "s", human(b2, sizeof(b2), a->rate,
						"bit/s"),
	       a->mtu, a->family);
	printf("  round trip          %s (fibre %s, extra %s)\n",
	       human_time(b1, sizeof(b1), p->rtt_ns),
	       human_time(b2, sizeof(b2), p->rtt_ns - a->extra_ns),
	       human_time(b3, sizeof(b3), a->extra_ns));
	printf("  payload per packet  %u bytes (MTU less IPv%u, UDP and MRC headers)\n",
	       p->payload, a->family);
	printf("  BDP per plane       %s, %llu packets\n",
	       human(b1, sizeof(b1), p->bdp_plane, "B"), p->pkts_plane);
	printf("  BDP per connection  %s, %llu packets, at %s\n",
	       human(b1, sizeof(b1), p->bdp_conn, "B"), p->pkts_conn,
	       human(b2, sizeof(b2), a->rate * a->planes, "bit/s"));
	printf("  buffer each way     %s (%llu packets of %u bytes in memory)\n",
	       human(b1, sizeof(b1), p->buffer, "B"), p->slots, p->truesize);

	printf("limits:\n");
	printf("  in flight           %llu packets per connection: %s",
	       p->ring, ok_short(c, SHORT_RING));
	if (c->shorts & BIT(SHORT_RING))
		printf(", a ring holds at most %llu packets and no sysctl raises it;\n"
		       "                      one connection reaches %s at this round trip\n",
		       PLAN_RING_MAX,
		       human(b1, sizeof(b1), p->ring_rate, "bit/s"));
	else
		putchar('\n');
	printf("  socket buffer       at most %s: %s",
	       human(b1, sizeof(b1), PLAN_BUF_MAX, "B"), ok_short(c, SHORT_BUF));
	if (c->shorts & BIT(SHORT_BUF))
		printf(", no sysctl raises it; buffers of %s leave the window at %llu packets\n",
		       human(b1, sizeof(b1), PLAN_BUF_MAX, "B"),
		       min_ull(p->ring, PLAN_BUF_MAX / p->truesize));
	else
		putchar('\n');
	if (l->have_core) {
		printf("  net.core.rmem_max   %llu: %s\n", l->rmem_max,
		       ok_short(c, SHORT_RMEM_MAX));
		printf("  net.core.wmem_max   %llu: %s\n", l->wmem_max,
		       ok_short(c, SHORT_WMEM_MAX));
	} else {
		printf("  net.core            not readable in this namespace\n");
	}
	if (l->have_mrc) {
		printf("  net.mrc.rmem        %llu %llu %llu: %s\n",
		       l->mrc_rmem[0], l->mrc_rmem[1], l->mrc_rmem[2],
		       ok_short(c, SHORT_MRC_RMEM));
		printf("  net.mrc.wmem        %llu %llu %llu: %s\n",
		       l->mrc_wmem[0], l->mrc_wmem[1], l->mrc_wmem[2],
		       ok_short(c, SHORT_MRC_WMEM));
		printf("  net.mrc.mem         %llu %llu %llu pages: %s\n",
		       l->mrc_mem[0], l->mrc_mem[1], l->mrc_mem[2],
		       ok_short(c, SHORT_MRC_MEM));
	} else if (l->module) {
		printf("  net.mrc             not readable in this namespace\n");
	} else {
		printf("  net.mrc             module not loaded\n");
	}

	if (!c->nr_sysctl)
		return;
	printf("needed (SO_RCVBUF/SO_SNDBUF of %llu, or the defaults):\n",
	       div_up(c->buf, 2));
	for (i = 0; i < c->nr_sysctl; i++)
		printf("  sysctl -w %s\n", c->sysctl[i]);
}

int do_plan(struct mrcctl *ctl, int argc, char **argv)
{
	struct plan_args args = { .mtu = 1500, .family = 6 };
	struct plan_limits limits;
	struct plan_check check;
	struct plan plan;
	int err;

	if (argc == 1 && !strcmp(argv[0], "help")) {
		plan_usage(stdout);
		return EXIT_SUCCESS;
	}
	err = keywords_parse(&plan_kws, KW_ALL, argc, argv, &args.seen,
			     plan_parse_value, &args);
	if (err)
		return err;
	if (!(args.seen & BIT(PLAN_KW_DISTANCE)))
		return usage_error(plan_usage, "distance is missing");
	if (!(args.seen & BIT(PLAN_KW_RATE)))
		return usage_error(plan_usage, "rate is missing");
	if (!(args.seen & BIT(PLAN_KW_PLANES)))
		return usage_error(plan_usage, "planes is missing");
	if (args.family == 6 && args.mtu < 1280)
		return usage_error(plan_usage, "invalid mtu %u for IPv%u",
				   args.mtu, args.family);

	plan_compute(&args, &plan);
	if (limits_get(ctl, &limits) < 0)
		return EXIT_FAILURE;
	plan_check(&plan, &limits, &check);
	if (ctl->json)
		plan_json(ctl, &args, &plan, &limits, &check);
	else
		plan_text(&args, &plan, &limits, &check);
	return EXIT_SUCCESS;
}
