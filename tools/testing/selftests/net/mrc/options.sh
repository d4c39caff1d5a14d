#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Socket options seen on the wire, over two hosts joined by two planes,
# IPv4 then IPv6:
#
# - keepalive: an idle connection with SO_KEEPALIVE probes its live peer
#   and lives on; once the peer's planes drop every MRC packet it ends
#   with ETIMEDOUT after its probes (MRC_KEEPIDLE + MRC_KEEPCNT x
#   MRC_KEEPINTVL), counted, while an idle connection without keepalive
#   beside it lives on;
# - MRC_TCLASS: every packet of the client carries its DSCP, every packet
#   of the server the DSCP its listener set, and DATA keeps its ECN bits.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_conn_hold
mrc_need_cmd tc
HOLD=$MRC_BIN/mrc_conn_hold
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"

mrc_plan 6

suffix=$(printf '%04x' $RANDOM)
tmp=$(mktemp -d)
A=mrco-$suffix-a
B=mrco-$suffix-b

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

setup()
{
	mrc_kill_jobs
	mrc_cleanup
	mrc_ns_add "$A" "$B" &&
		mrc_link_hosts "$A" "$B" "$fam" 1 2 &&
		mrc_add_planes "$A" "$B" "$fam" 1 2
}

# server PORT NAME ARGS...: an mrc_conn_hold server in B, output in
# $tmp/NAME, its pid in $pid; waits until it listens.
server()
{
	local port=$1 out=$tmp/$2

	shift 2
	rm -f "$out" "$out.err"
	ip netns exec "$B" "$HOLD" -l -p "$port" "$@" > "$out" 2> "$out.err" &
	pid=$!
	mrc_wait_for 30 mrc_server_ready "$out" "$pid" && mrc_said_ready "$out" ||
		mrc_fail "server did not start: $(cat "$out.err")"
}

# client PORT NAME ARGS...: an mrc_conn_hold client in A to B over plane
# 1, output in $tmp/NAME, its pid in $pid; waits until it connected.
client()
{
	local port=$1 out=$tmp/$2

	shift 2
	rm -f "$out" "$out.err"
	ip netns exec "$A" "$HOLD" -c "$(mrc_addr "$fam" 1 2)" -p "$port" "$@" \
		> "$out" 2> "$out.err" &
	pid=$!
	mrc_wait_said "$out" conn "$pid"
}

counter()
{
	mrc_stat "$1" "$tmp/stats"
}

keepalive_live()
{
	local probes live_pid

	server 9201 live_s || return 1
	client 9201 live -w -k 1,1,2 || return 1
	live_pid=$pid
	mrc_stats_delta "$A" "$tmp" > /dev/null
	# Four seconds idle: three probes or more, each answered.
	sleep 5
	mrc_stats_delta "$A" "$tmp" > "$tmp/stats"
	probes=$(counter KeepaliveProbes)
	mrc_info "KeepaliveProbes $probes in 5 s"
	kill -0 "$live_pid" 2> /dev/null && ! mrc_said "$tmp/live" end ||
		mrc_fail "the connection ended: $(cat "$tmp/live" "$tmp/live.err")" ||
		return 1
	[ "$probes" -ge 3 ] || mrc_fail "$probes keepalive probes" || return 1
	[ "$(counter KeepaliveTimeouts)" = 0 ] ||
		mrc_fail "KeepaliveTimeouts $(counter KeepaliveTimeouts)"
}

# Every MRC packet that reaches B is dropped.
silence_b()
{
	local k proto=ip match="ip protocol 17 0xff match ip dport"

	[ "$fam" = 4 ] || proto=ipv6 match="ip6 protocol 17 0xff match ip6 dport"
	for k in 1 2; do
		# shellcheck disable=SC2086 # $match is a list of arguments
		tc -n "$B" qdisc add dev "veth$k" clsact &&
			tc -n "$B" filter add dev "veth$k" ingress protocol "$proto" \
				u32 match $match 4793 0xffff action drop || return 1
	done
}

keepalive_dead()
{
	local start end ms dead_pid rc=0

	server 9202 dead_s -n 2 || return 1
	client 9202 dead -w -k 1,1,2 || return 1
	dead_pid=$pid
	client 9202 quiet -w || return 1
	mrc_stats_delta "$A" "$tmp" > /dev/null
	silence_b || mrc_fail "cannot drop B's input" || return 1
	start=$(date +%s%N)
	mrc_wait_for 20 mrc_said_or_gone "$tmp/dead" end "$dead_pid"
	end=$(date +%s%N)
	ms=$(((end - start) / 1000000))
	mrc_stats_delta "$A" "$tmp" > "$tmp/stats"
	mrc_info "$(tail -n 1 "$tmp/dead") after $ms ms," \
		"KeepaliveProbes $(counter KeepaliveProbes)" \
		"KeepaliveTimeouts $(counter KeepaliveTimeouts)"
	mrc_expect "how the connection ended" "$(tail -n 1 "$tmp/dead")" \
		"end ETIMEDOUT" || rc=1
	# Idle 1 s, then 2 probes 1 s apart, each unanswered: 2 s after the
	# last answer at least, which may have come just before the silence.
	[ "$ms" -ge 1000 ] && [ "$ms" -le 12000 ] ||
		mrc_fail "ended after $ms ms, not about 3 s" || rc=1
	[ "$(counter KeepaliveTimeouts)" = 1 ] && [ "$(counter KeepaliveProbes)" -ge 2 ] ||
		mrc_fail "keepalive counters: $(grep Keepalive "$tmp/stats")" || rc=1
	kill -0 "$pid" 2> /dev/null && ! mrc_said "$tmp/quiet" end ||
		mrc_fail "the connection without keepalive ended: $(cat "$tmp/quiet")" ||
		rc=1
	return "$rc"
}

# count NS DEV PREF: packets the ingress filter PREF of DEV in NS passed.
count()
{
	tc -n "$1" -s filter show dev "$2" ingress pref "$3" |
		awk '/Sent [0-9]+ bytes [0-9]+ pkt/ { n += $4 } END { print n + 0 }'
}

# watch NS DSCP: on both planes of NS, filter 1 counts the MRC packets
# with DSCP and the ECN bits ECT(0), 2 those with DSCP, 3 the other MRC
# packets.
watch()
{
	local k tos=ip\ tos proto=ip match="ip protocol 17 0xff match ip dport"

	if [ "$fam" = 6 ]; then
		tos=ip6\ priority proto=ipv6
		match="ip6 protocol 17 0xff match ip6 dport"
	fi
	for k in 1 2; do
		# shellcheck disable=SC2086 # $tos and $match are lists of arguments
		tc -n "$1" qdisc add dev "veth$k" clsact &&
			tc -n "$1" filter add dev "veth$k" ingress pref 1 \
				protocol "$proto" u32 match $match 4793 0xffff \
				match $tos $(($2 | 2)) 0xff action pass &&
			tc -n "$1" filter add dev "veth$k" ingress pref 2 \
				protocol "$proto" u32 match $match 4793 0xffff \
				match $tos "$2" 0xfc action pass &&
			tc -n "$1" filter add dev "veth$k" ingress pref 3 \
				protocol "$proto" u32 match $match 4793 0xffff \
				action pass || return 1
	done
}

tclass()
{
	local ns k ect dscp other server_pid rc=0

	watch "$B" 0xb8 && watch "$A" 0x28 ||
		mrc_fail "cannot count DSCPs" || return 1
	server 9203 tos_s -Q 0x28 -s 64K || return 1
	server_pid=$pid
	client 9203 tos -Q 0xb9 -s 64K -w || return 1
	mrc_wait_said "$tmp/tos_s" received "$server_pid" || return 1
	for ns in "$B" "$A"; do
		ect=0 dscp=0 other=0
		for k in 1 2; do
			ect=$((ect + $(count "$ns" "veth$k" 1)))
			dscp=$((dscp + $(count "$ns" "veth$k" 2)))
			other=$((other + $(count "$ns" "veth$k" 3)))
		done
		mrc_info "into $ns: DSCP with ECT(0) $ect, DSCP $dscp, other $other"
		[ "$other" = 0 ] || mrc_fail "$other packets without the DSCP" || rc=1
		[ "$((ect + dscp))" -gt 0 ] || mrc_fail "no packet" || rc=1
		# 64 KiB of DATA from the client: some 45 packets.
		[ "$ns" != "$B" ] || [ "$ect" -ge 40 ] ||
			mrc_fail "$ect DATA packets with ECT(0)" || rc=1
	done
	return "$rc"
}

for fam in 4 6; do
	setup || { mrc_fail "setup"; exit "$KSFT_FAIL"; }
	mrc_check "IPv$fam: keepalive probes a live peer, the connection lives" keepalive_live
	setup || { mrc_fail "setup"; exit "$KSFT_FAIL"; }
	mrc_check "IPv$fam: keepalive ends a connection to a silent peer: ETIMEDOUT after its probes" keepalive_dead
	setup || { mrc_fail "setup"; exit "$KSFT_FAIL"; }
	mrc_check "IPv$fam: MRC_TCLASS: the DSCP of each end on every packet, ECN kept" tclass
done

mrc_finish
