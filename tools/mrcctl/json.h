/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrcctl: a minimal JSON writer.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */
#ifndef MRCCTL_JSON_H
#define MRCCTL_JSON_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Writes one JSON document to a stream.  Every call takes the member's key,
 * which must be NULL at the top level and inside arrays.  The document ends
 * with a newline when its outermost object or array is closed.
 */
struct json_writer {
	FILE *out;
	bool pretty;		/* one member per line, indented */
	unsigned int depth;	/* open objects and arrays */
	bool first;		/* nothing written yet at this depth */
};

void json_init(struct json_writer *w, FILE *out, bool pretty);
void json_obj_open(struct json_writer *w, const char *key);
void json_obj_close(struct json_writer *w);
void json_arr_open(struct json_writer *w, const char *key);
void json_arr_close(struct json_writer *w);
void json_str(struct json_writer *w, const char *key, const char *val);
void json_uint(struct json_writer *w, const char *key, unsigned long long val);
void json_bool(struct json_writer *w, const char *key, bool val);

#endif /* MRCCTL_JSON_H */
