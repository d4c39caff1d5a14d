// SPDX-License-Identifier: GPL-2.0
/*
 * mrcize: run unmodified programs with their TCP sockets turned into MRC
 * sockets (through libmrcize.so), or have systemd run a service so.  See
 * mrcize.1.
 *
 * Copyright (C) 2026 The MRC for Linux authors
 */

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/mrc.h>
#include <linux/mrc_netlink.h>

#include "mrcize.h"

/* The installed library, from the Makefile. */
#ifndef MRCIZE_LIBDIR
#define MRCIZE_LIBDIR	"/usr/local/lib/mrcize"
#endif
#define MRCIZE_LIBNAME	"libmrcize.so"
#define SYSTEMD_DIR	"/etc/systemd/system"
#define DROPIN_NAME	"mrcize.conf"
#define EXIT_FAIL	1
#define EXIT_USAGE	2

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mrcize: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(EXIT_FAIL);
}

static void print_usage(FILE *f, int status)
{
	fprintf(f,
		"usage: mrcize run [-p PORTS] [-a ADDRS] [-x PORTS] [-v] [-f] [--] CMD [ARG]...\n"
		"       mrcize enable [-p PORTS] [-a ADDRS] [-x PORTS] [-v] UNIT\n"
		"       mrcize disable UNIT\n"
		"       mrcize lib\n"
		"Run CMD, or have systemd run UNIT, with its TCP sockets made MRC\n"
		"sockets; loopback addresses stay on TCP.\n"
		"  -p PORTS  only these ports (5201,8000-8080): a connect's\n"
		"            destination port, a bind's port\n"
		"  -a ADDRS  only these addresses or prefixes (10.0.0.0/8,fd00::/16)\n"
		"  -x PORTS  these ports stay on TCP (29500): for a service that\n"
		"            this host's own programs connect to\n"
		"  -v        log each socket's fate on stderr\n"
		"  -f        run even without AF_MRC or without a plane\n");
	exit(status);
}

/* The library: $MRCIZE_LIB, beside this binary, or where it is installed. */
static const char *find_lib(void)
{
	static char path[PATH_MAX + 32];
	char exe[PATH_MAX], *dir;
	const char *env = getenv("MRCIZE_LIB");
	ssize_t n;

	if (env && *env) {
		if (access(env, R_OK))
			die("MRCIZE_LIB=%s: %s", env, strerror(errno));
		return env;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		dir = dirname(exe);
		snprintf(path, sizeof(path), "%s/%s", dir, MRCIZE_LIBNAME);
		if (!access(path, R_OK))
			return path;
		snprintf(path, sizeof(path), "%s/../lib/mrcize/%s", dir,
			 MRCIZE_LIBNAME);
		if (!access(path, R_OK) && realpath(path, exe)) {
			snprintf(path, sizeof(path), "%s", exe);
			return path;
		}
	}
	snprintf(path, sizeof(path), "%s/%s", MRCIZE_LIBDIR, MRCIZE_LIBNAME);
	if (access(path, R_OK))
		die("cannot find %s (in %s, or beside mrcize; or set MRCIZE_LIB)",
		    MRCIZE_LIBNAME, MRCIZE_LIBDIR);
	return path;
}

/* ------------------------------------------------------------------ */
/* How many planes the namespace has: the "mrc" netlink family's config. */

struct nlreq {
	struct nlmsghdr nh;
	struct genlmsghdr gh;
	char attrs[64];
};

static int nl_ask(int fd, struct nlreq *req, char *buf, size_t size)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	ssize_t n;

	if (send(fd, req, req->nh.nlmsg_len, 0) < 0)
		return -errno;
	n = recv(fd, buf, size, 0);
	if (n < 0)
		return -errno;
	if (!NLMSG_OK(nh, (size_t)n))
		return -EPROTO;
	if (nh->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA(nh);

		return e->error ? e->error : -EPROTO;
	}
	return nh->nlmsg_len;
}

/* The attribute @type of the generic netlink message in @buf, or NULL. */
static struct nlattr *nl_attr(char *buf, int len, int type)
{
	struct nlattr *a;
	int off = NLMSG_HDRLEN + GENL_HDRLEN;

	while (len - off >= (int)NLA_HDRLEN) {
		a = (struct nlattr *)(buf + off);
		if (a->nla_len < NLA_HDRLEN || a->nla_len > len - off)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		off += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

/* Planes of this namespace, or a negative errno. */
static long count_planes(void)
{
	union {
		struct nlmsghdr nh;	/* for the alignment */
		char buf[4096];
	} reply;
	char *buf = reply.buf;
	struct nlreq req;
	struct nlattr *a;
	int fd, len;
	__u16 family;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_type = GENL_ID_CTRL;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.gh.cmd = CTRL_CMD_GETFAMILY;
	req.gh.version = 1;
	a = (struct nlattr *)req.attrs;
	a->nla_type = CTRL_ATTR_FAMILY_NAME;
	a->nla_len = NLA_HDRLEN + sizeof(MRC_FAMILY_NAME);
	memcpy((char *)a + NLA_HDRLEN, MRC_FAMILY_NAME, sizeof(MRC_FAMILY_NAME));
	req.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + NLA_ALIGN(a->nla_len);
	len = nl_ask(fd, &req, buf, sizeof(reply));
	a = len > 0 ? nl_attr(buf, len, CTRL_ATTR_FAMILY_ID) : NULL;
	if (!a) {
		close(fd);
		return len < 0 ? len : -EPROTO;
	}
	memcpy(&family, (char *)a + NLA_HDRLEN, sizeof(family));

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_type = family;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 2;
	req.gh.cmd = MRC_CMD_CONFIG_GET;
	req.gh.version = MRC_FAMILY_VERSION;
	req.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	len = nl_ask(fd, &req, buf, sizeof(reply));
	close(fd);
	a = len > 0 ? nl_attr(buf, len, MRC_CONFIG_ATTR_PLANES) : NULL;
	if (!a)
		return len < 0 ? len : -EPROTO;
	return *(__u32 *)((char *)a + NLA_HDRLEN);
}

/* MRC is there, with a plane: or a one-line reason, and exit 1. */
static void check_mrc(void)
{
	long planes;
	int fd;

	fd = socket(AF_MRC, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("no AF_MRC sockets here (is mrc.ko loaded?): %s; -f runs anyway",
		    strerror(errno));
	close(fd);
	planes = count_planes();
	if (planes < 0)
		die("cannot read the MRC planes of this network namespace: %s; -f runs anyway",
		    strerror(-planes));
	if (!planes)
		die("no MRC plane in this network namespace (mrcctl plane add); -f runs anyway");
}

/* ------------------------------------------------------------------ */

struct opts {
	struct mrcize_policy_text policy;
	bool verbose;
	bool force;
};

static int parse_opts(int argc, char **argv, struct opts *o, bool run)
{
	struct mrcize_policy p;
	const char *bad = "";
	int c;

	memset(o, 0, sizeof(*o));
	/* "+": the command's own options are not ours. */
	while ((c = getopt(argc, argv, run ? "+p:a:x:vfh" : "+p:a:x:vh")) != -1) {
		switch (c) {
		case 'p':
			o->policy.ports = optarg;
			break;
		case 'a':
			o->policy.addrs = optarg;
			break;
		case 'x':
			o->policy.tcp_ports = optarg;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'f':
			o->force = true;
			break;
		case 'h':
			print_usage(stdout, 0);
			break;
		default:
			print_usage(stderr, EXIT_USAGE);
		}
	}
	if (!o->policy.ports)
		o->policy.ports = getenv(MRCIZE_ENV_PORTS);
	if (!o->policy.addrs)
		o->policy.addrs = getenv(MRCIZE_ENV_ADDRS);
	if (!o->policy.tcp_ports)
		o->policy.tcp_ports = getenv(MRCIZE_ENV_TCP_PORTS);
	if (!mrcize_policy_parse(&p, &o->policy, &bad)) {
		fprintf(stderr, "mrcize: not a port, port range, address or prefix: %s\n",
			bad);
		exit(EXIT_USAGE);
	}
	return optind;
}

static void set_env(const char *name, const char *val)
{
	if (val && *val) {
		if (setenv(name, val, 1))
			die("setenv: %s", strerror(errno));
	} else {
		unsetenv(name);
	}
}

static int cmd_run(int argc, char **argv)
{
	const char *lib, *old;
	struct opts o;
	char *preload;
	int i;

	i = parse_opts(argc, argv, &o, true);
	if (i >= argc)
		print_usage(stderr, EXIT_USAGE);
	lib = find_lib();
	if (!o.force)
		check_mrc();
	old = getenv("LD_PRELOAD");
	if (old && *old) {
		if (asprintf(&preload, "%s:%s", lib, old) < 0)
			die("out of memory");
	} else {
		preload = strdup(lib);
	}
	set_env("LD_PRELOAD", preload);
	set_env(MRCIZE_ENV_PORTS, o.policy.ports);
	set_env(MRCIZE_ENV_ADDRS, o.policy.addrs);
	set_env(MRCIZE_ENV_TCP_PORTS, o.policy.tcp_ports);
	if (o.verbose)
		set_env(MRCIZE_ENV_DEBUG, "1");
	execvp(argv[i], argv + i);
	fprintf(stderr, "mrcize: %s: %s\n", argv[i], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

static void dropin_env(FILE *f, const char *name, const char *val)
{
	if (val && *val)
		fprintf(f, "Environment=\"%s=%s\"\n", name, val);
}

/* /etc/systemd/system/UNIT.d/mrcize.conf, or below $MRCIZE_SYSTEMD_DIR. */
static void dropin_paths(const char *unit, char *dir, char *file, size_t size)
{
	const char *base = getenv("MRCIZE_SYSTEMD_DIR");
	const char *suffix = strchr(unit, '.') ? "" : ".service";

	if (!*unit || strchr(unit, '/') || unit[0] == '.')
		die("%s: not a unit name", unit);
	if (!base || !*base)
		base = SYSTEMD_DIR;
	if (snprintf(dir, size, "%s/%s%s.d", base, unit, suffix) >= (int)size)
		die("%s: name too long", unit);
	snprintf(file, size, "%s/%s", dir, DROPIN_NAME);
}

/* systemctl daemon-reload, where systemd runs (sd_booted()'s test). */
static int daemon_reload(void)
{
	int status;
	pid_t pid;

	if (access("/run/systemd/system", F_OK)) {
		fprintf(stderr, "mrcize: systemd is not running here: no daemon-reload\n");
		return 0;
	}
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		execlp("systemctl", "systemctl", "daemon-reload", (char *)NULL);
		if (errno == ENOENT)
			_exit(127);
		fprintf(stderr, "mrcize: systemctl: %s\n", strerror(errno));
		_exit(126);
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		fprintf(stderr, "mrcize: no systemctl: no daemon-reload\n");
		return 0;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "mrcize: systemctl daemon-reload failed\n");
		return EXIT_FAIL;
	}
	return 0;
}

static int cmd_enable(int argc, char **argv)
{
	char dir[PATH_MAX], file[PATH_MAX + 16];
	const char *lib;
	struct opts o;
	FILE *f;
	int i;

	i = parse_opts(argc, argv, &o, false);
	if (i != argc - 1)
		print_usage(stderr, EXIT_USAGE);
	lib = find_lib();
	if (lib[0] != '/')
		die("%s: the library needs an absolute path", lib);
	dropin_paths(argv[i], dir, file, sizeof(dir));
	if (mkdir(dir, 0755) && errno != EEXIST)
		die("%s: %s", dir, strerror(errno));
	f = fopen(file, "w");
	if (!f)
		die("%s: %s", file, strerror(errno));
	fprintf(f, "# Written by \"mrcize enable\": the TCP sockets of the service\n"
		"# are MRC sockets.  \"mrcize disable\" removes this file.\n"
		"[Service]\n"
		"Environment=\"LD_PRELOAD=%s\"\n", lib);
	dropin_env(f, MRCIZE_ENV_PORTS, o.policy.ports);
	dropin_env(f, MRCIZE_ENV_ADDRS, o.policy.addrs);
	dropin_env(f, MRCIZE_ENV_TCP_PORTS, o.policy.tcp_ports);
	if (o.verbose)
		fprintf(f, "Environment=\"%s=1\"\n", MRCIZE_ENV_DEBUG);
	if (fclose(f))
		die("%s: %s", file, strerror(errno));
	printf("%s\n", file);
	return daemon_reload();
}

static int cmd_disable(int argc, char **argv)
{
	char dir[PATH_MAX], file[PATH_MAX + 16];

	if (argc != 2 || argv[1][0] == '-')
		print_usage(stderr, EXIT_USAGE);
	dropin_paths(argv[1], dir, file, sizeof(dir));
	if (unlink(file))
		die("%s: %s", file, errno == ENOENT ? "not enabled" : strerror(errno));
	/* The directory may hold the operator's own drop-ins. */
	if (rmdir(dir) && errno != ENOTEMPTY && errno != EEXIST)
		die("%s: %s", dir, strerror(errno));
	printf("removed %s\n", file);
	return daemon_reload();
}

int main(int argc, char **argv)
{
	if (argc < 2)
		print_usage(stderr, EXIT_USAGE);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		print_usage(stdout, 0);
	if (!strcmp(argv[1], "-V")) {
		printf("mrcize %s\n", MRC_PACKAGE_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "enable"))
		return cmd_enable(argc - 1, argv + 1);
	if (!strcmp(argv[1], "disable"))
		return cmd_disable(argc - 1, argv + 1);
	if (!strcmp(argv[1], "lib")) {
		printf("%s\n", find_lib());
		return 0;
	}
	print_usage(stderr, EXIT_USAGE);
	return EXIT_USAGE;
}
