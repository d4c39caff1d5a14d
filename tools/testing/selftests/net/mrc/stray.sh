#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packets for nothing: a SYN for a port where nobody listens, and DATA for
# a connection that does not exist, are answered by an RST, over IPv4 and
# IPv6; a flood of them is answered by at most 1000 RSTs a second, so that
# forged packets cannot turn a host into a reflector, and at most 100 a
# second to one source, so that one host's flood leaves RSTs for others.
#
# Host B has MRC planes; host A has none, and plays the peer with a plain
# UDP socket on the MRC port, built by python3.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_cmd python3
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"

mrc_plan 6

# The module's default encapsulation port (MRC_DEFAULT_UDP_PORT).
UDP_PORT=4793
# The limit, and the SYNs of the flood.
RST_PER_SEC=1000
RST_PER_SOURCE=100
FLOOD=5000

suffix=$(printf '%04x' $RANDOM)
A=mrcs-$suffix-a
B=mrcs-$suffix-b
tmp=$(mktemp -d)

cleanup()
{
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# The peer: sends COUNT packets of KIND (syn or data) from the MRC port to
# PEER's, then (given a second local address) one more from that address,
# collects what comes back for a second and prints
# "sent N in SECONDS s, rst R, second R2".
cat > "$tmp/peer.py" << 'EOF'
import socket
import struct
import sys
import time

peer, port, kind, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
second = sys.argv[5] if len(sys.argv) > 5 else None
family = socket.AF_INET6 if ":" in peer else socket.AF_INET
s = socket.socket(family, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", port))
s.setblocking(False)
s2 = None
if second:
    s2 = socket.socket(family, socket.SOCK_DGRAM)
    s2.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s2.bind((second, port))
    s2.setblocking(False)

def packet(i):
    if kind == "syn":
        # Version 1, SYN, to connection 0 from connection i + 1; the SYN
        # body asks for port 9, where nobody listens, and names no plane.
        hdr = struct.pack("!BBHIIIIII", 0x11, 0, 50000, 0, i + 1, 0, 0, 0, 0)
        return hdr + struct.pack("!HHIHBB", 40000, 9, 64, 1400, 0, 0)
    # DATA for connection i + 1, which nobody has.
    hdr = struct.pack("!BBHIIIIII", 0x13, 0, 50000, i + 1, 77, 0, 0, 0, 0)
    return hdr + b"x" * 64

rst = 0
rst2 = 0
def drain():
    global rst, rst2
    for sock in (s, s2):
        while sock:
            try:
                data = sock.recv(2048)
            except BlockingIOError:
                break
            if data and data[0] == 0x16:
                if sock is s:
                    rst += 1
                else:
                    rst2 += 1

t0 = time.monotonic()
for i in range(count):
    s.sendto(packet(i), (peer, port))
    drain()
t1 = time.monotonic()
if s2:
    s2.sendto(packet(count), (peer, port))
while time.monotonic() < t1 + 1.0:
    drain()
    time.sleep(0.01)
print("sent %d in %.3f s, rst %d, second %d" % (count, t1 - t0, rst, rst2))
EOF

setup()
{
	mrc_ns_add "$A" "$B" && mrc_link_hosts "$A" "$B" 4 1 1 &&
		mrc_link_hosts "$A" "$B" 6 2 2 || return 1
	ip -n "$A" addr add 10.0.1.3/24 dev veth1 || return 1
	"$MRCCTL" -n "$B" plane add dev veth1 id 1 addr 10.0.1.2 &&
		"$MRCCTL" -n "$B" plane add dev veth2 id 2 addr fd00:2::2 &&
		mrc_wait_for 10 mrc_planes_up "$B" 2
}

# peer PEER KIND COUNT: run the peer from A; its line in $out, the RSTs in
# $rst, the seconds it took to send in $secs.
peer()
{
	out=$(ip netns exec "$A" python3 "$tmp/peer.py" "$1" "$UDP_PORT" \
		"$2" "$3" $4 2>&1) || mrc_fail "the peer failed: $out" || return 1
	mrc_info "$out"
	read -r _ _ _ secs _ _ rst _ rst2 <<< "$out"
	rst=${rst%,}
	[ -n "$rst" ] || mrc_fail "no count from the peer" || return 1
	# A new second of the limit for the next case.
	sleep 1.1
}

one_rst()
{
	peer "$1" "$2" 1 || return 1
	[ "$rst" = 1 ] || mrc_fail "one $2 packet, $rst RSTs"
}

# A flood from one source leaves the RSTs of another source alone: one SYN
# from a second address of A, sent as the flood ends, is answered too.
flood_source()
{
	local most

	peer 10.0.1.2 syn "$FLOOD" 10.0.1.3 || return 1
	# As for the flood: a quota for each second of sending and the one
	# it ended in (a slow kernel takes seconds to take 5000 SYNs).
	most=$(awk -v s="$secs" -v r="$RST_PER_SOURCE" \
		'BEGIN { print (int(s) + 2) * r }')
	[ "$rst" -le "$most" ] ||
		mrc_fail "$rst RSTs to one source in $secs s, more than $RST_PER_SOURCE a second" ||
		return 1
	[ "$rst2" = 1 ] || mrc_fail "the second source got $rst2 RSTs, not 1"
}

flood()
{
	local most

	peer 10.0.1.2 syn "$FLOOD" || return 1
	# Each second of sending, and the one it ended in, may hold a full
	# quota.
	most=$(awk -v s="$secs" -v r="$RST_PER_SEC" \
		'BEGIN { print (int(s) + 2) * r }')
	[ "$rst" -ge 1 ] || mrc_fail "no RST at all" || return 1
	[ "$rst" -lt "$FLOOD" ] || mrc_fail "an RST for every SYN" || return 1
	[ "$rst" -le "$most" ] ||
		mrc_fail "$rst RSTs in $secs s, more than $most"
}

if ! setup; then
	mrc_fail "cannot build the topology"
fi
mrc_check "IPv4: a SYN for a port without a listener gets an RST" \
	one_rst 10.0.1.2 syn
mrc_check "IPv6: a SYN for a port without a listener gets an RST" \
	one_rst fd00:2::2 syn
mrc_check "IPv4: DATA for no connection gets an RST" one_rst 10.0.1.2 data
mrc_check "IPv6: DATA for no connection gets an RST" one_rst fd00:2::2 data
mrc_check "$FLOOD SYNs get at most $RST_PER_SEC RSTs a second" flood
mrc_check "a flood from one source leaves RSTs for another" flood_source

mrc_finish
