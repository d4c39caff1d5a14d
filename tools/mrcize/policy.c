// SPDX-License-Identifier: GPL-2.0
/*
 * mrcize: the lists of ports and addresses that go over MRC, parsed by the
 * command (to refuse a bad list at once) and by the library.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "mrcize.h"

/* The end of the item at @s of a comma-separated list. */
static const char *item_end(const char *s)
{
	const char *comma = strchr(s, ',');

	return comma ? comma : s + strlen(s);
}

static bool parse_port(const char *s, const char *end, unsigned short *port)
{
	unsigned long v = 0;

	if (s == end || end - s > 5)
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (*s - '0');
	}
	if (!v || v > 65535)
		return false;
	*port = v;
	return true;
}

static bool parse_ports(struct mrcize_ports *p, const char *s,
			const char **bad)
{
	const char *end, *dash;
	struct mrcize_port_range *r;

	while (*s) {
		end = item_end(s);
		*bad = s;
		if (p->nr == MRCIZE_MAX_PORTS)
			return false;
		r = &p->range[p->nr];
		dash = memchr(s, '-', end - s);
		if (dash) {
			if (!parse_port(s, dash, &r->first) ||
			    !parse_port(dash + 1, end, &r->last) ||
			    r->last < r->first)
				return false;
		} else {
			if (!parse_port(s, end, &r->first))
				return false;
			r->last = r->first;
		}
		p->nr++;
		s = *end ? end + 1 : end;
	}
	return true;
}

static bool parse_prefix(struct mrcize_prefix *pfx, const char *s,
			 const char *end)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *e;
	struct in_addr a4;
	unsigned long len;
	bool v4;

	if (end - s >= (long)sizeof(buf) || s == end)
		return false;
	memcpy(buf, s, end - s);
	buf[end - s] = '\0';
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	memset(pfx, 0, sizeof(*pfx));
	v4 = inet_pton(AF_INET, buf, &a4) == 1;
	if (v4) {
		pfx->addr.s6_addr[10] = 0xff;
		pfx->addr.s6_addr[11] = 0xff;
		memcpy(&pfx->addr.s6_addr[12], &a4, 4);
	} else if (inet_pton(AF_INET6, buf, &pfx->addr) != 1) {
		return false;
	}
	len = v4 ? 32 : 128;
	if (slash) {
		len = strtoul(slash + 1, &e, 10);
		if (!slash[1] || *e || len > (v4 ? 32UL : 128UL))
			return false;
	}
	pfx->len = v4 ? len + 96 : len;
	return true;
}

static bool parse_addrs(struct mrcize_policy *p, const char *s,
			const char **bad)
{
	const char *end;

	while (*s) {
		end = item_end(s);
		*bad = s;
		if (p->nr_addrs == MRCIZE_MAX_ADDRS ||
		    !parse_prefix(&p->addrs[p->nr_addrs], s, end))
			return false;
		p->nr_addrs++;
		s = *end ? end + 1 : end;
	}
	return true;
}

bool mrcize_policy_parse(struct mrcize_policy *p,
			 const struct mrcize_policy_text *text,
			 const char **bad)
{
	memset(p, 0, sizeof(*p));
	return (!text->ports || parse_ports(&p->ports, text->ports, bad)) &&
	       (!text->addrs || parse_addrs(p, text->addrs, bad)) &&
	       (!text->tcp_ports ||
		parse_ports(&p->tcp_ports, text->tcp_ports, bad));
}

static bool port_in(const struct mrcize_ports *p, unsigned int port)
{
	unsigned int i;

	for (i = 0; i < p->nr; i++)
		if (port >= p->range[i].first && port <= p->range[i].last)
			return true;
	return false;
}

bool mrcize_port_tcp(const struct mrcize_policy *p, unsigned int port)
{
	return port_in(&p->tcp_ports, port);
}

bool mrcize_port_listed(const struct mrcize_policy *p, unsigned int port)
{
	if (mrcize_port_tcp(p, port))
		return false;
	return !p->ports.nr || port_in(&p->ports, port);
}

static bool prefix_match(const struct mrcize_prefix *pfx,
			 const struct in6_addr *addr)
{
	unsigned int bytes = pfx->len / 8, bits = pfx->len % 8;
	unsigned char mask;

	if (memcmp(&pfx->addr, addr, bytes))
		return false;
	if (!bits)
		return true;
	mask = 0xff << (8 - bits);
	return !((pfx->addr.s6_addr[bytes] ^ addr->s6_addr[bytes]) & mask);
}

bool mrcize_addr_listed(const struct mrcize_policy *p,
			const struct in6_addr *addr)
{
	unsigned int i;

	if (!p->nr_addrs)
		return true;
	for (i = 0; i < p->nr_addrs; i++)
		if (prefix_match(&p->addrs[i], addr))
			return true;
	return false;
}
