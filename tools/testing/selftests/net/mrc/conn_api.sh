#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# AF_MRC connections through the socket API: builds the hosts and runs
# conn_api_test, which opens its servers in one and its clients in the
# other, with their names and addresses in the environment.
#
#   client (a)                        server (b)
#   veth1 10.1.1.1/24   plane 0   veth2 10.1.1.2/24
#   veth3 fd00:1::1/64  plane 1   veth4 fd00:1::2/64
#   veth5 10.1.3.1/24   plane 2   veth6 10.1.3.2/24 in host c, whose
#                                 plane 2 was removed: a peer that is gone
#
# Arguments are passed on to conn_api_test (-l lists the cases, -r runs
# one, -f, -v and -t filter; see kselftest_harness.h).

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

real_dir=$(cd "$MRC_DIR" && pwd -P)
# Beside the sources (in a kernel tree, or MRC_BIN), or in the project's
# build directory.
top=$real_dir/../../../../..
test_bin=$MRC_BIN/conn_api_test
[ -x "$test_bin" ] || test_bin=$top/build/selftests/conn_api_test
MRCCTL=${MRCCTL:-$real_dir/../../../../mrcctl/mrcctl}
[ -x "$MRCCTL" ] || MRCCTL=$real_dir/../../tools/mrcctl/mrcctl
[ -x "$MRCCTL" ] || MRCCTL=$(command -v mrcctl)

if [ ! -x "$test_bin" ]; then
	echo "# SKIP: conn_api_test not built (make selftests, or set MRC_BIN)"
	exit "$KSFT_SKIP"
fi
if [ ! -x "$MRCCTL" ]; then
	echo "# SKIP: mrcctl not built (make -C tools/mrcctl, or set MRCCTL)"
	exit "$KSFT_SKIP"
fi
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"

suffix=$(printf '%04x' $RANDOM)
a=mrca-$suffix-a
b=mrca-$suffix-b
c=mrca-$suffix-c

setup()
{
	mrc_ns_add "$a" "$b" "$c" || return 1
	ip -n "$a" -batch - <<-EOF || return 1
	link add veth1 type veth peer name veth2 netns $b
	link add veth3 type veth peer name veth4 netns $b
	link add veth5 type veth peer name veth6 netns $c
	addr add 10.1.1.1/24 dev veth1
	addr add fd00:1::1/64 dev veth3 nodad
	addr add 10.1.3.1/24 dev veth5
	link set veth1 up
	link set veth3 up
	link set veth5 up
	EOF
	ip -n "$b" -batch - <<-EOF || return 1
	addr add 10.1.1.2/24 dev veth2
	addr add fd00:1::2/64 dev veth4 nodad
	link set veth2 up
	link set veth4 up
	EOF
	ip -n "$c" -batch - <<-EOF || return 1
	addr add 10.1.3.2/24 dev veth6
	link set veth6 up
	EOF

	"$MRCCTL" -n "$a" plane add dev veth1 id 0 addr 10.1.1.1 &&
		"$MRCCTL" -n "$a" plane add dev veth3 id 1 addr fd00:1::1 &&
		"$MRCCTL" -n "$a" plane add dev veth5 id 2 addr 10.1.3.1 &&
		"$MRCCTL" -n "$b" plane add dev veth2 id 0 addr 10.1.1.2 &&
		"$MRCCTL" -n "$b" plane add dev veth4 id 1 addr fd00:1::2 &&
		"$MRCCTL" -n "$c" plane add dev veth6 id 2 addr 10.1.3.2 &&
		"$MRCCTL" -n "$c" plane del id 2 || return 1

	mrc_wait_for 10 planes_up "$a" 3 &&
		mrc_wait_for 10 planes_up "$b" 2 ||
		mrc_fail "planes not up: $("$MRCCTL" -n "$a" plane show)" \
			"$("$MRCCTL" -n "$b" plane show)"
}

# planes_up NS COUNT: NS has COUNT planes, all up.
planes_up()
{
	local out

	out=$("$MRCCTL" -n "$1" plane show) || return 1
	[ "$(awk 'NR > 1 && $4 == "up"' <<< "$out" | wc -l)" = "$2" ]
}

if ! setup; then
	mrc_fail "setup"
	exit "$KSFT_FAIL"
fi
mrc_info "client $a and server $b: plane 0 10.1.1.1 - 10.1.1.2," \
	"plane 1 fd00:1::1 - fd00:1::2; $c 10.1.3.2 has no MRC plane"

MRC_CLIENT_NS=$a MRC_SERVER_NS=$b \
	MRC_CLIENT_ADDR4=10.1.1.1 MRC_SERVER_ADDR4=10.1.1.2 \
	MRC_CLIENT_ADDR6=fd00:1::1 MRC_SERVER_ADDR6=fd00:1::2 \
	MRC_DEAD_ADDR4=10.1.3.2 \
	"$test_bin" "$@"
rc=$?
mrc_cleanup
exit "$rc"
