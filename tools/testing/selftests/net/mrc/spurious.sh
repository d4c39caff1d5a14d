#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Losses that were not: packets held past the reorder window are taken for
# lost and resent, then arrive.  The receiver flags the acknowledgment of
# each duplicate (ECHO_DUP), the sender counts the losses so proved
# (SpuriousLosses), and once every loss of an episode is proved, it gives
# back the windows the episode cut (LossUndos, tracepoint mrc_cwnd_undo,
# the window larger after than before).  Real losses are not taken for
# spurious ones.  A 4 MiB stream from A to B over four planes, netem on
# A's side only (DATA delayed or dropped, acknowledgments untouched):
#
# - half the packets 10 ms late, on every plane: at least 16 losses proved
#   spurious and an undo that grew a window;
# - 10% of the packets dropped, on every plane: fewer losses proved
#   spurious than half of those found (a duplicate needs a loss that was
#   not one; the guest may still hold a few packets back now and then),
#   and no undo.
#
# Every stream arrives whole (the same SHA-256 at both ends).  IPv4 and
# IPv6.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_xfer
mrc_need_cmd tc
XFER=$MRC_BIN/mrc_xfer
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"
mrc_need_mod sch_netem

mrc_need_tracefs

mrc_plan 4

SIZE=4M
suffix=$(printf '%04x' $RANDOM)
tmp=$(mktemp -d)
trace=$TRACEFS/instances/mrc-spurious-$suffix
port=7100

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	[ -d "$trace" ] && rmdir "$trace"
	rm -rf "$tmp"
}
trap cleanup EXIT

mrc_trace_instance "$trace" || exit "$KSFT_FAIL"
echo 1 > "$trace/events/mrc/mrc_cwnd_undo/enable" || exit "$KSFT_FAIL"

# Hosts $A and $B joined by veth1..veth4, plane K on vethK.
setup_family()
{
	fam=$1
	A=mrcs-$suffix-a$fam
	B=mrcs-$suffix-b$fam
	name=IPv$fam
	mrc_ns_add "$A" "$B" && mrc_link_hosts "$A" "$B" "$fam" 1 4 &&
		mrc_add_planes "$A" "$B" "$fam" 1 4
}

# netem_a [NETEM-ARG...]: netem with these arguments on A's end of every
# plane, or none without arguments.
netem_a()
{
	local k cmd

	for k in 1 2 3 4; do
		if [ "$#" = 0 ]; then
			cmd="qdisc del dev veth$k root"
		else
			cmd="qdisc replace dev veth$k root netem $*"
		fi
		echo "$cmd"
	done | tc -n "$A" -batch -
}

# counters: the sender's loss counters, "GAP TIMEOUT ELSEWHERE SPURIOUS
# UNDOS".
counters()
{
	local c

	for c in LossGap LossTimeout LossElsewhere SpuriousLosses LossUndos; do
		mrc_counter "$A" "$c"
	done | xargs
}

# stream: 4 MiB from A to B, checked end to end.
stream()
{
	local srv rc src c s

	port=$((port + 1))
	rm -f "$tmp/s.out"
	ip netns exec "$B" "$XFER" -l -p "$port" > "$tmp/s.out" \
		2> "$tmp/s.err" &
	srv=$!
	mrc_wait_for 30 mrc_server_ready "$tmp/s.out" "$srv"
	mrc_said_ready "$tmp/s.out" ||
		mrc_fail "server did not start: $(cat "$tmp/s.err")" || return 1
	ip netns exec "$A" "$XFER" -c "$(mrc_addr "$fam" 1 2)" -p "$port" \
		-s "$SIZE" > "$tmp/c.out" 2> "$tmp/c.err"
	rc=$?
	[ "$rc" = 0 ] || kill "$srv" 2> /dev/null
	wait "$srv"
	src=$?
	if [ "$rc" != 0 ] || [ "$src" != 0 ]; then
		mrc_fail "client exited $rc, server $src:"
		mrc_show "$tmp/c.err"
		mrc_show "$tmp/s.err"
		return 1
	fi
	c=$(awk '$1 == "conn" && $3 == "bytes" { print $4, $NF; exit }' "$tmp/c.out")
	s=$(awk '$1 == "conn" && $3 == "bytes" { print $4, $NF; exit }' "$tmp/s.out")
	mrc_expect "received (bytes, sha256)" "$s" "$c"
}

# impaired NETEM-ARG...: a stream under this netem; the counters' moves
# in gap, timeout, elsewhere, spurious and undos.
impaired()
{
	local before after rc=0

	read -ra before <<< "$(counters)"
	netem_a "$@" || return 1
	stream || rc=1
	netem_a || rc=1
	read -ra after <<< "$(counters)"
	gap=$((after[0] - before[0]))
	timeout=$((after[1] - before[1]))
	elsewhere=$((after[2] - before[2]))
	spurious=$((after[3] - before[3]))
	undos=$((after[4] - before[4]))
	mrc_info "netem $*: lost by gap $gap, timeout $timeout, elsewhere $elsewhere; proved spurious $spurious; undos $undos"
	return "$rc"
}

# held: half the packets 10 ms late; losses proved and cuts undone.
held()
{
	local line before after rc=0

	: > "$trace/trace"
	impaired delay 10ms reorder 50% 50% || rc=1
	[ "$spurious" -ge 16 ] ||
		mrc_fail "$spurious losses proved spurious, expected 16 or more" ||
		rc=1
	[ "$undos" -ge 1 ] || mrc_fail "no undo" || rc=1
	# An undo at the window's floor may have nothing to give back: one
	# that does is enough.
	while read -r line; do
		[[ "$line" =~ cwnd=([0-9]+)-\>([0-9]+) ]] || continue
		before=${BASH_REMATCH[1]}
		after=${BASH_REMATCH[2]}
		[ "$after" -gt "$before" ] && break
		line=
	done < <(grep -o 'mrc_cwnd_undo: .*' "$trace/trace")
	mrc_info "an undo: ${line:-none that grew a window}"
	[ -n "$line" ] || mrc_fail "no mrc_cwnd_undo grew a window" || rc=1
	return "$rc"
}

# dropped: 10% of the packets dropped; few losses taken for spurious.
dropped()
{
	local rc=0 lost

	impaired loss 10% || rc=1
	lost=$((gap + timeout + elsewhere))
	[ "$lost" -ge 50 ] || mrc_fail "only $lost losses found" || rc=1
	[ $((2 * spurious)) -lt "$lost" ] ||
		mrc_fail "$spurious of $lost losses taken for spurious" || rc=1
	[ "$undos" = 0 ] || mrc_fail "$undos undos of real losses" || rc=1
	return "$rc"
}

family()
{
	setup_family "$1" || mrc_fail "cannot build the $1 topology"
	mrc_check "$name, half the packets held 10 ms: losses proved spurious, windows given back" held
	mrc_check "$name, 10% of the packets dropped: losses not taken for spurious" dropped
	mrc_cleanup
}

family 4
family 6

mrc_finish
