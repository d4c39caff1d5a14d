#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Binding AF_MRC sockets: to any plane or to one plane's IPv4 or IPv6
# address, with errors for addresses that are no plane's, and ports that
# are per namespace.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root
mrc_plan 6

suffix=$(printf '%04x' $RANDOM)
a="mrcb-$suffix-a"
b="mrcb-$suffix-b"
hold="$MRC_BIN/mrc_sock_hold"
mrcctl="${MRCCTL:-$(cd "$MRC_DIR" && pwd -P)/../../../../mrcctl/mrcctl}"
dir=$(mktemp -d)

setup()
{
	mrc_ns_add "$a" "$b" || return 1
	ip -n "$a" link add veth0 type veth peer name veth1 netns "$b" || return 1
	ip -n "$a" addr add 10.9.0.1/24 dev veth0 || return 1
	ip -n "$a" addr add 10.9.1.1/24 dev veth0 || return 1
	ip -n "$a" link set veth0 up || return 1
	"$mrcctl" -n "$a" plane add dev veth0 addr 10.9.0.1 || return 1
	# One plane per device: the IPv6 plane needs a device of its own.
	ip -n "$a" link add veth2 type veth peer name veth3 netns "$b" || return 1
	ip -n "$a" addr add fd00:9::2/64 dev veth2 nodad || return 1
	ip -n "$a" link set veth2 up || return 1
	"$mrcctl" -n "$a" plane add dev veth2 addr fd00:9::2
}

# bind_in NS ARGS...: bind a socket with mrc_sock_hold; print its output.
bind_in()
{
	local ns=$1

	shift
	echo | ip netns exec "$ns" "$hold" seqpacket bind "$@" 2>&1
}

bind_plane_addresses()
{
	local out

	out=$(bind_in "$a" 10.9.0.1 7001) || mrc_fail "IPv4 plane: $out" || return 1
	[ "$out" = "ready 7001" ] || mrc_fail "IPv4 plane: $out" || return 1
	out=$(bind_in "$a" fd00:9::2 7002) || mrc_fail "IPv6 plane: $out" || return 1
	[ "$out" = "ready 7002" ] || mrc_fail "IPv6 plane: $out"
}

bind_not_a_plane()
{
	local out

	# On the device, but not the plane's address.
	out=$(bind_in "$a" 10.9.1.1 7003) && mrc_fail "bound to 10.9.1.1" && return 1
	[ "$out" = "bind: Cannot assign requested address" ] ||
		mrc_fail "10.9.1.1: $out" || return 1
	out=$(bind_in "$a" fd00:9::99 7003) && mrc_fail "bound to fd00:9::99" && return 1
	[ "$out" = "bind: Cannot assign requested address" ] ||
		mrc_fail "fd00:9::99: $out"
}

bind_any_ephemeral()
{
	local out port

	out=$(bind_in "$a" any 0) || mrc_fail "$out" || return 1
	port=${out#ready }
	[ "$port" -ge 32768 ] && [ "$port" -le 60999 ] || mrc_fail "port $port"
}

port_in_use()
{
	local out rc=0

	mkfifo "$dir/hold"
	ip netns exec "$a" "$hold" stream bind any 7010 < "$dir/hold" > "$dir/out" &
	exec 5> "$dir/hold"
	mrc_wait_for 10 grep -q "ready 7010" "$dir/out" || rc=1
	out=$(bind_in "$a" 10.9.0.1 7010) && rc=1
	[ "$out" = "bind: Address already in use" ] || mrc_fail "second bind: $out" || rc=1
	# Ports are per namespace.
	out=$(bind_in "$b" any 7010) || rc=1
	[ "$out" = "ready 7010" ] || mrc_fail "other namespace: $out" || rc=1
	exec 5>&-
	wait
	# Free again once the holder has closed.
	out=$(bind_in "$a" any 7010)
	[ "$out" = "ready 7010" ] || mrc_fail "after close: $out" || rc=1
	return $rc
}

plane_gone()
{
	local out

	"$mrcctl" -n "$a" plane del dev veth0 || return 1
	out=$(bind_in "$a" 10.9.0.1 7020) && mrc_fail "bound to a deleted plane's address"
	[ "$out" = "bind: Cannot assign requested address" ] || mrc_fail "$out"
}

mrc_check "two hosts with IPv4 and IPv6 planes" setup
mrc_check "bind to an IPv4 and an IPv6 plane address" bind_plane_addresses
mrc_check "bind to an address that is no plane's: EADDRNOTAVAIL" bind_not_a_plane
mrc_check "bind to any plane, ephemeral port" bind_any_ephemeral
mrc_check "a bound port is in use in its namespace only" port_in_use
mrc_check "a deleted plane's address cannot be bound" plane_gone

rm -rf "$dir"
mrc_finish
