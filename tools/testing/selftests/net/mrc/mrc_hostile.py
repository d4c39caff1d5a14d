#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The hostile peer of hostile.sh: forges MRC packets (protocol.h,
# Documentation/networking/mrc.rst) with plain sockets, plays a minimal
# malicious MRC client, serves AF_MRC connections through ctypes, and reads
# back what the captures saw.  Every subcommand prints "key value" lines for
# the shell; figures that are asserted come with the data to judge them.
#
# The topology is hostile.sh's, named the same way in both files:
#   plane 1: IPv4 10.0.1.H/24 on veth1 of every host
#   plane 2: IPv6 fd00:2::H/64 on veth2 of every host
#   hosts: A = 1 (honest client), B = 2 (server), M = 3 (attacker),
#          V = 4 (victim, never runs MRC)
#   the MAC address of host H on plane P is 02:00:00:00:0P:0H.
#
# Subcommands (run "mrc_hostile.py CMD --help"):
#   spoofed             addresses nobody owns, for the SYN flood
#   server              an AF_MRC listener: reads, writes or resets
#   client              an AF_MRC client that writes at a steady pace
#   fuzz                case 1: malformed packets at B during transfers
#   malclient           case 2: connect announcing third-party planes;
#                       with --guess, echo B's validation PROBEs to V
#   flood               case 3: SYNs from spoofed sources
#   forge               case 4: RST and ACK with the right ids
#   judge-victim        case 2: what V and B's devices saw
#   judge-flood         case 3: SYN_ACKs B sent to spoofed addresses
#   silence             case 5: go silent, then echo a copy B took for lost
#   dupflag             case 5: flag every acknowledgment ECHO_DUP
#   early-ack           case 5: acknowledge a packet just after B
#                       resent it, or later with its first copy's echo
#
# "mrc_hostile.py --after FILE CMD ..." starts up, then waits for FILE to
# exist before it runs CMD: hostile.sh starts the interpreter ahead, a
# second or so in a TCG guest, while it does something else.  For the same
# reason the modules that a few commands need (ctypes, hashlib, json,
# subprocess, threading) are imported where they are used.

import argparse
import array
import bisect
import heapq
import os
import random
import select
import socket
import struct
import sys
import time

UDP_PORT = 4793
MRC_VERSION = 1
SYN, SYN_ACK, DATA, ACK, PROBE, RST, NACK = range(1, 8)
TYPE_NAMES = {SYN: "syn", SYN_ACK: "syn_ack", DATA: "data", ACK: "ack",
              PROBE: "probe", RST: "rst", NACK: "nack"}
F_LAST, F_FIN, F_RETX, F_TRIMMED, F_ACK = 0x01, 0x02, 0x04, 0x08, 0x10
F_ECE, F_PROBE_ECHO, F_ECHO_TOLD, F_ECHO_DUP = 0x01, 0x02, 0x04, 0x08

HDR = struct.Struct("!BBHIIIIII")       # struct mrc_hdr, 28 bytes
SYNB = struct.Struct("!HHIHBB")         # struct mrc_syn, 12 bytes
SPLANE = struct.Struct("!BBH16s")       # struct mrc_syn_plane, 20 bytes
ACKB = struct.Struct("!IIIIIHBB")       # struct mrc_ack, 24 bytes
SACK = struct.Struct("!II")             # struct mrc_sack_block
MAX_PLANES = 16
MAX_SACK = 16
# A SYN padded to the largest SYN_ACK: header, body and 16 planes.
SYN_PADDED = HDR.size + SYNB.size + MAX_PLANES * SPLANE.size
# Padded PROBEs that a malicious client sends B from V's address, on the
# plane whose entry names V; and their size, that of B's answer.
SPOOFED_PROBES = 40
PROBE_PADDED = HDR.size + ACKB.size
M32 = 0xffffffff

HOSTS = {"A": 1, "B": 2, "M": 3, "V": 4}
PLANES = {1: {"family": 4, "dev": "veth1"}, 2: {"family": 6, "dev": "veth2"}}


def addr(plane, host):
    """Address of HOST (a letter or a number) on PLANE."""
    h = HOSTS.get(host, host)
    if PLANES[plane]["family"] == 4:
        return "10.0.%d.%d" % (plane, h)
    return "fd00:%d::%x" % (plane, h)


def mac(plane, host):
    return "02:00:00:00:%02x:%02x" % (plane, HOSTS.get(host, host))


def link_local(plane, host):
    """The EUI-64 link-local address of HOST's device on PLANE."""
    m = [int(x, 16) for x in mac(plane, host).split(":")]
    m[0] ^= 2
    ll = "fe80::%x:%xff:fe%02x:%x" % ((m[0] << 8) | m[1], m[2], m[3],
                                      (m[4] << 8) | m[5])
    return ntop(6, pton(ll))


def fam_of(a):
    return 6 if ":" in a else 4


def af(family):
    return socket.AF_INET6 if family == 6 else socket.AF_INET


def pton(a):
    return socket.inet_pton(af(fam_of(a)), a)


def ntop(family, raw):
    return socket.inet_ntop(af(family), raw)


def spoofed(plane, count=128):
    """COUNT addresses of PLANE's subnet that no host owns."""
    if PLANES[plane]["family"] == 4:
        return ["10.0.%d.%d" % (plane, 100 + i) for i in range(count)]
    return ["fd00:%d::5:%x" % (plane, 0x100 + i) for i in range(count)]


def say(*words):
    print(" ".join(str(w) for w in words), flush=True)


def dist(a, b):
    """Distance between two 32-bit sequence numbers, either way round."""
    d = (a - b) & M32
    return min(d, (1 << 32) - d)


# -- packets ---------------------------------------------------------------

def hdr(ptype, flags=0, ev=50000, dst=0, src=0, psn=0, dsn=0, msg=0, off=0,
        ver=MRC_VERSION):
    return HDR.pack((ver << 4 | ptype) & 0xff, flags & 0xff, ev & 0xffff,
                    dst & M32, src & M32, psn & M32, dsn & M32, msg & M32,
                    off & M32)


def plane_entry(pid, family, address):
    raw = address if isinstance(address, bytes) else pton(address)
    return SPLANE.pack(pid & 0xff, family & 0xff, 0, raw.ljust(16, b"\0"))


def syn_body(sport, dport, planes, window=1024, max_payload=1424, nr=None,
             pad_to=0):
    body = SYNB.pack(sport, dport, window, max_payload,
                     len(planes) if nr is None else nr & 0xff, 0)
    body += b"".join(planes)
    return body.ljust(pad_to - HDR.size, b"\0") if pad_to else body


def ack_body(cum, wnd, echo_psn=0, echo_dsn=0, delay=0, echo_ev=0, sacks=(),
             nr=None):
    body = ACKB.pack(cum & M32, wnd & M32, echo_psn & M32, echo_dsn & M32,
                     delay & M32, echo_ev & 0xffff,
                     len(sacks) if nr is None else nr & 0xff, 0)
    return body + b"".join(SACK.pack(s & M32, e & M32) for s, e in sacks)


def parse(payload):
    """An MRC packet as a dict, or None when shorter than a header."""
    if len(payload) < HDR.size:
        return None
    vt, flags, ev, dst, src, psn, dsn, msg, off = HDR.unpack_from(payload)
    p = {"ver": vt >> 4, "type": vt & 15, "flags": flags, "ev": ev,
         "dst": dst, "src": src, "psn": psn, "dsn": dsn, "msg": msg,
         "off": off, "body": payload[HDR.size:], "len": len(payload)}
    return p


def parse_ack(body):
    if len(body) < ACKB.size:
        return None
    cum, wnd, epsn, edsn, delay, eev, nr, _ = ACKB.unpack_from(body)
    return {"cum": cum, "wnd": wnd, "echo_psn": epsn, "echo_dsn": edsn,
            "echo_ev": eev, "nr": nr}


# -- raw IP: spoofed sources -----------------------------------------------

def csum(data):
    if len(data) & 1:
        data += b"\0"
    s = sum(array.array("H", data))
    s = (s >> 16) + (s & 0xffff)
    s += s >> 16
    return (~s) & 0xffff


def ip_udp(src, dst, sport, dport, payload, tos=0):
    """An IPv4 or IPv6 packet carrying one UDP datagram, checksums filled."""
    s, d = pton(src), pton(dst)
    ulen = 8 + len(payload)
    if fam_of(src) == 4:
        pseudo = s + d + struct.pack("!BBH", 0, 17, ulen)
    else:
        pseudo = s + d + struct.pack("!IxxxB", ulen, 17)
    udp = struct.pack("!HHHH", sport, dport, ulen, 0) + payload
    c = csum(pseudo + udp)
    # array("H") sums in host order: swap back to the wire's order.
    c = socket.htons(c) if sys.byteorder == "little" else c
    udp = udp[:6] + struct.pack("!H", c or 0xffff) + udp[8:]
    if fam_of(src) == 4:
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + ulen,
                         random.getrandbits(16), 0x4000, 64, 17, 0, s, d)
        c = csum(ip)
        c = socket.htons(c) if sys.byteorder == "little" else c
        return ip[:10] + struct.pack("!H", c) + ip[12:] + udp
    return struct.pack("!IHBB16s16s", 6 << 28 | tos << 20, ulen, 17, 64,
                       s, d) + udp


class Wire:
    """Sends IP packets with any source through AF_PACKET, to a MAC."""

    def __init__(self):
        self.socks = {}
        self.sent = 0
        self.retries = 0

    def frame(self, plane, src, dst, dst_mac, payload, sport=None,
              dport=UDP_PORT):
        """The socket, IP packet and link address that send() uses."""
        dev = PLANES[plane]["dev"]
        proto = 0x0800 if PLANES[plane]["family"] == 4 else 0x86dd
        sock = self.socks.get(dev + str(proto))
        if sock is None:
            sock = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM,
                                 socket.htons(proto))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
            self.socks[dev + str(proto)] = sock
        if sport is None:
            sport = 49152 + random.getrandbits(14)
        hw = bytes(int(x, 16) for x in dst_mac.split(":"))
        return sock, ip_udp(src, dst, sport, dport, payload), \
            (dev, proto, 0, 0, hw)

    def send(self, plane, src, dst, dst_mac, payload, sport=None,
             dport=UDP_PORT):
        sock, pkt, to = self.frame(plane, src, dst, dst_mac, payload, sport,
                                   dport)
        if len(pkt) > 1500:
            return False
        for _ in range(100):
            try:
                sock.sendto(pkt, to)
                break
            except (BlockingIOError, OSError) as e:
                if getattr(e, "errno", 0) not in (11, 105):
                    raise
                self.retries += 1
                time.sleep(0.001)
        self.sent += 1
        return True


class Udp:
    """Plain UDP sockets on M's addresses and the MRC port."""

    def __init__(self, host="M"):
        self.socks = {}
        self.sent = 0
        for p in PLANES:
            s = socket.socket(af(PLANES[p]["family"]), socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            s.bind((addr(p, host), UDP_PORT))
            s.setblocking(False)
            self.socks[p] = s

    def send(self, plane, payload, dst=None):
        dst = dst or addr(plane, "B")
        for _ in range(100):
            try:
                self.socks[plane].sendto(payload, (dst, UDP_PORT))
                break
            except BlockingIOError:
                time.sleep(0.001)
            except OSError as e:
                # ENOBUFS and EMSGSIZE count as sent: the packet was tried.
                if e.errno in (105, 90):
                    break
                raise
        self.sent += 1

    def packets(self, timeout):
        """(plane, source address, parsed packet) of every MRC packet that
        arrived, after waiting up to TIMEOUT seconds for the first."""
        socks = list(self.socks.items())
        r, _, _ = select.select([s for _, s in socks], [], [], timeout)
        for plane, s in socks:
            while s in r:
                try:
                    payload, (src, *_) = s.recvfrom(65536)
                except BlockingIOError:
                    break
                p = parse(payload)
                if p:
                    yield plane, src, p

    def drain(self):
        n = 0
        for s in self.socks.values():
            while True:
                try:
                    s.recv(65536)
                    n += 1
                except (BlockingIOError, OSError):
                    break
        return n


# -- capture ----------------------------------------------------------------

def parse_ip(pkt):
    """(family, src, dst, sport, dport, udp payload) of a UDP packet."""
    if len(pkt) < 20:
        return None
    v = pkt[0] >> 4
    if v == 4:
        ihl = (pkt[0] & 15) * 4
        if pkt[9] != 17 or len(pkt) < ihl + 8:
            return None
        if struct.unpack_from("!H", pkt, 6)[0] & 0x3fff:
            return None                     # a fragment
        src, dst = ntop(4, pkt[12:16]), ntop(4, pkt[16:20])
        udp = pkt[ihl:]
    elif v == 6:
        if len(pkt) < 48 or pkt[6] != 17:
            return None
        src, dst = ntop(6, pkt[8:24]), ntop(6, pkt[24:40])
        udp = pkt[40:]
    else:
        return None
    sport, dport, ulen = struct.unpack_from("!HHH", udp)
    return (v, src, dst, sport, dport, udp[8:max(ulen, 8)])


class Sniffer:
    """What crosses M's plane devices, read with AF_PACKET."""

    def __init__(self):
        self.socks = []
        for p in PLANES:
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                              socket.htons(3))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
            s.bind((PLANES[p]["dev"], 0))
            s.setblocking(False)
            self.socks.append((p, s))

    def packets(self, timeout):
        r, _, _ = select.select([s for _, s in self.socks], [], [], timeout)
        for p, s in self.socks:
            if s not in r:
                continue
            while True:
                try:
                    frame, sa = s.recvfrom(65536)
                except BlockingIOError:
                    break
                if sa[2] == socket.PACKET_OUTGOING or len(frame) < 14:
                    continue
                u = parse_ip(frame[14:])
                if u:
                    yield (p,) + u

    def close(self):
        for _, s in self.socks:
            s.close()


def newer(old, new):
    """The later of two 32-bit sequence numbers (NEW when OLD is None)."""
    if old is None or ((new - old) & M32) < 1 << 31:
        return new
    return old


class Conn:
    """One A<->B connection as seen on the wire: ids, and per host (A or
    B) its initial DSN, the latest DSN of its DATA, the latest PSN it sent
    and the latest cumulative DSN it acknowledged."""

    def __init__(self, a_cid, b_cid):
        self.cid = {"A": a_cid, "B": b_cid}
        self.isn, self.dsn, self.psn, self.cum = {}, {}, {}, {}
        self.data = {"A": 0, "B": 0}
        self.acks = {"A": 0, "B": 0}

    def ids_to(self, host):
        """(dst_cid, src_cid) of a packet to HOST from its peer."""
        return self.cid[host], self.cid["B" if host == "A" else "A"]

    def windows(self):
        """Every sequence number near which either end keeps state."""
        return [v for d in (self.isn, self.dsn, self.cum) for v in d.values()]

    def __str__(self):
        snd = "A" if self.data["A"] >= self.data["B"] else "B"
        rcv = "B" if snd == "A" else "A"
        return "%s->%s a_cid %08x b_cid %08x dsn %08x psn %08x cum %08x" \
            " isn_%s %s data %d acks %d" % (
                snd, rcv, self.cid["A"], self.cid["B"], self.dsn.get(snd, 0),
                self.psn.get(snd, 0), self.cum.get(rcv, 0), rcv,
                "%08x" % self.isn[rcv] if rcv in self.isn else "-",
                self.data[snd], self.acks[rcv])


class Learned:
    """What an on-path attacker learns from the A<->B traffic."""

    def __init__(self):
        self.conns = {}
        self.syn_isn = {}
        self.to = {"A": [], "B": []}    # (plane, MRC payload) for replays
        self.seen = {}

    def take(self, plane, fam, src, dst, sport, dport, payload):
        p = parse(payload)
        if not p or dport != UDP_PORT or p["ver"] != MRC_VERSION:
            return
        hosts = {addr(plane, "A"): "A", addr(plane, "B"): "B"}
        if src not in hosts or dst not in hosts or src == dst:
            return
        S, D = hosts[src], hosts[dst]
        key = "%s%s%s" % (S, D, TYPE_NAMES.get(p["type"], "x"))
        self.seen[key] = self.seen.get(key, 0) + 1
        if len(self.to[D]) < 150 and p["type"] != RST:
            self.to[D].append((plane, payload))
        if p["type"] == SYN:
            self.syn_isn[(S, p["src"])] = p["dsn"]
            return
        a_cid, b_cid = (p["src"], p["dst"]) if S == "A" else \
            (p["dst"], p["src"])
        if not a_cid or not b_cid:
            return
        c = self.conns.get((a_cid, b_cid))
        if c is None:
            c = self.conns[(a_cid, b_cid)] = Conn(a_cid, b_cid)
        if (S, p["src"]) in self.syn_isn:
            c.isn[S] = self.syn_isn[(S, p["src"])]
        if p["type"] == SYN_ACK:
            c.isn[S] = p["dsn"]
        c.psn[S] = newer(c.psn.get(S), p["psn"])
        body = p["body"]
        if p["type"] == DATA and not p["flags"] & F_FIN:
            c.data[S] += 1
            c.dsn[S] = newer(c.dsn.get(S), p["dsn"])
        if p["type"] in (ACK, NACK) or \
                (p["type"] == DATA and p["flags"] & F_ACK):
            k = parse_ack(body)
            if k:
                c.acks[S] += 1
                c.cum[S] = newer(c.cum.get(S), k["cum"])

    def sending(self, host, want=1):
        """The connection on which HOST sent the most DATA, if WANT."""
        best = max(self.conns.values(), key=lambda c: c.data[host],
                   default=None)
        peer = "B" if host == "A" else "A"
        if best and best.data[host] >= want and best.acks[peer]:
            return best
        return None

    def complete(self, senders, least=None):
        return all(self.sending(h, least or want)
                   for h, want in senders.items())


def capture(args, senders):
    """Sniff until the ids and sequence state of the connections on which
    each host of SENDERS sent as many DATA packets as it says are known,
    then wait for go."""
    sn = Sniffer()
    say("listening")
    learned = Learned()
    deadline = time.monotonic() + args.capture_timeout
    while time.monotonic() < deadline and not learned.complete(senders):
        for pkt in sn.packets(0.2):
            learned.take(*pkt)
    sn.close()
    if not learned.complete(senders, 1):
        say("captured none")
        sys.exit(1)
    say("captured")
    say("seen", " ".join("%s=%d" % kv for kv in sorted(learned.seen.items())))
    for h in senders:
        say("learned", learned.sending(h))
    if args.go:
        deadline = time.monotonic() + 30
        while not os.path.exists(args.go) and time.monotonic() < deadline:
            time.sleep(0.05)
    return learned


def far_from(points, rng, gap=1 << 22):
    """A random 32-bit value at least GAP away from every point."""
    while True:
        v = rng.getrandbits(32)
        if all(dist(v, p) >= gap for p in points if p is not None):
            return v


# -- case 1: malformed packets ---------------------------------------------

def templates(plane, rng, dst=0, src=0, dsn=0, cum=0, port=9, psn=0,
              sacks=None):
    """One complete packet of every type, the longest each can be.  An
    acknowledgment echoes PSN and carries SACKS (16 blocks after CUM by
    default)."""
    fam = PLANES[plane]["family"]
    planes = [plane_entry(i, fam, addr(plane, "M")) for i in range(MAX_PLANES)]
    if sacks is None:
        sacks = [(cum + 2 * i + 2, cum + 2 * i + 3) for i in range(MAX_SACK)]
    ev = 49152 + rng.getrandbits(14)
    return {
        "syn": hdr(SYN, ev=ev, src=src or rng.getrandbits(32), dsn=dsn) +
        syn_body(40000, port, planes),
        "syn_ack": hdr(SYN_ACK, ev=ev, dst=dst, src=src, dsn=dsn) +
        syn_body(port, 40000, planes),
        "data": hdr(DATA, F_LAST, ev, dst, src, 7, dsn) + bytes(64),
        "data_ack": hdr(DATA, F_ACK, ev, dst, src, 8, dsn) +
        ack_body(cum, cum, psn) + bytes(64),
        "ack": hdr(ACK, 0, ev, dst, src, 9) + ack_body(cum, cum, psn,
                                                       sacks=sacks),
        "nack": hdr(NACK, 0, ev, dst, src, 10, dsn) + ack_body(
            cum, cum, psn, sacks=sacks),
        "probe": hdr(PROBE, 0, ev, dst, src, 11, dsn),
        "rst": hdr(RST, 0, ev, dst, src, 12, dsn),
    }


def extremes(rng):
    return [0, M32, rng.getrandbits(32), rng.getrandbits(32)]


def mutate_field(pkt, field, value):
    """PKT with header field number FIELD (as in HDR) set to VALUE."""
    f = list(HDR.unpack_from(pkt))
    sizes = [0xff, 0xff, 0xffff] + [M32] * 6
    f[field] = value & sizes[field]
    return HDR.pack(*f) + pkt[HDR.size:]


def cmd_fuzz(args):
    rng = random.Random(args.seed)
    learned = capture(args, {"A": 100, "B": 20})
    udp, wire = Udp(), Wire()
    counts = {}

    def m(cat, plane, payload, dst=None):
        """From M's own address: anything, wrong ids or not."""
        udp.send(plane, payload, dst)
        counts[cat] = counts.get(cat, 0) + 1
        if udp.sent % 64 == 0:
            udp.drain()

    def a(cat, plane, payload):
        """Spoofed from A: with the right ids, reaches B's connection."""
        wire.send(plane, addr(plane, "A"), addr(plane, "B"), mac(plane, "B"),
                  payload)
        counts[cat] = counts.get(cat, 0) + 1

    # On R, B receives A's data; on S, B sends to A.  Whatever names R or
    # S must stay clear of their windows: DSNs far from them, so that no
    # forged DATA is taken as data, and, on S, acknowledgments of nothing
    # B has in flight: cumulative DSNs that A already acknowledged (or far
    # beyond), SACK blocks far from B's window.  They echo a PSN that B
    # sent lately, as an on-path attacker can, so that B reads them.
    R, S = learned.sending("A"), learned.sending("B")
    windows = R.windows() + S.windows()
    r_dst, r_src = R.ids_to("B")
    s_dst, s_src = S.ids_to("B")
    s_cum, s_psn = S.cum["A"], S.psn["B"]
    r_snd = R.isn.get("B", R.cum["A"] if "A" in R.cum else 0)

    def far():
        return far_from(windows, rng)

    def far_block():
        st = far()
        return (st, st + rng.randint(1, 1 << 16))

    def acked(t, flags=0, nr=None, sacks=(), cum=None, psn=None):
        """An acknowledgment on S, from A's address."""
        return hdr(t, flags, dst=s_dst, src=s_src,
                   psn=rng.getrandbits(32)) + \
            ack_body(s_cum if cum is None else cum, s_cum,
                     s_psn if psn is None else psn, far(), 0,
                     rng.getrandbits(16), sacks, nr)

    t0 = time.monotonic()
    for plane in PLANES:
        # Wrong ids (random), from M: every type cut at every length
        # (SYNs to the listener, whose children parse their planes).
        for name, pkt in templates(plane, rng, rng.getrandbits(32),
                                   rng.getrandbits(32), far(), far(),
                                   args.fuzz_port).items():
            for n in range(len(pkt) + 1):
                m("truncated", plane, pkt[:n])
        # The right ids, spoofed from A, cut at every length: DATA and
        # PROBE on R, acknowledgments on S.  No RST (case 4), no SYN (from
        # A's address, a new connection attempt of A's) and no SYN_ACK
        # (which only a connecting socket reads).
        tr = templates(plane, rng, r_dst, r_src, far(), r_snd, args.port)
        ts = templates(plane, rng, s_dst, s_src, far(), s_cum, args.port,
                       s_psn, [far_block() for _ in range(MAX_SACK)])
        right = {"data": tr["data"], "probe": tr["probe"],
                 "data_ack": ts["data_ack"], "ack": ts["ack"],
                 "nack": ts["nack"]}
        for name, pkt in right.items():
            for n in range(len(pkt) + 1):
                a("truncated_right_ids", plane, pkt[:n])
        # Every header field at its extremes, on every type, from M.
        for name, pkt in templates(plane, rng, r_dst, r_src, far(), far(),
                                   args.port).items():
            for field in range(9):
                for v in extremes(rng):
                    m("field_extremes", plane, mutate_field(pkt, field, v))
        # Every field but the ids (and the DSN of DATA, kept far from the
        # windows) at its extremes, with the right ids from A.
        for name, pkt in right.items():
            for field in (0, 1, 2, 5, 6, 7, 8):
                for v in extremes(rng):
                    if field == 6 and name == "data" and \
                            any(dist(v, w) < 1 << 22 for w in windows):
                        continue
                    # Not into SYN, SYN_ACK or RST (see above).
                    if field == 0 and v & 0xff in (0x11, 0x12, 0x16):
                        v ^= 0x40
                    a("field_extremes_right_ids", plane,
                      mutate_field(pkt, field, v))
        # Unknown versions and types; flags, which mean something only to
        # a connection: every value with the right ids, samples from M.
        for ver in range(16):
            for t in range(16):
                m("version_type", plane, hdr(t, ver=ver, dst=r_dst,
                                             src=r_src, dsn=far()) +
                  bytes(32))
        for t in range(16):
            for fl in rng.sample(range(256), 16):
                m("flags", plane, hdr(t, fl, dst=rng.getrandbits(32),
                                      src=rng.getrandbits(32), dsn=far()) +
                  bytes(24))
        for fl in range(256):
            a("flags_right_ids", plane, hdr(DATA, fl, dst=r_dst, src=r_src,
                                            dsn=far()) +
              ack_body(r_snd, r_snd) + bytes(16))
            a("flags_right_ids", plane, hdr(PROBE, fl, dst=r_dst, src=r_src,
                                            dsn=far()))
            a("flags_right_ids", plane, acked(ACK, fl))
            a("flags_right_ids", plane, acked(NACK, fl))
        for t in (0, 8, 9, 15):
            a("unknown_type_right_ids", plane,
              hdr(t, dst=r_dst, src=r_src, dsn=far()) + bytes(40))
        # ACK and NACK claiming 0..255 SACK blocks, with 0..16 present,
        # and SACK blocks anywhere in the DSN space but B's window.
        for t in (ACK, NACK):
            for nr in range(256):
                have = rng.randint(0, min(nr, MAX_SACK))
                a("nr_sack_right_ids", plane,
                  acked(t, nr=nr, sacks=[far_block() for _ in range(have)]))
            # As many blocks as claimed, longer than an MTU from 182 on:
            # fragments, reassembled by B.
            for nr in list(range(0, 256, 16)) + [181, 182, 255]:
                m("nr_sack", plane, hdr(t, dst=s_dst, src=s_src) +
                  ack_body(far(), far(), nr=nr) + bytes(8 * nr))
        for i in range(100):
            a("sack_anywhere_right_ids", plane,
              acked(ACK, sacks=[far_block() for _ in range(MAX_SACK)],
                    psn=s_psn if i % 2 else rng.getrandbits(32)))
            # Cumulative DSNs far beyond what B sent.
            a("cum_far_right_ids", plane, acked(rng.choice([ACK, NACK]),
                                                cum=far()))
        # DATA far outside any window, with the right ids.
        for i in range(100):
            a("dsn_far_right_ids", plane,
              hdr(DATA, rng.choice([0, F_LAST, F_FIN, F_RETX]), dst=r_dst,
                  src=r_src, psn=rng.getrandbits(32), dsn=far(),
                  off=rng.getrandbits(32)) + bytes(rng.randint(0, 1400)))
        # Guessed connection ids, and the right ones from the wrong
        # address (M's).
        for i in range(200):
            t = rng.choice([DATA, ACK, NACK, PROBE, RST, SYN_ACK])
            m("guessed_ids", plane, hdr(t, dst=rng.getrandbits(32),
                                        src=rng.getrandbits(32),
                                        dsn=far()) + bytes(24))
        for name, pkt in list(tr.items()) + list(ts.items()):
            for i in range(4):
                m("right_ids_wrong_address", plane, pkt)
        # SYN with 0..255 planes and plane entries of every family value,
        # to a listener.
        for nr in range(256):
            # All the entries claimed (fragments from 73 on), or two.
            have = nr if nr % 2 else min(nr, 2)
            ents = [plane_entry(rng.getrandbits(8), rng.getrandbits(8),
                                bytes(rng.getrandbits(8) for _ in range(16)))
                    for _ in range(have)]
            m("syn_nr_planes", plane,
              hdr(SYN, src=rng.getrandbits(32) | 1, dsn=far()) +
              syn_body(40000 + nr, args.fuzz_port, ents, nr=nr,
                       pad_to=SYN_PADDED))
        for f in range(256):
            ents = [plane_entry(pid, f, addr(plane, "M")) for pid in
                    (plane, rng.getrandbits(8), 15, 16)]
            m("syn_family", plane,
              hdr(SYN, src=rng.getrandbits(32) | 1, dsn=far()) +
              syn_body(41000 + f, args.fuzz_port, ents, pad_to=SYN_PADDED))
        # Replays of what A and B sent each other: from the true sources
        # (duplicates for the connections) and from M.
        for plane2, payload in learned.to["B"]:
            if plane2 == plane:
                a("replay_spoofed", plane, payload)
                m("replay_from_m", plane, payload)
        for plane2, payload in learned.to["A"]:
            if plane2 == plane:
                wire.send(plane, addr(plane, "B"), addr(plane, "A"),
                          mac(plane, "A"), payload)
                counts["replay_to_a"] = counts.get("replay_to_a", 0) + 1
    udp.drain()
    for cat in sorted(counts):
        say("sent", cat, counts[cat])
    say("done", "packets", udp.sent + wire.sent, "seconds",
        "%.1f" % (time.monotonic() - t0))


# -- the AF_MRC socket API, through ctypes ---------------------------------

AF_MRC = 25
SO_SNDBUFFORCE = 32


def mrc_api():
    """ctypes, libc and struct sockaddr_mrc, for the commands that use
    AF_MRC sockets."""
    import ctypes

    class SockaddrMrc(ctypes.Structure):
        _fields_ = [("family", ctypes.c_uint16), ("port", ctypes.c_uint16),
                    ("addr_family", ctypes.c_uint16),
                    ("pad", ctypes.c_uint16), ("scope_id", ctypes.c_uint32),
                    ("addr", ctypes.c_ubyte * 16)]

    return ctypes, ctypes.CDLL(None, use_errno=True), SockaddrMrc


def mrc_peer(sa):
    fam = 4 if sa.addr_family == socket.AF_INET else 6
    raw = bytes(sa.addr)[:4 if fam == 4 else 16]
    return ntop(fam, raw), socket.ntohs(sa.port)


def pattern(n, seed):
    """N bytes that the receiving end can recompute."""
    import hashlib

    out, i = bytearray(), 0
    while len(out) < n:
        out += hashlib.sha256(b"%d/%d" % (seed, i)).digest() * 64
        i += 1
    return bytes(out[:n])


def cmd_server(args):
    import hashlib  # noqa: F401 (serve_one's, loaded before "ready")
    import threading

    ctypes, libc, SockaddrMrc = mrc_api()
    ls = socket.socket(AF_MRC, socket.SOCK_STREAM, 0)
    sa = SockaddrMrc(AF_MRC, socket.htons(args.port), 0, 0, 0)
    if libc.bind(ls.fileno(), ctypes.byref(sa), ctypes.sizeof(sa)):
        sys.exit("bind: %s" % os.strerror(ctypes.get_errno()))
    ls.listen(args.backlog)
    say("ready", args.port)
    data = pattern(args.bytes, args.port) if args.mode == "write" else b""
    n = 0
    while True:
        peer = SockaddrMrc()
        ln = ctypes.c_uint32(ctypes.sizeof(peer))
        fd = libc.accept(ls.fileno(), ctypes.byref(peer), ctypes.byref(ln))
        if fd < 0:
            say("accept_error", os.strerror(ctypes.get_errno()))
            time.sleep(0.1)
            continue
        host, port = mrc_peer(peer)
        say("accept", "%.6f" % time.time(), n, host, port)
        s = socket.socket(fileno=fd)
        threading.Thread(target=serve_one, args=(args, s, n, host, data),
                         daemon=True).start()
        n += 1


def serve_one(args, s, n, host, data):
    import hashlib

    try:
        if args.mode == "reset":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         struct.pack("ii", 1, 0))
        elif args.mode == "write":
            s.settimeout(args.timeout)
            if args.sndbuf:
                s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, args.sndbuf)
            # The first SPLIT bytes, a pause, then the rest.
            s.sendall(data[:args.split])
            time.sleep(args.pause if args.split else 0)
            s.sendall(data[args.split:])
            say("wrote", n, host, len(data))
        else:
            s.settimeout(args.timeout)
            h, got = hashlib.sha256(), 0
            while True:
                b = s.recv(1 << 16)
                if not b:
                    break
                h.update(b)
                got += len(b)
            say("read", n, host, got, h.hexdigest())
    except OSError as e:
        say("conn_error", n, host, e.strerror or e)
    finally:
        s.close()


def cmd_client(args):
    """Connect to ADDR, write the pattern of PORT until the stop file shows
    up (at least one chunk), SIZE bytes every PACE seconds, then close."""
    import hashlib

    ctypes, libc, SockaddrMrc = mrc_api()
    s = socket.socket(AF_MRC, socket.SOCK_STREAM, 0)
    fam = fam_of(args.connect)
    sa = SockaddrMrc(AF_MRC, socket.htons(args.port),
                     socket.AF_INET if fam == 4 else socket.AF_INET6, 0, 0)
    raw = pton(args.connect)
    ctypes.memmove(sa.addr, raw, len(raw))
    if libc.connect(s.fileno(), ctypes.byref(sa), ctypes.sizeof(sa)):
        sys.exit("connect: %s" % os.strerror(ctypes.get_errno()))
    say("connected")
    h, total, i = hashlib.sha256(), 0, 0
    s.settimeout(args.timeout)
    try:
        while True:
            chunk = hashlib.sha256(b"%d/%d" % (args.port, i)).digest() * \
                (args.size // 32)
            s.sendall(chunk)
            h.update(chunk)
            total += len(chunk)
            i += 1
            if os.path.exists(args.stop):
                break
            time.sleep(args.pace)
        s.close()
    except OSError as e:
        say("wrote", total, "error", e.strerror or e)
        sys.exit(1)
    say("wrote", total, h.hexdigest())


# -- case 2: a malicious client --------------------------------------------

class Client:
    """One connection of a minimal MRC client, from M."""

    def __init__(self, name, group, syn_plane, entries, rng, port, want):
        self.name, self.group = name, group
        self.syn_plane = syn_plane
        self.entries = entries          # {plane id: address}
        self.cid = rng.getrandbits(32) | 1
        self.isn = rng.getrandbits(32)
        self.sport = 40000 + rng.getrandbits(12)
        self.port = port
        self.want = want
        self.psn = 0
        self.state = "syn_sent"
        self.b_cid = None
        self.rcv_nxt = None
        self.ooo = {}
        self.stream = bytearray()
        self.fin = False
        self.fin_acked = False
        self.next_tx = 0
        self.tries = 0
        self.probes = 0
        self.rst = 0
        self.rng = rng
        self.done_at = None
        self.data_rx = {}
        self.spoofed = 0 if group == "spoof-probe" else SPOOFED_PROBES
        self.echoed = 0                 # validation PROBEs echoed (guess)
        self.next_spoof = 0
        self.data_ack_flags = 0
        self.window = 1024              # packets offered beyond rcv_nxt

    def hdr(self, ptype, flags=0, dsn=0):
        self.psn += 1
        return hdr(ptype, flags, 49152 + self.rng.getrandbits(14),
                   self.b_cid or 0, self.cid, self.psn, dsn)

    def syn(self):
        ents = []
        for pid, a in sorted(self.entries.items()):
            fam = PLANES[pid]["family"]
            ents.append(plane_entry(pid, fam, a))
        return self.hdr(SYN, dsn=self.isn) + syn_body(
            self.sport, self.port, ents, window=self.window,
            pad_to=SYN_PADDED)

    def ack(self, p, flags=0):
        blocks, run = [], None
        for d in sorted(self.ooo, key=lambda d: (d - self.rcv_nxt) & M32):
            if run and run[1] == d:
                run[1] = d + 1
            else:
                if run:
                    blocks.append(tuple(run))
                run = [d, d + 1]
        if run:
            blocks.append(tuple(run))
        return self.hdr(ACK, flags) + ack_body(
            self.rcv_nxt, self.rcv_nxt + self.window, p["psn"], p["dsn"], 0,
            p["ev"], blocks[:MAX_SACK])

    def deliver(self):
        while self.rcv_nxt in self.ooo:
            payload, flags = self.ooo.pop(self.rcv_nxt)
            self.rcv_nxt = (self.rcv_nxt + 1) & M32
            if flags & F_FIN:
                self.fin = True
            else:
                self.stream += payload

    def input(self, udp, plane, src, p):
        """A packet from B for us on PLANE; answers on the same plane."""
        if src != addr(plane, "B"):
            return
        t = p["type"]
        if t == RST:
            self.rst += 1
            # After the end of the stream, a late packet of ours may
            # find the connection gone: only an RST before counts.
            if self.state == "syn_sent":
                self.state = "refused"
            elif self.state == "established" and not self.fin:
                self.state = "reset"
            elif self.state == "established" and self.done_at is None:
                # Our FIN was answered, by a connection that had ended.
                self.done_at = time.monotonic()
            return
        if t == SYN_ACK:
            if self.state == "syn_sent":
                self.b_cid = p["src"]
                self.rcv_nxt = p["dsn"]
                self.state = "established"
            if p["src"] == self.b_cid:
                udp.send(plane, self.ack(p), addr(plane, "B"))
            return
        if self.state != "established" or p["src"] != self.b_cid:
            return
        if t == PROBE:
            self.probes += 1
            udp.send(plane, self.ack(p, F_PROBE_ECHO), addr(plane, "B"))
        elif t == DATA:
            self.data_rx[plane] = self.data_rx.get(plane, 0) + 1
            body = p["body"]
            if p["flags"] & F_ACK:
                body = body[ACKB.size:]
            if p["flags"] & F_ACK:
                self.note_ack(p["body"])
            d = p["dsn"]
            if ((d - self.rcv_nxt) & M32) < 4096 and d not in self.ooo:
                self.ooo[d] = (bytes(body), p["flags"])
            self.deliver()
            udp.send(plane, self.ack(p, self.data_ack_flags),
                     addr(plane, "B"))
        elif t in (ACK, NACK):
            self.note_ack(p["body"])

    def note_ack(self, body):
        k = parse_ack(body) if body else None
        if k and self.state == "established" and \
                k["cum"] == (self.isn + 1) & M32:
            self.fin_acked = True

    def spoof(self, wire, now):
        """A padded PROBE to B from V's address, on the plane naming V."""
        if self.state != "established" or self.spoofed >= SPOOFED_PROBES \
                or now < self.next_spoof:
            return
        plane = next(p for p in self.entries if p != self.syn_plane)
        wire.send(plane, self.entries[plane], addr(plane, "B"),
                  mac(plane, "B"), self.hdr(PROBE) + bytes(ACKB.size))
        self.spoofed += 1
        self.next_spoof = now + 0.01

    def tick(self, udp, wire, now):
        plane = self.syn_plane
        self.spoof(wire, now)
        if self.state == "syn_sent":
            if now >= self.next_tx:
                if self.tries >= 12:
                    self.state = "no_answer"
                    return
                udp.send(plane, self.syn(), addr(plane, "B"))
                self.tries += 1
                self.next_tx = now + 0.25
        elif self.state == "established" and self.fin and \
                self.spoofed >= SPOOFED_PROBES and \
                not self.fin_acked and now >= self.next_tx:
            # Our FIN: DATA without payload at our first DSN.
            udp.send(plane, self.hdr(DATA, F_FIN, self.isn),
                     addr(plane, "B"))
            self.next_tx = now + 0.2
        if self.state == "established" and self.fin and self.fin_acked \
                and self.done_at is None:
            self.done_at = now

    def finished(self):
        return self.state in ("refused", "no_answer", "reset") or \
            self.done_at is not None

    def result(self):
        good = pattern(self.want, self.port)
        return {"name": self.name, "group": self.group, "cid": self.cid,
                "syn_plane": self.syn_plane,
                "entries": {str(k): v for k, v in self.entries.items()},
                "state": self.state, "bytes": len(self.stream),
                "intact": bytes(self.stream) == good, "fin": self.fin,
                "fin_acked": self.fin_acked, "probes": self.probes,
                "rst": self.rst, "data_rx": self.data_rx,
                "echoed": self.echoed,
                "rcv_nxt": self.rcv_nxt, "ooo": len(self.ooo)}


def scenarios():
    """(name, group, SYN plane, {plane: address}) of the malicious client."""
    m4, m6 = addr(1, "M"), addr(2, "M")
    out = []
    # Bad IPv4 entries for plane 1; the handshake goes over plane 2.
    for name, a in (("third-party", addr(1, "V")),
                    ("broadcast", "255.255.255.255"),
                    ("subnet-broadcast", "10.0.1.255"),
                    ("multicast", "224.0.0.1"), ("loopback", "127.0.0.1"),
                    ("unspecified", "0.0.0.0"), ("server", addr(1, "B"))):
        out.append(("ipv4-" + name, "ipv4", 2, {1: a, 2: m6}))
    # Bad IPv6 entries for plane 2; the handshake goes over plane 1.
    for name, a in (("third-party", addr(2, "V")),
                    ("third-party-link-local", link_local(2, "V")),
                    ("multicast", "ff02::1"), ("loopback", "::1"),
                    ("unspecified", "::"), ("server", addr(2, "B"))):
        out.append(("ipv6-" + name, "ipv6", 1, {1: m4, 2: a}))
    # The SYN's own plane names a third party.
    out.append(("ipv4-own-entry-third-party", "mismatch", 1,
                {1: addr(1, "V"), 2: m6}))
    out.append(("ipv6-own-entry-third-party", "mismatch", 2,
                {1: m4, 2: addr(2, "V")}))
    # Entries naming V, and padded PROBEs from V's address: B answers V on
    # that plane a few times, no bigger than the PROBEs.
    out.append(("ipv4-third-party-spoofed-probes", "spoof-probe", 2,
                {1: addr(1, "V"), 2: m6}))
    out.append(("ipv6-third-party-spoofed-probes", "spoof-probe", 1,
                {1: m4, 2: addr(2, "V")}))
    return out


def guess_scenarios():
    """Case 2's guessing peers: each names V for a plane and answers B's
    validation PROBEs to V, which M sees on the bridges turned hubs, from
    its own address on the honest plane.  Group "guess" first echoes the
    last PROBE with the challenge off by one, then rightly; group "answer"
    only rightly, to show that such an echo is what B validates."""
    m4, m6 = addr(1, "M"), addr(2, "M")
    return [("ipv4-guess", "guess", 2, {1: addr(1, "V"), 2: m6}),
            ("ipv6-guess", "guess", 1, {1: m4, 2: addr(2, "V")}),
            ("ipv4-answer", "answer", 2, {1: addr(1, "V"), 2: m6}),
            ("ipv6-answer", "answer", 1, {1: m4, 2: addr(2, "V")})]


def answer_validation(udp, sniffer, by_cid):
    """Echo, from the honest plane, each validation PROBE that B sent V
    for a connection of ours: group "guess" twice, wrong then right."""
    for plane, _, src, dst, _, _, payload in sniffer.packets(0):
        p = parse(payload)
        c = by_cid.get(p["dst"]) if p else None
        if not c or p["type"] != PROBE or src != addr(plane, "B") or \
                dst != c.entries.get(plane) or c.state != "established":
            continue
        if c.group == "guess":
            wrong = dict(p, dsn=p["dsn"] ^ 1)
            udp.send(c.syn_plane, c.ack(wrong, F_PROBE_ECHO),
                     addr(c.syn_plane, "B"))
        udp.send(c.syn_plane, c.ack(p, F_PROBE_ECHO), addr(c.syn_plane, "B"))
        c.echoed += 1


def cmd_malclient(args):
    import json

    rng = random.Random(args.seed)
    udp = Udp()
    wire = Wire()
    sniffer = Sniffer() if args.guess else None
    clients = [Client(n, g, sp, e, rng, args.port, args.bytes)
               for n, g, sp, e in (guess_scenarios() if args.guess
                                   else scenarios())]
    by_cid = {c.cid: c for c in clients}
    t0 = time.monotonic()
    deadline = t0 + args.timeout
    while time.monotonic() < deadline:
        now = time.monotonic()
        for c in clients:
            c.tick(udp, wire, now)
        if all(c.finished() for c in clients):
            break
        if sniffer:
            answer_validation(udp, sniffer, by_cid)
        socks = list(udp.socks.items())
        r, _, _ = select.select([s for _, s in socks], [], [], 0.02)
        # A bounded turn per socket: a plane that B floods with probes
        # must not starve the other plane, or the ticks, on a slow kernel.
        for plane, s in socks:
            if s not in r:
                continue
            for _ in range(64):
                try:
                    payload, (src, *_) = s.recvfrom(65536)
                except BlockingIOError:
                    break
                p = parse(payload)
                if p and p["dst"] in by_cid:
                    by_cid[p["dst"]].input(udp, plane, src, p)
    res = [c.result() for c in clients]
    for c, r in zip(clients, res):
        r["seconds"] = round(c.done_at - t0, 1) if c.done_at else None
    for r in res:
        say("conn", r["name"], "group", r["group"], "cid %08x" % r["cid"],
            "state", r["state"],
            "bytes", r["bytes"], "intact", "yes" if r["intact"] else "no",
            "fin", "yes" if r["fin"] else "no", "probes_answered",
            r["probes"], "rst", r["rst"], "echoed", r["echoed"], "data_rx",
            ",".join("%s:%s" % kv for kv in sorted(r["data_rx"].items()))
            or "-", "ooo", r["ooo"], "done_s", r["seconds"] or "-")
    say("took", "%.1f" % (time.monotonic() - t0))
    with open(args.out, "w") as f:
        json.dump(res, f)


# -- case 5: a silence, ended by an echo ----------------------------------

def snmp(ns):
    """The MrcExt counters of namespace NS."""
    import subprocess

    out = subprocess.run(["ip", "netns", "exec", ns, "cat",
                          "/proc/net/mrc_snmp"], check=True,
                         capture_output=True, text=True).stdout
    rows = [ln.split()[1:] for ln in out.splitlines()
            if ln.startswith("MrcExt:")]
    return dict(zip(rows[0], map(int, rows[1])))


def cmd_silence(args):
    """Read B's stream, acknowledging it, up to B's pause (server --split),
    then answer nothing: B's timeouts find every path silent and take what
    it sent after the pause for lost, with nothing older unanswered.  Then
    echo one such packet, sent before the silence was found: with the flag
    ECHO_TOLD (a repeated echo, as a window update's, which proves
    nothing) or without (the first echo of a copy held on the way, which
    proves the silence a delay).  Reports B's counters at the start, when
    the silence began, and just before and after that echo, with nothing
    else from us between."""
    rng = random.Random(args.seed)
    udp = Udp()
    c = Client("silence", "silence", args.plane,
               {1: addr(1, "M"), 2: addr(2, "M")}, rng, args.port, 0)
    start = snmp(args.ns)
    try:
        silence_echo(args, udp, c, start)
    finally:
        # B must not hold the connection for case 6's slab count, even
        # when this client failed.
        if c.b_cid is not None:
            udp.send(1, c.hdr(RST, dsn=c.rcv_nxt), addr(1, "B"))


def silence_echo(args, udp, c, start):
    """The body of cmd_silence(), which ends B's connection afterwards."""
    # The silence begins with the first packet B sends after its pause:
    # until then, late copies of what we read are answered, so that none
    # of them is left unanswered on a plane as the silence begins (a
    # path's timeout, which rightly keeps the silence's cuts).  Then the
    # first copies that came in the silence, and those of them that B
    # resent, in the order of the resends: B took those for lost.
    silent, firsts, held, begun = False, {}, [], None
    deadline = time.monotonic() + args.timeout
    while len(held) < 2 and time.monotonic() < deadline:
        c.tick(udp, None, time.monotonic())
        for plane, src, p in udp.packets(0.01):
            if p["dst"] != c.cid:
                continue
            new = p["type"] == DATA and c.rcv_nxt is not None and \
                (p["dsn"] - c.rcv_nxt) & M32 < 1 << 31
            silent = silent or (new and len(c.stream) >= args.before)
            if silent and not begun:
                begun = snmp(args.ns)
            if not silent:
                c.input(udp, plane, src, p)
            elif not new or src != addr(plane, "B") or \
                    p["src"] != c.b_cid:
                continue
            elif not p["flags"] & F_RETX:
                firsts.setdefault(p["dsn"], (plane, p))
            elif p["dsn"] in firsts and firsts[p["dsn"]] not in held:
                held.append(firsts[p["dsn"]])
    # The second: the first may have been taken for lost by its path's
    # timeout alone, before B found every path silent.
    if len(held) < 2:
        say("no_silence", "read", len(c.stream), "state", c.state,
            "firsts", len(firsts), "held", len(held))
        sys.exit(1)
    plane, p = held[1]
    before = snmp(args.ns)
    flags = F_ECHO_TOLD if args.told else 0
    udp.send(plane, c.ack(p, flags), addr(plane, "B"))
    time.sleep(args.settle)
    after = snmp(args.ns)
    say("echoed", "plane", plane, "psn", p["psn"], "dsn", p["dsn"],
        "told", "yes" if args.told else "no", "read", len(c.stream))
    for key in sorted(after):
        if key in ("LossSilence", "LossTimeout", "SpuriousSilences") or \
                after[key] != start[key]:
            say("counter", key, start[key], begun[key], before[key],
                after[key])


# -- pcap files written by tcpdump -----------------------------------------

def pcap(path):
    """(time, packet type, IP packet) of every record: what tcpdump -i any
    (Linux cooked, v1 or v2) or -i DEV (Ethernet) wrote."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return
    magic = struct.unpack_from("<I", data)[0]
    end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    nano = magic in (0xa1b23c4d, 0x4d3cb2a1)
    link = struct.unpack_from(end + "I", data, 20)[0]
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from(end + "IIII", data, off)
        rec = data[off + 16:off + 16 + incl]
        off += 16 + incl
        t = sec + frac / (1e9 if nano else 1e6)
        if link == 113:                       # LINUX_SLL
            ptype = struct.unpack_from("!H", rec)[0]
            yield t, ptype, rec[16:]
        elif link == 276:                     # LINUX_SLL2
            ptype = rec[10]
            yield t, ptype, rec[20:]
        elif link == 1:                       # Ethernet
            yield t, 0, rec[14:]


def bad_destination(dst):
    """Why an address must never receive anything from B, or None."""
    fam = fam_of(dst)
    raw = pton(dst)
    if fam == 4:
        if dst == "255.255.255.255" or dst.endswith(".255"):
            return "broadcast"
        if 224 <= raw[0] <= 239:
            return "multicast"
        if raw[0] == 127:
            return "loopback"
        if raw[0] == 0:
            return "unspecified"
    else:
        if raw[0] == 0xff:
            return "multicast"
        if dst == "::1":
            return "loopback"
        if dst == "::":
            return "unspecified"
    if dst in (addr(1, "B"), addr(2, "B")):
        return "local"
    return None


def cmd_dupflag(args):
    """Read B's whole stream, acknowledging every DATA packet with
    ECHO_DUP, as a peer that lies about duplicates would; end the
    connection with an RST once B's FIN came.  Reports the bytes read,
    whether they are B's pattern (server --mode write), and B's Retrans
    and SpuriousResends before and after."""
    rng = random.Random(args.seed)
    udp = Udp()
    c = Client("dupflag", "dupflag", args.plane,
               {1: addr(1, "M"), 2: addr(2, "M")}, rng, args.port, 0)
    c.data_ack_flags = F_ECHO_DUP
    start = snmp(args.ns)
    deadline = time.monotonic() + args.timeout
    try:
        while not c.fin and time.monotonic() < deadline:
            c.tick(udp, None, time.monotonic())
            for plane, src, p in udp.packets(0.01):
                if p["dst"] == c.cid:
                    c.input(udp, plane, src, p)
    finally:
        if c.b_cid is not None:
            udp.send(1, c.hdr(RST, dsn=c.rcv_nxt), addr(1, "B"))
    after = snmp(args.ns)
    say("read", len(c.stream), "intact",
        "yes" if bytes(c.stream) == pattern(args.bytes, args.port) else "no",
        "fin", "yes" if c.fin else "no")
    for key in ("Retrans", "SpuriousResends"):
        say("counter", key, start.get(key, 0), after.get(key, 0))


def cmd_sackcost(args):
    """Take none of B's stream but claim all of it above the first packet,
    one SACK block an ACK, until B has SPAN packets in flight over that
    hole (or sends no more for 2 s); then send ACKs that name the whole
    span, in one block and in all sixteen, as a peer may write them, from
    an AF_PACKET socket: sendto() returns once the bridge and B are
    through with each, so its time is the time B takes to read it.
    Reports the span and the median time of each kind; an RST ends the
    connection."""
    rng = random.Random(args.seed)
    udp, wire = Udp(), Wire()
    c = Client("sackcost", "sackcost", args.plane,
               {1: addr(1, "M"), 2: addr(2, "M")}, rng, args.port, 0)
    c.window = args.span
    top, last = 0, None
    deadline = time.monotonic() + args.timeout
    moved = time.monotonic()

    def ack(blocks):
        return c.hdr(ACK) + ack_body(first, first + args.span, last["psn"],
                                     last["dsn"], 0, last["ev"], blocks)
    try:
        while time.monotonic() < deadline and top < args.span - 1:
            now = time.monotonic()
            c.tick(udp, None, now)
            if c.state not in ("syn_sent", "established") or \
                    (last and now - moved > 2):
                break
            for plane, src, p in udp.packets(0.01):
                if p["dst"] != c.cid:
                    continue
                if p["type"] != DATA or c.rcv_nxt is None:
                    c.input(udp, plane, src, p)
                    continue
                first = c.rcv_nxt
                off = (p["dsn"] - first) & M32
                if off >= args.span:
                    continue
                if off > top:
                    top, moved = off, time.monotonic()
                last = p
                if top:
                    udp.send(plane, ack([(first + 1, first + top + 1)]),
                             addr(plane, "B"))
        if not top:
            say("no_data", "state", c.state)
            sys.exit(1)
        span = [(first + 1, first + top + 1)]
        times = {"one": [], "sixteen": []}
        plane = args.plane
        for _ in range(args.rounds):
            for kind, blocks in (("one", span), ("sixteen", span * MAX_SACK)):
                sock, pkt, to = wire.frame(plane, addr(plane, "M"),
                                           addr(plane, "B"), mac(plane, "B"),
                                           ack(blocks))
                t = time.monotonic()
                sock.sendto(pkt, to)
                times[kind].append(time.monotonic() - t)
                udp.drain()
                time.sleep(0.005)
        med = {k: sorted(v)[len(v) // 2] * 1e6 for k, v in times.items()}
        say("span", top + 1, "read_us", "one %.0f" % med["one"],
            "sixteen %.0f" % med["sixteen"])
    finally:
        if c.b_cid is not None:
            udp.send(1, c.hdr(RST, dsn=c.rcv_nxt), addr(1, "B"))


class Told:
    """What a receiver has told: the cumulative DSN and the SACK runs,
    kept as runs [start, end) of offsets from the first DSN (a few, so
    that telling is cheap however much is held above a hole)."""

    def __init__(self, nxt):
        self.base, self.cum, self.runs = nxt, 0, []

    @property
    def nxt(self):
        return (self.base + self.cum) & M32

    @property
    def high(self):
        """Past the highest DSN told."""
        return (self.base + (self.runs[-1][1] if self.runs else self.cum)) \
            & M32

    def add(self, dsn):
        off = (dsn - self.base) & M32
        if off < self.cum or off >= 1 << 31:
            return
        i = bisect.bisect_right([r[0] for r in self.runs], off)
        if i and self.runs[i - 1][1] >= off:
            i -= 1
            self.runs[i][1] = max(self.runs[i][1], off + 1)
        else:
            self.runs.insert(i, [off, off + 1])
        r = self.runs[i]
        while i + 1 < len(self.runs) and self.runs[i + 1][0] <= r[1]:
            r[1] = max(r[1], self.runs.pop(i + 1)[1])
        if self.runs[0][0] <= self.cum:
            self.cum = self.runs.pop(0)[1]

    def blocks(self):
        return [((self.base + a) & M32, (self.base + b) & M32)
                for a, b in self.runs[:MAX_SACK]]


def cmd_early_ack(args):
    """Read B's stream over one plane, acknowledging each DATA packet
    DELAY seconds after it came (or as soon after as this client can),
    and answering all else as late, so that B's least round trip is
    DELAY; offer a window of WINDOW packets beyond the highest told,
    which keeps this client in time.  Keep one packet untold until B
    resends it; then at once tell its DSN, with the echo of a copy told
    before (flag ECHO_TOLD), far sooner than a round trip after the
    resend: as a later acknowledgment does when the first copy came late
    and its own acknowledgment was lost.  Hold every copy untold then,
    and what comes meanwhile, until HOLD round trips after the first of
    them came: past B's wait for a packet outrun (a round trip and a
    quarter), short of its timeout (two).  B hears of nothing sent after
    those copies but the resend; taking the resend for what arrived
    would have those of its EV outrun, and found lost by a gap.  With
    ECHO_FIRST, tell the packet kept that many least round trips after
    the resend came instead, long enough for the resend's own
    acknowledgment, but with the echo of its first copy: which copy came
    is said, and it is not the resend.  Reports
    B's connection id, the copies held, those of them judged (on the
    resend's EV, come before it, and outrun by no copy told earlier),
    and whether the stream arrived whole."""
    rng = random.Random(args.seed)
    udp = Udp()
    c = Client("early-ack", "early-ack", 1, {1: addr(1, "M")}, rng,
               args.port, 0)
    c.window = args.window
    try:
        early_ack_read(args, udp, c)
    finally:
        if c.b_cid is not None:
            udp.send(1, c.hdr(RST, dsn=c.rcv_nxt), addr(1, "B"))


class Later:
    """A Udp whose packets leave DELAY seconds after they were sent."""

    def __init__(self, udp, delay):
        self.udp, self.delay, self.queue = udp, delay, []

    def send(self, plane, payload, dst=None):
        self.queue.append((time.monotonic() + self.delay, plane, payload,
                           dst))

    def flush(self, now):
        while self.queue and self.queue[0][0] <= now:
            _, plane, payload, dst = self.queue.pop(0)
            self.udp.send(plane, payload, dst)


def early_ack_read(args, udp, c):
    """The body of cmd_early_ack(), which ends B's connection afterwards."""
    told, due, seq = None, [], 0
    # Every answer waits as long, the handshake's and the probes' too:
    # B's least round trip is the delay.
    later = Later(udp, args.delay)
    # The packet kept untold (dsn, psn, ev), its resend's EV, and the
    # packets held: {dsn: (arrival, psn, ev)}, until release.
    kept, resend_ev, held, release = None, None, {}, None
    first_copies, pending, rtt, r_at = 0, 0, args.delay, 0
    # The newest copy told (by PSN, B's sending order) when the resend
    # came: a copy held that was sent before it was outrun for good reason.
    newest, outran, echoed = None, None, None
    # With --echo-first, when the packet kept is told.
    first_at = None

    def answer(psn, dsn, ev, flags=0):
        udp.send(1, c.hdr(ACK, flags) + ack_body(
            told.nxt, told.high + args.window, psn, dsn, 0, ev,
            told.blocks()))

    def tell(dsn, psn, ev):
        told.add(dsn)
        answer(psn, dsn, ev)

    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        now = time.monotonic()
        if c.fin and not due and not held and not later.queue:
            break
        c.tick(udp, None, now)
        nxt = min([e[0] for e in due[:1] + later.queue[:1]] +
                  [first_at or now + 0.01, now + 0.01])
        wait = max(0.0, min(0.002, nxt - now)) if nxt < now + 0.01 else 0.01
        for plane, src, p in udp.packets(wait):
            if p["dst"] != c.cid:
                continue
            if p["type"] != DATA or c.state != "established" or \
                    p["src"] != c.b_cid or plane != 1:
                c.input(later, plane, src, p)
                continue
            if told is None:
                told = Told(c.rcv_nxt)
            now = time.monotonic()
            dsn, retx = p["dsn"], p["flags"] & F_RETX
            body = p["body"][ACKB.size:] if p["flags"] & F_ACK else p["body"]
            if ((dsn - c.rcv_nxt) & M32) < 4096 and dsn not in c.ooo:
                c.ooo[dsn] = (bytes(body), p["flags"])
                c.deliver()
            if not retx:
                first_copies += 1
            if kept is None and not retx and not p["flags"] & F_FIN and \
                    first_copies > args.before:
                kept = (dsn, p["psn"], p["ev"])
                continue
            if kept and resend_ev is None and retx and dsn == kept[0]:
                resend_ev, pending, r_at = p["ev"], len(due), now
                outran = newest
                # What came before it, still untold, is held: whatever
                # else B hears of, it hears of nothing sent later.
                for t, n, d, ps, ev, rx in sorted(due):
                    held.setdefault(d, (t - args.delay, ps, ev))
                due = []
                first = min([t for t, _, _ in held.values()] + [now])
                release = first + args.hold * rtt
                if args.echo_first:
                    first_at = now + args.echo_first * args.delay
                    release = max(release, first_at + rtt / 4)
                    continue
                # Its DSN told, with the echo of a copy told before (a
                # repeated echo, as a window update's): which copy came
                # is not said.
                told.add(kept[0])
                answer(*(echoed or (kept[1], kept[0], kept[2])),
                       F_ECHO_TOLD)
                continue
            if release and now < release:
                # A resend of a copy held keeps the copy's record.
                held.setdefault(dsn, (now, p["psn"], p["ev"]))
                continue
            seq += 1
            heapq.heappush(due, (now + args.delay, seq, dsn, p["psn"],
                                 p["ev"], retx))
        now = time.monotonic()
        later.flush(now)
        if first_at and now >= first_at:
            # Its DSN told with the echo of its first copy, which says
            # that copy came, however long after the resend this is.
            told.add(kept[0])
            answer(kept[1], kept[0], kept[2])
            first_at = None
        if held and now >= release:
            # The echo of the copy held longest: a round trip no
            # shorter than the others B measured.
            first = min(held, key=lambda d: held[d][0])
            oldest = held[first][0]
            for d in held:
                told.add(d)
            tell(first, *held[first][1:])
            # Judged: the copies held that came on the resend's EV before
            # it, and that no copy told before it outran.
            judged = [ps for t, ps, ev in held.values()
                      if ev == resend_ev and t < r_at and
                      (outran is None or (ps - outran) & M32 < 1 << 31)]
            say("held", len(held), "judged", len(judged), "oldest_ms",
                "%.0f" % (1000 * (now - oldest)), "rtt_ms",
                "%.0f" % (1000 * rtt), "psns",
                ",".join(str(ps) for ps in sorted(judged)) or "-")
            held = {}
        while due and due[0][0] <= now:
            t, _, d, ps, ev, _ = heapq.heappop(due)
            tell(d, ps, ev)
            echoed = (ps, d, ev)
            if newest is None or (ps - newest) & M32 < 1 << 31:
                newest = ps
            # The round trip B sees: the delay, and how late we are.
            rtt += (now - t + args.delay - rtt) / 8
    say("b_cid", "%08x" % (c.b_cid or 0))
    if kept:
        say("kept", "dsn", kept[0], "ev", kept[2], "resend_ev",
            resend_ev if resend_ev is not None else "-",
            "untold_then", pending)
    say("read", len(c.stream), "intact",
        "yes" if bytes(c.stream) == pattern(args.bytes, args.port) else "no",
        "fin", "yes" if c.fin else "no")


def cmd_judge_victim(args):
    """Case 2: per group of malicious connections, what V received from B
    and what B sent to addresses that must never get anything."""
    import json

    with open(args.conns) as f:
        conns = json.load(f)
    b_addrs = (addr(1, "B"), addr(2, "B"))
    v_addrs = (addr(1, "V"), addr(2, "V"), link_local(2, "V"))
    cid_group = {c["cid"]: c["group"] for c in conns}
    groups = sorted({c["group"] for c in conns})
    at_v = {g: {} for g in groups + ["other"]}
    probe_max = {g: 0 for g in groups + ["other"]}
    answer_max = {g: 0 for g in groups + ["other"]}
    v_total = 0
    for _, ptype, pkt in pcap(args.victim):
        # What V's stack takes: to its MAC, broadcast or multicast.
        if ptype not in (0, 1, 2):
            continue
        u = parse_ip(pkt)
        if not u:
            continue
        v_total += 1
        _, src, dst, sport, dport, payload = u
        if src not in b_addrs:
            continue
        p = parse(payload)
        name = TYPE_NAMES.get(p["type"], "other") if p else "short"
        g = cid_group.get(p["dst"], "other") if p else "other"
        at_v[g][name] = at_v[g].get(name, 0) + 1
        if name == "probe":
            probe_max[g] = max(probe_max[g], len(payload))
        elif name == "ack":
            answer_max[g] = max(answer_max[g], len(payload))
    bad_out = {g: {} for g in groups + ["other"]}
    for _, ptype, pkt in pcap(args.server):
        if ptype != 4:                        # PACKET_OUTGOING
            continue
        u = parse_ip(pkt)
        if not u:
            continue
        _, src, dst, sport, dport, payload = u
        why = bad_destination(dst)
        if not why:
            continue
        p = parse(payload)
        g = cid_group.get(p["dst"], "other") if p else "other"
        key = "%s:%s" % (why, TYPE_NAMES.get(p["type"], "other")
                         if p else "short")
        bad_out[g][key] = bad_out[g].get(key, 0) + 1
    say("victim_udp_packets", v_total)
    for g in groups + ["other"]:
        listed = sum(1 for c in conns if c["group"] == g
                     for a in c["entries"].values() if a in v_addrs)
        counts = ",".join("%s=%d" % kv for kv in sorted(at_v[g].items()))
        outs = " ".join("%s=%d" % kv for kv in sorted(bad_out[g].items()))
        say("group", g, "entries_naming_v", listed, "at_v", counts or "none",
            "probe_max_len", probe_max[g], "answer_max_len", answer_max[g],
            "b_to_bad", outs or "none")


def cmd_judge_flood(args):
    """Case 3: SYN_ACKs from B to the spoofed addresses, per family: how
    many, and their bytes of UDP payload."""
    spoof = {a: p for p in PLANES for a in spoofed(p)}
    n = {p: 0 for p in PLANES}
    other = {p: 0 for p in PLANES}
    size = {p: 0 for p in PLANES}
    for _, ptype, pkt in pcap(args.pcap):
        u = parse_ip(pkt)
        if not u:
            continue
        _, src, dst, sport, dport, payload = u
        if dst not in spoof:
            continue
        p = parse(payload)
        if p and p["type"] == SYN_ACK:
            n[spoof[dst]] += 1
            size[spoof[dst]] += len(payload)
        else:
            other[spoof[dst]] += 1
    for p in PLANES:
        say("plane", p, "synack", n[p], "other", other[p], "bytes", size[p])


# -- case 3: SYN flood ------------------------------------------------------

def cmd_flood(args):
    """SYNs from the spoofed addresses of PLANE, padded as a SYN must be to
    be answered, each from another address, port and id: COUNT of them,
    then after PAUSE seconds THEN more."""
    rng = random.Random(args.seed)
    wire = Wire()
    plane = args.plane
    fam = PLANES[plane]["family"]
    pool = spoofed(plane)
    t0 = time.monotonic()
    for i in range(args.count + args.then):
        if i == args.count:
            time.sleep(args.pause)
        src = pool[i % len(pool)]
        pkt = hdr(SYN, ev=49152 + rng.getrandbits(14),
                  src=rng.getrandbits(32) | 1, psn=0,
                  dsn=rng.getrandbits(32)) + \
            syn_body(32768 + rng.getrandbits(14), args.port,
                     [plane_entry(plane, fam, src)], pad_to=SYN_PADDED)
        wire.send(plane, src, addr(plane, "B"), mac(plane, "B"), pkt)
    say("sent", wire.sent, "seconds", "%.2f" % (time.monotonic() - t0))


# -- case 4: forged RST and ACK ---------------------------------------------

def cmd_forge(args):
    rng = random.Random(args.seed)
    learned = capture(args, {"A": 50})
    wire = Wire()
    c = learned.sending("A")
    a_cid, b_cid = c.cid["A"], c.cid["B"]
    x = c.dsn["A"]                      # A's DSNs, around its snd_nxt
    a_psn = c.psn["A"]                  # a PSN that A sent lately
    counts = {}

    def to_a(plane, payload, cat):
        wire.send(plane, addr(plane, "B"), addr(plane, "A"), mac(plane, "A"),
                  payload)
        counts[cat] = counts.get(cat, 0) + 1

    def to_b(plane, payload, cat):
        wire.send(plane, addr(plane, "A"), addr(plane, "B"), mac(plane, "B"),
                  payload)
        counts[cat] = counts.get(cat, 0) + 1

    # DSNs far from every window of either end: A's sending window, and
    # B's (which sent no data: its initial DSN).
    windows = c.windows()
    rst_dsns = [d & M32 for d in (x + (1 << 31), x - (1 << 24), x + (1 << 24),
                                  0, M32)]
    rst_dsns = [d for d in rst_dsns if all(dist(d, w) >= 1 << 20
                                           for w in windows if w is not None)]
    # Cumulative DSNs beyond snd_nxt, and 2^31 away.  "Beyond" stays true
    # while the transfer moves on: 2^20 packets are more than it sends.
    cums = [x + (1 << 20), x + (1 << 24), x + (1 << 31) - 1, x + (1 << 31),
            x + (1 << 31) + 1]
    # SACK blocks beyond snd_nxt, and from far behind snd_una to far
    # beyond snd_nxt: cheap to look at, sent every round.
    near = [(x + (1 << 20), x + (1 << 20) + 4096),
            (x - (1 << 29), x + (1 << 29)),
            (x - (1 << 30) + 1, x + (1 << 30))]
    # Blocks 2^31 away, around the antipode: once a second.
    antipodal = [(x + (1 << 31) - 8, x + (1 << 31) + 8),
                 (x + (1 << 31) + 8, x + (1 << 31) + 64),
                 (x + (1 << 31) + 64, x + (1 << 31) + (1 << 30))]
    # And one 2^29 wide around it, last: it starts less than 2^31 ahead
    # of snd_una and ends less than 2^31 behind snd_nxt, wherever they
    # are, which a check made of mrc_before() alone takes for in flight.
    wide = (x + (1 << 31) - (1 << 28), x + (1 << 31) + (1 << 28))
    t0 = time.monotonic()
    end = t0 + args.duration
    # The antipodal blocks from half way through: before a fix, each costs
    # a CPU a long loop.
    rounds, next_far = 0, t0 + args.duration / 2

    def ack(t, blocks, cum=None):
        """To A: echoes a PSN that A sent lately, as an on-path attacker
        can, so that A reads it; the cumulative DSN by default one that B
        acknowledged long ago."""
        return hdr(t, dst=a_cid, src=b_cid, psn=rng.getrandbits(32)) + \
            ack_body(x - (1 << 30) if cum is None else cum, x, a_psn,
                     rng.getrandbits(32), sacks=blocks)

    while time.monotonic() < end:
        rounds += 1
        pkts = []
        for plane in PLANES:
            if args.kind == "rst":
                for dsn in rst_dsns:
                    pkts.append((to_a, plane, "rst_to_a",
                                 hdr(RST, ev=49152 + rng.getrandbits(14),
                                     dst=a_cid, src=b_cid,
                                     psn=rng.getrandbits(32), dsn=dsn)))
                    pkts.append((to_b, plane, "rst_to_b",
                                 hdr(RST, ev=49152 + rng.getrandbits(14),
                                     dst=b_cid, src=a_cid,
                                     psn=rng.getrandbits(32), dsn=dsn)))
                continue
            for cum in cums:
                pkts.append((to_a, plane, "ack_cum_beyond",
                             ack(ACK, [], cum)))
            for blk in near:
                for t in (ACK, NACK):
                    pkts.append((to_a, plane, "ack_sack_beyond",
                                 ack(t, [blk])))
            if time.monotonic() >= next_far:
                for blk in antipodal:
                    pkts.append((to_a, plane, "ack_sack_antipodal",
                                 ack(ACK, [blk])))
                pkts.append((to_a, plane, "ack_sack_antipodal",
                             ack(ACK, near + antipodal +
                                 [(x + (1 << 31) + i, x + (1 << 31) + i + 1)
                                  for i in range(MAX_SACK - 6)])))
        if args.kind == "ack" and time.monotonic() >= next_far:
            next_far = time.monotonic() + 1
        for send, plane, cat, payload in pkts:
            if time.monotonic() >= end:
                break
            send(plane, payload, cat)
        time.sleep(args.interval)
    if args.kind == "ack":
        # The packet goes through the bridge to A within sendto(), BHs
        # being enabled again on the way out: the time sendto() takes is
        # the time A takes to read it.  The fastest of three, so that a
        # host that stalls the guest once is not taken for a slow kernel.
        base, slow = [], []
        for i in range(8):
            t = time.monotonic()
            to_a(1, ack(ACK, near[:1]), "ack_sack_beyond")
            base.append(time.monotonic() - t)
        for i in range(3):
            t = time.monotonic()
            to_a(1, ack(ACK, [wide]), "ack_sack_antipodal_wide")
            slow.append(time.monotonic() - t)
            time.sleep(0.3)
        base.sort()
        say("read_ms", "median %.1f" % (1000 * base[len(base) // 2]),
            "wide_fastest %.1f" % (1000 * min(slow)),
            "wide_slowest %.1f" % (1000 * max(slow)))
    for cat in sorted(counts):
        say("sent", cat, counts[cat])
    say("done", "rounds", rounds, "packets", wire.sent, "retries",
        wire.retries, "seconds", "%.1f" % (time.monotonic() - t0))


def wait_for_file(path, timeout):
    """Until PATH exists, at most TIMEOUT seconds; exits when it does not."""
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() >= deadline:
            sys.exit("%s did not show up in %g s" % (path, timeout))
        time.sleep(0.1)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--after", metavar="FILE",
                    help="started ahead: run the command once FILE exists")
    ap.add_argument("--after-timeout", type=float, default=300)
    sub = ap.add_subparsers(dest="cmd", required=True)

    sub.add_parser("spoofed")

    p = sub.add_parser("server")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--backlog", type=int, default=16)
    p.add_argument("--mode", choices=("write", "read", "reset"),
                   default="read")
    p.add_argument("--bytes", type=int, default=0)
    p.add_argument("--split", type=int, default=0,
                   help="write: pause after this many bytes")
    p.add_argument("--pause", type=float, default=1)
    p.add_argument("--sndbuf", type=int, default=0,
                   help="write: SO_SNDBUFFORCE of each connection")
    p.add_argument("--timeout", type=float, default=60)

    for name in ("fuzz", "forge"):
        p = sub.add_parser(name)
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--go", help="wait for this file after capturing")
        p.add_argument("--capture-timeout", type=float, default=30)
        if name == "fuzz":
            p.add_argument("--port", type=int, required=True,
                           help="the transfer's MRC port")
            p.add_argument("--fuzz-port", type=int, required=True,
                           help="a listener that takes the SYNs")
        else:
            p.add_argument("--kind", choices=("rst", "ack"), required=True)
            p.add_argument("--duration", type=float, default=3)
            p.add_argument("--interval", type=float, default=0.01)

    p = sub.add_parser("client")
    p.add_argument("--connect", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--stop", required=True)
    p.add_argument("--size", type=int, default=16384)
    p.add_argument("--pace", type=float, default=0.02)
    p.add_argument("--timeout", type=float, default=60)

    p = sub.add_parser("malclient")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--bytes", type=int, required=True)
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--timeout", type=float, default=15)
    p.add_argument("--out", required=True)
    p.add_argument("--guess", action="store_true",
                   help="the guessing peers, with B's PROBEs to V sniffed")

    p = sub.add_parser("flood")
    p.add_argument("--plane", type=int, required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--then", type=int, default=0)
    p.add_argument("--pause", type=float, default=0.2)
    p.add_argument("--seed", type=int, default=3)

    p = sub.add_parser("sackcost")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--plane", type=int, default=1)
    p.add_argument("--span", type=int, default=16384,
                   help="the window offered: packets in flight at most")
    p.add_argument("--rounds", type=int, default=40)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--timeout", type=float, default=60)

    p = sub.add_parser("dupflag")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--bytes", type=int, required=True,
                   help="what B writes: its server's --bytes")
    p.add_argument("--ns", required=True, help="B's namespace")
    p.add_argument("--plane", type=int, default=1,
                   help="the plane of the SYN")
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("--seed", type=int, default=7)

    p = sub.add_parser("early-ack")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--bytes", type=int, required=True,
                   help="what B writes: its server's --bytes")
    p.add_argument("--before", type=int, default=400,
                   help="DATA packets read before one is kept untold")
    p.add_argument("--delay", type=float, default=0.08,
                   help="seconds each acknowledgment waits")
    p.add_argument("--window", type=int, default=48,
                   help="packets offered beyond the highest told")
    p.add_argument("--hold", type=float, default=1.75,
                   help="round trips the resend's EV is held")
    p.add_argument("--echo-first", type=float, default=0,
                   help="tell the packet kept this many least round trips "
                   "after its resend came, with the echo of its first "
                   "copy (0: at once, echoing a copy told before)")
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("--seed", type=int, default=8)

    p = sub.add_parser("silence")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ns", required=True, help="B's namespace")
    p.add_argument("--plane", type=int, default=1,
                   help="the plane of the SYN")
    p.add_argument("--told", action="store_true",
                   help="the echo carries ECHO_TOLD")
    p.add_argument("--before", type=int, default=256 << 10,
                   help="bytes read before the silence: B's --split")
    p.add_argument("--settle", type=float, default=0.3)
    p.add_argument("--timeout", type=float, default=30)
    p.add_argument("--seed", type=int, default=5)

    p = sub.add_parser("judge-victim")
    p.add_argument("--conns", required=True)
    p.add_argument("--victim", required=True)
    p.add_argument("--server", required=True)

    p = sub.add_parser("judge-flood")
    p.add_argument("--pcap", required=True)

    args = ap.parse_args()
    if args.after:
        wait_for_file(args.after, args.after_timeout)
    COMMANDS[args.cmd](args)


def cmd_spoofed(args):
    for plane in PLANES:
        for a in spoofed(plane):
            print(plane, a)


COMMANDS = {
    "spoofed": cmd_spoofed,
    "server": cmd_server,
    "fuzz": cmd_fuzz,
    "forge": cmd_forge,
    "client": cmd_client,
    "malclient": cmd_malclient,
    "flood": cmd_flood,
    "silence": cmd_silence,
    "dupflag": cmd_dupflag,
    "sackcost": cmd_sackcost,
    "early-ack": cmd_early_ack,
    "judge-victim": cmd_judge_victim,
    "judge-flood": cmd_judge_flood,
}


if __name__ == "__main__":
    main()
