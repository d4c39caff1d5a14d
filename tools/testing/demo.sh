#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The MRC for Linux demo, run inside a test VM by 'make demo': the module
# loads on demand, two hosts (network namespaces) joined by two planes
# (veth pairs) are configured with mrcctl, and the planes follow their
# devices while 'mrcctl monitor' reports each change.

top=$(cd "$(dirname "$0")/../.." && pwd)
hold="$top/build/selftests/mrc_sock_hold"
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
ip netns del a
ip netns del b
