#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per network namespace state: every namespace gets its own /proc/net/mrc,
# sockets are seen only in their own namespace, and creating and deleting
# many namespaces (some with sockets open when they are deleted) leaves
# nothing behind.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root
mrc_plan 5

readonly COUNT=64
suffix=$(printf '%04x' $RANDOM)

proto_sockets()
{
	ip netns exec "$1" awk '$1 == "MRC" { print $3 }' /proc/net/protocols
}

proc_sockets()
{
	ip netns exec "$1" awk 'NR > 1' /proc/net/mrc | wc -l
}

create_many()
{
	local i

	for i in $(seq 1 $COUNT); do
		mrc_ns_add "mrc-$suffix-$i" || return 1
	done
	for i in $(seq 1 $COUNT); do
		ip netns exec "mrc-$suffix-$i" test -r /proc/net/mrc ||
			mrc_fail "no /proc/net/mrc in namespace $i" || return 1
	done
}

# A socket held open in namespace 1 is visible there and nowhere else.
isolation()
{
	local dir rc=0

	dir=$(mktemp -d)
	mkfifo "$dir/hold"
	ip netns exec "mrc-$suffix-1" "$MRC_BIN/mrc_sock_hold" < "$dir/hold" > "$dir/out" &
	exec 5> "$dir/hold"
	mrc_wait_for 10 grep -q ready "$dir/out" || rc=1

	[ "$(proc_sockets "mrc-$suffix-1")" = 1 ] || mrc_fail "not listed in its namespace" || rc=1
	[ "$(proc_sockets "mrc-$suffix-2")" = 0 ] || mrc_fail "listed in another namespace" || rc=1
	[ "$(proto_sockets "mrc-$suffix-1")" = 1 ] || mrc_fail "protocols count in its namespace" || rc=1
	[ "$(proto_sockets "mrc-$suffix-2")" = 0 ] || mrc_fail "protocols count elsewhere" || rc=1

	exec 5>&-
	wait
	rm -rf "$dir"
	return $rc
}

# Namespaces deleted while their sockets are still open go away once the
# sockets close.
delete_with_sockets()
{
	local dir i rc=0

	dir=$(mktemp -d)
	mkfifo "$dir/hold"
	for i in $(seq 1 8); do
		ip netns exec "mrc-$suffix-$i" "$MRC_BIN/mrc_sock_hold" < "$dir/hold" > "$dir/out.$i" &
	done
	exec 5> "$dir/hold"
	for i in $(seq 1 8); do
		mrc_wait_for 10 grep -q ready "$dir/out.$i" || rc=1
	done
	mrc_cleanup
	exec 5>&-
	wait
	rm -rf "$dir"
	return $rc
}

# Every MRC socket holds a reference on the module until it is freed, so a
# count of 0 means that none is left allocated.
no_sockets_left()
{
	mrc_wait_for 10 test "$(cat /sys/module/mrc/refcnt)" = 0 ||
		mrc_fail "$(cat /sys/module/mrc/refcnt) references left on mrc.ko"
}

# A namespace that lives across rmmod and modprobe loses and regains its
# /proc/net/mrc: the per-namespace exit and init ran for it.
unload_reload()
{
	local ns="mrc-$suffix-keep"

	mrc_ns_add "$ns" || return 1
	rmmod mrc || return 1
	ip netns exec "$ns" test ! -e /proc/net/mrc ||
		mrc_fail "/proc/net/mrc left behind by rmmod" || return 1
	modprobe mrc || return 1
	ip netns exec "$ns" test -r /proc/net/mrc ||
		mrc_fail "/proc/net/mrc missing after modprobe"
}

mrc_check "$COUNT namespaces each get /proc/net/mrc" create_many
mrc_check "a socket is seen only in its own namespace" isolation
mrc_check "namespaces deleted with sockets open" delete_with_sockets
mrc_check "no socket left allocated" no_sockets_left
mrc_check "per-namespace exit and init on rmmod and modprobe" unload_reload

mrc_finish
