#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The base round trip an operator gives a plane ("mrcctl plane set ...
# base-rtt USEC").  A connection's delay control takes the queue for the
# round trip less its base, the smallest round trip it measured; one that
# began behind a standing queue never saw the path empty and took the
# queue for the path.  A base given to the plane caps the measured one.
#
# Two hosts, two planes, every packet of A delayed 10 ms on both (netem,
# the standing queue as the connection sees it), IPv4 then IPv6.  Plane 1
# is given a base of 1 ms, plane 2 none.  During a transfer from A:
#
# - "mrcctl conn show" gives plane 1 a base of 1 ms at most, plane 2 one
#   of 10 ms or more: the cap, and the measure where there is none;
# - plane 1 sees 9 ms of queue, far past the target (2 ms): its window
#   falls to a quarter of the first or less, below plane 2's, which sees
#   none;
# - a connection made after the base is taken away (base-rtt 0) measures
#   its own on plane 1 too; given the base again, it takes it at once:
#   connections read the plane's at every round trip.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_xfer
mrc_need_cmd tc jq
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"
mrc_need_mod sch_netem

mrc_plan 8

suffix=$(printf '%04x' $RANDOM)
A=mrcbr-$suffix-a
B=mrcbr-$suffix-b
PORT=7400
XFER=$MRC_BIN/mrc_xfer
DELAY_MS=10
BASE_US=1000
tmp=$(mktemp -d)
init_cwnd=$(cat /proc/sys/net/mrc/init_cwnd) || exit "$KSFT_FAIL"

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# setup FAMILY: A and B on planes 1 and 2, A's packets delayed on both,
# plane 1 given a base of BASE_US.
setup()
{
	local k

	mrc_kill_jobs
	mrc_cleanup
	mrc_ns_add "$A" "$B" &&
		mrc_link_hosts "$A" "$B" "$1" 1 2 &&
		mrc_add_planes "$A" "$B" "$1" 1 2 || return 1
	for k in 1 2; do
		tc -n "$A" qdisc add dev "veth$k" root netem \
			delay "${DELAY_MS}ms" limit 100000 || return 1
	done
	"$MRCCTL" -n "$A" plane set id 1 base-rtt "$BASE_US"
}

# transfer FAMILY: a long transfer from A, its pid in $cli, until both
# planes have a window's worth of round trips behind them.
transfer()
{
	PORT=$((PORT + 1))
	mrc_xfer_server "$B" "$PORT" "$tmp" || return 1
	ip netns exec "$A" "$XFER" -c "$(mrc_addr "$1" 1 2)" -p "$PORT" -s 1G \
		-T 60 > "$tmp/c.out" 2> "$tmp/c.err" &
	cli=$!
	sleep 3
	kill -0 "$cli" 2> /dev/null ||
		mrc_fail "the transfer ended: $(cat "$tmp/c.err")"
}

# plane_field K FIELD: FIELD of plane K of A's connection.
plane_field()
{
	"$MRCCTL" -n "$A" -j conn show |
		jq -r --argjson k "$1" --arg f "$2" \
			'.[0].planes[] | select(.id == $k) | .[$f]'
}

stop()
{
	kill "$cli" "$srv" 2> /dev/null
	wait "$cli" "$srv" 2> /dev/null
}

capped()
{
	local b1 b2

	b1=$(plane_field 1 base_rtt_us)
	b2=$(plane_field 2 base_rtt_us)
	mrc_info "base RTT: plane 1 ${b1:-?} us, plane 2 ${b2:-?} us"
	[ "${b1:-0}" -gt 0 ] && [ "$b1" -le "$BASE_US" ] ||
		mrc_fail "plane 1's base is not capped at $BASE_US us" || return 1
	[ "${b2:-0}" -ge $((DELAY_MS * 1000)) ] ||
		mrc_fail "plane 2's base is below the delay"
}

# cut: plane 1's window is a quarter of the first window or less, and
# below plane 2's; sets c1, c2.  (A slow host's own delays count as queue
# on plane 2 too, and may keep its window from growing: a debug kernel's
# stayed near the first.)
cut()
{
	c1=$(plane_field 1 cwnd)
	c2=$(plane_field 2 cwnd)
	[ -n "$c1" ] && [ -n "$c2" ] && [ $((c1 * 4)) -le "$init_cwnd" ] &&
		[ "$c1" -lt "$c2" ]
}

# Polled: a loss on plane 2 may cut its window for a moment.
windows()
{
	local c1 c2 rc=0

	mrc_wait_for 10 cut || rc=1
	mrc_info "windows: plane 1 ${c1:-?}, plane 2 ${c2:-?}, the first $init_cwnd"
	stop
	[ "$rc" = 0 ] ||
		mrc_fail "plane 1's window is not below a quarter of the first and plane 2's"
}

# base_at_most US: plane 1's base is US or less; sets b1.
base_at_most()
{
	b1=$(plane_field 1 base_rtt_us)
	[ -n "$b1" ] && [ "$b1" -le "$1" ]
}

# A connection made after the plane's base was taken away measures its
# own; given the base again, the live connection takes it.
uncapped()
{
	local b1 rc=0

	"$MRCCTL" -n "$A" plane set id 1 base-rtt 0 || return 1
	transfer "$1" || return 1
	b1=$(plane_field 1 base_rtt_us)
	mrc_info "base RTT on plane 1 without a base given: ${b1:-?} us"
	[ "${b1:-0}" -ge $((DELAY_MS * 1000)) ] ||
		mrc_fail "plane 1's base is below the delay" || rc=1
	if [ "$rc" = 0 ]; then
		"$MRCCTL" -n "$A" plane set id 1 base-rtt "$BASE_US" &&
			mrc_wait_for 5 base_at_most "$BASE_US" ||
			mrc_fail "the live connection kept a base of ${b1:-?} us" ||
			rc=1
	fi
	stop
	return "$rc"
}

for fam in 4 6; do
	name=IPv$fam
	if ! setup "$fam"; then
		mrc_fail "cannot build the topology"
		for _ in 1 2 3 4; do
			mrc_result "$KSFT_FAIL" "$name: setup"
		done
		continue
	fi
	mrc_check "$name: a transfer over two planes delayed ${DELAY_MS} ms, plane 1 given a base of $BASE_US us" \
		transfer "$fam"
	mrc_check "$name: plane 1's base is capped at $BASE_US us, plane 2's is measured" \
		capped
	mrc_check "$name: plane 1 sees the delay as queue: its window falls below a quarter of the first, and plane 2's" \
		windows
	mrc_check "$name: with the base taken away, a new connection measures its own; given again, takes it" \
		uncapped "$fam"
done
mrc_finish
