/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrcctl: configure MRC planes and settings, and show connections, over the
 * "mrc" netlink family.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */
#ifndef MRCCTL_H
#define MRCCTL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/types.h>
#include <linux/mrc_netlink.h>

#include "field.h"
#include "json.h"
#include "nl.h"

/* From the top-level VERSION file, through the Makefile. */
#define MRCCTL_VERSION	MRC_PACKAGE_VERSION

/* Exit status of a command line that is not understood. */
#define EXIT_USAGE	2

#define BIT(n)		(1UL << (n))
#define KW_ALL		(~0UL)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Room for the attributes of any message of the family. */
union mrc_attrs {
	const struct nlattr *plane[MRC_PLANE_ATTR_MAX + 1];
	const struct nlattr *config[MRC_CONFIG_ATTR_MAX + 1];
	const struct nlattr *conn[MRC_CONN_ATTR_MAX + 1];
	const struct nlattr *conn_plane[MRC_CONN_PLANE_ATTR_MAX + 1];
};

#define MRC_ATTR_TB_SIZE \
	(sizeof(union mrc_attrs) / sizeof(const struct nlattr *))

struct mrcctl {
	bool json;		/* -j: JSON output */
	bool pretty;		/* -p: indented JSON */
	bool stats;		/* -s: counters too */
	const char *netns;	/* -n: network namespace to work in */
	const char *batch;	/* -batch: file of commands, "-" for stdin */
	bool force;		/* -force: the batch goes on after a failure */
	bool in_netns;		/* moved to the namespace of -n */
	struct json_writer jw;
	struct mrc_nl nl;	/* socket opened by mrcctl_msg() */
};

void usage_print(FILE *out, const char *const *lines, bool more);
int usage_error(void (*usage)(FILE *out), const char *fmt, ...);
int keyword_parse(const char *arg, const char *what,
		  const char *const *words, unsigned int n,
		  unsigned long allowed, void (*usage)(FILE *out));

/* The keywords of a command's arguments. */
struct keywords {
	const char *const *words;
	unsigned int n;
	unsigned long flags;		/* BIT() of those without a value */
	void (*usage)(FILE *out);
};

int keywords_parse(const struct keywords *kws, unsigned long allowed,
		   int argc, char **argv, unsigned long *seen,
		   int (*parse)(void *data, int kw, const char *val),
		   void *data);
int args_none(int argc, char **argv, void (*usage)(FILE *out));
int parse_u32(const char *arg, __u32 *val);
int parse_u16(const char *arg, __u16 *val);

int mrcctl_enter_netns(struct mrcctl *ctl);
int mrcctl_connect(struct mrcctl *ctl);
struct nlmsghdr *mrcctl_msg(struct mrcctl *ctl, __u8 cmd, __u16 flags);
int mrcctl_request(struct mrcctl *ctl, struct nlmsghdr *nlh,
		   const struct field_set *set, bool text);

extern const struct field_set plane_fields;
extern const struct field_set config_fields;
extern const struct field_set conn_stats_fields;
extern const struct field_set conn_event_fields;
extern const struct field_set ev_event_fields;
extern const struct field_set event_plane_fields;

bool plane_state_text(const struct nlattr *attr, char *buf);

extern const char *const plane_usage_lines[];
extern const char *const config_usage_lines[];
extern const char *const conn_usage_lines[];
extern const char *const sock_usage_lines[];
extern const char *const monitor_usage_lines[];
extern const char *const plan_usage_lines[];
extern const char *const stats_usage_lines[];

void plane_usage(FILE *out);
int do_plane(struct mrcctl *ctl, int argc, char **argv);
void config_usage(FILE *out);
int do_config(struct mrcctl *ctl, int argc, char **argv);
void conn_usage(FILE *out);
int do_conn(struct mrcctl *ctl, int argc, char **argv);
int conn_parse_id(const char *arg, __u32 *id);
void sock_usage(FILE *out);
int do_sock(struct mrcctl *ctl, int argc, char **argv);
void monitor_usage(FILE *out);
int do_monitor(struct mrcctl *ctl, int argc, char **argv);
void plan_usage(FILE *out);
int do_plan(struct mrcctl *ctl, int argc, char **argv);
void stats_usage(FILE *out);
int do_stats(struct mrcctl *ctl, int argc, char **argv);
int counters_show(struct mrcctl *ctl, const struct nlmsghdr *nlh,
		  unsigned int attr, const char *key);

int plane_showconf(struct mrcctl *ctl);
int config_showconf(struct mrcctl *ctl);
int do_showconf(struct mrcctl *ctl, int argc, char **argv);
int run_object(struct mrcctl *ctl, int argc, char **argv);
int run_batch(struct mrcctl *ctl, const char *path, bool force);

#endif /* MRCCTL_H */
