#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Loading and unloading mrc.ko: autoload through the net-pf-25 alias and the
# generic netlink family alias, the family visible to genl, and rmmod
# refused while a socket is open.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root
mrc_plan 8

unload()
{
	if mrc_module_loaded; then
		rmmod mrc || return 1
	fi
	! mrc_module_loaded
}

autoload_socket()
{
	unload || return 1
	echo | "$MRC_BIN/mrc_sock_hold" > /dev/null || return 1
	mrc_module_loaded || mrc_fail "socket(AF_MRC) did not load mrc.ko"
}

modinfo_aliases()
{
	local aliases

	aliases=$(modinfo -F alias mrc) || return 1
	grep -qx net-pf-25 <<< "$aliases" &&
		grep -qx net-pf-16-proto-16-family-mrc <<< "$aliases"
}

genl_family()
{
	genl ctrl list | grep -q '^Name: mrc$'
}

autoload_genl()
{
	unload || return 1
	genl ctrl get name mrc > /dev/null 2>&1
	mrc_module_loaded || mrc_fail "asking for the mrc family did not load mrc.ko"
	genl_family
}

rmmod_busy()
{
	local fifo dir rc=0

	dir=$(mktemp -d)
	fifo="$dir/hold"
	mkfifo "$fifo"
	"$MRC_BIN/mrc_sock_hold" stream < "$fifo" > "$dir/out" &
	exec 5> "$fifo"
	mrc_wait_for 10 grep -q ready "$dir/out" || rc=1

	if [ "$rc" = 0 ] && rmmod mrc 2> "$dir/err"; then
		mrc_fail "rmmod succeeded with a socket open"
		rc=1
	elif [ "$rc" = 0 ]; then
		grep -q 'in use' "$dir/err" || mrc_fail "rmmod: $(cat "$dir/err")" || rc=1
	fi
	mrc_module_loaded || rc=1

	exec 5>&-
	wait
	rm -rf "$dir"
	[ "$rc" = 0 ] || return 1
	rmmod mrc || mrc_fail "rmmod failed once the socket was closed"
}

load_message()
{
	unload || return 1
	modprobe mrc || return 1
	dmesg | tail -n 20 | grep -q 'mrc: Multipath Reliable Connection, address family 25'
}

# Another module holding family 25 makes mrc.ko refuse to load, saying
# why, and unwind cleanly.
family_taken()
{
	local squatter rc=0

	squatter=${MRC_TEST_MODULES:-$MRC_BIN/../$(uname -r)/test-modules}/mrc_pf_squatter.ko
	if [ ! -r "$squatter" ]; then
		mrc_info "no $squatter"
		return "$KSFT_SKIP"
	fi
	unload || return 1
	insmod "$squatter" || return 1
	if modprobe mrc 2>/dev/null; then
		mrc_fail "mrc.ko loaded while family 25 was taken"
		rc=1
	fi
	mrc_module_loaded && rc=1
	dmesg | tail -n 20 | grep -q 'mrc: address family 25 is taken by another module' ||
		mrc_fail "no message in the kernel log" || rc=1
	rmmod mrc_pf_squatter || rc=1
	modprobe mrc || rc=1
	return $rc
}

mrc_check "socket(AF_MRC) autoloads mrc.ko (net-pf-25)" autoload_socket
mrc_check "module carries the net-pf and genl family aliases" modinfo_aliases
mrc_check "generic netlink family mrc is registered" genl_family
mrc_check "asking genl for family mrc autoloads mrc.ko" autoload_genl
mrc_check "rmmod refused while a socket is open, clean after close" rmmod_busy
mrc_check "reload logs the address family" load_message
mrc_check "refuses to load when family 25 is taken, with a message" family_taken
mrc_check "module reference count back to 0" \
	test "$(cat /sys/module/mrc/refcnt)" = 0

mrc_finish
