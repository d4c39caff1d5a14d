#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The MRC for Linux benchmarks, run inside a test VM (tools/testing/bench/run
# boots it): MRC, TCP and MPTCP, one after the other on the same topology
# built afresh for each, between two hosts (network namespaces) joined by
# veth planes.  One JSON record per scenario and transport goes to
# OUT/results.jsonl; tools/testing/bench/report turns them into a table
# and plots.
#
#   bench.sh [-q] [-e] [-P] [-o OUT] [-r MBIT] [-d SECONDS] [-N CONNS] [-T mrc,tcp,mptcp] [-s NAME=VALUE] [-R REPEATS] [SCENARIO...]
#
#   -q   quick mode: short runs of a few scenarios (a smoke test for CI)
#   -o   output directory (default /tmp/bench)
#   -e   at the end, print the output directory as a base64 tarball between
#        BENCH-TAR-BEGIN and BENCH-TAR-END lines (the guest's root is
#        read-only: this is how the results reach the host)
#   -P   profile: perf record -a -g over each client run (its first
#        seconds, as long as the run is meant to last), and the symbols
#        taking 0.5% of the samples or more, self time, in
#        OUT/profile-SCENARIO-TRANSPORT.txt (the profiler's cost skews the
#        figures: a run to read profiles, not to quote; in a TCG guest
#        the sampling timer lands almost only in the idle loop, so read
#        profiles taken under KVM or on real hosts)
#   -r   rate of each rate-limited link in Mbit/s (default 100; planes8
#        uses half of it per link, so that its total is that of planes4)
#   -d   length of each bulk run in seconds (default 10; 4 with -q)
#   -N   idle connected pairs in the conns scenario (default 2000; 100 with -q)
#   -T   transports (default mrc,tcp,mptcp)
#   -s   NAME=VALUE: net.mrc.NAME in every namespace made (repeatable),
#        to compare settings, e.g. -s target_delay_us=0
#   -b   buffers of rtt50 and rtt200 in MiB, every transport's (default
#        16: the 2.5 MB window of both and room for the queue)
#   -B   USEC: every MRC plane given this base round trip (mrcctl plane
#        add ... base-rtt), to compare with the measured one (default:
#        none)
#   -R   run each scenario REPEATS times (default 1), each time on a
#        topology built afresh and with every transport in turn, so that
#        a slow spell of the machine falls on all of them; each record
#        says which repeat it is, and the report gives min/median/max
#
# Scenarios: planes1 planes2 planes4 planes8 fabric blackhole linkdown
# loss1 latency_under_load incast victim rtt1 rtt5 rtt50 rtt200 unlimited jumbo
# pingpong conns torch_allreduce (default: all; with
# -q: blackhole pingpong).  torch_allreduce (four hosts, PyTorch) needs
# python3-torch, and mptcpize (mptcpd) for its MPTCP run.

top=$(cd "$(dirname "$0")/../../.." && pwd)
PERF=${MRCPERF:-$top/tools/mrcperf/mrcperf}
MRCCTL=${MRCCTL:-$top/tools/mrcctl/mrcctl}
MRCIZE=${MRCIZE:-$top/tools/mrcize/mrcize}
TORCH_JOB=$top/tools/testing/bench/torch_allreduce.py
# torch_allreduce: the tensor, and the all_reduce before and after the
# failure.
torch_bytes=$((64 << 20))
torch_iters=3

quick=0
out=/tmp/bench
emit=0
rate=100
big_mib=16
dur=
transports=mrc,tcp,mptcp
nconns=
sysctls=()
profile=0
repeats=1
rep=1
base_rtt=0
while getopts "qePo:r:d:N:T:s:b:B:R:h" opt; do
	case $opt in
	q) quick=1 ;;
	o) out=$OPTARG ;;
	e) emit=1 ;;
	P) profile=1 ;;
	r) rate=$OPTARG ;;
	d) dur=$OPTARG ;;
	N) nconns=$OPTARG ;;
	T) transports=$OPTARG ;;
	s) sysctls+=("net.mrc.$OPTARG") ;;
	b) big_mib=$OPTARG ;;
	R) repeats=$OPTARG ;;
	B) base_rtt=$OPTARG ;;
	*) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $repeats =~ ^[1-9][0-9]*$ ]] ||
	{ echo "bench: -R needs a count of 1 or more" >&2; exit 2; }
[[ $base_rtt =~ ^[0-9]+$ ]] ||
	{ echo "bench: -B needs microseconds" >&2; exit 2; }
# What "mrcctl plane add" gives every MRC plane beside its device and id.
plane_opts=()
[ "$base_rtt" = 0 ] || plane_opts=(base-rtt "$base_rtt")
if [ $quick = 1 ]; then
	dur=${dur:-4}
	pp_dur=2
	nconns=${nconns:-100}
	scenarios=${*:-blackhole pingpong}
else
	dur=${dur:-10}
	pp_dur=10
	nconns=${nconns:-2000}
	scenarios=${*:-planes1 planes2 planes4 planes8 fabric blackhole linkdown loss1 latency_under_load incast victim rtt1 rtt5 rtt50 rtt200 unlimited jumbo pingpong conns torch_allreduce}
fi
# Seconds a stalled transfer is given after its end before it is cut.
grace=3
# Goodput of a full-sized frame's payload: the TCP MSS with timestamps
# (1448 B) over the frame that tbf counts (1500 B + 14 B of Ethernet).
eff=$(echo "1448 / 1514" | bc -l)

for tool in "$PERF" "$MRCCTL"; do
	[ -x "$tool" ] || { echo "bench: $tool not built" >&2; exit 1; }
done
[ $profile = 0 ] || command -v perf > /dev/null ||
	{ echo "bench: -P needs perf" >&2; exit 1; }
for tool in jq tc ip bc; do
	command -v $tool > /dev/null || { echo "bench: needs $tool" >&2; exit 1; }
done
lsmod | grep -q '^mrc ' || modprobe mrc || exit 1
mrc_rmem=$(sysctl -n net.mrc.rmem)
mrc_wmem=$(sysctl -n net.mrc.wmem)

mkdir -p "$out"
res=$out/results.jsonl
: > "$res"
: > "$out/log.txt"
[ ${#sysctls[@]} = 0 ] || echo "settings: ${sysctls[*]}" >> "$out/log.txt"
work=$(mktemp -d)
A=bench-a
B=bench-b
R1=bench-r1
R2=bench-r2
SW=bench-sw
HOSTS=(bench-h1 bench-h2 bench-h3 bench-h4 bench-h5 bench-h6 bench-h7
       bench-h8 bench-h9 bench-h10)
hosts=()
servers=()
declare -A ports=([mrc]=5201 [tcp]=5202 [mptcp]=5203)
failures=0

log()
{
	echo "$*" | tee -a "$out/log.txt"
}

teardown()
{
	local pid

	sysctl -qw net.mrc.rmem="$mrc_rmem" net.mrc.wmem="$mrc_wmem"

	for pid in "${servers[@]}"; do
		kill "$pid" 2> /dev/null
	done
	servers=()
	for ns in $A $B $R1 $R2 $SW "${HOSTS[@]}"; do
		ip netns del $ns 2> /dev/null
	done
}
trap 'teardown; rm -rf "$work"' EXIT

ns_add()
{
	for ns in "$@"; do
		ip netns add "$ns" && ip -n "$ns" link set lo up || return 1
		[ ${#sysctls[@]} = 0 ] ||
			ip netns exec "$ns" sysctl -qw "${sysctls[@]}" || return 1
	done
}

# limit NS DEV [PARENT...]: DEV of NS carries at most $link_rate Mbit/s (a
# tbf at the root, or where PARENT says, e.g. "parent 1:1 handle 10:").
limit()
{
	local ns=$1 dev=$2

	shift 2
	tc -n "$ns" qdisc replace dev "$dev" "${@:-root}" tbf \
		rate "${link_rate}mbit" burst 32k latency 20ms
}

# lossy N: each of the N planes loses 1% of its packets each way, at
# random (netem), ahead of its limit.
lossy()
{
	local k ns

	for k in $(seq 1 "$1"); do
		for ns in $A $B; do
			tc -n $ns qdisc replace dev veth$k root handle 1: \
				netem loss 1% limit 100000 &&
				limit $ns veth$k parent 1:1 handle 10: || return 1
		done
	done
}

# planes N RATED [MTU]: hosts A and B joined by N veth pairs, pair K being
# vethK with 10.0.K.1 on A and 10.0.K.2 on B, each limited to $link_rate
# when RATED, of MTU bytes (default 1500).
planes()
{
	local k a=() b=() mtu=${3:-1500}

	ns_add $A $B || return 1
	for k in $(seq 1 "$1"); do
		a+=("link add veth$k mtu $mtu type veth peer name veth$k mtu $mtu netns $B"
		    "addr add 10.0.$k.1/24 dev veth$k"
		    "link set veth$k up")
		b+=("addr add 10.0.$k.2/24 dev veth$k" "link set veth$k up")
	done
	printf '%s\n' "${a[@]}" | ip -n $A -batch - &&
		printf '%s\n' "${b[@]}" | ip -n $B -batch - || return 1
	if [ "$2" = 1 ]; then
		for k in $(seq 1 "$1"); do
			limit $A veth$k && limit $B veth$k || return 1
		done
	fi
	devs_a=$(seq -f 'veth%g' 1 "$1" | tr '\n' ' ')
	nplanes=$1
	server_addr=10.0.1.2
}

# fabric: A and B joined by one plane that crosses two routers, R1 and R2,
# joined by four equal-cost links f1..f4 (each limited to $link_rate) with
# L4-hash ECMP: A p0 10.1.0.1 - R1 - f1..f4 10.2.K.0/24 - R2 - B p0 10.3.0.2.
fabric()
{
	local k nh1="" nh2=""

	ns_add $A $B $R1 $R2 || return 1
	ip -n $A link add p0 type veth peer name p0 netns $R1 &&
	ip -n $B link add p0 type veth peer name p1 netns $R2 || return 1
	for k in 1 2 3 4; do
		ip -n $R1 link add f$k type veth peer name f$k netns $R2 || return 1
		ip -n $R1 addr add 10.2.$k.1/24 dev f$k
		ip -n $R2 addr add 10.2.$k.2/24 dev f$k
		ip -n $R1 link set f$k up
		ip -n $R2 link set f$k up
		limit $R1 f$k && limit $R2 f$k || return 1
		nh1+=" nexthop via 10.2.$k.2 dev f$k"
		nh2+=" nexthop via 10.2.$k.1 dev f$k"
	done
	ip -n $A addr add 10.1.0.1/24 dev p0
	ip -n $R1 addr add 10.1.0.2/24 dev p0
	ip -n $R2 addr add 10.3.0.1/24 dev p1
	ip -n $B addr add 10.3.0.2/24 dev p0
	for ns in $A $B $R1 $R2; do
		ip -n $ns link set p0 up 2> /dev/null
	done
	ip -n $R2 link set p1 up
	for ns in $R1 $R2; do
		ip netns exec $ns sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv4.fib_multipath_hash_policy=1 \
			net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0
	done
	ip -n $A route add default via 10.1.0.2 &&
	ip -n $B route add default via 10.3.0.1 &&
	ip -n $R1 route add 10.3.0.0/24 $nh1 &&
	ip -n $R2 route add 10.1.0.0/24 $nh2 || return 1
	devs_a=p0
	nplanes=1
	server_addr=10.3.0.2
}

# rtt MS [N]: N planes (1 by default), each limited to $link_rate with a
# round trip of MS milliseconds, half of it each way (netem, with tbf below
# it on A).
rtt()
{
	local half k

	half=$(echo "$1 / 2" | bc -l)
	planes "${2:-1}" 0 || return 1
	for k in $(seq 1 "${2:-1}"); do
		tc -n $A qdisc add dev veth$k root handle 1: netem \
			delay "${half}ms" limit 100000 &&
		tc -n $A qdisc add dev veth$k parent 1:1 handle 10: tbf \
			rate "${link_rate}mbit" burst 32k latency 50ms &&
		tc -n $B qdisc add dev veth$k root netem delay "${half}ms" \
			limit 100000 || return 1
	done
}

# big_buffers BYTES: buffers of up to BYTES for every transport on $A and
# $B, for a window of a long fat pipe: TCP's (and MPTCP's) autotuning
# bounds, tcp_rmem and tcp_wmem, and MRC's defaults, net.mrc.rmem and
# wmem, which are global and which teardown puts back.
big_buffers()
{
	local ns

	for ns in $A $B; do
		ip netns exec $ns sysctl -qw \
			net.ipv4.tcp_rmem="4096 131072 $1" \
			net.ipv4.tcp_wmem="4096 16384 $1" || return 1
	done
	sysctl -qw net.mrc.rmem="4096 $1 $1" \
		net.mrc.wmem="4096 $1 $(echo "$mrc_wmem" | awk '{ print $3 }')"
}

# setup_transport T: what transport T needs on the topology: MRC planes
# (id K for the K-th plane device), or MPTCP subflow endpoints on A, one
# per extra plane, bound to its device.
setup_transport()
{
	local dev k=0 addr

	case $1 in
	mrc)
		for dev in $devs_a; do
			k=$((k + 1))
			$MRCCTL -n $A plane add dev "$dev" id $k "${plane_opts[@]}" ||
				return 1
		done
		k=0
		for dev in $(ip -n $B -br link | awk '$1 !~ /^lo/ {sub(/@.*/, "", $1); print $1}' | sort -V); do
			k=$((k + 1))
			$MRCCTL -n $B plane add dev "$dev" id $k "${plane_opts[@]}" ||
				return 1
		done
		;;
	mptcp)
		ip -n $A mptcp limits set subflows 8 add_addr_accepted 8 &&
		ip -n $B mptcp limits set subflows 8 add_addr_accepted 8 || return 1
		for dev in $devs_a; do
			k=$((k + 1))
			[ $k = 1 ] && continue
			addr=$(ip -n $A -4 -br addr show dev "$dev" | awk '{sub(/\/.*/, "", $3); print $3}')
			ip -n $A mptcp endpoint add "$addr" dev "$dev" subflow || return 1
		done
		;;
	esac
}

# tx_bytes NS DEV...: the bytes each DEV has sent, space-separated.
tx_bytes()
{
	local ns=$1

	shift
	# shellcheck disable=SC2016
	ip netns exec "$ns" bash -c 'for d; do
		read -r v < "/sys/class/net/$d/statistics/tx_bytes"
		printf "%s " "$v"
	done' bash "$@"
}

# start_server T [NS [NAME]]: the server of transport T on NS (default B),
# on a port of its own; its output in $work/server.NAME (default T).
start_server()
{
	local ns=${2:-$B} out=$work/server.${3:-$1}

	rm -f "$out"
	ip netns exec "$ns" "$PERF" -s -j -t "$1" -p "${ports[$1]}" \
		-G $((grace * 1000)) > "$out" 2> "$out.err" &
	servers+=($!)
	for _ in $(seq 100); do
		grep -q ready "$out" 2> /dev/null && return 0
		sleep 0.1
	done
	cat "$out.err" >&2
	return 1
}

# server_result NAME [N]: the server's line about the transfer (the N
# lines of N transfers), once there, from $work/server.NAME.
server_result()
{
	local n=${2:-1}

	for _ in $(seq $(((grace + 5) * 10))); do
		[ "$(grep -c '"role":"server"' "$work/server.$1")" -ge "$n" ] &&
			break
		sleep 0.1
	done
	grep -m "$n" '"role":"server"' "$work/server.$1"
}

# event KIND: the failure, midway through the transfer, on the first plane.
event()
{
	case $1 in
	blackhole)
		tc -n $A qdisc replace dev veth1 root netem loss 100% &&
		tc -n $B qdisc replace dev veth1 root netem loss 100%
		;;
	linkdown)
		ip -n $A link set veth1 down
		;;
	esac
}

# restore KIND: undo the failure for the next transport.
restore()
{
	case $1 in
	blackhole)
		limit $A veth1 && limit $B veth1
		;;
	linkdown)
		ip -n $A link set veth1 up
		for _ in $(seq 50); do
			ip -n $B link show veth1 | grep -q LOWER_UP &&
				! $MRCCTL -n $A plane show | grep -q link-down && break
			sleep 0.1
		done
		;;
	esac
}

# record SCENARIO T LIMIT CLIENT SERVER EXTRA: one line of results.jsonl.
record()
{
	jq -cn --arg scenario "$1" --arg transport "$2" --argjson limit "$3" \
		--argjson client "${4:-null}" --argjson server "${5:-null}" \
		--argjson extra "${6:-{\}}" --argjson rep "$rep" '
		($server.goodput_mbps // $client.server.goodput_mbps // null) as $g |
		{scenario: $scenario, transport: $transport, repeat: $rep,
		 limit_mbps: $limit,
		 goodput_mbps: $g,
		 ratio: (if $g != null and $limit > 0 then $g / $limit else null end),
		 stall_ms: ($server.stall_ms // $client.server.stall_ms // null),
		 complete: ($server.complete // null),
		 client: $client, server: $server} + $extra' >> "$res"
}

# setup SCENARIO: build the topology of SCENARIO afresh, with MRC planes
# and MPTCP endpoints, and start a server for each transport.
setup()
{
	local sc=$1 t

	teardown
	link_rate=$rate
	[ "$sc" = planes8 ] && link_rate=$(echo "$rate / 2" | bc -l | sed 's/\.\?0*$//')
	case $sc in
	planes*)
		planes "${sc#planes}" 1
		topo="${sc#planes} plane$([ "${sc#planes}" = 1 ] || echo s) of $link_rate Mbit/s"
		;;
	loss1)
		planes 4 1 && lossy 4
		topo="4 planes of $link_rate Mbit/s, each losing 1% each way"
		;;
	latency_under_load)
		planes 4 1
		topo="4 planes of $link_rate Mbit/s: 64-byte ping-pong beside a bulk transfer"
		;;
	blackhole|linkdown)
		planes 4 1
		topo="4 planes of $link_rate Mbit/s, the first fails at $(echo "$dur / 2" | bc -l | sed 's/\.\?0*$//') s"
		;;
	fabric)
		fabric
		topo="1 plane: ECMP over 4 links of $link_rate Mbit/s"
		;;
	rtt50)
		rtt 50 4 && big_buffers $((big_mib << 20))
		topo="4 planes of $link_rate Mbit/s, 50 ms RTT, buffers up to $big_mib MiB"
		;;
	rtt200)
		rtt 200 1 && big_buffers $((big_mib << 20))
		topo="1 plane of $link_rate Mbit/s, 200 ms RTT, buffers up to $big_mib MiB"
		;;
	rtt*)
		rtt "${sc#rtt}"
		topo="1 plane of $link_rate Mbit/s, ${sc#rtt} ms RTT"
		;;
	unlimited|pingpong|conns)
		planes 1 0
		topo="1 veth, no limit"
		;;
	jumbo)
		planes 1 0 9000
		topo="1 veth of MTU 9000, no limit"
		;;
	esac || { log "$sc: topology setup failed"; return 1; }
	for t in ${transports//,/ }; do
		setup_transport "$t" || { log "$sc $t: transport setup failed"; return 1; }
		start_server "$t" || { log "$sc $t: server did not start"; return 1; }
	done
}

# prof_start SECONDS, prof_stop SCENARIO TRANSPORT: with -P, sample every
# CPU for SECONDS from the first (perf's own timer: a background job
# ignores SIGINT), and keep the report at the second.
prof_start()
{
	[ $profile = 1 ] || return 0
	perf record -a -g -q -o "$work/perf.data" -- sleep "$1" \
		> /dev/null 2>&1 &
	prof_pid=$!
	sleep 0.5
}

prof_stop()
{
	[ $profile = 1 ] || return 0
	wait "$prof_pid"
	perf report -i "$work/perf.data" --stdio --no-children -g none \
		--sort dso,sym --percent-limit 0.5 2> /dev/null |
		grep -v '^$' > "$out/profile-$1-$2$([ "$repeats" = 1 ] || echo ".$rep").txt"
	rm -f "$work/perf.data"
}

# run SCENARIO T: run transport T over the topology of SCENARIO and record
# the outcome.
run()
{
	local sc=$1 t=$2 limit=0 args=() extra='{}' ev='' evs=0 c s rc
	local before after links dur_s=$dur port=${ports[$2]} bulk=

	case $sc in
	blackhole|linkdown) ev=$sc ;;
	esac
	case $sc in
	planes*|rtt*|loss1|latency_under_load)
		limit=$(echo "$nplanes * $link_rate * $eff" | bc -l) ;;
	fabric) limit=$(echo "4 * $link_rate * $eff" | bc -l) ;;
	blackhole|linkdown)
		# Four planes for the first half, three for the second.
		evs=$(echo "$dur / 2" | bc -l)
		limit=$(echo "3.5 * $link_rate * $eff" | bc -l)
		;;
	esac
	case $sc in
	pingpong) args=(-w pingpong -d "$pp_dur") ;;
	# The ping-pong inside the bulk transfer: a second in, a second
	# before its end.
	latency_under_load) args=(-w pingpong -d $((dur > 3 ? dur - 2 : 1))) ;;
	conns) args=(-w conns -N "$nconns" -H 2000) ;;
	*) args=(-w bulk -d "$dur_s" -G $((grace * 1000))) ;;
	esac
	if [ "$sc" = fabric ]; then
		links="f1 f2 f3 f4"
		before=$(tx_bytes $R1 $links)
	else
		links=$devs_a
		before=$(tx_bytes $A $links)
	fi
	if [ "$sc" = latency_under_load ]; then
		ip netns exec $A "$PERF" -c $server_addr -j -t "$t" -p $port \
			-L "$sc" -w bulk -d "$dur_s" -G $((grace * 1000)) \
			> "$work/bulk" 2> "$work/bulk.err" &
		bulk=$!
		sleep 1
	fi
	case $sc in
	pingpong) prof_start "$pp_dur" ;;
	conns) prof_start 5 ;;
	*) prof_start "$dur_s" ;;
	esac
	ip netns exec $A "$PERF" -c $server_addr -j -t "$t" -p $port -L "$sc" \
		"${args[@]}" > "$work/client" 2> "$work/client.err" &
	c=$!
	if [ -n "$ev" ]; then
		sleep "$evs"
		event "$ev"
	fi
	wait $c
	rc=$?
	prof_stop "$sc" "$t"
	if [ -n "$bulk" ]; then
		wait $bulk || rc=$?
		cat "$work/bulk.err" >> "$work/client.err"
	fi
	if [ "$sc" = fabric ]; then
		after=$(tx_bytes $R1 $links)
	else
		after=$(tx_bytes $A $links)
	fi
	s=
	case $sc in
	pingpong|conns) ;;
	*) s=$(server_result "$t") ;;
	esac
	c=$(grep -m 1 '"role":"client"' "$work/client")
	extra=$(jq -cn --arg links "$links" --arg b "$before" --arg a "$after" \
		--argjson rate "$link_rate" --arg ev "$ev" --argjson evs "$evs" \
		--arg topo "$topo" \
		--arg err "$(cat "$work/client.err")" --argjson rc $rc \
		--argjson planes "$nplanes" '
		($b | split(" ") | map(select(. != "") | tonumber)) as $b |
		($a | split(" ") | map(select(. != "") | tonumber)) as $a |
		{planes: $planes, rate_mbps: $rate, topology: $topo, rc: $rc,
		 links: [($links | split(" ") | map(select(. != ""))) as $l |
			 range(0; $l | length) |
			 {dev: $l[.], tx_bytes: ($a[.] - $b[.])}]}
		+ (if $ev != "" then {event: $ev, event_s: $evs} else {} end)
		+ (if $err != "" then {error: $err} else {} end)')
	record "$sc" "$t" "$limit" "$c" "$s" "$extra"
	if [ $rc != 0 ] || [ -z "$c" ]; then
		failures=$((failures + 1))
		log "$sc $t: FAILED (exit $rc): $(cat "$work/client.err")"
	fi
	tail -n 1 "$res" | jq -r --argjson t $SECONDS '"[\($t)s] \(.scenario) \(.transport): " +
		(if .goodput_mbps != null then "\(.goodput_mbps * 100 | round / 100) Mbit/s" + (if .limit_mbps > 0 then " of \(.limit_mbps * 10 | round / 10) (\((.ratio // 0) * 1000 | round / 10)%)" else "" end) + ", stall \(.stall_ms) ms" else "" end) +
		(if .client.p50_us then (if .goodput_mbps != null then "; " else "" end) + "p50 \(.client.p50_us) us p99 \(.client.p99_us) us p99.9 \(.client.p999_us) us, \(.client.rate)/s" else "" end) +
		(if .client.slab_per_pair then "\(.client.conns) pairs, \(.client.slab_per_pair | round) B of slab per pair" else "" end) +
		" links " + ([.links[] | "\(.dev)=\(.tx_bytes / 1e6 | round)MB"] | join(" "))' |
		tee -a "$out/log.txt"
	[ -n "$ev" ] && restore "$ev"
}

# switched N BRIDGES BOTHWAYS: the first N of HOSTS, in $hosts, on bridges
# br1..brBRIDGES of SW: the I-th host's vethK a port of brK with 10.0.K.I.
# Bridges 1-4 are the planes, each port limited to $link_rate from the host,
# and with BOTHWAYS=1 from the switch too (a host's downlink, where an
# incast queues); br5 is a link that is not a plane.
switched()
{
	local i=0 k ns

	hosts=("${HOSTS[@]:0:$1}")
	ns_add $SW "${hosts[@]}" || return 1
	for k in $(seq 1 "$2"); do
		ip -n $SW link add br$k type bridge &&
			ip -n $SW link set br$k up || return 1
	done
	for ns in "${hosts[@]}"; do
		i=$((i + 1))
		for k in $(seq 1 "$2"); do
			ip -n $SW link add s$i-$k type veth peer name veth$k netns "$ns" &&
				ip -n $SW link set s$i-$k master br$k up &&
				ip -n "$ns" addr add 10.0.$k.$i/24 dev veth$k &&
				ip -n "$ns" link set veth$k up || return 1
			[ $k = 5 ] && continue
			limit "$ns" veth$k || return 1
			[ "$3" = 1 ] || continue
			limit $SW s$i-$k || return 1
		done
	done
}

# torch_topology: four hosts on four planes, and br5 for the job's
# rendezvous store.
torch_topology()
{
	switched 4 5 0
}

# hosts_transport T: on every host of $hosts, the planes of MRC, or the
# MPTCP endpoints (one per plane past the first).
hosts_transport()
{
	local ns i=0 k

	case $1 in
	mrc)
		for ns in "${hosts[@]}"; do
			for k in 1 2 3 4; do
				$MRCCTL -n "$ns" plane add dev veth$k id $k \
					"${plane_opts[@]}" || return 1
			done
		done
		;;
	mptcp)
		for ns in "${hosts[@]}"; do
			i=$((i + 1))
			ip -n "$ns" mptcp limits set subflows 8 add_addr_accepted 8 || return 1
			for k in 2 3 4; do
				ip -n "$ns" mptcp endpoint add 10.0.$k.$i dev veth$k subflow ||
					return 1
			done
		done
		;;
	esac
}

# torch_transport T: hosts_transport, and the command that runs a rank in
# ${wrap[@]}.
torch_transport()
{
	hosts_transport "$1" || return 1
	case $1 in
	mrc)
		wrap=("$MRCIZE" run -a 10.0.1.0/24,10.0.2.0/24,10.0.3.0/24,10.0.4.0/24
		      -x "$torch_port")
		;;
	mptcp) wrap=(mptcpize run) ;;
	*) wrap=() ;;
	esac
}

# torch_half N: every rank printed "half" (or is gone).
torch_half()
{
	local i

	for i in 0 1 2 3; do
		grep -q '^half' "$work/torch.$i" 2> /dev/null && continue
		kill -0 "${torch_pids[$i]}" 2> /dev/null && return 1
	done
}

# torch_allreduce: for each transport, a 4-rank all_reduce of $torch_bytes
# over the four hosts (MRC and MPTCP over 4 planes, TCP over plane 1),
# $torch_iters times, plane 1 failing (its switch ports down), and as many
# times again; rank 0's times are the result.
torch_allreduce()
{
	local t i rc r topo line

	if ! python3 -c 'import torch' 2> /dev/null; then
		log "torch_allreduce: skipped, python3-torch is not installed"
		return 0
	fi
	link_rate=$rate
	topo="4 hosts, 4 planes of $link_rate Mbit/s (TCP: plane 1), plane 1 fails midway"
	for t in ${transports//,/ }; do
		teardown
		if [ "$t" = mptcp ] && ! command -v mptcpize > /dev/null; then
			log "torch_allreduce mptcp: skipped, mptcpize (mptcpd) is not installed"
			continue
		fi
		torch_port=$((29500 + RANDOM % 1000))
		torch_topology && torch_transport "$t" ||
			{ log "torch_allreduce $t: setup failed"; failures=$((failures + 1)); continue; }
		rm -rf "$work/torch" && mkdir -p "$work/torch"
		torch_pids=()
		for i in 0 1 2 3; do
			ip netns exec "${hosts[$i]}" env GLOO_SOCKET_IFNAME=veth1 \
				"${wrap[@]}" python3 "$TORCH_JOB" $i 4 10.0.5.1 \
				"$torch_port" "$torch_bytes" "$torch_iters" "$work/torch" \
				> "$work/torch.$i" 2>&1 &
			torch_pids+=($!)
		done
		for _ in $(seq 6000); do
			torch_half && break
			sleep 0.1
		done
		for i in 1 2 3 4; do
			ip -n $SW link set s$i-1 down
		done
		touch "$work/torch/failed"
		rc=0
		for i in 0 1 2 3; do
			wait "${torch_pids[$i]}" || rc=$?
		done
		line=$(grep -m 1 '^{' "$work/torch.0")
		[ -n "$line" ] || line=null
		r=$(jq -cn --argjson rc $rc --arg topo "$topo" --argjson rate "$link_rate" \
			--arg err "$(grep -v '^{\|^half' "$work/torch.0" | tail -n 3)" '
			{planes: 4, rate_mbps: $rate, topology: $topo, rc: $rc,
			 event: "linkdown", links: []}
			+ (if $err != "" then {error: $err} else {} end)')
		record torch_allreduce "$t" 0 "$line" "" "$r"
		if [ "$line" = null ] || [ $rc != 0 ]; then
			failures=$((failures + 1))
			log "torch_allreduce $t: FAILED (exit $rc): $(tail -n 3 "$work/torch.0")"
		fi
		tail -n 1 "$res" | jq -r --argjson t $SECONDS '
			def med: if length == 0 then null else sort | .[length / 2 | floor] end;
			"[\($t)s] torch_allreduce \(.transport): \((.client.bytes // 0) / 1048576) MiB, " +
			"\(.client.ms_before // [] | med) ms per all_reduce, " +
			"\(.client.ms_after // [] | med) ms after plane 1 failed" +
			(if .client.complete == false then ", FAILED: \(.client.error)" else "" end)' |
			tee -a "$out/log.txt"
	done
	teardown
}

# bulk_from I DST T NAME: a bulk transfer of transport T from the I-th
# host of $hosts to DST, in the background (its pid appended to $pids),
# its client's line in $work/NAME.
bulk_from()
{
	ip netns exec "${hosts[$1]}" "$PERF" -c "$2" -j -t "$3" -p "${ports[$3]}" \
		-L "$4" -w bulk -d "$dur" -G $((grace * 1000)) \
		> "$work/$4" 2> "$work/$4.err" &
	pids+=($!)
}

# flows_result NAME N: from the N lines of server NAME, one JSON object:
# the goodputs, their sum, Jain's fairness index over them, the longest
# stall and whether all completed.
flows_result()
{
	server_result "$1" "$2" | jq -cs '[.[].goodput_mbps // 0] as $g |
		($g | add) as $sum | ($g | map(. * .) | add) as $sq |
		{goodput_mbps: $sum, flows_mbps: $g,
		 jain: (if $sq > 0 then $sum * $sum / ($g | length) / $sq else null end),
		 stall_ms: ([.[].stall_ms // 0] | max),
		 complete: (length == '"$2"' and all(.complete))}'
}

# senders_view N NAME: in the middle of a run of N senders (hosts 1-N,
# started in that order), what MRC's window control holds on each: the
# base round trip, smoothed round trip and window of every plane, as
# "mrcctl conn show" tells them; in $work/NAME.view, a JSON array.
senders_view()
{
	local i

	sleep $((dur / 2))
	for ((i = 0; i < $1; i++)); do
		$MRCCTL -n "${hosts[$i]}" -j conn show |
			jq -c --argjson host $((i + 1)) '{host: $host, planes:
				[.[0].planes // [] | .[] |
				 {id, base_rtt_us, srtt_us, cwnd}]}'
	done | jq -cs . > "$work/$2.view"
}

# hosts_result N NAME: each sender's goodput as its peer counted it, in
# the order the senders started (hosts 1-N), from the clients' lines.
hosts_result()
{
	local i

	for ((i = 0; i < $1; i++)); do
		grep -m 1 '"role":"client"' "$work/$2.$i" || echo null
	done | jq -cs '[.[] | .server.goodput_mbps? // null]'
}

# incast: for each transport, 8 senders (hosts 1-8) to one receiver (host
# 9) over four planes whose every link is limited both ways: the total
# goodput against the receiver's four downlinks, Jain's index over the 8
# flows, each host's goodput, and for MRC what each held midway.
incast()
{
	local t i rc s limit view

	link_rate=$rate
	limit=$(echo "4 * $link_rate * $eff" | bc -l)
	for t in ${transports//,/ }; do
		teardown
		switched 9 4 1 && hosts_transport "$t" &&
			start_server "$t" "${hosts[8]}" "incast.$t" ||
			{ log "incast $t: setup failed"; failures=$((failures + 1)); continue; }
		pids=()
		for i in 0 1 2 3 4 5 6 7; do
			bulk_from $i 10.0.1.9 "$t" "incast.$t.$i"
		done
		view=null
		if [ "$t" = mrc ]; then
			senders_view 8 "incast.$t"
			view=$(cat "$work/incast.$t.view")
		fi
		rc=0
		for i in "${pids[@]}"; do
			wait "$i" || rc=$?
		done
		s=$(flows_result "incast.$t" 8)
		record incast "$t" "$limit" "$(grep -m 1 '"role":"client"' "$work/incast.$t.0")" \
			"$s" "$(jq -cn --argjson rc $rc --argjson rate "$link_rate" \
				--argjson s "$s" --argjson hosts "$(hosts_result 8 "incast.$t")" \
				--argjson view "$view" '{planes: 4, rate_mbps: $rate,
				topology: "8 hosts to 1 over 4 planes of \($rate) Mbit/s (every link limited both ways)",
				rc: $rc, links: [], jain: $s.jain, hosts_mbps: $hosts}
				+ (if $view != null then {midway: $view} else {} end)')"
		[ $rc = 0 ] || { failures=$((failures + 1)); log "incast $t: FAILED (exit $rc)"; }
		tail -n 1 "$res" | jq -r --argjson t $SECONDS '"[\($t)s] incast \(.transport): \(.goodput_mbps * 10 | round / 10) Mbit/s of \(.limit_mbps * 10 | round / 10), Jain \(.jain // 0 | . * 1000 | round / 1000); hosts 1-8: \([.hosts_mbps[] | . // 0 | . * 10 | round / 10] | join(" "))" +
			(if .midway then "; midway, base RTT us (min over planes): \([.midway[] | [.planes[].base_rtt_us // empty] | min // 0] | join(" "))" else "" end)' |
			tee -a "$out/log.txt"
	done
	teardown
}

# victim: for each transport, a flow from host 1 to host 10 alone, then
# again while hosts 1-7 send to host 9 (a 7:1 incast that shares host 1's
# uplinks with the victim, not its receiver): the victim's goodput with
# the incast, and alone.
victim()
{
	local t i rc s alone crowd host1 limit

	link_rate=$rate
	limit=$(echo "4 * $link_rate * $eff" | bc -l)
	for t in ${transports//,/ }; do
		teardown
		switched 10 4 1 && hosts_transport "$t" &&
			start_server "$t" "${hosts[9]}" "victim.$t" &&
			start_server "$t" "${hosts[8]}" "victim-incast.$t" ||
			{ log "victim $t: setup failed"; failures=$((failures + 1)); continue; }
		pids=()
		bulk_from 0 10.0.1.10 "$t" "victim.$t.alone"
		rc=0
		wait "${pids[0]}" || rc=$?
		alone=$(server_result "victim.$t" | jq '.goodput_mbps // 0')
		pids=()
		bulk_from 0 10.0.1.10 "$t" "victim.$t"
		for i in 0 1 2 3 4 5 6; do
			bulk_from $i 10.0.1.9 "$t" "victim-incast.$t.$i"
		done
		for i in "${pids[@]}"; do
			wait "$i" || rc=$?
		done
		s=$(server_result "victim.$t" 2 | tail -n 1)
		crowd=$(flows_result "victim-incast.$t" 7)
		# The server's lines do not tell the flows apart; the client's
		# line carries what its server measured.
		host1=$(grep -m 1 '"role":"client"' "$work/victim-incast.$t.0" |
			jq '.server.goodput_mbps // null')
		record victim "$t" "$limit" "$(grep -m 1 '"role":"client"' "$work/victim.$t")" \
			"$s" "$(jq -cn --argjson rc $rc --argjson rate "$link_rate" \
				--argjson alone "${alone:-0}" --argjson crowd "$crowd" \
				--argjson host1 "${host1:-null}" '{planes: 4, rate_mbps: $rate,
				topology: "host 1 to host 10 beside a 7:1 incast from hosts 1-7 to host 9, 4 planes of \($rate) Mbit/s",
				rc: $rc, links: [], alone_mbps: $alone,
				incast_mbps: $crowd.goodput_mbps, incast_host1_mbps: $host1}')"
		[ $rc = 0 ] || { failures=$((failures + 1)); log "victim $t: FAILED (exit $rc)"; }
		tail -n 1 "$res" | jq -r --argjson t $SECONDS '"[\($t)s] victim \(.transport): \(.goodput_mbps // 0 | . * 10 | round / 10) Mbit/s beside the incast, \(.alone_mbps * 10 | round / 10) alone; the incast \(.incast_mbps // 0 | . * 10 | round / 10), host 1 in it \(.incast_host1_mbps // 0 | . * 10 | round / 10)"' |
			tee -a "$out/log.txt"
	done
	teardown
}

jq -cn --arg kernel "$(uname -r)" --arg date "$(date -u +%FT%TZ)" \
	--argjson cpus "$(nproc)" \
	--arg cpu "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)" \
	--arg mem "$(awk '/MemTotal/ {print $2 " kB"}' /proc/meminfo)" \
	--argjson rate "$rate" --argjson dur "$dur" --argjson quick $quick \
	--arg scenarios "$scenarios" --arg transports "$transports" \
	--argjson nconns $nconns --argjson grace $grace --argjson repeats "$repeats" \
	--argjson base_rtt "$base_rtt" \
	--arg accel "$(dmesg | grep -q 'Hypervisor detected: KVM' && echo kvm || echo tcg)" \
	'{kernel: $kernel, date: $date, cpus: $cpus, cpu: $cpu, memory: $mem,
	  rate_mbps: $rate, duration_s: $dur, quick: ($quick == 1),
	  scenarios: ($scenarios | split(" ")),
	  transports: ($transports | split(",")), conns: $nconns,
	  grace_s: $grace, accel: $accel, repeats: $repeats,
	  base_rtt_us: $base_rtt}' > "$out/meta.json"
log "bench: kernel $(uname -r), $(nproc) CPUs, $rate Mbit/s per link, $dur s per run$([ "$repeats" = 1 ] || echo ", $repeats runs of each")"

for sc in $scenarios; do
	for rep in $(seq 1 "$repeats"); do
		[ "$repeats" = 1 ] || log "$sc: run $rep of $repeats"
		case $sc in
		torch_allreduce|incast|victim)
			$sc
			continue
			;;
		esac
		if ! setup "$sc"; then
			failures=$((failures + 1))
			continue
		fi
		for t in ${transports//,/ }; do
			run "$sc" "$t"
		done
		teardown
	done
done
dmesg | grep -iE 'mrc|warn|bug' | tail -n 50 > "$out/dmesg.txt"
log "bench: $(wc -l < "$res") runs, $failures failed"
if [ $emit = 1 ]; then
	echo BENCH-TAR-BEGIN
	tar -C "$out" -cz . | base64
	echo BENCH-TAR-END
fi
exit $((failures > 0))
