#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# MRC connections that lose paths mid-transfer.  Two hosts (network
# namespaces) joined by four planes (veth pairs); each case moves a stream
# from A to B while a failure is injected (sized to outlast the case's
# checks, and ended once they are done), checks the same SHA-256 at both
# ends and prints the longest gap in delivered data that the receiver saw
# (the stall), first without any failure:
#
# - one of four planes taken down: link down, address removed, plane
#   deleted (on plane 1, that carried the handshake, for two of them), the
#   far end's device moved to another namespace, and the link down over
#   IPv6: the failed plane sends nothing more, the others carry on;
# - all planes but one cut, then restored one by one: each restored plane
#   carries data again;
# - one plane black-holed (netem loss 100%), then healed: its EVs are
#   retired, the plane found silent (PlaneSilent), probed one at a time
#   (at most one probe every 5 ms on the plane) and restored while the
#   connection lives;
# - a plane flapping every 100 ms;
# - plane 1 passing the handshake and nothing else: each host validates
#   the other's planes 2-4 over them, and the stream goes there;
# - a multipath fabric inside plane 1 (two routers joined by four
#   equal-cost links, L4-hash ECMP) with one link black-holed: only the
#   EVs hashed onto that link stay retired; and the fabric alone, its
#   links rate-limited with queues that fill unevenly: packets of one EV
#   overtaken by another's are not taken for lost.
#
# The transfers that a failure meets are sized to outlast its checks on a
# fast machine, and end early (mrc_xfer's SIGUSR1) once the case has seen
# what it is for: what was sent must still arrive whole, the same SHA-256
# at both ends, over the connection as the failure left it.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_xfer
mrc_need_cmd tc mkfifo
XFER=$MRC_BIN/mrc_xfer
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"
mrc_need_mod sch_netem sch_tbf

mrc_plan 14

# The size of a transfer, and of one that must last while the test looks
# at the connection a few times (QEMU without KVM is slow, and slower to
# start processes while a transfer runs); the timeout of both ends; how
# many packets each of $A's devices must have sent before the failure is
# injected; how many packets a plane must send to count as carrying data.
SIZE=32M
BIG=64M
TIMEOUT=600
STARTED=300
GROWN=100
# The most probes a second on a black-holed plane: one every 5 ms, and
# room for the timing of the samples.
PROBE_RATE_MAX=250
# The transfer of a black hole must outlast the retirement of a plane's
# EVs, a second of counting its probes and their restoration: 64M ran out
# first now and then (6.1, 64M in 4 s).  A debug kernel moves data many
# times slower.
BLACK_HOLE_SIZE=256M
[ "${MRC_DEBUG_KERNEL:-0}" = 1 ] && BLACK_HOLE_SIZE=$BIG
# The rate of each fabric link when the plane uses the fabric alone, in
# Mbit/s (below what QEMU forwards through the routers), and the most
# resends beyond the links' drops, in percent of the packets sent.  Over
# 40 runs under TCG they were under 3% mostly, 6.9% at worst: a few
# timeouts as the queues first fill retire EVs, the stream moves between
# links and their queues, and later packets of other EVs outrun it by
# more than the plane's round trip.  Taking every overtaken packet for
# lost, as once, resent a fifth of the stream.
FABRIC_RATE=20
FABRIC_RESENT_PCT=10

suffix=$(printf '%04x' $RANDOM)
tmp=$(mktemp -d)
port=7000
cli=
srv=
A=mrcf-$suffix-a
B=mrcf-$suffix-b
C=mrcf-$suffix-c
R1=mrcf-$suffix-r1
R2=mrcf-$suffix-r2

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

ctl()
{
	local ns=$1

	shift
	"$MRCCTL" -n "$ns" "$@"
}

# addr K H: the address of host H (1 for A, 2 for B) on pair K, in the
# family of the topology, with its prefix length if a third argument is
# given.  $opt: the options of "ip addr add" for the family.
addr()
{
	if [ "$fam" = 4 ]; then
		echo "10.0.$1.$2${3:+/24}"
	else
		echo "fd00:$1::$2${3:+/64}"
	fi
}

# Topology: hosts $A and $B, veth1..veth4 on each, pair K joining vethK of
# both, with the addresses of addr(); plane K of each host is vethK with
# id K.  In the fabric, plane 1 goes through routers instead (see
# fabric_setup).  $C, for devices to move to, is made when needed.
setup()
{
	local kind=$1 k a=() b=() first=1

	fam=4 opt=
	[ "$kind" = 6 ] && fam=6 opt=nodad
	[ "$kind" = fabric ] && first=2
	mrc_ns_add "$A" "$B" || return 1
	for k in $(seq "$first" 4); do
		a+=("link add veth$k type veth peer name veth$k netns $B"
		    "link set veth$k up"
		    "addr add $(addr "$k" 1 len) dev veth$k $opt")
		b+=("link set veth$k up"
		    "addr add $(addr "$k" 2 len) dev veth$k $opt")
	done
	printf '%s\n' "${a[@]}" | ip -n "$A" -batch - &&
		printf '%s\n' "${b[@]}" | ip -n "$B" -batch - || return 1
	if [ "$kind" = fabric ]; then
		fabric_setup || return 1
	fi
	for k in $(seq "$first" 4); do
		ctl "$A" plane add dev "veth$k" id "$k" addr "$(addr "$k" 1)" &&
			ctl "$B" plane add dev "veth$k" id "$k" addr "$(addr "$k" 2)" ||
			return 1
	done
	mrc_wait_for 10 planes_up "$A" && mrc_wait_for 10 planes_up "$B" ||
		mrc_fail "planes not up: $(ctl "$A" plane show; ctl "$B" plane show)"
}

# Plane 1 through a fabric: A's veth1 (10.0.1.1) to router $R1 (10.0.1.254),
# $R1 to router $R2 over four links lJ (10.1.J.1 - 10.1.J.2), $R2 to B's
# veth1 (10.0.101.254 - 10.0.101.2); both routers spread over the four
# links by an L4 hash (source and destination addresses and ports).
fabric_setup()
{
	local j r r1=() r2=() hops1=() hops2=()

	mrc_ns_add "$R1" "$R2" || return 1
	ip -n "$A" link add veth1 type veth peer name ra netns "$R1" &&
		ip -n "$B" link add veth1 type veth peer name rb netns "$R2" || return 1
	for j in 1 2 3 4; do
		r1+=("link add l$j type veth peer name l$j netns $R2"
		     "link set l$j up"
		     "addr add 10.1.$j.1/24 dev l$j")
		r2+=("link set l$j up"
		     "addr add 10.1.$j.2/24 dev l$j")
		hops1+=(nexthop via "10.1.$j.2" dev "l$j")
		hops2+=(nexthop via "10.1.$j.1" dev "l$j")
	done
	r1+=("link set ra up" "addr add 10.0.1.254/24 dev ra"
	     "route add 10.0.101.0/24 ${hops1[*]}")
	r2+=("link set rb up" "addr add 10.0.101.254/24 dev rb"
	     "route add 10.0.1.0/24 ${hops2[*]}")
	for r in "$R1" "$R2"; do
		ip netns exec "$r" sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv4.fib_multipath_hash_policy=1 \
			net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0 || return 1
	done
	printf '%s\n' "${r1[@]}" | ip -n "$R1" -batch - &&
		printf '%s\n' "${r2[@]}" | ip -n "$R2" -batch - || return 1
	ip -n "$A" -batch - <<-EOF || return 1
	link set veth1 up
	addr add 10.0.1.1/24 dev veth1
	route add 10.0.101.0/24 via 10.0.1.254 dev veth1
	EOF
	ip -n "$B" -batch - <<-EOF || return 1
	link set veth1 up
	addr add 10.0.101.2/24 dev veth1
	route add 10.0.1.0/24 via 10.0.101.254 dev veth1
	EOF
	ctl "$A" plane add dev veth1 id 1 addr 10.0.1.1 &&
		ctl "$B" plane add dev veth1 id 1 addr 10.0.101.2
}

# topology KIND: hosts joined as KIND (4, 6 or fabric) wants, those of the
# case before when they are of that kind with every plane up (each case
# undoes its failure), new ones otherwise.
topo=
topology()
{
	if [ "$topo" = "$1" ] && mrc_wait_for 5 planes_up "$A" &&
	   mrc_wait_for 5 planes_up "$B"; then
		return 0
	fi
	[ -z "$topo" ] || mrc_info "hosts rebuilt"
	topo=
	mrc_cleanup
	setup "$1" || return 1
	topo=$1
}

# The shell parses the text of mrcctl rather than its JSON with jq, here
# and below: under QEMU without KVM, with a transfer taking the CPUs, each
# process started costs up to seconds.

# planes_up NS: NS has its four planes, all up.
planes_up()
{
	local out id state ids=

	out=$(ctl "$1" plane show) || return 1
	while read -r id _ _ state _; do
		[ "$state" = up ] && ids+=" $id"
	done <<< "$out"
	[ "$ids" = " 1 2 3 4" ]
}

# plane_state NS ID: the state of plane ID of NS, "gone" without one.
plane_state()
{
	local out id state

	out=$(ctl "$1" plane show) || return 1
	while read -r id _ _ state _; do
		[ "$id" = "$2" ] && echo "$state" && return 0
	done <<< "$out"
	echo gone
}

plane_not_up()
{
	[ "$(plane_state "$1" "$2")" != up ]
}

# sample: the state of $A's connection to port $port, by plane id, in TX
# (packets sent), EVS, ACT (EVs active), RET (retirements), PRB (probes)
# and RES (restores), the connection's MSS, resends and retransmission
# timeouts in MSS, RETX and TIMEOUTS; false without that
# connection, and the sample before kept.  From "mrcctl -s conn show": the
# same netlink attributes as with -j.
sample()
{
	local out line w i id this=0 n=0

	out=$(ctl "$A" -s conn show 2> /dev/null) || return 1
	[[ "$out" == *":$port "* ]] || return 1
	TX=() EVS=() ACT=() RET=() PRB=() RES=() MSS='' RETX='' TIMEOUTS=''
	while read -r line; do
		read -r -a w <<< "$line"
		if [ "${w[0]}" = conn ]; then
			this=0
			for ((i = 2; i + 1 < ${#w[@]}; i += 2)); do
				case "${w[i]} ${w[i + 1]}" in
				"peer "*":$port") this=1 ;;
				"mss "*) MSS=${w[i + 1]} ;;
				esac
			done
		fi
		[ "$this" = 1 ] || continue
		if [ "${w[0]}" = tx ]; then
			for ((i = 0; i + 1 < ${#w[@]}; i += 2)); do
				case "${w[i]}" in
				retx) RETX=${w[i + 1]} ;;
				timeouts) TIMEOUTS=${w[i + 1]} ;;
				esac
			done
		fi
		[ "${w[0]}" = plane ] || continue
		id=${w[1]}
		for ((i = 2; i + 1 < ${#w[@]}; i += 2)); do
			case "${w[i]}" in
			tx) TX[id]=${w[i + 1]} ;;
			evs) EVS[id]=${w[i + 1]} ;;
			active) ACT[id]=${w[i + 1]} ;;
			retired) RET[id]=${w[i + 1]} ;;
			probes) PRB[id]=${w[i + 1]} ;;
			restored) RES[id]=${w[i + 1]} ;;
			esac
		done
		n=$((n + 1))
	done <<< "$out"
	[ "$n" -gt 0 ]
}

# keep NAME: a copy of TX in the array NAME, "-" for a plane not listed.
keep()
{
	local -n copy=$1
	local k

	copy=()
	for k in 1 2 3 4; do
		# shellcheck disable=SC2034 # copy names the caller's array
		copy[k]=${TX[k]:--}
	done
}

# delta K: what plane K sent from BEFORE to LAST; 0 for a plane that left
# the list ("-").
delta()
{
	local from=${BEFORE[$1]:--} to=${LAST[$1]:--}

	if [ "$from" = - ] || [ "$to" = - ]; then
		echo 0
	else
		echo $((to - from))
	fi
}

# progress SIZE: how much of SIZE bytes the last sample had sent (resends
# included), to tell how much time the checks left the transfer.
progress()
{
	local k sum=0

	bytes "$1"
	for k in 1 2 3 4; do
		sum=$((sum + ${TX[k]:-0}))
	done
	[ -z "$MSS" ] ||
		mrc_info "the transfer had sent about $((100 * sum * MSS / nbytes))% at the last" \
			"check; resends $RETX, timeouts $TIMEOUTS"
}

# plane_figures ID: the state of plane ID from the last sample.
plane_figures()
{
	echo "plane $1: tx ${TX[$1]:-?} evs ${EVS[$1]:-?} active ${ACT[$1]:-?}" \
		"retired ${RET[$1]:-?} probes ${PRB[$1]:-?} restored ${RES[$1]:-?}"
}

# running: the client has not exited (a zombie has).
running()
{
	local state

	[ -r "/proc/$cli/stat" ] || return 1
	read -r _ _ state _ < "/proc/$cli/stat" 2> /dev/null && [ "$state" != Z ]
}

# xfer_start SIZE PEER: mrc_xfer from $A to PEER on the next port, SIZE
# bytes, in the background: the server's pid in $srv, the client's in
# $cli.  Both run niced, so that the checks get the CPU.
xfer_start()
{
	port=$((port + 1))
	rm -f "$tmp"/[sc].out "$tmp"/[sc].err
	ip netns exec "$B" nice -n 10 "$XFER" -l -p "$port" -g -T "$TIMEOUT" \
		> "$tmp/s.out" 2> "$tmp/s.err" &
	srv=$!
	mrc_wait_for 30 mrc_server_ready "$tmp/s.out" "$srv"
	if ! mrc_said_ready "$tmp/s.out"; then
		kill "$srv" 2> /dev/null
		wait "$srv"
		mrc_fail "server did not start:"
		mrc_show "$tmp/s.err"
		return 1
	fi
	xfer_t0=$SECONDS
	ip netns exec "$A" nice -n 10 "$XFER" -c "$2" -p "$port" -s "$1" -m 256K \
		-S "$port" -T "$TIMEOUT" > "$tmp/c.out" 2> "$tmp/c.err" &
	cli=$!
	DEV0=()
	stopped=
}

# xfer_stop: the client (under way, its handler of SIGUSR1 in place) ends
# after the write under way, as if its size were reached: the rest of a
# transfer sized to outlast the checks proves nothing more.
xfer_stop()
{
	stopped=1
	kill -USR1 "$cli" 2> /dev/null
}

# dev_tx: the packets that $A's veth1-4 sent, in DEV; from the client's
# /proc/PID/net/dev (the counters of its namespace), without starting a
# process.
dev_tx()
{
	local name tx

	DEV=()
	while read -r name _ _ _ _ _ _ _ _ _ tx _; do
		[[ "$name" == veth[1-4]: ]] && DEV[${name:4:1}]=$tx
	done < "/proc/$cli/net/dev"
}

# started: each of $A's veth1-4 sent $STARTED packets since the transfer
# started (the counters first seen), or the client ended.
started()
{
	local k

	running || return 0
	dev_tx 2> /dev/null || return 1
	[ "${#DEV0[@]}" -gt 0 ] || DEV0=("${DEV[@]}")
	for k in 1 2 3 4; do
		[ $((${DEV[k]:-0} - ${DEV0[k - 1]:-0})) -ge "$STARTED" ] || return 1
	done
}

# xfer_wait_started: the transfer is under way, its client still running.
xfer_wait_started()
{
	mrc_wait_for 60 started
	running || mrc_fail "the transfer ended before the failure: $(cat "$tmp/c.err")" ||
		return 1
	started || mrc_fail "the transfer did not start: $(ctl "$A" -s conn show)"
}

# conn_line FILE: "BYTES SHA256" from the first connection line of FILE.
conn_line()
{
	awk '$1 == "conn" && $3 == "bytes" && $7 == "sha256" { print $4, $8; exit }' "$1"
}

# xfer_end SIZE: wait for both ends; the client exited 0, the server too
# and received what the client sent: SIZE bytes, or after xfer_stop some
# and no more.  Prints the stall.
xfer_end()
{
	local crc src c s stall sent

	wait "$cli"
	crc=$?
	[ "$crc" = 0 ] || kill "$srv" 2> /dev/null
	wait "$srv"
	src=$?
	if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
		mrc_fail "client exited $crc, server $src:"
		mrc_show "$tmp/c.err"
		mrc_show "$tmp/s.err"
		return 1
	fi
	stall=$(awk '$1 == "conn" && $9 == "stall_ms" { print $10; exit }' "$tmp/s.out")
	c=$(conn_line "$tmp/c.out")
	s=$(conn_line "$tmp/s.out")
	sent=${c%% *}
	bytes "$1"
	if [ -n "$stopped" ] && mrc_is_number "$sent" && [ "$sent" -lt "$nbytes" ]; then
		mrc_info "stall ${stall:-?} ms ($((sent >> 20))M of $1 in" \
			"$((SECONDS - xfer_t0)) s, ended once looked at)"
	else
		mrc_info "stall ${stall:-?} ms ($1 in $((SECONDS - xfer_t0)) s)"
	fi
	mrc_expect "received (bytes, sha256)" "$s" "$c" || return 1
	if [ -n "$stopped" ]; then
		mrc_is_number "$sent" && [ "$sent" -gt 0 ] && [ "$sent" -le "$nbytes" ] ||
			mrc_fail "bytes sent: ${sent:-none}, of $nbytes"
	else
		mrc_expect "bytes sent" "$sent" "$nbytes"
	fi
}

# bytes SIZE: SIZE (with a K or M suffix) in bytes, in $nbytes.
bytes()
{
	case "$1" in
	*K) nbytes=$((${1%K} << 10)) ;;
	*M) nbytes=$((${1%M} << 20)) ;;
	*) nbytes=$1 ;;
	esac
}

# abort: stop a transfer that a failed check leaves running.
abort()
{
	kill "$cli" "$srv" 2> /dev/null
	wait "$cli" "$srv" 2> /dev/null
}

# others_grew ID: since the sample in BEFORE, every plane but ID sent
# $GROWN packets, or the connection is gone; the last sample in LAST.
others_grew()
{
	local k

	sample || return 0
	keep LAST
	for k in 1 2 3 4; do
		[ "$k" = "$1" ] && continue
		[ "$(delta "$k")" -ge "$GROWN" ] || return 1
	done
}

# grew ID: plane ID sent $GROWN packets since BEFORE, the sample in LAST;
# false once the connection is gone.
grew()
{
	sample || return 1
	keep LAST
	[ "$(delta "$1")" -ge "$GROWN" ]
}

# check_left ID: from BEFORE to LAST, plane ID sent nothing and every
# other plane sent $GROWN packets.
check_left()
{
	local k d deltas=()

	for k in 1 2 3 4; do
		deltas+=("$(delta "$k")")
	done
	mrc_info "packets sent on planes 1-4 after the failure: ${deltas[*]}"
	for k in 1 2 3 4; do
		d=${deltas[k - 1]}
		if [ "$k" = "$1" ]; then
			[ "$d" = 0 ] || mrc_fail "plane $k sent $d packets after it failed" ||
				return 1
		else
			[ "$d" -ge "$GROWN" ] || mrc_fail "plane $k sent only $d packets" ||
				return 1
		fi
	done
}

# fail_plane HOW ID: take plane ID down, on A but for "netns" (B's device).
fail_plane()
{
	local k=$2

	case "$1" in
	link) ip -n "$A" link set dev "veth$k" down ;;
	addr) ip -n "$A" addr del "$(addr "$k" 1 len)" dev "veth$k" ;;
	plane) ctl "$A" plane del dev "veth$k" ;;
	netns)
		{ [ -e "/run/netns/$C" ] || mrc_ns_add "$C"; } &&
			ip -n "$B" link set dev "veth$k" netns "$C"
		;;
	esac
}

# repair_plane HOW ID: undo fail_plane.
repair_plane()
{
	local k=$2

	# shellcheck disable=SC2086 # $opt is a list of options
	case "$1" in
	link) ip -n "$A" link set dev "veth$k" up ;;
	addr) ip -n "$A" addr add "$(addr "$k" 1 len)" dev "veth$k" $opt ;;
	plane) ctl "$A" plane add dev "veth$k" id "$k" addr "$(addr "$k" 1)" ;;
	netns)
		# The plane of $B waited for its device and comes back with it.
		ip -n "$C" link set dev "veth$k" netns "$B" &&
			ip -n "$B" link set dev "veth$k" up &&
			ip -n "$B" addr add "$(addr "$k" 2 len)" dev "veth$k" $opt
		;;
	esac
}

############################################################################

# No failure: what the stall is without one.
baseline()
{
	topology 4 || return 1
	xfer_start "$SIZE" 10.0.1.2 || return 1
	xfer_end "$SIZE"
}

# plane_down FAMILY HOW ID: a transfer dialled on plane 1 while plane ID
# goes down by HOW.
plane_down()
{
	local how=$2 k=$3 rc=0 size=$BIG

	topology "$1" || return 1
	xfer_start "$size" "$(addr 1 2)" || return 1
	if ! xfer_wait_started; then
		abort
		return 1
	fi
	fail_plane "$how" "$k" || mrc_fail "cannot take plane $k down ($how)" || rc=1
	mrc_wait_for 10 plane_not_up "$A" "$k" ||
		mrc_fail "plane $k of $A still up: $(ctl "$A" plane show)" || rc=1
	mrc_info "plane $k of $A: $(plane_state "$A" "$k")"
	if [ "$rc" = 0 ]; then
		sample || mrc_fail "connection gone" || rc=1
		keep BEFORE
		keep LAST
		mrc_wait_for 60 others_grew "$k"
		check_left "$k" || rc=1
		progress "$size"
	fi
	xfer_stop
	xfer_end "$size" || rc=1
	repair_plane "$how" "$k"
	return "$rc"
}

# Plane 1 carries SYN and SYN_ACK, and drops every other MRC packet (a u32
# filter on the type in the low bits of the header's first byte, at offset
# 28 in an IPv4 packet without options): once connected, each host must
# validate the other's planes 2-4 by probes whose answers can only come
# back on the plane the probe took.  Only the stream's timeout ends a
# failure: no plane is ever down.
handshake_only()
{
	local TIMEOUT=90 size=4M ns rc=0 hdr="match ip protocol 17 0xff match ip dport 4793 0xffff"

	topology 4 || return 1
	for ns in "$A" "$B"; do
		# shellcheck disable=SC2086 # $hdr is a list of arguments
		tc -n "$ns" qdisc add dev veth1 clsact &&
			tc -n "$ns" filter add dev veth1 egress prio 1 protocol ip \
				u32 $hdr match u8 0x11 0xff at 28 action ok &&
			tc -n "$ns" filter add dev veth1 egress prio 2 protocol ip \
				u32 $hdr match u8 0x12 0xff at 28 action ok &&
			tc -n "$ns" filter add dev veth1 egress prio 3 protocol ip \
				u32 $hdr action drop ||
			mrc_fail "cannot filter plane 1 of $ns" || rc=1
	done
	if [ "$rc" = 0 ]; then
		xfer_start "$size" "$(addr 1 2)" || rc=1
		[ "$rc" = 1 ] || xfer_end "$size" || rc=1
	fi
	for ns in "$A" "$B"; do
		tc -n "$ns" qdisc del dev veth1 clsact 2> /dev/null
	done
	return "$rc"
}

# Plane 2 drops every MRC packet, both ways, from before the connection
# until its validation gave up (8 PROBEs, 20 ms apart and doubling: the
# last at 2.54 s, the series over at 5.1 s and the next one 1 s later,
# MRC_VALIDATE_TRIES and MRC_VALIDATE_RETRY_NS): once the path works
# again the plane is validated by a later series of PROBEs and carries
# data.  The cut ends 5.5 s after the connection was seen (and later by
# the processes started), so that the next series comes soon, at its
# first PROBE or a later one.  The planes are paced so that the transfer
# outlasts all this.
validated_later()
{
	local TIMEOUT=120 size=64M ns k rc=0

	topology 4 || return 1
	for ns in "$A" "$B"; do
		tc -n "$ns" qdisc add dev veth2 clsact &&
			tc -n "$ns" filter add dev veth2 egress prio 1 protocol ip \
				u32 match ip protocol 17 0xff match ip dport 4793 0xffff \
				action drop ||
			mrc_fail "cannot filter plane 2 of $ns" || rc=1
	done
	for k in 1 2 3 4; do
		tc -n "$A" qdisc replace dev "veth$k" root tbf rate 8mbit \
			burst 32k latency 200ms || rc=1
	done
	[ "$rc" = 0 ] && xfer_start "$size" "$(addr 1 2)" || rc=1
	if [ "$rc" = 0 ]; then
		mrc_wait_for 30 sample ||
			mrc_fail "no connection: $(cat "$tmp/c.err")" || rc=1
	fi
	if [ "$rc" = 0 ]; then
		sleep 5.5
		sample || mrc_fail "connection gone" || rc=1
		keep BEFORE
		mrc_info "before the path works: $(plane_figures 2)"
		[ "${TX[2]:-0}" = 0 ] ||
			mrc_fail "plane 2 sent ${TX[2]} packets while cut" || rc=1
		tc -n "$A" qdisc del dev veth2 clsact
		tc -n "$B" qdisc del dev veth2 clsact
		mrc_wait_for 60 grew 2 ||
			mrc_fail "plane 2 never carried data: $(plane_figures 2)" || rc=1
		mrc_info "after: $(plane_figures 2)"
		running || [ "$rc" != 0 ] ||
			mrc_fail "the transfer ended before plane 2 was looked at" || rc=1
	fi
	[ "$rc" = 0 ] && { xfer_stop; xfer_end "$size" || rc=1; }
	[ "$rc" = 0 ] || abort
	for ns in "$A" "$B"; do
		tc -n "$ns" qdisc del dev veth2 clsact 2> /dev/null
	done
	for k in 1 2 3 4; do
		tc -n "$A" qdisc del dev "veth$k" root 2> /dev/null
	done
	return "$rc"
}

# All planes but plane 4 cut (link down on A), then brought back one by
# one: each sends data again once up.
all_but_one()
{
	local size=96M k rc=0

	topology 4 || return 1
	xfer_start "$size" 10.0.1.2 || return 1
	if ! xfer_wait_started; then
		abort
		return 1
	fi
	for k in 1 2 3; do
		ip -n "$A" link set dev "veth$k" down || rc=1
	done
	for k in 1 2 3; do
		mrc_wait_for 10 plane_not_up "$A" "$k" ||
			mrc_fail "plane $k of $A still up" || rc=1
	done
	if [ "$rc" = 0 ]; then
		sample || mrc_fail "connection gone" || rc=1
		keep BEFORE
		mrc_wait_for 60 grew 4 ||
			mrc_fail "plane 4 did not carry on: $(plane_figures 4)" || rc=1
		for k in 1 2 3; do
			[ "$(delta "$k")" = 0 ] ||
				mrc_fail "cut plane $k sent $(delta "$k") packets" || rc=1
		done
		mrc_info "planes 1-3 cut; plane 4 alone sent $(delta 4) packets"
	fi
	for k in 1 2 3; do
		[ "$rc" = 0 ] || break
		sample || mrc_fail "connection gone before plane $k came back" || rc=1
		keep BEFORE
		ip -n "$A" link set dev "veth$k" up || rc=1
		if mrc_wait_for 30 grew "$k"; then
			mrc_info "plane $k back: it sent $(delta "$k") packets;" \
				"EVs active on planes 1-4: ${ACT[*]}"
		else
			mrc_fail "plane $k not taken back ($(plane_state "$A" "$k")):"
			ctl "$A" -s conn show | sed 's/^/#   /'
			rc=1
		fi
	done
	progress "$size"
	running || [ "$rc" != 0 ] ||
		mrc_fail "the transfer ended before every plane came back" || rc=1
	xfer_stop
	xfer_end "$size" || rc=1
	for k in 1 2 3; do
		ip -n "$A" link set dev "veth$k" up
	done
	return "$rc"
}

# retired ID: plane ID has no EV active any more.
retired()
{
	sample || return 1
	[ "${ACT[$1]}" = 0 ] && [ "${RET[$1]}" -gt 0 ]
}

# restored ID RESTORES: every EV of plane ID is active again, after more
# than RESTORES restores.
restored()
{
	sample || return 1
	[ "${ACT[$1]}" = "${EVS[$1]}" ] && [ "${RES[$1]}" -gt "$2" ]
}

# restores ID RESTORES: plane ID restored EVs more than RESTORES times.
restores()
{
	sample || return 1
	[ "${RES[$1]}" -gt "$2" ]
}

# probe_rate ID: plane ID, all its EVs retired, sends at most
# $PROBE_RATE_MAX probes a second, over one second.
probe_rate()
{
	local p0 t0 rate

	sample || mrc_fail "connection gone" || return 1
	p0=${PRB[$1]} t0=${EPOCHREALTIME/[.,]/}
	sleep 1
	sample || mrc_fail "connection gone" || return 1
	rate=$(((PRB[$1] - p0) * 1000000 / (${EPOCHREALTIME/[.,]/} - t0)))
	mrc_info "plane $1 black-holed: $rate probes a second"
	[ "$rate" -le "$PROBE_RATE_MAX" ] ||
		mrc_fail "$rate probes a second, more than $PROBE_RATE_MAX"
}

# black_hole [DELAY]: plane 2 black-holed on A's side, then healed: all its
# EVs come back.  With DELAY (netem's), healed first into a path of that
# delay, longer than the time between two probes of a retired EV: the
# answers to earlier probes must count, and some EVs come back before the
# delay goes.
black_hole()
{
	local size=$BLACK_HOLE_SIZE k=2 rc=0 res delay=${1:-}

	topology 4 || return 1
	xfer_start "$size" 10.0.1.2 || return 1
	if ! xfer_wait_started; then
		abort
		return 1
	fi
	sample && mrc_info "before: $(plane_figures "$k")"
	mrc_stats_delta "$A" "$tmp" > /dev/null
	tc -n "$A" qdisc add dev "veth$k" root netem loss 100% ||
		mrc_fail "cannot add netem" || rc=1
	if [ "$rc" = 0 ]; then
		if mrc_wait_for 20 retired "$k"; then
			mrc_info "black-holed: $(plane_figures "$k")"
			# Found silent, by its timeouts or by the packets that
			# overtook its own on the other planes: on these planes
			# (a round trip of about 1 ms, 2 ms of margin for both)
			# either may come first.
			mrc_stats_delta "$A" "$tmp" > "$tmp/stats"
			mrc_info "$(grep -E '^(LossElsewhere|LossTimeout|PlaneSilent) ' "$tmp/stats" | tr -s ' \n' '  ')"
			[ "$(mrc_stat PlaneSilent "$tmp/stats")" -ge 1 ] ||
				mrc_fail "plane $k was not found silent" || rc=1
		else
			sample
			mrc_fail "plane $k not retired: $(plane_figures "$k")"
			rc=1
		fi
	fi
	if [ "$rc" = 0 ] && [ -z "$delay" ]; then
		probe_rate "$k" || rc=1
	fi
	res=${RES[k]:-0}
	if [ "$rc" = 0 ] && [ -n "$delay" ]; then
		tc -n "$A" qdisc change dev "veth$k" root netem delay "$delay" ||
			rc=1
		if mrc_wait_for 30 restores "$k" "$res"; then
			mrc_info "healed with $delay of delay: $(plane_figures "$k")"
		else
			sample
			mrc_fail "no EV of plane $k restored over $delay: $(plane_figures "$k")"
			rc=1
		fi
		res=${RES[k]:-0}
	fi
	tc -n "$A" qdisc del dev "veth$k" root || rc=1
	if [ "$rc" = 0 ] && [ -z "$delay" ]; then
		if mrc_wait_for 30 restored "$k" "$res"; then
			mrc_info "healed: $(plane_figures "$k")"
			progress "$size"
		else
			sample
			mrc_fail "plane $k not restored: $(plane_figures "$k")"
			rc=1
		fi
	fi
	running || [ "$rc" != 0 ] ||
		mrc_fail "the transfer ended before the plane was restored" || rc=1
	xfer_stop
	xfer_end "$size" || rc=1
	return "$rc"
}

# flap FLAPS: plane 2 of A down and up every 100 ms while the client runs,
# the client told to end (as xfer_stop) after FLAPS of them; then the
# flaps, the milliseconds they took and whether the client was told (1 or
# 0) into $tmp/flaps.  One ip process takes the
# commands, and a read that times out on a FIFO that nobody writes waits
# 100 ms: starting a process for every flap would take longer than that
# under QEMU.
flap()
{
	local n want=$1

	rm -f "$tmp/never" "$tmp/flaps"
	mkfifo "$tmp/never" || return 1
	(
		exec {never}<> "$tmp/never"
		n=0
		t=${EPOCHREALTIME/[.,]/}
		told=0
		while running; do
			echo "link set dev veth2 down"
			read -r -t 0.1 -u "$never"
			echo "link set dev veth2 up"
			read -r -t 0.1 -u "$never"
			n=$((n + 1))
			[ "$n" != "$want" ] || { kill -USR1 "$cli" 2> /dev/null && told=1; }
		done
		echo "$n $(((${EPOCHREALTIME/[.,]/} - t) / 1000)) $told" > "$tmp/flaps"
	) | ip -n "$A" -force -batch -
}

# Plane 2 of A down and up every 100 ms during a transfer, from the moment
# the transfer is under way on every plane to its end; transfers follow
# one another until plane 2 flapped 10 times (or 8 transfers), the one
# under way told to end at the 10th (and still flapped until it has).
flapping()
{
	local flapper rc=0 i n ms told flaps=0 flap_ms=0

	topology 4 || return 1
	for i in 1 2 3 4 5 6 7 8; do
		mrc_wait_for 10 planes_up "$A" && mrc_wait_for 10 planes_up "$B" ||
			mrc_fail "planes not up: $(ctl "$A" plane show)" || return 1
		xfer_start "$BIG" 10.0.1.2 || return 1
		if ! xfer_wait_started; then
			abort
			return 1
		fi
		flap $((10 - flaps)) &
		flapper=$!
		# Until the client has ended (running() takes a zombie for
		# ended), told to by the flapper or not: only then may it have
		# sent less than its size.
		wait "$flapper"
		n=0 ms=0 told=0
		{ read -r n ms told < "$tmp/flaps"; } 2> /dev/null
		[ "$told" != 1 ] || stopped=1
		xfer_end "$BIG" || rc=1
		flaps=$((flaps + n))
		flap_ms=$((flap_ms + ms))
		[ "$rc" = 0 ] && [ "$flaps" -lt 10 ] || break
	done
	[ "$flaps" -gt 0 ] &&
		mrc_info "plane 2 flapped $flaps times in $flap_ms ms over $i transfers:" \
			"down and up every $((flap_ms / flaps)) ms"
	[ "$flaps" -ge 3 ] || mrc_fail "only $flaps flaps" || rc=1
	return "$rc"
}

# link_packets: packets that $R1 sent on its links l1-l4.
link_packets()
{
	local out name tx
	local -A n=()

	out=$(ip netns exec "$R1" cat /proc/net/dev) || return 1
	while read -r name _ _ _ _ _ _ _ _ _ tx _; do
		n[${name%:}]=$tx
	done <<< "$out"
	echo "${n[l1]} ${n[l2]} ${n[l3]} ${n[l4]}"
}

# some_retired ID RETIREMENTS: plane ID retired EVs, more than RETIREMENTS.
some_retired()
{
	sample && [ "${RET[$1]}" -gt "$2" ]
}

# Plane 1 through two routers joined by four links; link 2 black-holed
# from $R1 to $R2.  Under QEMU, a receiver kept off the CPU for a while
# makes retransmission timeouts retire EVs on healthy paths too, until
# their next probe: an EV hashed onto the black hole is one that none of
# several samples finds active.
fabric()
{
	local k i rc=0 evs act ret size=96M links l1 l2 l3 l4 sum
	local most=() counters=(PlaneSilent PlaneDoubts LossTimeout LossGap LossOtherEv
			       EvRetired) before=()

	topology fabric || return 1
	xfer_start "$size" 10.0.101.2 || return 1
	if ! xfer_wait_started; then
		abort
		return 1
	fi
	links=$(link_packets)
	mrc_info "packets on the fabric's links 1-4: $links"
	read -r l1 l2 l3 l4 <<< "$links"
	sum=$((l1 + l2 + l3 + l4))
	[ "$sum" -gt 0 ] &&
		mrc_info "link 2 carried $((100 * l2 / sum))% of them: about" \
			"$(((32 * l2 + sum / 2) / sum)) of 32 EVs hashed onto it"
	sample || mrc_fail "connection gone" || rc=1
	mrc_info "before: $(plane_figures 1)"
	ret=${RET[1]:-0}
	mrc_snmp "$A" "$cli" || rc=1
	for k in "${counters[@]}"; do
		before+=("${MRC_SNMP[$k]}")
	done
	tc -n "$R1" qdisc add dev l2 root netem loss 100% ||
		mrc_fail "cannot add netem" || rc=1
	if [ "$rc" = 0 ]; then
		mrc_wait_for 20 some_retired 1 "$ret" ||
			mrc_fail "no EV retired on plane 1: $(plane_figures 1)" || rc=1
	fi
	# The most EVs active on each plane over three samples.
	for i in 1 2 3; do
		[ "$rc" = 0 ] || break
		sleep 0.5
		sample || break
		for k in 1 2 3 4; do
			[ "${ACT[k]:-0}" -gt "${most[k]:-0}" ] && most[k]=${ACT[k]}
		done
		mrc_info "sample $i: EVs active on planes 1-4: ${ACT[*]}"
	done
	if [ "$rc" = 0 ]; then
		evs=${EVS[1]} act=${most[1]:-0}
		mrc_info "link 2 of 4 black-holed: $((evs - act)) of $evs EVs of plane 1" \
			"stayed retired"
		mrc_info "$(plane_figures 1)"
		# Why healthy EVs retired too, when they did: the plane found
		# silent whole, timeouts, or gaps.
		mrc_snmp "$A" "$cli" || rc=1
		for k in "${!counters[@]}"; do
			counters[k]+=" $((${MRC_SNMP[${counters[k]}]} - before[k]))"
		done
		mrc_info "since the black hole: ${counters[*]}"
		[ "${RET[1]}" -gt "$ret" ] && [ "$act" -lt "$evs" ] && [ "$act" -gt 0 ] &&
			[ $((2 * act)) -ge "$evs" ] ||
			mrc_fail "plane 1: at most $act of $evs EVs active" || rc=1
		for k in 2 3 4; do
			[ "${most[k]:-0}" = "${EVS[k]}" ] ||
				mrc_fail "plane $k: at most ${most[k]:-0} EVs active" || rc=1
		done
		mrc_info "retirements on planes 2-4: ${RET[2]} ${RET[3]} ${RET[4]}"
		progress "$size"
	fi
	running || [ "$rc" != 0 ] ||
		mrc_fail "the transfer ended before plane 1 was looked at" || rc=1
	xfer_stop
	xfer_end "$size" || rc=1
	mrc_info "packets on the fabric's links 1-4: $(link_packets)"
	tc -n "$R1" qdisc del dev l2 root
	return "$rc"
}

# Plane 1 alone through the fabric, each of its four links limited to
# $FABRIC_RATE Mbit/s over 50 ms of queue.  The EVs hash unevenly onto the
# links, so some queue and others do not, and packets of one EV overtake
# those of another by up to tens of ms: reordering between paths, not
# loss.  The resends beyond the links' drops stay a small part of what
# was sent (taking a later packet of another EV for a sign of loss after
# a quarter of a round trip resent a fifth of the stream).
fabric_queues()
{
	local k rc=0 size=16M sent0 retx0 sent retx drops=0 d
	local counters=(LossGap LossOtherEv LossTimeout LossSilence SpuriousSilences
			EvRetired)
	local before=()

	topology fabric || return 1
	for k in 2 3 4; do
		ctl "$A" plane set id "$k" down > /dev/null || return 1
	done
	for k in 1 2 3 4; do
		tc -n "$R1" qdisc replace dev "l$k" root tbf \
			rate "${FABRIC_RATE}mbit" burst 32k latency 50ms || rc=1
	done
	mrc_snmp "$A" || rc=1
	sent0=${MRC_SNMP[DataSent]} retx0=${MRC_SNMP[Retrans]}
	for k in "${counters[@]}"; do
		before+=("${MRC_SNMP[$k]}")
	done
	if [ "$rc" = 0 ]; then
		xfer_start "$size" 10.0.101.2 && xfer_end "$size" || rc=1
	fi
	# Why packets were resent: gaps (reordering, or drops), timeouts.
	mrc_snmp "$A" || rc=1
	for k in "${!counters[@]}"; do
		counters[k]+=" $((${MRC_SNMP[${counters[k]}]} - before[k]))"
	done
	mrc_info "during the transfer: ${counters[*]}"
	sent=${MRC_SNMP[DataSent]} retx=${MRC_SNMP[Retrans]}
	sent=$((${sent:-0} - ${sent0:-0}))
	retx=$((${retx:-0} - ${retx0:-0}))
	for k in 1 2 3 4; do
		d=$(tc -n "$R1" -s qdisc show dev "l$k" |
			awk '$1 == "Sent" { sub(",", "", $7); print $7; exit }')
		drops=$((drops + ${d:-0}))
		tc -n "$R1" qdisc del dev "l$k" root
	done
	for k in 2 3 4; do
		ctl "$A" plane set id "$k" up > /dev/null || rc=1
	done
	mrc_info "packets on the fabric's links 1-4: $(link_packets)"
	mrc_info "$sent packets sent, $retx resent; the links dropped $drops"
	[ "$rc" = 0 ] || return 1
	[ $((100 * (retx - drops))) -le $((FABRIC_RESENT_PCT * sent)) ] ||
		mrc_fail "$retx resends for $drops drops, of $sent packets"
}

# check DESCRIPTION COMMAND...: mrc_check, and how long the case took.
mrc_check "no failure: the stall of a plain transfer, for comparison" baseline
mrc_check "IPv4, link down on plane 1 (the handshake's) mid-transfer" plane_down 4 link 1
mrc_check "IPv4, address removed from plane 2 mid-transfer" plane_down 4 addr 2
mrc_check "IPv4, plane 1 (the handshake's) deleted mid-transfer" plane_down 4 plane 1
mrc_check "IPv4, the far end's device of plane 3 moved to another namespace" \
	plane_down 4 netns 3
mrc_check "all planes but one cut, then restored one by one" all_but_one
mrc_check "plane 2 black-holed (netem loss 100%): EVs retired, then healed and restored" \
	black_hole
mrc_check "plane 2 black-holed, then healed with 300 ms of delay, more than between two probes: EVs restored" \
	black_hole 300ms
mrc_check "plane 2 flapping every 100 ms" flapping
mrc_check "plane 1 passes the handshake only: planes 2-4 validated over themselves carry the stream" \
	handshake_only
mrc_check "plane 2 cut until its validation gave up, then repaired: a later validation puts it to use" \
	validated_later
mrc_check "IPv6, link down on plane 1 (the handshake's) mid-transfer" plane_down 6 link 1
mrc_check "ECMP fabric in plane 1, one of four links black-holed: only its EVs retired" \
	fabric
mrc_check "ECMP fabric alone, its links' queues uneven: EVs overtaking each other cause few resends" \
	fabric_queues

mrc_finish
