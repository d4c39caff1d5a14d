#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A plane that turns into a black hole under sparse traffic.  Two hosts
# joined by two planes, IPv4 then IPv6; a ping-pong of 64-byte messages
# every 20 ms (python3 under mrcize, against a socat echo server), the
# messages of a few EVs at a time.  Plane 2 starts dropping everything,
# both ways (netem loss 100%), while the peer answers on plane 1:
#
# - the whole plane is left at its first timeout: every EV of plane 2
#   retires within 2 s (one timeout per EV, each twice the last, took tens
#   of seconds), and the messages in flight on it are resent on plane 1;
# - the ping-pong goes on, every message echoed, none waiting a second
#   and a half.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_mrcize
mrc_need_cmd python3 socat tc jq
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"
mrc_need_mod sch_netem

mrc_plan 6

suffix=$(printf '%04x' $RANDOM)
A=mrcsp-$suffix-a
B=mrcsp-$suffix-b
PORT=7300
tmp=$(mktemp -d)

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

cat > "$tmp/pingpong.py" << 'EOF'
# pingpong.py HOST PORT SECONDS: 64-byte messages every 20 ms, each waited
# for; "started" after 25, "marked" when the file MARK appears (its time
# is the failure's), then at the end "echoed N" and "longest_ms_after T",
# the longest wait for an echo since the mark.
import os
import socket
import sys
import time

host, port, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
mark = sys.argv[4]
s = socket.create_connection((host, port), timeout=30)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
n, longest, marked, end = 0, 0.0, None, None
while end is None or time.monotonic() < end:
    msg = n.to_bytes(8, "big") * 8
    start = time.monotonic()
    s.sendall(msg)
    got = b""
    while len(got) < len(msg):
        chunk = s.recv(len(msg) - len(got))
        if not chunk:
            sys.exit("the echo server went away")
        got += chunk
    if got != msg:
        sys.exit("message %d came back wrong" % n)
    wait = time.monotonic() - start
    n += 1
    if n == 25:
        print("started", flush=True)
    if marked is None and os.path.exists(mark):
        marked = time.monotonic()
        end = marked + seconds
        print("marked", flush=True)
    elif marked is not None:
        longest = max(longest, wait)
    time.sleep(0.02)
print("echoed", n)
print("longest_ms_after", int(longest * 1000))
EOF

# evs_active NS ID: EVs of plane ID in use on NS's connection.
evs_active()
{
	"$MRCCTL" -n "$1" -j conn show |
		jq --argjson id "$2" '[.[0].planes[] | select(.id == $id) | .evs_active][0]'
}

plane2_retired()
{
	[ "$(evs_active "$A" 2)" = 0 ]
}

run()
{
	local fam=$1 addr listen srv cli t0 evs

	mrc_kill_jobs
	mrc_cleanup
	rm -f "$tmp/mark" "$tmp/out"
	mrc_ns_add "$A" "$B" &&
		mrc_link_hosts "$A" "$B" "$fam" 1 2 &&
		mrc_add_planes "$A" "$B" "$fam" 1 2 || return 1
	addr=$(mrc_addr "$fam" 1 2)
	listen=TCP4-LISTEN
	[ "$fam" = 4 ] || listen=TCP6-LISTEN
	ip netns exec "$B" "$MRCIZE" run socat "$listen:$PORT,reuseaddr" EXEC:cat \
		2> "$tmp/srv.err" &
	srv=$!
	mrc_wait_for 20 eval "\"$MRCCTL\" -n $B sock show | grep -q ':$PORT '" ||
		mrc_fail "the echo server did not listen: $(cat "$tmp/srv.err")" ||
		return 1
	rm -f "$tmp/out" "$tmp/out.err"
	ip netns exec "$A" "$MRCIZE" run python3 "$tmp/pingpong.py" "$addr" \
		"$PORT" 4 "$tmp/mark" > "$tmp/out" 2> "$tmp/out.err" &
	cli=$!
	mrc_wait_said "$tmp/out" started "$cli" || return 1
	evs=$(evs_active "$A" 2)
	mrc_info "plane 2 has $evs EVs in use; black-holing it"
	for ns in "$A" "$B"; do
		tc -n "$ns" qdisc add dev veth2 root netem loss 100% || return 1
	done
	t0=$SECONDS
	touch "$tmp/mark"
	mrc_wait_for 2 plane2_retired
	retired_after=$((SECONDS - t0))
	retired_left=$(evs_active "$A" 2)
	wait "$cli"
	client_rc=$?
	kill "$srv" 2> /dev/null
	return 0
}

all_retired()
{
	mrc_info "EVs of plane 2 still in use: $retired_left (after ${retired_after} s)"
	mrc_expect "EVs of plane 2 in use 2 s after it went silent" "$retired_left" 0
}

echoes_go_on()
{
	local longest

	[ "$client_rc" = 0 ] || mrc_fail "the ping-pong failed: $(cat "$tmp/out.err")" ||
		return 1
	longest=$(awk '$1 == "longest_ms_after" { print $2 }' "$tmp/out")
	mrc_info "$(tr '\n' ' ' < "$tmp/out")"
	[ -n "$longest" ] && [ "$longest" -lt 1500 ] ||
		mrc_fail "an echo waited ${longest:-?} ms"
}

for fam in 4 6; do
	name=IPv$fam
	mrc_check "$name: ping-pong over 2 planes, plane 2 black-holed midway" run "$fam"
	mrc_check "$name: every EV of the silent plane retired within 2 s" all_retired
	mrc_check "$name: the ping-pong goes on, no echo waits 1.5 s" echoes_go_on
done
mrc_finish
