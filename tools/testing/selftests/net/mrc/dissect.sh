#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Wireshark dissector (tools/wireshark/mrc.lua) reads real captures:
#
# - per family, tcpdump on host A records a connection over two planes:
#   a 1 MiB transfer (a stream over IPv4, messages over IPv6) with netem
#   loss on plane 2 (SACK blocks, resends, retired EVs and their probes),
#   the trimming tc program of congestion.sh on plane 1 of the receiver
#   (NACKs), the close (FIN both ways), and a SYN to a port where nobody
#   listens (RST);
# - tshark with the dissector, as an unprivileged user, recognises all
#   seven packet types, reports no malformed packet and no warning, and
#   its fields agree with what the test knows: ports, connection ids and
#   plane lists of SYN and SYN_ACK, SACK blocks within the data sent and
#   beyond the cumulative DSN (the run of the packet an ACK answers
#   first), FIN and RETX flags, NACKs that echo a DATA
#   packet later resent, ACKs with PROBE_ECHO that echo a PROBE, stream
#   offsets or message ends and LAST flags;
# - on crafted packets (no VM network needed): short and malformed ones
#   get expert info rather than a Lua error, DATA with an acknowledgment
#   decodes, and the port preference and "Decode As" pick another port.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root

mrc_need_mrcctl
mrc_need_bin mrc_xfer
mrc_need_cmd tc tcpdump tshark setpriv python3 ethtool
XFER=$MRC_BIN/mrc_xfer
TRIM=$MRC_BIN/mrc_trim.bpf.o
if [ ! -e "$TRIM" ]; then
	echo "# SKIP: mrc_trim.bpf.o not built (or set MRC_BIN)"
	exit "$KSFT_SKIP"
fi
LUA=$(cd "$MRC_DIR" && pwd -P)/../../../../wireshark/mrc.lua
if [ ! -r "$LUA" ]; then
	echo "# SKIP: no tools/wireshark/mrc.lua beside the tests"
	exit "$KSFT_SKIP"
fi
mrc_module_loaded || modprobe mrc || exit "$KSFT_FAIL"
mrc_need_mod sch_netem sch_ingress cls_bpf

mrc_plan 16

UDP_PORT=4793
SIZE=$((1 << 20))
# Message sizes of the IPv6 connection (SOCK_SEQPACKET).
MSGS=1000,3000

suffix=$(printf '%04x' $RANDOM)
# Readable by the unprivileged user that runs tshark.
tmp=$(mktemp -d)
chmod 755 "$tmp"
mkdir "$tmp/home" && chown 65534:65534 "$tmp/home"
port=7000

cleanup()
{
	mrc_kill_jobs
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# tshark with the dissector on capture FILE, as nobody: Wireshark is not
# meant to dissect as root, and nothing needs to be weakened for that.
decode()
{
	local file=$1

	shift
	chmod 644 "$file"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME="$tmp/home" tshark -n -X lua_script:"$LUA" -r "$file" "$@" \
		2> "$tmp/tshark.err"
}

# capture: the transfers and the refused SYN of one family, on A.
capture()
{
	local cap=$tmp/v$fam.pcap type=stream msgs='' srv

	[ "$fam" = 6 ] && type=seqpacket msgs="-m $MSGS"
	# Checksums computed by the kernel, so that the capture has them.
	ip netns exec "$A" ethtool -K veth1 tx off > /dev/null &&
		ip netns exec "$A" ethtool -K veth2 tx off > /dev/null &&
		tc -n "$A" qdisc add dev veth2 root netem loss 3% &&
		tc -n "$B" qdisc add dev veth1 clsact &&
		tc -n "$B" filter add dev veth1 ingress bpf direct-action \
			obj "$TRIM" sec tc || return 1
	ip netns exec "$A" tcpdump -Z root -U -i any -w "$cap" \
		"udp port $UDP_PORT" 2> "$tmp/tcpdump.err" &
	dump=$!
	mrc_wait_for 20 grep -q listening "$tmp/tcpdump.err" ||
		mrc_fail "tcpdump did not start: $(cat "$tmp/tcpdump.err")" ||
		return 1

	port=$((port + 1))
	rm -f "$tmp/s.out" "$tmp/s.err"
	ip netns exec "$B" "$XFER" -l -p "$port" -t "$type" -T 100 \
		> "$tmp/s.out" 2> "$tmp/s.err" &
	srv=$!
	mrc_wait_for 30 mrc_server_ready "$tmp/s.out" "$srv" &&
		mrc_said_ready "$tmp/s.out" ||
		mrc_fail "server did not start: $(cat "$tmp/s.err")" || return 1
	# shellcheck disable=SC2086
	ip netns exec "$A" "$XFER" -c "$peer" -p "$port" -t "$type" \
		-s "$SIZE" $msgs -w -T 100 > "$tmp/c.out" 2> "$tmp/c.err" ||
		mrc_fail "transfer failed: $(cat "$tmp/c.err")" || return 1
	wait "$srv" || mrc_fail "server: $(cat "$tmp/s.err")" || return 1
	msgs_sent=$(awk '{ print $6 }' "$tmp/c.out")
	mrc_info "IPv$fam $type: $(cat "$tmp/c.out")"

	# Nobody listens on this port: the SYN gets an RST.
	ip netns exec "$A" "$XFER" -c "$peer" -p 9 -s 1 -T 20 \
		> /dev/null 2> "$tmp/c.err" &&
		mrc_fail "connected to a port without a listener" && return 1
	# Room for the last packets of the closing connections.
	sleep 1
	kill -INT "$dump"
	wait "$dump"
	tc -n "$A" qdisc del dev veth2 root
	tc -n "$B" qdisc del dev veth1 clsact
	decode "$cap" -V > "$tmp/v$fam.txt" ||
		mrc_fail "tshark -V: $(cat "$tmp/tshark.err")" || return 1
	decode "$cap" -T fields -E separator=/t -E occurrence=a \
		-E aggregator=, -Y mrc \
		-e frame.number -e udp.srcport -e udp.dstport -e mrc.version \
		-e mrc.type -e mrc.src_cid -e mrc.dst_cid -e mrc.psn -e mrc.dsn \
		-e mrc.msg_id -e mrc.offset -e mrc.payload_len \
		-e mrc.syn.src_port -e mrc.syn.dst_port -e mrc.syn.plane.id \
		-e mrc.syn.plane.addr4 -e mrc.syn.plane.addr6 -e mrc.ack.cum_dsn \
		-e mrc.ack.echo_psn -e mrc.ack.echo_dsn -e mrc.sack.start \
		-e mrc.sack.end -e mrc.flags.last -e mrc.flags.fin \
		-e mrc.flags.retx -e mrc.flags.probe_echo \
		> "$tmp/v$fam.tsv" ||
		mrc_fail "tshark -T fields: $(cat "$tmp/tshark.err")" || return 1
	mrc_info "$(wc -l < "$tmp/v$fam.tsv") MRC packets captured"
}

# The fields of one family's capture, by name, for awk; rel(X) is DSN X
# relative to the initial DSN isn, wrapping at 2^32.
FIELDS='function rel(x) { return ((x - isn) % W + W) % W }
BEGIN { FS = "\t"; W = 4294967296 }
{
	frame = $1; sport = $2; dport = $3; ver = $4; type = $5; src = $6
	dst = $7; psn = $8; dsn = $9; msg = $10; off = $11; plen = $12
	syn_sport = $13; syn_dport = $14; plane_ids = $15
	addrs = $16 $17; cum = $18; epsn = $19; edsn = $20
	sack_start = $21; sack_end = $22
	last = $23 == 1; fin = $24 == 1; retx = $25 == 1; pecho = $26 == 1
}'

# fields AWK-PROGRAM: run the program after $FIELDS on the family's fields.
fields()
{
	awk "$FIELDS $1" "$tmp/v$fam.tsv"
}

# Every UDP packet of the MRC port is MRC; none is malformed or warned of.
all_clean()
{
	local udp n

	udp=$(decode "$tmp/v$fam.pcap" -Y "udp.port == $UDP_PORT" | wc -l)
	n=$(wc -l < "$tmp/v$fam.tsv")
	[ "$n" -gt 0 ] && [ "$udp" = "$n" ] ||
		mrc_fail "$udp UDP packets on port $UDP_PORT, $n decoded as MRC" ||
		return 1
	if grep -Ei "malformed|lua error|Expert Info \((error|warning)" \
		"$tmp/v$fam.txt" > "$tmp/bad"; then
		mrc_fail "tshark found problems:"
		sort "$tmp/bad" | uniq -c | head -n 10 > "$tmp/bad.sum"
		mrc_show "$tmp/bad.sum"
		return 1
	fi
	fields 'ver != 1 || dport != '"$UDP_PORT"' {
			print "frame " frame ": version " ver ", port " dport
			bad = 1
		}
		END { exit bad }' > "$tmp/out" || { mrc_show "$tmp/out"; return 1; }
}

# Each of the seven packet types, by name in -V and by number in fields.
all_types()
{
	local t name rc=0 i=0 got counts=

	for name in SYN SYN_ACK DATA ACK PROBE RST NACK; do
		i=$((i + 1))
		got=$(grep -c "Type: $name ($i)" "$tmp/v$fam.txt")
		t=$(fields 'type == '"$i"' { n++ } END { print n + 0 }')
		[ "$got" -gt 0 ] && [ "$t" = "$got" ] ||
			mrc_fail "type $name: $got in -V, $t in fields" || rc=1
		counts+="$name $t "
	done
	mrc_info "$counts"
	return "$rc"
}

# The handshake of the transfer: the client's SYN from its port to
# $port, the server's SYN_ACK back, each listing both planes of its host
# with their addresses; ids that match; the SYN padded.
handshake()
{
	local a1 a2 b1 b2

	a1=$(mrc_addr "$fam" 1 1) a2=$(mrc_addr "$fam" 2 1)
	b1=$(mrc_addr "$fam" 1 2) b2=$(mrc_addr "$fam" 2 2)
	grep -q "Plane 1: IPv$fam $a1" "$tmp/v$fam.txt" &&
		grep -q "Plane 2: IPv$fam $b2" "$tmp/v$fam.txt" ||
		mrc_fail "-V does not show the planes" || return 1
	fields '
		type == 1 && syn_dport == '"$port"' && !syn {
			syn = 1; cid = src; cport = syn_sport
			if (dst != "0x00000000")
				{ print "SYN to id " dst; bad = 1 }
			if (plane_ids " " addrs != "1,2 '"$a1,$a2"'")
				{ print "SYN planes: " plane_ids " " addrs; bad = 1 }
		}
		type == 2 && syn_sport == '"$port"' && !ack {
			ack = 1
			if (dst != cid || syn_dport != cport)
				{ print "SYN_ACK to " dst ":" syn_dport; bad = 1 }
			if (plane_ids " " addrs != "1,2 '"$b1,$b2"'")
				{ print "SYN_ACK planes: " plane_ids " " addrs; bad = 1 }
		}
		END {
			if (!syn || !ack) { print "no SYN or SYN_ACK"; bad = 1 }
			exit bad
		}' > "$tmp/out" || { mrc_show "$tmp/out"; return 1; }
	# 28 + 12 + 16 * 20 bytes, the size of the largest SYN_ACK.
	[ "$(decode "$tmp/v$fam.pcap" -Y "mrc.type == 1 && udp.length != 368" |
		wc -l)" = 0 ] || mrc_fail "a SYN not padded to 360 bytes"
}

# SACK blocks: some, each [start, end) non-empty, beyond the cumulative
# DSN and within the DSNs the client sent (relative to its initial DSN,
# from its SYN, so that wrapping at 2^32 does not matter); and an ACK that
# echoes a packet beyond its cumulative DSN tells the run of that packet
# in its first block (with the lowest runs first, a packet above sixteen
# holes went untold until they filled, and its sender timed it out).
sacks()
{
	local rc

	fields '
		type == 1 && syn_dport == '"$port"' { isn = dsn; cid = src }
		type == 3 && src == cid && rel(dsn) > top { top = rel(dsn) }
		type == 4 && dst == cid && sack_start != "" {
			n = split(sack_start, s, ","); split(sack_end, e, ",")
			for (i = 1; i <= n; i++) {
				blocks++
				if (rel(cum) < rel(s[i]) && rel(s[i]) < rel(e[i]) &&
				    rel(e[i]) <= top + 1)
					continue
				print "frame " frame ": block [" s[i] ", " e[i] \
					") cum " cum " isn " isn " top " top
				bad = 1
			}
			if (pecho || rel(edsn) <= rel(cum))
				next
			echoed++
			if (rel(s[1]) <= rel(edsn) && rel(edsn) < rel(e[1]))
				next
			print "frame " frame ": echo of DSN " edsn \
				" outside the first block [" s[1] ", " e[1] ")"
			bad = 1
		}
		END {
			print "SACK blocks: " blocks + 0 ", DATA up to isn + " \
				top ", " echoed + 0 " ACKs echo a packet beyond" \
				" the cumulative DSN"
			exit bad || !blocks || !echoed
		}' > "$tmp/out"
	rc=$?
	mrc_show "$tmp/out"
	decode "$tmp/v$fam.pcap" -Y mrc.sack.start | head -n 1 > "$tmp/out"
	mrc_show "$tmp/out"
	return "$rc"
}

# Flags: a FIN from each side, without payload; resends flagged RETX
# within the data; each NACK echoes a DATA packet that A sent, with its
# DSN, and most of these DSNs are sent again; ACKs with PROBE_ECHO
# echo a PROBE.  And the data's place: stream offsets up to SIZE, or
# messages ended by LAST at the sizes of the list (the last one cut),
# as many as the client sent, SIZE bytes in all.
flags()
{
	local rc

	fields '
		type == 1 && syn_dport == '"$port"' { cid = src; isn = dsn }
		type == 3 && fin {
			fins[src == cid ? "client" : "server"]++
			if (plen != 0) { print "FIN with payload"; bad = 1 }
		}
		type == 3 && src == cid {
			# A resend repeats a DSN of the data: its first copy
			# may be missing, lost by netem before the capture.
			if (retx) {
				nretx++
				if (rel(dsn) > '"$SIZE"' / 500)
					{ print "RETX of DSN " dsn; bad = 1 }
				if (dsn in nacked) resent[dsn] = 1
			}
			data_dsn[psn] = dsn
			if (!fin) {
				if (off + plen > maxend) maxend = off + plen
				if (msg != 0) msgs = 1
				if (last && !(dsn in lasts)) {
					lasts[dsn] = 1; nlast++; ends[off + plen]++
					total += off + plen
				}
			}
		}
		type == 5 { probe[src "/" psn] = 1; probes++ }
		type == 4 && pecho {
			echoes++
			if (!((dst "/" epsn) in probe))
				{ print "PROBE_ECHO of no PROBE: " epsn; bad = 1 }
		}
		type == 7 && dst == cid {
			nacks++
			if (!(epsn in data_dsn) || data_dsn[epsn] != edsn)
				{ print "NACK of no DATA: " epsn "/" edsn; bad = 1 }
			nacked[edsn] = 1
		}
		END {
			# A trimmed resend whose first copy arrived after all
			# is not sent again: most NACKs, not all, are answered.
			for (d in nacked) {
				nnacked++
				if (d in resent) nresent++
			}
			printf "FIN %d/%d, RETX %d, NACK %d (%d of %d DSNs resent), " \
				"PROBE %d, PROBE_ECHO %d\n", fins["client"], \
				fins["server"], nretx, nacks, nresent, nnacked, \
				probes, echoes
			if (!fins["client"] || !fins["server"] || !nretx || !nacks ||
			    2 * nresent < nnacked || !echoes) bad = 1
			if ('"$fam"' == 4) {
				print "stream: data up to offset " maxend
				if (maxend != '"$SIZE"' || msgs) bad = 1
			} else {
				printf "messages ended by LAST: %d, sizes", nlast
				for (s in ends) printf " %d x%d", s, ends[s]
				print ""
				if (nlast != '"${msgs_sent:-0}"' || total != '"$SIZE"')
					bad = 1
				# The last message is what is left of SIZE.
				for (s in ends)
					if (s != 1000 && s != 3000 && ends[s] != 1)
						bad = 1
			}
			exit bad
		}' > "$tmp/out"
	rc=$?
	mrc_show "$tmp/out"
	return "$rc"
}

# The refused SYN: to port 9, answered by an RST to its id.
refused()
{
	fields '
		type == 1 && syn_dport == 9 { cid = src; syn = 1 }
		type == 6 && cid != "" && dst == cid { rst = 1 }
		END {
			if (!syn || !rst) print "SYN to port 9 " syn + 0 ", RST " rst + 0
			exit !(syn && rst)
		}' > "$tmp/out" || { mrc_show "$tmp/out"; return 1; }
	grep -q "Expert Info (Note/Sequence): Connection reset" "$tmp/v$fam.txt" ||
		mrc_fail "no expert note on the RST"
}

# Crafted packets, to port PORT, in the pcap FILE: every type, DATA with
# an acknowledgment, and malformed ones (their expected expert info in the
# comment), one per frame.
craft()
{
	python3 - "$1" "$2" << 'EOF'
import socket
import struct
import sys

port, out = int(sys.argv[1]), sys.argv[2]
HDR = struct.Struct("!BBHIIIIII")
ACKB = struct.Struct("!IIIIIHBB")


def hdr(t, fl=0, dst=0x11, ver=1):
    return HDR.pack(ver << 4 | t, fl, 61000, dst, 0x22, 7, 100, 0, 0)


def ack(nr=0):
    return ACKB.pack(10, 1034, 5, 6, 7, 61001, nr, 0)


plane4 = struct.pack("!BBH16s", 1, 4, 0, socket.inet_aton("10.0.1.1") + bytes(12))
plane6 = struct.pack("!BBH16s", 2, 6, 0,
                     socket.inet_pton(socket.AF_INET6, "fd00:2::1"))
syn = struct.pack("!HHIHBB", 40000, 9000, 1024, 1424, 2, 0) + plane4 + plane6
packets = [
    hdr(1, dst=0) + syn + bytes(332 - len(syn)),        # 1 SYN
    hdr(2) + syn,                                       # 2 SYN_ACK
    hdr(3, 0x11) + ack() + b"x" * 100,                  # 3 DATA, LAST, ACK
    hdr(4, 0x05) + ack(2) + struct.pack("!IIII", 12, 15, 20, 22),  # 4 ACK
    hdr(5) + bytes(24),                                 # 5 PROBE
    hdr(6),                                             # 6 RST
    hdr(7, 0x02) + ack(),                               # 7 NACK
    hdr(4)[:10],                                        # 8 short header
    hdr(4) + bytes(10),                                 # 9 short ack
    hdr(4) + ack(3) + struct.pack("!II", 1, 2),         # 10 SACK cut
    hdr(1, dst=0) + struct.pack("!HHIHBB", 1, 2, 3, 4, 5, 0) + plane4,  # 11
    hdr(9, ver=2),                                      # 12 version, type
    hdr(3, 0x10) + ack(1) + bytes(8),                   # 13 ride with SACK
    hdr(4, 0x01) + ack(17) + bytes(17 * 8),             # 14 17 blocks
]
with open(out, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))
    for i, p in enumerate(packets):
        udp = struct.pack("!HHHH", 61000 + i, port, 8 + len(p), 0) + p
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000,
                         64, 17, 0, socket.inet_aton("10.0.1.1"),
                         socket.inet_aton("10.0.1.2"))
        f.write(struct.pack("<IIII", i, 0, len(ip + udp), len(ip + udp)))
        f.write(ip + udp)
EOF
}

# crafted: frames 1-7 decode with their fields; 8-14, and only they, get a
# warning or error expert info of ours; no Lua error anywhere.
crafted()
{
	local out want

	craft "$UDP_PORT" "$tmp/c.pcap" || return 1
	out=$(decode "$tmp/c.pcap" -T fields -E 'separator=|' \
		-e frame.number -e mrc.type -e mrc.flags.last -e mrc.flags.ack \
		-e mrc.ack.cum_dsn -e mrc.payload_len -e mrc.sack.start \
		-e mrc.syn.plane.id -e mrc.flags.probe_echo \
		-e mrc.flags.echo_told -Y "frame.number <= 7") ||
		mrc_fail "tshark: $(cat "$tmp/tshark.err")" || return 1
	# Frame, type, LAST, ACK, cumulative DSN, payload, SACK starts,
	# planes, PROBE_ECHO, ECHO_TOLD (the ACK's, not the NACK's).
	want=$(printf '%s\n' "1|1||||||1,2||" "2|2||||||1,2||" \
		"3|3|1|1|10|100||||" "4|4|||10||12,20||0|1" "5|5||||||||" \
		"6|6||||||||" "7|7|||10||||1|0")
	mrc_expect "crafted packets 1-7" "$out" "$want" || return 1
	decode "$tmp/c.pcap" -V > "$tmp/c.txt" || return 1
	if grep -qi "lua error" "$tmp/c.txt"; then
		mrc_fail "a Lua error: $(grep -i -m 1 "lua error" "$tmp/c.txt")"
		return 1
	fi
	out=$(decode "$tmp/c.pcap" -Y "_ws.expert.severity >= warning" \
		-T fields -e frame.number | tr '\n' ' ')
	mrc_expect "frames with warnings or errors" "$out" "8 9 10 11 12 13 14 "
}

# The port: another one needs the preference or Decode As.
other_port()
{
	local plain pref decode_as

	craft 4800 "$tmp/p.pcap" || return 1
	plain=$(decode "$tmp/p.pcap" -Y mrc | wc -l)
	pref=$(decode "$tmp/p.pcap" -o mrc.udp_port:4800 -Y mrc | wc -l)
	decode_as=$(decode "$tmp/p.pcap" -d udp.port==4800,mrc -Y mrc | wc -l)
	mrc_expect "MRC packets on port 4800 (plain, preference, Decode As)" \
		"$plain $pref $decode_as" "0 14 14"
}

mrc_check "crafted packets: fields, and expert info for malformed ones" crafted
mrc_check "another UDP port: by preference and by Decode As" other_port

for fam in 4 6; do
	A=mrcd-$suffix-a$fam
	B=mrcd-$suffix-b$fam
	if ! mrc_ns_add "$A" "$B" || ! mrc_link_hosts "$A" "$B" "$fam" 1 2 ||
	   ! mrc_add_planes "$A" "$B" "$fam" 1 2; then
		mrc_fail "cannot build the IPv$fam topology"
	fi
	peer=$(mrc_addr "$fam" 1 2)
	counts=
	mrc_check "IPv$fam: capture a connection with loss, trimming and an RST" \
		capture
	mrc_check "IPv$fam: every packet is MRC, none malformed or warned of" \
		all_clean
	mrc_check "IPv$fam: all seven packet types" all_types
	mrc_check "IPv$fam: SYN and SYN_ACK: ports, ids, planes, padding" handshake
	mrc_check "IPv$fam: SACK blocks beyond the cumulative DSN, within the data, the echoed run first" \
		sacks
	mrc_check "IPv$fam: FIN, RETX, NACK, PROBE_ECHO, offsets and LAST" flags
	mrc_check "IPv$fam: a SYN to a closed port and its RST" refused
	mrc_kill_jobs
	mrc_cleanup
done

mrc_finish
