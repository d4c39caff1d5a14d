#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the MRC shell selftests: TAP output, one line per case,
# and network namespaces that are removed when the test ends.

readonly KSFT_PASS=0
readonly KSFT_FAIL=1
readonly KSFT_SKIP=4

MRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Built helpers live beside the scripts in a kernel tree, in OUTPUT out of it.
MRC_BIN=${MRC_BIN:-$MRC_DIR}

mrc_case=0
mrc_failed=0
mrc_passed=0
mrc_namespaces=()

mrc_plan()
{
	echo "TAP version 13"
	echo "1..$1"
}

# mrc_result STATUS DESCRIPTION: report one case from a command's status.
mrc_result()
{
	mrc_case=$((mrc_case + 1))
	case "$1" in
	0) echo "ok $mrc_case $2"; mrc_passed=$((mrc_passed + 1)) ;;
	"$KSFT_SKIP") echo "ok $mrc_case $2 # SKIP" ;;
	*) echo "not ok $mrc_case $2"; mrc_failed=$((mrc_failed + 1)) ;;
	esac
}

# mrc_check DESCRIPTION COMMAND...: run COMMAND as one case.
mrc_check()
{
	local desc=$1

	shift
	"$@"
	mrc_result $? "$desc"
}

mrc_info()
{
	echo "# $*"
}

mrc_fail()
{
	echo "# FAIL: $*"
	return 1
}

mrc_cleanup()
{
	local ns

	for ns in "${mrc_namespaces[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	mrc_namespaces=()
}

# mrc_ns_add NAME...: create namespaces with loopback up, removed at exit.
mrc_ns_add()
{
	local ns

	for ns in "$@"; do
		ip netns add "$ns" || return 1
		mrc_namespaces+=("$ns")
		ip -n "$ns" link set lo up || return 1
	done
}

# mrc_veth_pairs NS COUNT: veth1/veth2 ... veth(2*COUNT-1)/veth(2*COUNT) in
# NS, every end up; addresses are the caller's.
mrc_veth_pairs()
{
	local ns=$1 count=$2 i

	for i in $(seq 1 "$count"); do
		echo "link add veth$((2 * i - 1)) type veth peer name veth$((2 * i))"
		echo "link set veth$((2 * i - 1)) up"
		echo "link set veth$((2 * i)) up"
	done | ip -n "$ns" -batch -
}

mrc_finish()
{
	mrc_cleanup
	echo "# $mrc_passed passed, $mrc_failed failed of $mrc_case"
	[ "$mrc_failed" = 0 ] || exit "$KSFT_FAIL"
	[ "$mrc_passed" -gt 0 ] || exit "$KSFT_SKIP"
	exit "$KSFT_PASS"
}

mrc_require_root()
{
	if [ "$(id -u)" != 0 ]; then
		echo "# SKIP: needs root"
		exit "$KSFT_SKIP"
	fi
}

mrc_module_loaded()
{
	[ -d /sys/module/mrc ]
}

# mrc_expect WHAT GOT WANTED: compare, and show both when they differ.
mrc_expect()
{
	[ "$2" = "$3" ] && return 0
	mrc_fail "$1:"
	echo "#   got:      $2"
	echo "#   expected: $3"
	return 1
}

# mrc_wait_for SECONDS COMMAND...: poll until COMMAND succeeds.
mrc_wait_for()
{
	local deadline=$((SECONDS + $1))

	shift
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

trap mrc_cleanup EXIT
