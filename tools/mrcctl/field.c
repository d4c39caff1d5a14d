// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: the attributes of a netlink message as fields shown to the user.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <arpa/inet.h>
#include <sys/socket.h>

#include "field.h"

#define FIELD_COLUMN_GAP	"  "

/* Fill @tb with the attributes of @nlh; 0, or -1 with errno set. */
int field_parse(const struct field_set *set, const struct nlmsghdr *nlh,
		const struct nlattr **tb)
{
	return nl_parse(nlh, set->policy, set->max, tb);
}

/* The field's value as text, or NULL when it is absent. */
static const char *field_text(const struct field *f,
			      const struct nlattr *const *tb, char *buf)
{
	const struct nlattr *attr = tb[f->attr];

	if (f->type == FIELD_TEXT)
		return f->format(tb, buf) ? buf : NULL;
	if (!attr)
		return NULL;

	switch (f->type) {
	case FIELD_U16:
		snprintf(buf, FIELD_LEN, "%u", mnl_attr_get_u16(attr));
		return buf;
	case FIELD_U32:
		snprintf(buf, FIELD_LEN, "%u", mnl_attr_get_u32(attr));
		return buf;
	case FIELD_U64:
		snprintf(buf, FIELD_LEN, "%llu",
			 (unsigned long long)mnl_attr_get_u64(attr));
		return buf;
	case FIELD_BOOL:
		return mnl_attr_get_u8(attr) ? "true" : "false";
	default:
		return mnl_attr_get_str(attr);
	}
}

static void field_json_one(struct json_writer *w, const struct field *f,
			   const struct nlattr *const *tb)
{
	const struct nlattr *attr = tb[f->attr];
	char buf[FIELD_LEN];
	const char *text;

	switch (f->type) {
	case FIELD_U16:
		if (attr)
			json_uint(w, f->json, mnl_attr_get_u16(attr));
		break;
	case FIELD_U32:
		if (attr)
			json_uint(w, f->json, mnl_attr_get_u32(attr));
		break;
	case FIELD_U64:
		if (attr)
			json_uint(w, f->json, mnl_attr_get_u64(attr));
		break;
	case FIELD_BOOL:
		if (attr)
			json_bool(w, f->json, mnl_attr_get_u8(attr));
		break;
	default:
		text = field_text(f, tb, buf);
		if (text)
			json_str(w, f->json, text);
	}
}

/* Write the fields that have a JSON key as members of the open object. */
void field_json_members(struct json_writer *w, const struct field_set *set,
			const struct nlattr *const *tb)
{
	const struct field *f;

	for (f = set->fields; f < set->fields + set->n; f++)
		if (f->json)
			field_json_one(w, f, tb);
}

/* Write the fields that have a JSON key as an object named @key. */
void field_json(struct json_writer *w, const char *key,
		const struct field_set *set, const struct nlattr *const *tb)
{
	json_obj_open(w, key);
	field_json_members(w, set, tb);
	json_obj_close(w);
}

/* Print "label value", between @before and @after, for each field present. */
void field_pairs(FILE *out, const struct field_set *set,
		 const struct nlattr *const *tb, const char *before,
		 const char *after)
{
	const struct field *f;
	char buf[FIELD_LEN];
	const char *text;

	for (f = set->fields; f < set->fields + set->n; f++) {
		if (!f->label)
			continue;
		text = field_text(f, tb, buf);
		if (text)
			fprintf(out, "%s%s %s%s", before, f->label, text,
				after);
	}
}

/* Print the column headers when @tb is NULL, else the row of @tb. */
static void field_table_line(FILE *out, const struct field_set *set,
			     const struct nlattr *const *tb)
{
	const char *gap = "", *text;
	const struct field *f;
	char buf[FIELD_LEN];

	for (f = set->fields; f < set->fields + set->n; f++) {
		if (!f->header)
			continue;
		text = tb ? field_text(f, tb, buf) : f->header;
		fprintf(out, "%s%*s", gap, f->width, text ? text : "-");
		gap = FIELD_COLUMN_GAP;
	}
	fputc('\n', out);
}

void field_header(FILE *out, const struct field_set *set)
{
	field_table_line(out, set, NULL);
}

void field_row(FILE *out, const struct field_set *set,
	       const struct nlattr *const *tb)
{
	field_table_line(out, set, tb);
}

/* The name of an enum value, or its number if this tool does not know it. */
bool field_enum(const struct nlattr *attr, const char *const *names,
		size_t n, char *buf)
{
	__u32 val;

	if (!attr)
		return false;
	val = mnl_attr_get_u32(attr);
	if (val < n && names[val])
		snprintf(buf, FIELD_LEN, "%s", names[val]);
	else
		snprintf(buf, FIELD_LEN, "%u", val);
	return true;
}

bool field_hex_u32(const struct nlattr *attr, char *buf)
{
	if (!attr)
		return false;
	snprintf(buf, FIELD_LEN, "0x%08x", mnl_attr_get_u32(attr));
	return true;
}

/* An address attribute, IPv4 or IPv6, and its family. */
const struct nlattr *field_addr_attr(const struct nlattr *const *tb,
				     int attr4, int attr6, int *family)
{
	*family = tb[attr4] ? AF_INET : AF_INET6;
	return tb[attr4] ? tb[attr4] : tb[attr6];
}

/* "inet" or "inet6". */
bool field_addr_family(const struct nlattr *const *tb, int attr4, int attr6,
		       char *buf)
{
	int family;

	if (!field_addr_attr(tb, attr4, attr6, &family))
		return false;
	snprintf(buf, FIELD_LEN, "%s", family == AF_INET ? "inet" : "inet6");
	return true;
}

bool field_addr_text(const struct nlattr *const *tb, int attr4, int attr6,
		     char *buf)
{
	const struct nlattr *addr;
	int family;

	addr = field_addr_attr(tb, attr4, attr6, &family);
	return addr && inet_ntop(family, mnl_attr_get_payload(addr), buf,
				 FIELD_LEN);
}

/*
 * "10.0.1.2:40000" or "[fd00:1::2]:40000", the port from the u16 @port;
 * the address alone without it.
 */
bool field_addr_port(const struct nlattr *const *tb, int attr4, int attr6,
		     const struct nlattr *port, char *buf)
{
	char addr[INET6_ADDRSTRLEN];
	int family;

	if (!field_addr_attr(tb, attr4, attr6, &family) ||
	    !field_addr_text(tb, attr4, attr6, addr))
		return false;
	if (!port)
		snprintf(buf, FIELD_LEN, "%s", addr);
	else
		snprintf(buf, FIELD_LEN, family == AF_INET ? "%s:%u" : "[%s]:%u",
			 addr, mnl_attr_get_u16(port));
	return true;
}
