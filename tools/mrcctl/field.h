/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrcctl: the attributes of a netlink message as fields shown to the user.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */
#ifndef MRCCTL_FIELD_H
#define MRCCTL_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <netinet/in.h>
#include <libmnl/libmnl.h>

#include "json.h"
#include "nl.h"

/*
 * Room for the longest formatted value, an IPv6 address with a port
 * ("[address]:port"), and its NUL.
 */
#define FIELD_LEN	(INET6_ADDRSTRLEN + 8)

enum field_type {
	FIELD_U16,
	FIELD_U32,
	FIELD_U64,
	FIELD_BOOL,	/* a u8, 0 or not */
	FIELD_STRING,	/* a NUL-terminated string */
	FIELD_TEXT,	/* made by ->format() */
};

/*
 * One value shown to the user, taken from the attributes of a message.  An
 * absent value is left out of JSON and of "label value" text, and shows as
 * "-" in a table.
 */
struct field {
	const char *json;	/* JSON key, or NULL */
	const char *label;	/* label in "label value" text, or NULL */
	const char *header;	/* table column header, or NULL */
	int width;		/* table column width, negative to align left */
	enum field_type type;
	int attr;
	/* FIELD_TEXT: write the value to @buf; false when absent. */
	bool (*format)(const struct nlattr *const *tb, char *buf);
};

/* The attributes of one kind of message and how to show them. */
struct field_set {
	const struct nl_policy *policy;	/* [0..max] */
	unsigned int max;
	const struct field *fields;
	size_t n;
};

int field_parse(const struct field_set *set, const struct nlmsghdr *nlh,
		const struct nlattr **tb);
void field_json(struct json_writer *w, const char *key,
		const struct field_set *set, const struct nlattr *const *tb);
void field_json_members(struct json_writer *w, const struct field_set *set,
			const struct nlattr *const *tb);
void field_pairs(FILE *out, const struct field_set *set,
		 const struct nlattr *const *tb, const char *before,
		 const char *after);
void field_header(FILE *out, const struct field_set *set);
void field_row(FILE *out, const struct field_set *set,
	       const struct nlattr *const *tb);

/* Helpers of ->format(): each writes @buf, false when the value is absent. */
bool field_enum(const struct nlattr *attr, const char *const *names,
		size_t n, char *buf);
bool field_hex_u32(const struct nlattr *attr, char *buf);
const struct nlattr *field_addr_attr(const struct nlattr *const *tb,
				     int attr4, int attr6, int *family);
bool field_addr_family(const struct nlattr *const *tb, int attr4, int attr6,
		       char *buf);
bool field_addr_text(const struct nlattr *const *tb, int attr4, int attr6,
		     char *buf);
bool field_addr_port(const struct nlattr *const *tb, int attr4, int attr6,
		     const struct nlattr *port, char *buf);

#endif /* MRCCTL_FIELD_H */
