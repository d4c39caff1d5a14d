#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The MRC for Linux demo, run inside a test VM by 'make demo': the module
# loads on demand, two hosts (network namespaces) joined by two planes
# (veth pairs) are configured with mrcctl, and the planes follow their
# devices while 'mrcctl monitor' reports each change; then one connection
# moves data over four planes, IPv4 and IPv6 alike, and another survives
# the loss of the plane it was dialled on.

top=$(cd "$(dirname "$0")/../.." && pwd)
hold="$top/build/selftests/mrc_sock_hold"
xfer="$top/build/selftests/mrc_xfer"
mrcctl="$top/tools/mrcctl/mrcctl"

step()
{
	echo
	echo "== $*"
}

step "kernel $(uname -r): socket(AF_MRC, SOCK_SEQPACKET, 0) loads mrc.ko"
rmmod mrc 2>/dev/null
echo | "$hold" > /dev/null
lsmod | grep '^mrc '
dmesg | grep 'mrc:' | tail -n 1
genl ctrl get name mrc | grep -m 1 "Name:"

step "two hosts, a and b, joined by planes 0 (IPv4) and 1 (IPv6)"
ip netns add a
ip netns add b
for i in 0 1; do
	ip link add "p$i" netns a type veth peer name "p$i" netns b
done
ip -n a addr add 10.0.0.1/24 dev p0
ip -n b addr add 10.0.0.2/24 dev p0
ip -n a addr add fd00:1::1/64 dev p1 nodad
ip -n b addr add fd00:1::2/64 dev p1 nodad
for ns in a b; do
	ip -n "$ns" link set p0 up
	ip -n "$ns" link set p1 up
done

"$mrcctl" -n a monitor > /tmp/events &
monitor=$!
sleep 0.5
for ns in a b; do
	echo "\$ mrcctl -n $ns plane add dev p0 id 0"
	"$mrcctl" -n "$ns" plane add dev p0 id 0
	echo "\$ mrcctl -n $ns plane add dev p1 id 1 evs 64"
	"$mrcctl" -n "$ns" plane add dev p1 id 1 evs 64
done
echo "\$ mrcctl -n a plane show"
"$mrcctl" -n a plane show
echo "\$ mrcctl -n a config show"
"$mrcctl" -n a config show

step "host b takes plane 1 down: host a's plane 1 loses its carrier"
ip -n b link set p1 down
sleep 0.5
"$mrcctl" -n a plane show
ip -n b link set p1 up
# Taking a device down removes its IPv6 addresses: give it back.
ip -n b addr add fd00:1::2/64 dev p1 nodad

step "an operator refusal, with the kernel's reason"
echo "\$ mrcctl -n a plane add dev lo"
"$mrcctl" -n a plane add dev lo
echo "(exit status $?)"

step "mrcctl -j -n a plane show id 0"
"$mrcctl" -j -n a plane show id 0

step "the events host a saw (mrcctl monitor)"
sleep 0.5
kill "$monitor"
wait "$monitor" 2>/dev/null
cat /tmp/events

step "two more planes (2: IPv4, 3: IPv6), and one connection over all four"
ip link add p2 netns a type veth peer name p2 netns b
ip link add p3 netns a type veth peer name p3 netns b
ip -n a addr add 10.0.2.1/24 dev p2
ip -n b addr add 10.0.2.2/24 dev p2
ip -n a addr add fd00:3::1/64 dev p3 nodad
ip -n b addr add fd00:3::2/64 dev p3 nodad
for ns in a b; do
	ip -n "$ns" link set p2 up
	ip -n "$ns" link set p3 up
	"$mrcctl" -n "$ns" plane add dev p2 id 2
	"$mrcctl" -n "$ns" plane add dev p3 id 3
done
declare -A before
for i in 0 1 2 3; do
	before[$i]=$(ip netns exec a cat /sys/class/net/p$i/statistics/tx_bytes)
done
echo "\$ mrc_xfer -l -p 7000                      # on b"
ip netns exec b "$xfer" -l -p 7000 > /tmp/server &
server=$!
sleep 1
echo "\$ mrc_xfer -c 10.0.0.2 -p 7000 -s 32M      # on a: dial plane 0"
ip netns exec a "$xfer" -c 10.0.0.2 -p 7000 -s 32M
wait "$server"
echo "b received:"
grep conn /tmp/server
echo "bytes host a sent on each plane (device counters):"
for i in 0 1 2 3; do
	now=$(ip netns exec a cat /sys/class/net/p$i/statistics/tx_bytes)
	awk -v i="$i" -v b="$((now - ${before[$i]}))" \
		'BEGIN { printf "  plane %d (p%d): %6.1f MiB\n", i, i, b / 1048576 }'
done

step "the same connection state, as mrcctl shows it (another transfer, a's planes paced at 16 Mbit/s each)"
# Paced, so that the transfer is still there to show and to fail over.
for i in 0 1 2 3; do
	tc -n a qdisc add dev p$i root tbf rate 16mbit burst 32kb latency 200ms
done
ip netns exec b "$xfer" -l -g -p 7001 > /tmp/server &
server=$!
sleep 1
ip netns exec a "$xfer" -c 10.0.0.2 -p 7001 -s 64M > /dev/null &
client=$!
for i in $(seq 1 50); do
	"$mrcctl" -n a conn show | grep -q . && break
	sleep 0.2
done
sleep 1
echo "\$ mrcctl -n a -s conn show"
"$mrcctl" -n a -s conn show

step "plane 0, the one the connection was dialled on, goes down midway"
sleep 1
echo "\$ ip -n a link set p0 down"
ip -n a link set p0 down
wait "$client"
echo "client exit status $?"
wait "$server"
echo "b received (stall_ms: the longest gap in delivered data):"
grep conn /tmp/server

ip netns del a
ip netns del b
