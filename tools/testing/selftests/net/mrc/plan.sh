#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "mrcctl plan", the arithmetic of a long link, against numbers computed
# by hand:
#
# - 1,000 km, 8 planes of 400 Gbit/s, MTU 9000, IPv6: RTT 10 ms, BDP 500 MB
#   a plane and 4 GB a connection, beyond the largest ring (16384 packets)
#   and any socket buffer;
# - a metro link, 80 km plus 20 us, 4 planes of 100 Gbit/s, MTU 1500, IPv4,
#   also beyond the largest ring;
# - the same link on one plane, whose window larger buffers give a ring
#   for; and the windows at the edges of the rings' sizes;
# - a short link that fits inside today's limits;
# - the text names the short limits and the sysctl lines that lift them;
# - the limits are those of the system: net.core.[rw]mem_max (changed for
#   the test), net.mrc.*, also as read with -n NETNS;
# - units, fractions and keyword prefixes; bad command lines exit 2.
#
# Needs no connection.  The test changes net.core.rmem_max and wmem_max
# and net.mrc.rmem, wmem and mem, and puts them back at its end.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_cmd jq
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"

mrc_plan 14

suffix=$(printf '%04x' $RANDOM)
tmp=$(mktemp -d)
NS=mrcplan-$suffix
rmem_max=$(< /proc/sys/net/core/rmem_max)
wmem_max=$(< /proc/sys/net/core/wmem_max)
mrc_rmem=$(< /proc/sys/net/mrc/rmem)
mrc_wmem=$(< /proc/sys/net/mrc/wmem)
mrc_mem=$(< /proc/sys/net/mrc/mem)

cleanup()
{
	sysctl -qw net.core.rmem_max="$rmem_max" net.core.wmem_max="$wmem_max"
	sysctl -qw net.mrc.rmem="$mrc_rmem" net.mrc.wmem="$mrc_wmem" \
		net.mrc.mem="$mrc_mem"
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# Limits that the cases below take as given.
sysctl -qw net.core.rmem_max=212992 net.core.wmem_max=212992 \
	net.mrc.rmem="4096 4194304 4194304" \
	net.mrc.wmem="4096 4194304 41943040" \
	net.mrc.mem="49152 65536 98304" || exit "$KSFT_FAIL"

# plan_json FILTER ARGS...: run "plan ARGS" with -j and apply the jq FILTER.
plan_json()
{
	local filter=$1 out

	shift
	out=$("$MRCCTL" -j plan "$@") || mrc_fail "'plan $*' failed" || return 1
	jq -c "$filter" <<< "$out"
}

ARITH='[.distance_m, .rate, .planes, .mtu, .family, .rtt_ns, .payload,
	.bdp_plane, .bdp_conn, .packets_plane, .packets_conn,
	.packet_truesize, .buffer]'

# 2 * 1,000,000 m * 5 ns = 10 ms.  400 Gbit/s * 10 ms / 8 = 500,000,000 B
# a plane, 4,000,000,000 B for 8.  Payload 9000 - 40 - 8 - 28 = 8924 B:
# 56,029 and 448,230 packets (rounded up).  A packet in memory: 128 + 40 +
# 8 + 28 + 24 + 8924 + 320 = 9472, to 16384, + 256 + 320 = 16960 B.
long_haul()
{
	local got

	got=$(plan_json "$ARITH" distance 1000km rate 400gbit planes 8 \
		mtu 9000) || return 1
	mrc_expect "1,000 km" "$got" \
		"[1000000,400000000000,8,9000,6,10000000,8924,500000000,4000000000,56029,448230,16960,7601980800]" ||
		return 1
	got=$(plan_json '[.short, .limits.ring_packets, .limits.ring_rate,
			  .limits.buffer_max, .sysctl]' \
		distance 1000km rate 400gbit planes 8 mtu 9000) || return 1
	# 448,230 packets are past the largest ring, 16384 packets, so the
	# buffer is the window's alone, 448,230 * 16960 = 7,601,980,800 B
	# (above).  It is beyond 2 GiB, so 1,073,741,823 doubled is all one
	# can ask for, or 2,147,483,646 as the default, 524,288 pages of
	# net.mrc.mem; that holds 126,620 packets, a ring of 16384, which
	# carries 16384 * 8924 B * 8 / 10 ms = 116,968,652,800 bit/s.
	mrc_expect "1,000 km limits" "$got" \
		'[["ring","buffer","net.core.rmem_max","net.core.wmem_max","net.mrc.rmem","net.mrc.wmem","net.mrc.mem"],16384,116968652800,2147483646,["net.core.rmem_max=1073741823","net.core.wmem_max=1073741823","net.mrc.rmem=\"4096 2147483646 2147483646\"","net.mrc.wmem=\"4096 2147483646 2147483646\"","net.mrc.mem=\"49152 524288 524288\""]]'
}

# 2 * 80,000 m * 5 ns + 20 us = 820 us.  100 Gbit/s * 820 us / 8 =
# 10,250,000 B a plane, 41,000,000 B for 4.  Payload 1500 - 20 - 8 - 28 =
# 1444 B: 7099 and 28,394 packets.  In memory 128 + 40 + 8 + 28 + 24 +
# 1444 + 320 = 1992, to 2048, + 576 = 2624 B.  28,394 packets are past
# the largest ring (16384): the ring is short, and the buffer the
# window's alone, 28,394 * 2624 = 74,505,856 B, which SO_RCVBUF of
# 37,252,928 gives, or the defaults; 18,190 pages are within
# net.mrc.mem.  Such a buffer holds 28,394 packets, a ring of 16384,
# which carries 16384 * 1444 B * 8 / 820 us = 230,814,595,121.95 bit/s.
metro()
{
	local got

	got=$(plan_json "$ARITH + [.rtt_extra_ns, .limits.ring_packets,
			  .limits.ring_rate, .short, .sysctl]" \
		distance 80km rate 100gbit planes 4 rtt-extra 20us family 4) ||
		return 1
	mrc_expect "metro" "$got" \
		'[80000,100000000000,4,1500,4,820000,1444,10250000,41000000,7099,28394,2624,74505856,20000,16384,230814595121,["ring","net.core.rmem_max","net.core.wmem_max","net.mrc.rmem","net.mrc.wmem"],["net.core.rmem_max=37252928","net.core.wmem_max=37252928","net.mrc.rmem=\"4096 74505856 74505856\"","net.mrc.wmem=\"4096 74505856 74505856\""]]'
}

# The metro link on one plane: 10,250,000 B, 7099 packets of 1444 B.  The
# ring is the packets a buffer holds rounded down to a power of two, so
# 7099 * 2624 = 18,627,776 B would make a ring of 4096: the buffer is for
# 8192, 8192 * 2624 = 21,495,808 B, SO_RCVBUF of 10,747,904 or the
# defaults, 5248 pages, within net.mrc.mem; net.mrc.wmem's third,
# 41,943,040, is enough.  The ring is no limit: it carries 8192 * 1444 B
# * 8 / 820 us = 115,407,297,560.97 bit/s.
window()
{
	local got out

	got=$(plan_json '[.packets_conn, .buffer, .limits.ring_packets,
			  .limits.ring_rate, .short, .sysctl]' \
		distance 80km rate 100gbit planes 1 rtt-extra 20us family 4) ||
		return 1
	mrc_expect "ring of 8192" "$got" \
		'[7099,21495808,8192,115407297560,["net.core.rmem_max","net.core.wmem_max","net.mrc.rmem","net.mrc.wmem"],["net.core.rmem_max=10747904","net.core.wmem_max=10747904","net.mrc.rmem=\"4096 21495808 21495808\"","net.mrc.wmem=\"4096 21495808 41943040\""]]' ||
		return 1
	out=$("$MRCCTL" plan distance 80km rate 100gbit planes 1 \
		rtt-extra 20us family 4) || return 1
	[[ "$out" == *"buffer each way     21.5 MB (8192 packets of 2624 bytes in memory)"* ]] ||
		mrc_fail "no buffer for 8192 packets in: $out" || return 1
	[[ "$out" == *"in flight           8192 packets per connection: ok"* ]] ||
		mrc_fail "ring of 8192 not ok in: $out" || return 1

	# The edges, at 100 km (1 ms) on one plane, IPv6 (1424 B a packet,
	# 2624 B in memory): 11.665408 Gbit/s * 1 ms / 8 = 1,458,176 B, 1024
	# packets, the smallest ring, 1024 * 2624 = 2,686,976 B; 11.6768
	# Gbit/s, 1,459,600 B, 1025 packets, a ring of 2048, 2048 * 2624 =
	# 5,373,952 B; 186.646528 Gbit/s, 23,330,816 B, 16384 packets, the
	# largest ring, 16384 * 2624 = 42,991,616 B; 186.65792 Gbit/s,
	# 23,332,240 B, 16385 packets, short of a ring, the buffer the
	# window's, 16385 * 2624 = 42,994,240 B.
	got=
	for rate in 11.665408gbit 11.6768gbit 186.646528gbit 186.65792gbit; do
		out=$(plan_json '[.bdp_conn, .packets_conn, .buffer,
				  .limits.ring_packets,
				  (.short | any(. == "ring"))]' \
			distance 100km rate $rate planes 1) || return 1
		got+="$out "
	done
	mrc_expect "ring edges" "$got" \
		'[1458176,1024,2686976,1024,false] [1459600,1025,5373952,2048,false] [23330816,16384,42991616,16384,false] [23332240,16385,42994240,16384,true] '
}

# 2 * 1000 m * 5 ns = 10 us.  1 Gbit/s * 10 us / 8 = 1250 B a plane, 2500
# for 2: 1 and 2 packets of 1424 B, 5248 B in memory (within the smallest
# ring, 1024, whatever the buffer).  Nothing is short.
fits()
{
	local got

	got=$(plan_json "$ARITH + [.limits.ring_packets, .short, .sysctl]" \
		distance 1000m rate 1gbit planes 2) || return 1
	mrc_expect "short link" "$got" \
		'[1000,1000000000,2,1500,6,10000,1424,1250,2500,1,2,2624,5248,1024,[],[]]'
}

# The text output: what is short, and the lines that would lift it.
text_short()
{
	local out

	out=$("$MRCCTL" plan distance 80km rate 100gbit planes 4 \
		rtt-extra 20us family 4) || return 1
	[[ "$out" == *"round trip          820 us (fibre 800 us, extra 20 us)"* ]] ||
		mrc_fail "no round trip in: $out" || return 1
	[[ "$out" == *"in flight           16384 packets per connection: SHORT, a ring holds at most 16384 packets and no sysctl raises it"* ]] ||
		mrc_fail "ring not short in: $out" || return 1
	[[ "$out" == *"net.core.rmem_max   212992: SHORT"* ]] ||
		mrc_fail "rmem_max not short in: $out" || return 1
	[[ "$out" == *"sysctl -w net.core.rmem_max=37252928"* ]] ||
		mrc_fail "no sysctl line in: $out" || return 1
	[[ "$out" == *"sysctl -w net.core.wmem_max=37252928"* ]] ||
		mrc_fail "no wmem_max line in: $out" || return 1
	[[ "$out" == *"net.mrc.wmem        4096 4194304 41943040: SHORT"* ]] ||
		mrc_fail "net.mrc.wmem not short in: $out" || return 1
	[[ "$out" == *"net.mrc.mem         49152 65536 98304 pages: ok"* ]] ||
		mrc_fail "net.mrc.mem not ok in: $out" || return 1
	[[ "$out" == *'sysctl -w net.mrc.rmem="4096 74505856 74505856"'* ]] ||
		mrc_fail "no net.mrc.rmem line in: $out" || return 1
	[[ "$out" == *"BDP per connection  41 MB, 28394 packets"* ]] ||
		mrc_fail "no BDP in: $out"
}

# The same plan within the limits prints no sysctl line and no SHORT.
text_fits()
{
	local out

	out=$("$MRCCTL" plan distance 1km rate 1gbit planes 2) || return 1
	[[ "$out" != *SHORT* && "$out" != *sysctl* ]] ||
		mrc_fail "something short in: $out" || return 1
	[[ "$out" == *"net.core.rmem_max   212992: ok"* ]] ||
		mrc_fail "rmem_max not ok in: $out"
}

# net.core.rmem_max changed, read as it is; a buffer that fits no longer
# asks for it.
limits_follow()
{
	local got

	sysctl -qw net.core.rmem_max=40000000 net.core.wmem_max=30000000 ||
		return 1
	got=$(plan_json '[.limits.rmem_max, .limits.wmem_max, .short, .sysctl]' \
		distance 80km rate 100gbit planes 4 rtt-extra 20us family 4)
	sysctl -qw net.core.rmem_max=212992 net.core.wmem_max=212992
	mrc_expect "changed limits" "$got" \
		'[40000000,30000000,["ring","net.core.wmem_max","net.mrc.rmem","net.mrc.wmem"],["net.core.wmem_max=37252928","net.mrc.rmem=\"4096 74505856 74505856\"","net.mrc.wmem=\"4096 74505856 74505856\""]]'
}

# The module's sysctls, as /proc/sys shows them.
mrc_sysctls()
{
	local want got

	want=$(jq -cn --arg r "$(< /proc/sys/net/mrc/rmem)" \
		--arg w "$(< /proc/sys/net/mrc/wmem)" \
		--arg m "$(< /proc/sys/net/mrc/mem)" \
		'[true] + [$r, $w, $m | [splits("\\s+") | tonumber]]')
	got=$(plan_json '[.limits.module, .limits.mrc_rmem, .limits.mrc_wmem,
			  .limits.mrc_mem]' distance 1km rate 1gbit planes 1) ||
		return 1
	mrc_expect "net.mrc" "$got" "$want"
}

# With -n: net.core.[rw]mem_max and net.mrc.* hold for every namespace, but
# 6.1 shows them only in the initial one and 6.12 shows net.core read-only
# in the others; so they are changed in the initial namespace and must be
# read as changed through -n, with the module's values.
netns_limits()
{
	local got want

	mrc_ns_add "$NS" || return 1
	sysctl -qw net.core.rmem_max=7340032 net.core.wmem_max=6291456 ||
		return 1
	got=$("$MRCCTL" -n "$NS" -j plan distance 80km rate 100gbit planes 4 \
		rtt-extra 20us family 4 |
		jq -c '[.limits.rmem_max, .limits.wmem_max, .limits.module,
			.limits.mrc_rmem, .sysctl[0:2]]')
	sysctl -qw net.core.rmem_max=212992 net.core.wmem_max=212992
	want="[7340032,6291456,true,[$(tr -s ' \t' ',' < /proc/sys/net/mrc/rmem)]"
	want+=',["net.core.rmem_max=37252928","net.core.wmem_max=37252928"]]'
	mrc_expect "limits with -n" "$got" "$want" || return 1
	"$MRCCTL" -n "$NS" plan distance 1km rate 1gbit planes 1 |
		grep -q "^  net.core.rmem_max   212992: ok" ||
		mrc_fail "text with -n does not show rmem_max" || return 1
	# A namespace that does not exist is an error, not a usage error.
	"$MRCCTL" -n "$NS-none" plan distance 1km rate 1gbit planes 1 \
		> /dev/null 2>&1
	[ $? = 1 ] || mrc_fail "-n of a missing namespace did not exit 1"
}

# Fractions, the units, prefixes of the keywords, the defaults.
units()
{
	local got

	got=$(plan_json '[.distance_m, .rate, .rtt_extra_ns, .rtt_ns]' \
		distance 0.5km rate 2.5gbit planes 1 rtt-extra 1.5ms) || return 1
	mrc_expect "fractions" "$got" '[500,2500000000,1500000,1505000]' ||
		return 1
	got=$(plan_json '[.distance_m, .rate, .rtt_extra_ns]' \
		distance 3KM rate 10Mbit planes 1 rtt-extra 1s) || return 1
	mrc_expect "units" "$got" '[3000,10000000,1000000000]' || return 1
	got=$(plan_json '[.distance_m, .rate, .rtt_extra_ns]' \
		distance 7m rate 1tbit planes 1 rtt-extra 250ns) || return 1
	mrc_expect "small units" "$got" '[7,1000000000000,250]' || return 1
	got=$(plan_json '[.distance_m, .rate, .planes, .mtu, .family]' \
		d 1km ra 2kbit p 3 m 9000 f 4) || return 1
	mrc_expect "prefixes" "$got" '[1000,2000,3,9000,4]' || return 1
	got=$(plan_json '[.mtu, .family, .rtt_extra_ns]' distance 1km \
		rate 1bit planes 1) || return 1
	mrc_expect "defaults" "$got" '[1500,6,0]' || return 1
	# "pl" still means "plane"; "plan" only spelled out.
	"$MRCCTL" pl help | grep -q "mrcctl plane add" ||
		mrc_fail "\"pl\" is no longer \"plane\""
}

# usage_error ARGS...: "mrcctl plan ARGS" exits 2, prints nothing on
# stdout and the usage on stderr.
usage_error()
{
	local rc

	"$MRCCTL" plan "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ "$rc" = 2 ] || mrc_fail "'plan $*' exited $rc, expected 2" || return 1
	[ ! -s "$tmp/out" ] || mrc_fail "'plan $*' printed: $(< "$tmp/out")" ||
		return 1
	grep -q "^Usage: mrcctl plan distance" "$tmp/err" ||
		mrc_fail "'plan $*': no usage on stderr: $(< "$tmp/err")"
}

bad_args()
{
	local ok="distance 1km rate 1gbit planes 1"

	usage_error || return 1
	usage_error rate 1gbit planes 1 || return 1
	usage_error distance 1km planes 1 || return 1
	usage_error distance 1km rate 1gbit || return 1
	usage_error distance 10 rate 1gbit planes 1 || return 1
	usage_error distance 1km rate 400 planes 1 || return 1
	usage_error distance 1km rate 0gbit planes 1 || return 1
	usage_error distance 1.0005m rate 1gbit planes 1 || return 1
	usage_error distance 1km rate 1.5bit planes 1 || return 1
	usage_error distance .5km rate 1gbit planes 1 || return 1
	usage_error distance 1km rate 1gbit planes 0 || return 1
	usage_error distance 1km rate 1gbit planes 17 || return 1
	usage_error distance 100001km rate 1gbit planes 1 || return 1
	usage_error $ok mtu 575 family 4 || return 1
	usage_error $ok mtu 1279 || return 1
	usage_error $ok mtu 65536 || return 1
	usage_error $ok family 5 || return 1
	usage_error $ok rtt-extra 5 || return 1
	usage_error $ok rtt-extra 11s || return 1
	usage_error $ok distance 2km || return 1
	usage_error $ok speed 1gbit || return 1
	usage_error $ok mtu || return 1
	usage_error d 1km r 1gbit p 1 || return 1
	# Both ends of the range are fine.
	"$MRCCTL" plan $ok mtu 1280 > /dev/null &&
		"$MRCCTL" plan $ok mtu 576 family 4 > /dev/null &&
		"$MRCCTL" plan distance 1km rate 1gbit planes 16 > /dev/null ||
		mrc_fail "a valid plan was refused"
}

# Without the module, the arithmetic is all there and net.mrc says so.
no_module()
{
	local out got rc=0

	rmmod mrc || return 1
	out=$("$MRCCTL" plan distance 1km rate 1gbit planes 2) || rc=1
	got=$(plan_json '[.bdp_conn, .limits.module, .limits.mrc_rmem]' \
		distance 1km rate 1gbit planes 2) || rc=1
	modprobe mrc || mrc_fail "modprobe mrc failed" || return 1
	[ "$rc" = 0 ] || return 1
	[[ "$out" == *"net.mrc             module not loaded"* &&
	   "$out" == *"BDP per connection  2.50 kB, 2 packets"* ]] ||
		mrc_fail "text without the module: $out" || return 1
	mrc_expect "JSON without the module" "$got" "[2500,false,null]"
}

mrc_check "1,000 km, 8 planes of 400 Gbit/s" long_haul
mrc_check "metro: 80 km and 20 us, 4 planes of 100 Gbit/s, IPv4" metro
mrc_check "a window of 1025 to 16384 packets gets a ring" window
mrc_check "a short link fits inside the limits" fits
mrc_check "text: the short limits and their sysctl lines" text_short
mrc_check "text: nothing short" text_fits
mrc_check "net.core limits read as changed" limits_follow
mrc_check "net.mrc limits read from the module" mrc_sysctls
mrc_check "-n NETNS reads the limits a socket there has" netns_limits
mrc_check "units, fractions, prefixes and defaults" units
mrc_check "bad command lines exit 2 with the usage" bad_args
mrc_check "help" bash -c "\"$MRCCTL\" plan help | grep -q '^Usage: mrcctl plan'"
mrc_check "plan in the full usage" bash -c "\"$MRCCTL\" help | grep -q 'mrcctl plan distance'"
mrc_check "without the module loaded" no_module

mrc_finish
