#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The MRC for Linux demo, run inside a test VM by 'make demo'.

top=$(cd "$(dirname "$0")/../.." && pwd)
hold="$top/build/selftests/mrc_sock_hold"

echo "== kernel $(uname -r)"
rmmod mrc 2>/dev/null
echo "== socket(AF_MRC, SOCK_SEQPACKET, 0) loads mrc.ko on demand"
mkfifo /tmp/hold
"$hold" < /tmp/hold > /tmp/out &
exec 5> /tmp/hold
until grep -q ready /tmp/out; do sleep 0.1; done
lsmod | grep '^mrc '
dmesg | grep 'mrc:'
echo "== the socket in /proc/net/mrc"
cat /proc/net/mrc
echo "== the mrc generic netlink family"
genl ctrl get name mrc
exec 5>&-
wait
