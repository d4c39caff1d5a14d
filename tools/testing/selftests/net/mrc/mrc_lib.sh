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

# A run over several kernels (tools/testing/check) names in MRC_SKIP_TESTS
# the scripts that test user space more than the kernel, for all kernels
# but one: they skip.
case " ${MRC_SKIP_TESTS:-} " in
*" ${0##*/} "*)
	echo "# SKIP: ${0##*/} runs on another kernel of this run"
	exit "$KSFT_SKIP"
	;;
esac

mrc_case=0
mrc_failed=0
mrc_passed=0
mrc_namespaces=()

mrc_plan()
{
	echo "TAP version 13"
	echo "1..$1"
	mrc_case_start=$SECONDS
}

# mrc_result STATUS DESCRIPTION: report one case from a command's status,
# and the seconds since the last case (or the plan), where the suite's
# time goes.
mrc_result()
{
	mrc_case=$((mrc_case + 1))
	case "$1" in
	0) echo "ok $mrc_case $2"; mrc_passed=$((mrc_passed + 1)) ;;
	"$KSFT_SKIP") echo "ok $mrc_case $2 # SKIP" ;;
	*) echo "not ok $mrc_case $2"; mrc_failed=$((mrc_failed + 1)) ;;
	esac
	echo "# ($((SECONDS - ${mrc_case_start:-$SECONDS})) s)"
	mrc_case_start=$SECONDS
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

# mrc_trace_instance DIR: make the tracefs instance DIR (under
# .../instances/) without comm recording.  Comm recording hooks
# sched_switch and sched_wakeup once an event of the instance is enabled,
# and unhooks them once none is: each time the kernel patches those jumps
# in __schedule() and try_to_wake_up() while every CPU runs them, which
# QEMU's TCG gets wrong now and then (Oops: int3 in ttwu_do_activate,
# 6.12).  The option is the top level's: an instance copies it when it is
# made, and cannot change it.
mrc_trace_instance()
{
	local opt=${1%/instances/*}/options/record-cmd old rc

	old=$(cat "$opt") && echo 0 > "$opt" || return 1
	mkdir "$1"
	rc=$?
	echo "$old" > "$opt"
	[ "$rc" = 0 ] || return "$rc"
	if [ -e "$1/options/record-tgid" ]; then
		echo 0 > "$1/options/record-tgid" || return 1
	fi
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

# mrc_intact "SENT RECEIVED": the two SHA-256 of a transfer are there, and
# the same.
mrc_intact()
{
	local c s

	read -r c s <<< "$1"
	[ -n "$c" ] && [ "$c" = "$s" ] ||
		mrc_fail "SHA-256 sent ${c:-none}, received ${s:-none}"
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

# mrc_show FILE: FILE's lines as TAP comments.
mrc_show()
{
	local line

	while IFS= read -r line; do
		echo "#   $line"
	done < "$1"
}

# mrc_kill_jobs: stop the script's background jobs.
mrc_kill_jobs()
{
	local job

	for job in $(jobs -p); do
		kill "$job" 2> /dev/null
	done
	wait 2> /dev/null
}

# mrc_need_mrcctl: set MRCCTL (from the source tree, whether the scripts run
# there or from a build directory), or skip.
mrc_need_mrcctl()
{
	MRCCTL=${MRCCTL:-$(cd "$MRC_DIR" && pwd -P)/../../../../mrcctl/mrcctl}
	[ -x "$MRCCTL" ] || MRCCTL=$MRC_DIR/../../tools/mrcctl/mrcctl
	if [ ! -x "$MRCCTL" ]; then
		echo "# SKIP: mrcctl not built (make -C tools/mrcctl, or set MRCCTL)"
		exit "$KSFT_SKIP"
	fi
}

# mrc_need_bin NAME...: the built helpers NAME, in $MRC_BIN, or skip.
mrc_need_bin()
{
	local bin

	for bin in "$@"; do
		if [ ! -x "$MRC_BIN/$bin" ]; then
			echo "# SKIP: $bin not built (or set MRC_BIN)"
			exit "$KSFT_SKIP"
		fi
	done
}

# mrc_need_mrcize: set MRCIZE (from the source tree, as mrc_need_mrcctl),
# or skip.
mrc_need_mrcize()
{
	MRCIZE=${MRCIZE:-$(cd "$MRC_DIR" && pwd -P)/../../../../mrcize/mrcize}
	[ -x "$MRCIZE" ] || MRCIZE=$MRC_DIR/../../tools/mrcize/mrcize
	if [ ! -x "$MRCIZE" ]; then
		echo "# SKIP: mrcize not built (make -C tools/mrcize, or set MRCIZE)"
		exit "$KSFT_SKIP"
	fi
}

# mrc_need_cmd COMMAND...: the commands, or skip.
mrc_need_cmd()
{
	local cmd

	for cmd in "$@"; do
		if ! command -v "$cmd" > /dev/null; then
			echo "# SKIP: needs $cmd"
			exit "$KSFT_SKIP"
		fi
	done
}

# mrc_need_mod MODULE...: skip the test unless the kernel has them all
# (loaded now, or built in).
mrc_need_mod()
{
	local mod

	for mod in "$@"; do
		if ! modprobe "$mod" 2> /dev/null && [ ! -d "/sys/module/$mod" ]; then
			echo "# SKIP: no $mod"
			exit "$KSFT_SKIP"
		fi
	done
}

# mrc_stall_port: the virtio port on which the VM runner
# (tools/testing/vm/run) pauses this guest, empty where there is none.
mrc_stall_port()
{
	local d

	for d in /sys/class/virtio-ports/*; do
		[ "$(cat "$d/name" 2> /dev/null)" = org.mrc.stall ] &&
			[ -c "/dev/${d##*/}" ] && echo "/dev/${d##*/}"
	done
}

# mrc_host_stall MS: the host pauses this whole guest for MS milliseconds,
# every CPU, timer and queue at once, as a hypervisor that deschedules a
# VM does.  A port that nobody serves blocks its writer: bounded.
mrc_host_stall()
{
	local port

	port=$(mrc_stall_port)
	[ -n "$port" ] || return 1
	timeout 30 bash -c 'exec 3<> "$1" && echo "$2" >&3 &&
		read -r reply <&3 && [ "$reply" = ok ]' - "$port" "$1"
}

# mrc_addr FAMILY K H: the address of host H on pair or plane K:
# 10.0.K.H or fd00:K::H.
mrc_addr()
{
	if [ "$1" = 4 ]; then
		echo "10.0.$2.$3"
	else
		echo "fd00:$2::$3"
	fi
}

# mrc_link_hosts A B FAMILY FIRST LAST: veth pairs FIRST to LAST, vethK in
# A joined to vethK in B, up, with mrc_addr FAMILY K 1 and 2.
mrc_link_hosts()
{
	local at_a=() at_b=() k len=24 opt=''

	[ "$3" = 4 ] || len=64 opt=nodad
	for k in $(seq "$4" "$5"); do
		at_a+=("link add veth$k type veth peer name veth$k netns $2"
		      "link set veth$k up"
		      "addr add $(mrc_addr "$3" "$k" 1)/$len dev veth$k $opt")
		at_b+=("link set veth$k up"
		      "addr add $(mrc_addr "$3" "$k" 2)/$len dev veth$k $opt")
	done
	printf '%s
' "${at_a[@]}" | ip -n "$1" -batch - &&
		printf '%s
' "${at_b[@]}" | ip -n "$2" -batch -
}

# mrc_switch_hosts SWITCH FAMILY FIRST LAST HOST...: more than two hosts on
# shared planes: a bridge brK in namespace SWITCH for each K from FIRST to
# LAST, and in the I-th HOST (from 1) vethK, a port of brK, up, with
# mrc_addr FAMILY K I.
mrc_switch_hosts()
{
	local sw=$1 fam=$2 first=$3 last=$4 i=0 k ns len=24 opt='' cmds

	shift 4
	[ "$fam" = 4 ] || len=64 opt=nodad
	for k in $(seq "$first" "$last"); do
		echo "link add br$k type bridge mcast_snooping 0"
		echo "link set br$k up"
	done | ip -n "$sw" -batch - || return 1
	for ns in "$@"; do
		i=$((i + 1))
		cmds=()
		for k in $(seq "$first" "$last"); do
			cmds+=("link add h$i-$k type veth peer name veth$k netns $ns"
			       "link set h$i-$k master br$k"
			       "link set h$i-$k up")
		done
		printf '%s\n' "${cmds[@]}" | ip -n "$sw" -batch - || return 1
		for k in $(seq "$first" "$last"); do
			echo "link set veth$k up"
			echo "addr add $(mrc_addr "$fam" "$k" "$i")/$len dev veth$k $opt"
		done | ip -n "$ns" -batch - || return 1
	done
}

# mrc_switch_planes FAMILY FIRST LAST HOST...: planes FIRST to LAST of
# hosts joined by mrc_switch_hosts, plane K on vethK; waits until all are
# up.
mrc_switch_planes()
{
	local fam=$1 first=$2 last=$3 i=0 k ns

	shift 3
	for ns in "$@"; do
		i=$((i + 1))
		for k in $(seq "$first" "$last"); do
			"$MRCCTL" -n "$ns" plane add dev "veth$k" id "$k" \
				addr "$(mrc_addr "$fam" "$k" "$i")" || return 1
		done
	done
	for ns in "$@"; do
		mrc_wait_for 10 mrc_planes_up "$ns" "$last" ||
			mrc_fail "planes not up in $ns: $("$MRCCTL" -n "$ns" plane show)" ||
			return 1
	done
}

# mrc_counter NS NAME: the counter NAME of NS (/proc/net/mrc_snmp),
# nothing for a name it lacks.
mrc_counter()
{
	ip netns exec "$1" awk -v name="$2" '$1 == "MrcExt:" && !hdr {
			for (i = 2; i <= NF; i++)
				if ($i == name)
					col = i
			hdr = 1
			next
		}
		$1 == "MrcExt:" { if (col) print $col; exit }' /proc/net/mrc_snmp
}

declare -gA MRC_SNMP

# mrc_snmp NS [PID]: every counter of NS (/proc/net/mrc_snmp) into
# MRC_SNMP by name, all read at one moment.  With PID, a process of NS (a
# transfer's end), they are read through /proc/PID/net, without starting
# a process: under QEMU without KVM, with a transfer taking the CPUs, each
# process started costs tenths of a second.
mrc_snmp()
{
	local names=() values=() i

	MRC_SNMP=()
	if ! { [ -n "${2:-}" ] && [ "/proc/$2/ns/net" -ef "/run/netns/$1" ] &&
	       { read -r -a names && read -r -a values; } < "/proc/$2/net/mrc_snmp"; } \
	       2> /dev/null; then
		{ read -r -a names && read -r -a values; } \
			< <(ip netns exec "$1" cat /proc/net/mrc_snmp) || return 1
	fi
	if [ "${names[0]}" != MrcExt: ] || [ "${values[0]}" != MrcExt: ] ||
	   [ "${#names[@]}" != "${#values[@]}" ]; then
		mrc_fail "$1: /proc/net/mrc_snmp unreadable: ${names[*]:0:3}..."
		return 1
	fi
	for ((i = 1; i < ${#names[@]}; i++)); do
		MRC_SNMP[${names[i]}]=${values[i]}
	done
}

# mrc_counters NS NAME...: those counters of NS on one line, in that
# order, 0 for a name it lacks; read at one moment (mrc_snmp).
mrc_counters()
{
	local ns=$1 out=() name

	shift
	mrc_snmp "$ns" || return 1
	for name; do
		out+=("${MRC_SNMP[$name]:-0}")
	done
	echo "${out[*]}"
}

# mrc_is_number VALUE: whether VALUE is a whole number.
mrc_is_number()
{
	case $1 in
	'' | *[!0-9]*) return 1 ;;
	esac
}

# mrc_planes_up NS COUNT: NS has COUNT planes, all up.
mrc_planes_up()
{
	local out id state n=0

	out=$("$MRCCTL" -n "$1" plane show) || return 1
	while read -r id _ _ state _; do
		[ "$id" = ID ] && continue
		[ "$state" = up ] || return 1
		n=$((n + 1))
	done <<< "$out"
	[ "$n" = "$2" ]
}

# mrc_add_planes A B FAMILY FIRST LAST: planes FIRST to LAST of hosts linked
# by mrc_link_hosts, plane K on vethK; waits until all are up.
mrc_add_planes()
{
	local k

	for k in $(seq "$4" "$5"); do
		"$MRCCTL" -n "$1" plane add dev "veth$k" id "$k" \
			addr "$(mrc_addr "$3" "$k" 1)" &&
			"$MRCCTL" -n "$2" plane add dev "veth$k" id "$k" \
				addr "$(mrc_addr "$3" "$k" 2)" || return 1
	done
	mrc_wait_for 10 mrc_planes_up "$1" "$5" &&
		mrc_wait_for 10 mrc_planes_up "$2" "$5" ||
		mrc_fail "planes not up: $("$MRCCTL" -n "$1" plane show; "$MRCCTL" -n "$2" plane show)"
}

# mrc_said_ready FILE: a server's output FILE has its "ready" line.
#
# A file polled for a word is removed before its program starts: the
# background job's "> FILE" truncates it only once that job runs, and until
# then the poll would read what an earlier program said there ("ready" from
# the IPv4 round, and the client would connect before the server listens).
mrc_said_ready()
{
	local line

	[ -e "$1" ] || return 1
	while read -r line; do
		[[ "$line" == ready* ]] && return 0
	done < "$1"
	return 1
}

# mrc_server_ready FILE PID: the server said ready, or is gone.
mrc_server_ready()
{
	mrc_said_ready "$1" || ! kill -0 "$2" 2> /dev/null
}

# mrc_said FILE WORD: a line of FILE starts with WORD.
mrc_said()
{
	grep -q "^$2" "$1" 2> /dev/null
}

mrc_said_or_gone()
{
	mrc_said "$1" "$2" || ! kill -0 "$3" 2> /dev/null
}

# mrc_wait_said FILE WORD PID: the program of PID printed WORD, at the
# start of a line of FILE, within a minute; or it did not, and FILE and
# FILE.err are shown.
mrc_wait_said()
{
	mrc_wait_for 60 mrc_said_or_gone "$1" "$2" "$3"
	mrc_said "$1" "$2" && return 0
	mrc_fail "$(basename "$1") did not say $2:"
	mrc_show "$1"
	[ ! -e "$1.err" ] || mrc_show "$1.err"
	return 1
}

# mrc_xfer_server NS PORT DIR: an mrc_xfer server on NS that reads what
# comes, in the background, its pid in srv, its output in DIR/s.out and
# DIR/s.err; waits until it listens.  Needs XFER.
mrc_xfer_server()
{
	rm -f "$3/s.out"
	ip netns exec "$1" "$XFER" -l -p "$2" -T 120 > "$3/s.out" \
		2> "$3/s.err" &
	srv=$!
	mrc_wait_for 30 mrc_server_ready "$3/s.out" "$srv" &&
		mrc_said_ready "$3/s.out" ||
		mrc_fail "server did not start: $(cat "$3/s.err")"
}

# mrc_stats_delta NS DIR: "mrcctl stats -d" in NS, with a history of the
# test's own in DIR.
mrc_stats_delta()
{
	MRCCTL_STATS_HISTORY=$2/history.$1 "$MRCCTL" -n "$1" stats -d
}

# mrc_stat NAME FILE: counter NAME in the output of mrc_stats_delta
# (0 when absent).
mrc_stat()
{
	awk -v n="$1" '$1 == n { v = $2 } END { print v + 0 }' "$2"
}

trap mrc_cleanup EXIT
