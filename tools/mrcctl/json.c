// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: a minimal JSON writer.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include "json.h"

#define JSON_INDENT	4

void json_init(struct json_writer *w, FILE *out, bool pretty)
{
	w->out = out;
	w->pretty = pretty;
	w->depth = 0;
	w->first = true;
}

static void json_newline(struct json_writer *w)
{
	fprintf(w->out, "\n%*s", (int)(w->depth * JSON_INDENT), "");
}

/* Write @s as a JSON string, escaping what RFC 8259 requires. */
static void json_escape(struct json_writer *w, const char *s)
{
	const unsigned char *p;

	fputc('"', w->out);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", w->out);
			break;
		case '\\':
			fputs("\\\\", w->out);
			break;
		case '\b':
			fputs("\\b", w->out);
			break;
		case '\f':
			fputs("\\f", w->out);
			break;
		case '\n':
			fputs("\\n", w->out);
			break;
		case '\r':
			fputs("\\r", w->out);
			break;
		case '\t':
			fputs("\\t", w->out);
			break;
		default:
			if (*p < 0x20)
				fprintf(w->out, "\\u%04x", *p);
			else
				fputc(*p, w->out);
		}
	}
	fputc('"', w->out);
}

/* Start a member: separator, indentation and key. */
static void json_member(struct json_writer *w, const char *key)
{
	if (!w->first)
		fputc(',', w->out);
	w->first = false;
	if (w->pretty && w->depth)
		json_newline(w);
	if (key) {
		json_escape(w, key);
		fputs(w->pretty ? ": " : ":", w->out);
	}
}

static void json_open(struct json_writer *w, const char *key, char bracket)
{
	json_member(w, key);
	fputc(bracket, w->out);
	w->depth++;
	w->first = true;
}

static void json_close(struct json_writer *w, char bracket)
{
	w->depth--;
	if (w->pretty && !w->first)
		json_newline(w);
	fputc(bracket, w->out);
	w->first = false;
	if (!w->depth)
		fputc('\n', w->out);
}

void json_obj_open(struct json_writer *w, const char *key)
{
	json_open(w, key, '{');
}

void json_obj_close(struct json_writer *w)
{
	json_close(w, '}');
}

void json_arr_open(struct json_writer *w, const char *key)
{
	json_open(w, key, '[');
}

void json_arr_close(struct json_writer *w)
{
	json_close(w, ']');
}

void json_str(struct json_writer *w, const char *key, const char *val)
{
	json_member(w, key);
	json_escape(w, val);
}

void json_uint(struct json_writer *w, const char *key, unsigned long long val)
{
	json_member(w, key);
	fprintf(w->out, "%llu", val);
}

void json_bool(struct json_writer *w, const char *key, bool val)
{
	json_member(w, key);
	fputs(val ? "true" : "false", w->out);
}
