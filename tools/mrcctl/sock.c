// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl: "sock" commands, the AF_MRC sockets of a network namespace as
 * sock_diag reports them (include/uapi/linux/mrc_diag.h), in the manner
 * of ss(8), and the abort of their connections.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/mrc.h>
#include <linux/mrc_diag.h>

#include "mrcctl.h"

enum sock_kw {
	SOCK_KW_STATE,
	SOCK_KW_SPORT,
	SOCK_KW_DPORT,
	SOCK_KW_PORT,
	SOCK_KW_PEER,
	SOCK_KW_ID,
	SOCK_KW_INO,
	SOCK_KW_COOKIE,
	SOCK_KW_COUNT,
};

static const char *const sock_keywords[SOCK_KW_COUNT] = {
	[SOCK_KW_STATE]		= "state",
	[SOCK_KW_SPORT]		= "sport",
	[SOCK_KW_DPORT]		= "dport",
	[SOCK_KW_PORT]		= "port",
	[SOCK_KW_PEER]		= "peer",
	[SOCK_KW_ID]		= "id",
	[SOCK_KW_INO]		= "ino",
	[SOCK_KW_COOKIE]	= "cookie",
};

/* Socket states: the kernel's, and the two sets ss also knows. */
#define SOCK_STATES_CONNECTED	(BIT(MRC_DIAG_STATE_ESTABLISHED) | \
				 BIT(MRC_DIAG_STATE_SYN_SENT) | \
				 BIT(MRC_DIAG_STATE_SYN_RECV))
#define SOCK_STATES_ALL		(SOCK_STATES_CONNECTED | \
				 BIT(MRC_DIAG_STATE_CLOSE) | \
				 BIT(MRC_DIAG_STATE_LISTEN))

static const struct {
	const char *name;
	unsigned long states;
} sock_state_words[] = {
	{ "established",	BIT(MRC_DIAG_STATE_ESTABLISHED) },
	{ "syn-sent",		BIT(MRC_DIAG_STATE_SYN_SENT) },
	{ "syn-recv",		BIT(MRC_DIAG_STATE_SYN_RECV) },
	{ "closed",		BIT(MRC_DIAG_STATE_CLOSE) },
	{ "listen",		BIT(MRC_DIAG_STATE_LISTEN) },
	{ "connected",		SOCK_STATES_CONNECTED },
	{ "all",		SOCK_STATES_ALL },
};

/* What the sockets shown, or killed, must match. */
struct sock_filter {
	unsigned long seen;	/* BIT(SOCK_KW_*) of each keyword given */
	__u32 states;		/* BIT(MRC_DIAG_STATE_*); 0 for any */
	__u16 sport;
	__u16 dport;
	__u16 port;		/* either */
	int peer_family;
	unsigned char peer[16];
	__u32 id;
	__u32 ino;
	__u64 cookie;
	bool processes;		/* -p: name the processes that hold them */
};

const char *const sock_usage_lines[] = {
	"sock { show | list } [ -p ] [ FILTER ]",
	"sock kill FILTER",
	"sock help",
	NULL
};

static const char sock_usage_where[] =
	"where  FILTER := [ state STATE ]... [ sport PORT ] [ dport PORT ]\n"
	"                 [ port PORT ] [ peer ADDRESS ] [ id ID ] [ ino INODE ]\n"
	"                 [ cookie COOKIE ]\n"
	"       STATE := { established | syn-sent | syn-recv | listen | closed |\n"
	"                  connected | all }\n";

void sock_usage(FILE *out)
{
	usage_print(out, sock_usage_lines, false);
	fputs(sock_usage_where, out);
}

/* A process that holds a socket open, for -p. */
struct sock_user {
	char name[32];
	int pid;
	int fd;
};

/* A socket as the kernel reported it. */
struct sock_entry {
	__u8 type;
	__u8 state;
	__u32 ino;
	__u64 cookie;
	unsigned long has;	/* BIT(MRC_DIAG_*) of the attributes given */
	__u32 uid;
	__u16 port;
	int family;		/* of @addr: AF_UNSPEC for the wildcard */
	unsigned char addr[16];
	__u16 peer_port;
	int peer_family;
	unsigned char peer[16];
	__u32 id;
	__u32 peer_id;
	__u32 planes;
	__u8 shutdown;
	struct mrc_diag_rqlen rqlen;
	__u32 mem[SK_MEMINFO_VARS];
	struct sock_user *users;
	unsigned int nr_users;
};

struct sock_list {
	struct sock_entry *v;
	size_t n;
	size_t size;		/* room in @v */
};

static const struct nl_policy sock_policy[MRC_DIAG_MAX + 1] = {
	[MRC_DIAG_UID]		= { MNL_TYPE_U32 },
	[MRC_DIAG_PORT]		= { MNL_TYPE_U16 },
	[MRC_DIAG_ADDR4]	= { MNL_TYPE_U32 },
	[MRC_DIAG_ADDR6]	= { MNL_TYPE_BINARY, sizeof(struct in6_addr) },
	[MRC_DIAG_PEER_PORT]	= { MNL_TYPE_U16 },
	[MRC_DIAG_PEER_ADDR4]	= { MNL_TYPE_U32 },
	[MRC_DIAG_PEER_ADDR6]	= { MNL_TYPE_BINARY, sizeof(struct in6_addr) },
	[MRC_DIAG_CONN_ID]	= { MNL_TYPE_U32 },
	[MRC_DIAG_PEER_CONN_ID]	= { MNL_TYPE_U32 },
	[MRC_DIAG_PLANES]	= { MNL_TYPE_U32 },
	[MRC_DIAG_SHUTDOWN]	= { MNL_TYPE_U8 },
	[MRC_DIAG_RQLEN]	= { MNL_TYPE_BINARY,
				    sizeof(struct mrc_diag_rqlen) },
	[MRC_DIAG_MEMINFO]	= { MNL_TYPE_BINARY,
				    SK_MEMINFO_VARS * sizeof(__u32) },
};

/* An address attribute, IPv4 or IPv6, into @family and @addr. */
static void sock_take_addr(const struct nlattr *const *tb, int attr4,
			   int attr6, int *family, unsigned char *addr)
{
	const struct nlattr *attr = tb[attr4] ? tb[attr4] : tb[attr6];

	*family = AF_UNSPEC;
	if (!attr)
		return;
	*family = tb[attr4] ? AF_INET : AF_INET6;
	memcpy(addr, mnl_attr_get_payload(attr),
	       *family == AF_INET ? 4 : 16);
}

static int sock_entry_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MRC_DIAG_MAX + 1];
	const struct mrc_diag_msg *msg;
	struct sock_list *list = data;
	struct sock_entry *e;
	unsigned int i;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*msg)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	msg = mnl_nlmsg_get_payload(nlh);
	if (msg->mdiag_family != AF_MRC)
		return MNL_CB_OK;
	if (nl_parse_at(nlh, sizeof(*msg), sock_policy, MRC_DIAG_MAX, tb) < 0)
		return MNL_CB_ERROR;

	if (list->n == list->size) {
		size_t size = list->size ? 2 * list->size : 64;
		struct sock_entry *v = realloc(list->v, size * sizeof(*v));

		if (!v)
			return MNL_CB_ERROR;
		list->v = v;
		list->size = size;
	}
	e = &list->v[list->n++];
	memset(e, 0, sizeof(*e));
	e->type = msg->mdiag_type;
	e->state = msg->mdiag_state;
	e->ino = msg->mdiag_ino;
	e->cookie = (__u64)msg->mdiag_cookie[1] << 32 | msg->mdiag_cookie[0];
	for (i = 0; i <= MRC_DIAG_MAX; i++)
		if (tb[i])
			e->has |= BIT(i);
	if (tb[MRC_DIAG_UID])
		e->uid = mnl_attr_get_u32(tb[MRC_DIAG_UID]);
	if (tb[MRC_DIAG_PORT])
		e->port = mnl_attr_get_u16(tb[MRC_DIAG_PORT]);
	sock_take_addr(tb, MRC_DIAG_ADDR4, MRC_DIAG_ADDR6, &e->family,
		       e->addr);
	if (tb[MRC_DIAG_PEER_PORT])
		e->peer_port = mnl_attr_get_u16(tb[MRC_DIAG_PEER_PORT]);
	sock_take_addr(tb, MRC_DIAG_PEER_ADDR4, MRC_DIAG_PEER_ADDR6,
		       &e->peer_family, e->peer);
	if (tb[MRC_DIAG_CONN_ID])
		e->id = mnl_attr_get_u32(tb[MRC_DIAG_CONN_ID]);
	if (tb[MRC_DIAG_PEER_CONN_ID])
		e->peer_id = mnl_attr_get_u32(tb[MRC_DIAG_PEER_CONN_ID]);
	if (tb[MRC_DIAG_PLANES])
		e->planes = mnl_attr_get_u32(tb[MRC_DIAG_PLANES]);
	if (tb[MRC_DIAG_SHUTDOWN])
		e->shutdown = mnl_attr_get_u8(tb[MRC_DIAG_SHUTDOWN]);
	if (tb[MRC_DIAG_RQLEN])
		memcpy(&e->rqlen, mnl_attr_get_payload(tb[MRC_DIAG_RQLEN]),
		       sizeof(e->rqlen));
	if (tb[MRC_DIAG_MEMINFO])
		memcpy(e->mem, mnl_attr_get_payload(tb[MRC_DIAG_MEMINFO]),
		       sizeof(e->mem));
	return MNL_CB_OK;
}

static void sock_list_free(struct sock_list *list)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		free(list->v[i].users);
	free(list->v);
}

/*
 * Ask the kernel for the sockets: the one that @f names by inode or
 * cookie, or a dump of those in @f's states.  No module, no socket:
 * without mrc.ko sock_diag knows no AF_MRC (ENOENT), and a named socket
 * that is gone is ENOENT or ESTALE.  Returns 0, or -1 after reporting the
 * failure.
 */
static int sock_list_get(struct mrc_nl *nl, const struct sock_filter *f,
			 struct sock_list *list)
{
	bool one = f->seen & (BIT(SOCK_KW_INO) | BIT(SOCK_KW_COOKIE));
	struct mrc_diag_req *req;
	struct nlmsghdr *nlh;

	nlh = mrc_nl_diag_msg(nl, SOCK_DIAG_BY_FAMILY,
			      one ? NLM_F_ACK : NLM_F_DUMP, sizeof(*req));
	req = mnl_nlmsg_get_payload(nlh);
	req->sdiag_family = AF_MRC;
	req->sdiag_protocol = MRCPROTO_MRC;
	req->mdiag_states = f->states ? f->states : ~0U;
	req->mdiag_show = MRC_DIAG_SHOW_UID | MRC_DIAG_SHOW_CONN |
			  MRC_DIAG_SHOW_RQLEN | MRC_DIAG_SHOW_MEMINFO;
	req->mdiag_ino = f->seen & BIT(SOCK_KW_INO) ? f->ino : 0;
	req->mdiag_cookie[0] = MRC_DIAG_NOCOOKIE;
	req->mdiag_cookie[1] = MRC_DIAG_NOCOOKIE;
	if (f->seen & BIT(SOCK_KW_COOKIE)) {
		req->mdiag_cookie[0] = (__u32)f->cookie;
		req->mdiag_cookie[1] = f->cookie >> 32;
	}

	if (!mrc_nl_talk(nl, nlh, sock_entry_cb, list))
		return 0;
	if (nl->err == ENOENT || (one && nl->err == ESTALE))
		return 0;
	mrc_nl_perror(nl);
	return -1;
}

static bool sock_match(const struct sock_entry *e, const struct sock_filter *f)
{
	if (f->states && !(f->states & BIT(e->state)))
		return false;
	if (f->seen & BIT(SOCK_KW_SPORT) && e->port != f->sport)
		return false;
	if (f->seen & BIT(SOCK_KW_DPORT) &&
	    (!(e->has & BIT(MRC_DIAG_PEER_PORT)) || e->peer_port != f->dport))
		return false;
	if (f->seen & BIT(SOCK_KW_PORT) && e->port != f->port &&
	    (!(e->has & BIT(MRC_DIAG_PEER_PORT)) || e->peer_port != f->port))
		return false;
	if (f->seen & BIT(SOCK_KW_PEER) &&
	    (e->peer_family != f->peer_family ||
	     memcmp(e->peer, f->peer, f->peer_family == AF_INET ? 4 : 16)))
		return false;
	if (f->seen & BIT(SOCK_KW_ID) &&
	    (!(e->has & BIT(MRC_DIAG_CONN_ID)) || e->id != f->id))
		return false;
	if (f->seen & BIT(SOCK_KW_INO) && e->ino != f->ino)
		return false;
	if (f->seen & BIT(SOCK_KW_COOKIE) && e->cookie != f->cookie)
		return false;
	return true;
}

/* Keep the sockets that match @f, in the kernel's order. */
static void sock_list_filter(struct sock_list *list,
			     const struct sock_filter *f)
{
	size_t i, n = 0;

	for (i = 0; i < list->n; i++)
		if (sock_match(&list->v[i], f))
			list->v[n++] = list->v[i];
	list->n = n;
}

/* -p: the processes that hold the sockets, found in /proc as ss does. */

static int sock_by_ino(const void *a, const void *b)
{
	const struct sock_entry *x = *(struct sock_entry *const *)a;
	const struct sock_entry *y = *(struct sock_entry *const *)b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static void sock_add_user(struct sock_entry *e, const char *name, int pid,
			  int fd)
{
	struct sock_user *users;

	users = realloc(e->users, (e->nr_users + 1) * sizeof(*users));
	if (!users)
		return;
	e->users = users;
	users += e->nr_users++;
	snprintf(users->name, sizeof(users->name), "%s", name);
	users->pid = pid;
	users->fd = fd;
}

/* The name of process @pid, from /proc/PID/comm. */
static void sock_comm(const char *pid, char *name, size_t len)
{
	char path[64];
	FILE *file;

	snprintf(name, len, "?");
	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	file = fopen(path, "r");
	if (!file)
		return;
	if (fgets(name, len, file))
		name[strcspn(name, "\n")] = '\0';
	fclose(file);
}

/* The fds of one process that are sockets of @by_ino (sorted). */
static void sock_scan_pid(const char *pid, struct sock_entry **by_ino,
			  size_t n)
{
	struct sock_entry key, *keyp = &key, **found;
	char path[PATH_MAX], target[64], name[32];
	struct dirent *d;
	bool named = false;
	unsigned int ino;
	ssize_t len;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, d->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (sscanf(target, "socket:[%u]", &ino) != 1 || !ino)
			continue;
		key.ino = ino;
		found = bsearch(&keyp, by_ino, n, sizeof(*by_ino), sock_by_ino);
		if (!found)
			continue;
		if (!named) {
			sock_comm(pid, name, sizeof(name));
			named = true;
		}
		sock_add_user(*found, name, atoi(pid), atoi(d->d_name));
	}
	closedir(dir);
}

static void sock_find_users(struct sock_list *list)
{
	struct sock_entry **by_ino;
	struct dirent *d;
	size_t i, n = 0;
	DIR *proc;

	by_ino = calloc(list->n ? list->n : 1, sizeof(*by_ino));
	proc = opendir("/proc");
	if (!by_ino || !proc) {
		fprintf(stderr, "mrcctl: cannot look for processes: %s\n",
			strerror(errno));
		goto out;
	}
	/* Connections not yet accepted have no inode, and no process. */
	for (i = 0; i < list->n; i++)
		if (list->v[i].ino)
			by_ino[n++] = &list->v[i];
	qsort(by_ino, n, sizeof(*by_ino), sock_by_ino);
	while (n && (d = readdir(proc)))
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
			sock_scan_pid(d->d_name, by_ino, n);
out:
	if (proc)
		closedir(proc);
	free(by_ino);
}

/* Output. */

static const char *const sock_state_names[] = {
	[MRC_DIAG_STATE_ESTABLISHED]	= "established",
	[MRC_DIAG_STATE_SYN_SENT]	= "syn-sent",
	[MRC_DIAG_STATE_SYN_RECV]	= "syn-recv",
	[MRC_DIAG_STATE_CLOSE]		= "closed",
	[MRC_DIAG_STATE_LISTEN]		= "listen",
};

static const char *sock_state_name(const struct sock_entry *e, char *buf)
{
	if (e->state < ARRAY_SIZE(sock_state_names) &&
	    sock_state_names[e->state])
		return sock_state_names[e->state];
	snprintf(buf, FIELD_LEN, "%u", e->state);
	return buf;
}

static const char *sock_type_name(const struct sock_entry *e, char *buf)
{
	if (e->type == SOCK_STREAM)
		return "stream";
	if (e->type == SOCK_SEQPACKET)
		return "seqpacket";
	snprintf(buf, FIELD_LEN, "%u", e->type);
	return buf;
}

static const char *sock_family_name(int family)
{
	return family == AF_INET ? "inet" : "inet6";
}

/* "10.0.1.2:5001", "[fd00:1::2]:5001", "*:5001"; "*" for none. */
static void sock_endpoint(int family, const unsigned char *addr, bool known,
			  __u16 port, char *buf)
{
	char text[INET6_ADDRSTRLEN];

	if (!known) {
		snprintf(buf, FIELD_LEN, "*");
		return;
	}
	if (family == AF_UNSPEC)
		snprintf(text, sizeof(text), "*");
	else
		inet_ntop(family, addr, text, sizeof(text));
	snprintf(buf, FIELD_LEN, family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		 text, port);
}

static void sock_local(const struct sock_entry *e, char *buf)
{
	sock_endpoint(e->family, e->addr, e->has & BIT(MRC_DIAG_PORT),
		      e->port, buf);
}

static void sock_peer(const struct sock_entry *e, char *buf)
{
	sock_endpoint(e->peer_family, e->peer,
		      e->has & BIT(MRC_DIAG_PEER_PORT), e->peer_port, buf);
}

static const char *const sock_mem_names[SK_MEMINFO_VARS] = {
	[SK_MEMINFO_RMEM_ALLOC]		= "rmem_alloc",
	[SK_MEMINFO_RCVBUF]		= "rcvbuf",
	[SK_MEMINFO_WMEM_ALLOC]		= "wmem_alloc",
	[SK_MEMINFO_SNDBUF]		= "sndbuf",
	[SK_MEMINFO_FWD_ALLOC]		= "fwd_alloc",
	[SK_MEMINFO_WMEM_QUEUED]	= "wmem_queued",
	[SK_MEMINFO_OPTMEM]		= "optmem",
	[SK_MEMINFO_BACKLOG]		= "backlog",
	[SK_MEMINFO_DROPS]		= "drops",
};

static void sock_json(struct mrcctl *ctl, const struct sock_entry *e,
		      bool processes)
{
	struct json_writer *w = &ctl->jw;
	char buf[FIELD_LEN];
	unsigned int i;

	json_obj_open(w, NULL);
	json_str(w, "state", sock_state_name(e, buf));
	json_str(w, "type", sock_type_name(e, buf));
	json_uint(w, "ino", e->ino);
	json_uint(w, "cookie", e->cookie);
	if (e->has & BIT(MRC_DIAG_UID))
		json_uint(w, "uid", e->uid);
	if (e->has & BIT(MRC_DIAG_PORT))
		json_uint(w, "port", e->port);
	if (e->family != AF_UNSPEC) {
		inet_ntop(e->family, e->addr, buf, sizeof(buf));
		json_str(w, "address", buf);
	}
	if (e->peer_family != AF_UNSPEC) {
		json_str(w, "peer_family", sock_family_name(e->peer_family));
		inet_ntop(e->peer_family, e->peer, buf, sizeof(buf));
		json_str(w, "peer_address", buf);
	}
	if (e->has & BIT(MRC_DIAG_PEER_PORT))
		json_uint(w, "peer_port", e->peer_port);
	if (e->has & BIT(MRC_DIAG_CONN_ID))
		json_uint(w, "id", e->id);
	if (e->has & BIT(MRC_DIAG_PEER_CONN_ID))
		json_uint(w, "peer_id", e->peer_id);
	if (e->has & BIT(MRC_DIAG_PLANES)) {
		json_arr_open(w, "planes");
		for (i = 0; i < 32; i++)
			if (e->planes & BIT(i))
				json_uint(w, NULL, i);
		json_arr_close(w);
	}
	if (e->has & BIT(MRC_DIAG_SHUTDOWN))
		json_uint(w, "shutdown", e->shutdown);
	if (e->has & BIT(MRC_DIAG_RQLEN)) {
		json_uint(w, "recv_q", e->rqlen.mdiag_rqueue);
		json_uint(w, "send_q", e->rqlen.mdiag_wqueue);
	}
	if (ctl->stats && e->has & BIT(MRC_DIAG_MEMINFO)) {
		json_obj_open(w, "skmem");
		for (i = 0; i < SK_MEMINFO_VARS; i++)
			json_uint(w, sock_mem_names[i], e->mem[i]);
		json_obj_close(w);
	}
	if (processes) {
		json_arr_open(w, "processes");
		for (i = 0; i < e->nr_users; i++) {
			json_obj_open(w, NULL);
			json_str(w, "name", e->users[i].name);
			json_uint(w, "pid", e->users[i].pid);
			json_uint(w, "fd", e->users[i].fd);
			json_obj_close(w);
		}
		json_arr_close(w);
	}
	json_obj_close(w);
}

/* Widths of the text columns that vary. */
struct sock_widths {
	int local;
	int peer;
};

static void sock_text(const struct mrcctl *ctl, const struct sock_entry *e,
		      const struct sock_widths *wd, bool processes)
{
	char state[FIELD_LEN], type[FIELD_LEN], local[FIELD_LEN];
	char peer[FIELD_LEN];
	unsigned int i;

	sock_local(e, local);
	sock_peer(e, peer);
	printf("%-11s  %-9s  %6u  %6u  %-*s  %-*s  ",
	       sock_state_name(e, state), sock_type_name(e, type),
	       e->rqlen.mdiag_rqueue, e->rqlen.mdiag_wqueue,
	       wd->local, local, wd->peer, peer);
	if (e->has & BIT(MRC_DIAG_UID))
		printf("%-5u", e->uid);
	else
		printf("%-5s", "-");
	printf("  %u", e->ino);
	if (processes && e->nr_users) {
		printf("  users:(");
		for (i = 0; i < e->nr_users; i++)
			printf("%s(\"%s\",pid=%d,fd=%d)", i ? "," : "",
			       e->users[i].name, e->users[i].pid,
			       e->users[i].fd);
		putchar(')');
	}
	putchar('\n');
	if (!ctl->stats)
		return;

	printf("\tcookie 0x%llx", (unsigned long long)e->cookie);
	if (e->has & BIT(MRC_DIAG_CONN_ID))
		printf(" conn 0x%08x", e->id);
	if (e->has & BIT(MRC_DIAG_PEER_CONN_ID))
		printf(" peer_conn 0x%08x", e->peer_id);
	if (e->has & BIT(MRC_DIAG_PLANES)) {
		printf(" planes ");
		if (!e->planes)
			putchar('-');
		for (i = 0; i < 32; i++)
			if (e->planes & BIT(i))
				printf("%s%u", e->planes & (BIT(i) - 1) ?
				       "," : "", i);
	}
	if (e->has & BIT(MRC_DIAG_MEMINFO))
		printf(" skmem:(r%u,rb%u,t%u,tb%u,f%u,w%u,o%u,bl%u,d%u)",
		       e->mem[SK_MEMINFO_RMEM_ALLOC],
		       e->mem[SK_MEMINFO_RCVBUF],
		       e->mem[SK_MEMINFO_WMEM_ALLOC],
		       e->mem[SK_MEMINFO_SNDBUF],
		       e->mem[SK_MEMINFO_FWD_ALLOC],
		       e->mem[SK_MEMINFO_WMEM_QUEUED],
		       e->mem[SK_MEMINFO_OPTMEM],
		       e->mem[SK_MEMINFO_BACKLOG],
		       e->mem[SK_MEMINFO_DROPS]);
	putchar('\n');
}

/*
 * Print the sockets of @list: a table with a header, or a JSON array; with
 * @processes, the processes that hold them.
 */
static void sock_print(struct mrcctl *ctl, const struct sock_list *list,
		       bool processes)
{
	struct sock_widths wd = { sizeof("LOCAL") - 1, sizeof("PEER") - 1 };
	char buf[FIELD_LEN];
	size_t i;

	if (ctl->json) {
		json_init(&ctl->jw, stdout, ctl->pretty);
		json_arr_open(&ctl->jw, NULL);
		for (i = 0; i < list->n; i++)
			sock_json(ctl, &list->v[i], processes);
		json_arr_close(&ctl->jw);
		return;
	}
	if (!list->n)
		return;
	for (i = 0; i < list->n; i++) {
		sock_local(&list->v[i], buf);
		if ((int)strlen(buf) > wd.local)
			wd.local = strlen(buf);
		sock_peer(&list->v[i], buf);
		if ((int)strlen(buf) > wd.peer)
			wd.peer = strlen(buf);
	}
	printf("%-11s  %-9s  %6s  %6s  %-*s  %-*s  %-5s  %s%s\n",
	       "STATE", "TYPE", "RECV-Q", "SEND-Q", wd.local, "LOCAL",
	       wd.peer, "PEER", "UID", "INODE",
	       processes ? "  PROCESS" : "");
	for (i = 0; i < list->n; i++)
		sock_text(ctl, &list->v[i], &wd, processes);
}

/* Arguments. */

static int sock_parse_state(const char *arg, struct sock_filter *f)
{
	const char *words[ARRAY_SIZE(sock_state_words)];
	unsigned int i;
	int kw;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		words[i] = sock_state_words[i].name;
	kw = keyword_parse(arg, "state", words, ARRAY_SIZE(words), KW_ALL,
			   sock_usage);
	if (kw < 0)
		return EXIT_USAGE;
	f->states |= sock_state_words[kw].states;
	return 0;
}

/* A cookie: decimal, or hexadecimal after "0x" as it is shown. */
static int sock_parse_cookie(const char *arg, __u64 *cookie)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*arg))
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || *end)
		return -1;
	*cookie = v;
	return 0;
}

static int sock_parse_value(struct sock_filter *f, int kw, const char *val)
{
	int err = 0;

	switch (kw) {
	case SOCK_KW_STATE:
		return sock_parse_state(val, f);
	case SOCK_KW_SPORT:
		err = parse_u16(val, &f->sport);
		break;
	case SOCK_KW_DPORT:
		err = parse_u16(val, &f->dport);
		break;
	case SOCK_KW_PORT:
		err = parse_u16(val, &f->port);
		break;
	case SOCK_KW_PEER:
		f->peer_family = strchr(val, ':') ? AF_INET6 : AF_INET;
		err = inet_pton(f->peer_family, val, f->peer) == 1 ? 0 : -1;
		break;
	case SOCK_KW_ID:
		err = conn_parse_id(val, &f->id);
		break;
	case SOCK_KW_INO:
		err = parse_u32(val, &f->ino);
		break;
	case SOCK_KW_COOKIE:
		err = sock_parse_cookie(val, &f->cookie);
		break;
	}
	if (!err)
		return 0;
	return usage_error(sock_usage, "invalid %s \"%s\"", sock_keywords[kw],
			   val);
}

/*
 * "[ -p ] KEYWORD VALUE..." where "state" may come more than once (its
 * states add up) and the other keywords once.  -p, as ss spells it, is
 * taken after the command only, where it cannot be -pretty.
 */
static int sock_parse(int argc, char **argv, bool processes,
		      struct sock_filter *f)
{
	const char *name;
	int i, kw, err;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < argc; i++) {
		if (processes && (!strcmp(argv[i], "-p") ||
				  !strcmp(argv[i], "--processes"))) {
			f->processes = true;
			continue;
		}
		kw = keyword_parse(argv[i], "argument", sock_keywords,
				   SOCK_KW_COUNT, KW_ALL, sock_usage);
		if (kw < 0)
			return EXIT_USAGE;
		name = sock_keywords[kw];
		if (f->seen & BIT(kw) && kw != SOCK_KW_STATE)
			return usage_error(sock_usage, "\"%s\" given twice",
					   name);
		f->seen |= BIT(kw);
		if (++i == argc)
			return usage_error(sock_usage, "\"%s\" needs a value",
					   name);
		err = sock_parse_value(f, kw, argv[i]);
		if (err)
			return err;
	}
	return 0;
}

/* Open the sock_diag socket in the namespace of -n; reports failures. */
static struct mrc_nl *sock_open(struct mrcctl *ctl)
{
	struct mrc_nl *nl;

	if (mrcctl_enter_netns(ctl) < 0)
		return NULL;
	nl = calloc(1, sizeof(*nl));
	if (!nl) {
		fprintf(stderr, "mrcctl: %s\n", strerror(errno));
		return NULL;
	}
	if (mrc_nl_open_diag(nl) < 0) {
		free(nl);
		return NULL;
	}
	return nl;
}

static void sock_close(struct mrc_nl *nl)
{
	mrc_nl_close(nl);
	free(nl);
}

static int sock_show(struct mrcctl *ctl, int argc, char **argv)
{
	struct sock_list list = { 0 };
	struct sock_filter f;
	struct mrc_nl *nl;
	int err;

	err = sock_parse(argc, argv, true, &f);
	if (err)
		return err;
	nl = sock_open(ctl);
	if (!nl)
		return EXIT_FAILURE;
	err = sock_list_get(nl, &f, &list);
	sock_close(nl);
	if (err) {
		sock_list_free(&list);
		return EXIT_FAILURE;
	}
	sock_list_filter(&list, &f);
	if (f.processes)
		sock_find_users(&list);
	sock_print(ctl, &list, f.processes);
	sock_list_free(&list);
	return EXIT_SUCCESS;
}

/*
 * Abort one socket's connection (SOCK_DESTROY); named by its cookie, and
 * its inode when it has one.  Returns 0, or an errno.
 */
static int sock_kill_one(struct mrc_nl *nl, const struct sock_entry *e)
{
	struct mrc_diag_req *req;
	struct nlmsghdr *nlh;

	nlh = mrc_nl_diag_msg(nl, SOCK_DESTROY, NLM_F_ACK, sizeof(*req));
	req = mnl_nlmsg_get_payload(nlh);
	req->sdiag_family = AF_MRC;
	req->sdiag_protocol = MRCPROTO_MRC;
	req->mdiag_ino = e->ino;
	req->mdiag_cookie[0] = (__u32)e->cookie;
	req->mdiag_cookie[1] = e->cookie >> 32;
	return mrc_nl_talk(nl, nlh, NULL, NULL) ? nl->err : 0;
}

/*
 * Abort the connections of the sockets that match, and print those that
 * were aborted.  Sockets without a connection to abort (closed, or gone
 * in the meantime) are passed over.
 */
static int sock_kill(struct mrcctl *ctl, int argc, char **argv)
{
	struct sock_list list = { 0 };
	int status = EXIT_SUCCESS;
	struct sock_filter f;
	struct mrc_nl *nl;
	size_t i, n = 0;
	int err;

	err = sock_parse(argc, argv, false, &f);
	if (err)
		return err;
	if (!f.seen)
		return usage_error(sock_usage,
				   "kill needs a filter (\"state all\" for every socket)");
	nl = sock_open(ctl);
	if (!nl)
		return EXIT_FAILURE;
	if (sock_list_get(nl, &f, &list) < 0) {
		status = EXIT_FAILURE;
		goto out;
	}
	sock_list_filter(&list, &f);
	for (i = 0; i < list.n; i++) {
		err = sock_kill_one(nl, &list.v[i]);
		if (!err) {
			list.v[n++] = list.v[i];
			continue;
		}
		if (err == ENOENT || err == ESTALE)
			continue;
		if (err == EPERM)
			fprintf(stderr,
				"mrcctl: killing a socket needs CAP_NET_ADMIN: %s\n",
				strerror(err));
		else
			fprintf(stderr, "mrcctl: cannot kill socket %u: %s\n",
				list.v[i].ino, strerror(err));
		status = EXIT_FAILURE;
		break;
	}
	list.n = n;
	sock_print(ctl, &list, false);
out:
	sock_close(nl);
	sock_list_free(&list);
	return status;
}

enum sock_cmd {
	SOCK_SHOW,
	SOCK_LIST,
	SOCK_KILL,
	SOCK_HELP,
	SOCK_CMD_COUNT,
};

static const char *const sock_commands[SOCK_CMD_COUNT] = {
	[SOCK_SHOW]	= "show",
	[SOCK_LIST]	= "list",
	[SOCK_KILL]	= "kill",
	[SOCK_HELP]	= "help",
};

int do_sock(struct mrcctl *ctl, int argc, char **argv)
{
	if (!argc)
		return sock_show(ctl, 0, argv);

	switch (keyword_parse(argv[0], "command", sock_commands,
			      SOCK_CMD_COUNT, KW_ALL, sock_usage)) {
	case SOCK_SHOW:
	case SOCK_LIST:
		return sock_show(ctl, argc - 1, argv + 1);
	case SOCK_KILL:
		return sock_kill(ctl, argc - 1, argv + 1);
	case SOCK_HELP:
		sock_usage(stdout);
		return EXIT_SUCCESS;
	default:
		return EXIT_USAGE;
	}
}
