-- SPDX-License-Identifier: GPL-2.0
--
-- Wireshark dissector for MRC, the Multipath Reliable Connection transport
-- over UDP (net/mrc/protocol.h, Documentation/networking/mrc.rst).
--
-- Every packet type is decoded, every field named under mrc.* for display
-- filters: the header (mrc.type, mrc.psn, mrc.dsn, ...), the flags of
-- DATA (mrc.flags.last, .fin, .retx, .trimmed, .ack) and of ACK and NACK
-- (mrc.flags.ece, .probe_echo, .echo_told, .echo_dup, .no_room,
-- .room), the planes of SYN and SYN_ACK (mrc.syn.plane.id, .addr4, .addr6), the
-- acknowledgment of ACK, NACK and of DATA with the ACK flag (mrc.ack.*),
-- and its SACK blocks (mrc.sack.start, mrc.sack.end).  What does not fit the format is told
-- by expert info (mrc.expert.*), never by a Lua error.
--
-- Use:
--   tshark -X lua_script:tools/wireshark/mrc.lua -r capture.pcap -V
--   wireshark -X lua_script:tools/wireshark/mrc.lua capture.pcap
-- or copy this file into ~/.local/lib/wireshark/plugins/.  MRC is decoded
-- on UDP port 4793, the module's default; a namespace that runs on another
-- port ("mrcctl config set port N") needs the preference changed
-- (-o mrc.udp_port:N) or "Decode As" (-d udp.port==N,mrc).
--
-- Written for the Lua API of Wireshark 4.0 (Debian 12) and later.

local mrc = Proto("mrc", "Multipath Reliable Connection")

local DEFAULT_PORT = 4793
local VERSION = 1

local HDR_LEN = 28		-- struct mrc_hdr
local SYN_LEN = 12		-- struct mrc_syn, without its planes
local PLANE_LEN = 20		-- struct mrc_syn_plane
local MAX_PLANES = 16
local SYN_PADDED = SYN_LEN + MAX_PLANES * PLANE_LEN	-- MRC_SYN_BODY_LEN
local ACK_LEN = 24		-- struct mrc_ack, without its SACK blocks
local SACK_LEN = 8		-- struct mrc_sack_block
local MAX_SACK = 16
local PROBE_PAD = ACK_LEN	-- a padded PROBE is as large as its answer

local SYN, SYN_ACK, DATA, ACK, PROBE, RST, NACK = 1, 2, 3, 4, 5, 6, 7

local type_names = {
	[SYN] = "SYN",
	[SYN_ACK] = "SYN_ACK",
	[DATA] = "DATA",
	[ACK] = "ACK",
	[PROBE] = "PROBE",
	[RST] = "RST",
	[NACK] = "NACK",
}

-- Flags of DATA, and of ACK and NACK, in bit order, for the Info column.
local F_LAST, F_FIN, F_RETX, F_TRIMMED, F_ACK = 0x01, 0x02, 0x04, 0x08, 0x10
local F_ECE, F_PROBE_ECHO, F_ECHO_TOLD, F_ECHO_DUP = 0x01, 0x02, 0x04, 0x08
local F_NO_ROOM, F_ROOM = 0x10, 0x20
local data_flags = {
	{ F_LAST, "LAST" }, { F_FIN, "FIN" }, { F_RETX, "RETX" },
	{ F_TRIMMED, "TRIMMED" }, { F_ACK, "ACK" },
}
local ack_flags = {
	{ F_ECE, "ECE" }, { F_PROBE_ECHO, "PROBE_ECHO" },
	{ F_ECHO_TOLD, "ECHO_TOLD" }, { F_ECHO_DUP, "ECHO_DUP" },
	{ F_NO_ROOM, "NO_ROOM" }, { F_ROOM, "ROOM" },
}
-- NO_ROOM goes on a NACK only, ROOM on an ACK only.
local DATA_FLAGS_ALL, ACK_FLAGS_ALL, NACK_FLAGS_ALL = 0x1f, 0x2f, 0x1f

local family_names = { [4] = "IPv4", [6] = "IPv6" }

local f = {
	version = ProtoField.uint8("mrc.version", "Version", base.DEC, nil,
				   0xf0),
	type = ProtoField.uint8("mrc.type", "Type", base.DEC, type_names,
				0x0f),
	flags = ProtoField.uint8("mrc.flags", "Flags", base.HEX),
	f_last = ProtoField.bool("mrc.flags.last", "LAST (last packet of a message)",
				 8, nil, F_LAST),
	f_fin = ProtoField.bool("mrc.flags.fin", "FIN (sender sends no more data)",
				8, nil, F_FIN),
	f_retx = ProtoField.bool("mrc.flags.retx", "RETX (a resend)", 8, nil,
				 F_RETX),
	f_trimmed = ProtoField.bool("mrc.flags.trimmed",
				    "TRIMMED (a switch cut the payload off)",
				    8, nil, F_TRIMMED),
	f_ack = ProtoField.bool("mrc.flags.ack",
				"ACK (an acknowledgment before the payload)",
				8, nil, F_ACK),
	f_ece = ProtoField.bool("mrc.flags.ece",
				"ECE (the echoed packet was marked CE)",
				8, nil, F_ECE),
	f_probe_echo = ProtoField.bool("mrc.flags.probe_echo",
				       "PROBE_ECHO (the echoed packet was a PROBE)",
				       8, nil, F_PROBE_ECHO),
	f_echo_told = ProtoField.bool("mrc.flags.echo_told",
				      "ECHO_TOLD (the echo repeats the last ACK's)",
				      8, nil, F_ECHO_TOLD),
	f_echo_dup = ProtoField.bool("mrc.flags.echo_dup",
				     "ECHO_DUP (the echoed packet had arrived already)",
				     8, nil, F_ECHO_DUP),
	f_no_room = ProtoField.bool("mrc.flags.no_room",
				    "NO_ROOM (the receiver had no memory for it)",
				    8, nil, F_NO_ROOM),
	f_room = ProtoField.bool("mrc.flags.room",
				 "ROOM (reading made room since a NO_ROOM)",
				 8, nil, F_ROOM),
	ev = ProtoField.uint16("mrc.ev", "Entropy value", base.DEC),
	dst_cid = ProtoField.uint32("mrc.dst_cid", "Destination connection id",
				    base.HEX),
	src_cid = ProtoField.uint32("mrc.src_cid", "Source connection id",
				    base.HEX),
	cid = ProtoField.uint32("mrc.cid", "Connection id", base.HEX),
	psn = ProtoField.uint32("mrc.psn", "Packet sequence number", base.DEC),
	dsn = ProtoField.uint32("mrc.dsn", "Data sequence number", base.DEC),
	msg_id = ProtoField.uint32("mrc.msg_id", "Message id", base.DEC),
	offset = ProtoField.uint32("mrc.offset", "Offset", base.DEC),

	syn = ProtoField.none("mrc.syn", "Handshake"),
	syn_src_port = ProtoField.uint16("mrc.syn.src_port", "Source port",
					 base.DEC),
	syn_dst_port = ProtoField.uint16("mrc.syn.dst_port", "Destination port",
					 base.DEC),
	syn_window = ProtoField.uint32("mrc.syn.window",
				       "Receive window (DATA packets)", base.DEC),
	syn_max_payload = ProtoField.uint16("mrc.syn.max_payload",
					    "Largest payload", base.DEC),
	syn_nr_planes = ProtoField.uint8("mrc.syn.nr_planes", "Plane count",
					 base.DEC),
	syn_reserved = ProtoField.uint8("mrc.syn.reserved", "Reserved",
					base.HEX),
	plane = ProtoField.none("mrc.syn.plane", "Plane"),
	plane_id = ProtoField.uint8("mrc.syn.plane.id", "Plane id", base.DEC),
	plane_family = ProtoField.uint8("mrc.syn.plane.family", "Family",
					base.DEC, family_names),
	plane_reserved = ProtoField.uint16("mrc.syn.plane.reserved", "Reserved",
					   base.HEX),
	plane_addr4 = ProtoField.ipv4("mrc.syn.plane.addr4", "Address"),
	plane_addr6 = ProtoField.ipv6("mrc.syn.plane.addr6", "Address"),
	plane_addr = ProtoField.bytes("mrc.syn.plane.addr", "Address"),

	ack = ProtoField.none("mrc.ack", "Acknowledgment"),
	cum_dsn = ProtoField.uint32("mrc.ack.cum_dsn", "Cumulative DSN",
				    base.DEC),
	wnd_end = ProtoField.uint32("mrc.ack.wnd_end", "Window end (DSN)",
				    base.DEC),
	echo_psn = ProtoField.uint32("mrc.ack.echo_psn", "Echoed PSN", base.DEC),
	echo_dsn = ProtoField.uint32("mrc.ack.echo_dsn", "Echoed DSN", base.DEC),
	delay_us = ProtoField.uint32("mrc.ack.delay_us",
				     "Delay (microseconds)", base.DEC),
	echo_ev = ProtoField.uint16("mrc.ack.echo_ev", "Echoed EV", base.DEC),
	nr_sack = ProtoField.uint8("mrc.ack.nr_sack", "SACK count", base.DEC),
	ack_reserved = ProtoField.uint8("mrc.ack.reserved", "Reserved",
					base.HEX),
	sack = ProtoField.none("mrc.sack", "SACK block"),
	sack_start = ProtoField.uint32("mrc.sack.start", "Start DSN", base.DEC),
	sack_end = ProtoField.uint32("mrc.sack.end", "End DSN (excluded)",
				     base.DEC),
	sack_len = ProtoField.uint32("mrc.sack.len", "Packets", base.DEC),

	payload = ProtoField.bytes("mrc.payload", "Payload"),
	payload_len = ProtoField.uint32("mrc.payload_len", "Payload length",
					base.DEC),
	padding = ProtoField.bytes("mrc.padding", "Padding"),
	trailing = ProtoField.bytes("mrc.trailing", "Trailing bytes"),
}
mrc.fields = f

local e = {
	short = ProtoExpert.new("mrc.expert.short", "Packet too short",
				expert.group.MALFORMED, expert.severity.ERROR),
	version = ProtoExpert.new("mrc.expert.version", "Unknown version",
				  expert.group.MALFORMED, expert.severity.ERROR),
	type = ProtoExpert.new("mrc.expert.type", "Unknown packet type",
			       expert.group.MALFORMED, expert.severity.ERROR),
	flags = ProtoExpert.new("mrc.expert.flags", "Unknown flags",
				expert.group.PROTOCOL, expert.severity.WARN),
	reserved = ProtoExpert.new("mrc.expert.reserved",
				   "Reserved field not zero",
				   expert.group.PROTOCOL, expert.severity.WARN),
	planes = ProtoExpert.new("mrc.expert.planes", "Bad plane list",
				 expert.group.MALFORMED, expert.severity.ERROR),
	family = ProtoExpert.new("mrc.expert.family", "Unknown address family",
				 expert.group.PROTOCOL, expert.severity.WARN),
	unpadded = ProtoExpert.new("mrc.expert.unpadded",
				   "SYN not padded: a listener ignores it",
				   expert.group.PROTOCOL, expert.severity.WARN),
	padding = ProtoExpert.new("mrc.expert.padding", "Padding not zero",
				  expert.group.PROTOCOL, expert.severity.WARN),
	sack = ProtoExpert.new("mrc.expert.sack", "Bad SACK block list",
			       expert.group.MALFORMED, expert.severity.ERROR),
	sack_order = ProtoExpert.new("mrc.expert.sack_order",
				     "SACK block out of order or empty",
				     expert.group.PROTOCOL,
				     expert.severity.WARN),
	ride = ProtoExpert.new("mrc.expert.ride",
			       "Acknowledgment in DATA carries SACK blocks",
			       expert.group.MALFORMED, expert.severity.ERROR),
	trailing = ProtoExpert.new("mrc.expert.trailing",
				   "Bytes after the end of the packet",
				   expert.group.PROTOCOL, expert.severity.WARN),
	no_payload = ProtoExpert.new("mrc.expert.payload",
				     "Payload where none belongs",
				     expert.group.PROTOCOL, expert.severity.WARN),
	trimmed = ProtoExpert.new("mrc.expert.trimmed",
				  "Trimmed by a switch (congestion)",
				  expert.group.SEQUENCE, expert.severity.NOTE),
	retx = ProtoExpert.new("mrc.expert.retx", "Resend",
			       expert.group.SEQUENCE, expert.severity.NOTE),
	rst = ProtoExpert.new("mrc.expert.rst", "Connection reset",
			      expert.group.SEQUENCE, expert.severity.NOTE),
	nack = ProtoExpert.new("mrc.expert.nack",
			       "NACK: the echoed packet must be resent",
			       expert.group.SEQUENCE, expert.severity.NOTE),
}
mrc.experts = e

mrc.prefs.udp_port = Pref.uint("UDP port", DEFAULT_PORT,
			       "UDP port of MRC (the namespace's port, 4793 by default)")

-- The names of the FLAGS set in BITS ({ bit, name } pairs), and those
-- unknown as hex, comma-separated.
local function flag_names(bits, flags, known)
	local names = {}

	for _, fl in ipairs(bits) do
		if bit.band(flags, fl[1]) ~= 0 then
			names[#names + 1] = fl[2]
		end
	end
	if bit.band(flags, bit.bnot(known)) ~= 0 then
		names[#names + 1] = string.format("0x%02x",
			bit.band(flags, bit.bnot(known)))
	end
	return table.concat(names, ",")
end

-- Zero bytes only?
local function all_zero(tvb)
	for i = 0, tvb:len() - 1 do
		if tvb(i, 1):uint() ~= 0 then
			return false
		end
	end
	return true
end

-- Padding or stray bytes from OFF to the end of TVB under TREE: padding
-- (expected zero) when PAD, trailing bytes otherwise.
local function rest(tvb, off, tree, pad)
	local n = tvb:len() - off

	if n <= 0 then
		return
	end
	if pad then
		local item = tree:add(f.padding, tvb(off, n))

		if not all_zero(tvb(off, n):tvb()) then
			item:add_proto_expert_info(e.padding)
		end
	else
		tree:add(f.trailing, tvb(off, n))
			:add_proto_expert_info(e.trailing,
				string.format("%d bytes after the end of the packet", n))
	end
end

-- Is TVB long enough for LEN bytes from OFF?  If not, say so under ITEM.
local function need(tvb, off, len, item, what)
	if tvb:len() >= off + len then
		return true
	end
	item:add_proto_expert_info(e.short,
		string.format("%s needs %d bytes, %d left", what, len,
			      math.max(tvb:len() - off, 0)))
	return false
end

-- SYN and SYN_ACK body from OFF; returns a summary for Info.
local function dissect_syn(tvb, off, tree, ptype)
	local len = tvb:len() - off
	local body = tree:add(f.syn, tvb(off, math.max(len, 0)))
	local nr, planes = 0, {}

	if not need(tvb, off, SYN_LEN, body, "handshake body") then
		return " [short]"
	end
	body:add(f.syn_src_port, tvb(off, 2))
	body:add(f.syn_dst_port, tvb(off + 2, 2))
	body:add(f.syn_window, tvb(off + 4, 4))
	body:add(f.syn_max_payload, tvb(off + 8, 2))
	nr = tvb(off + 10, 1):uint()
	local nr_item = body:add(f.syn_nr_planes, tvb(off + 10, 1))
	local res = body:add(f.syn_reserved, tvb(off + 11, 1))
	if tvb(off + 11, 1):uint() ~= 0 then
		res:add_proto_expert_info(e.reserved)
	end
	body:append_text(string.format(", port %d -> %d, %d plane%s",
		tvb(off, 2):uint(), tvb(off + 2, 2):uint(), nr,
		nr == 1 and "" or "s"))
	if nr > MAX_PLANES then
		nr_item:add_proto_expert_info(e.planes,
			string.format("%d planes, at most %d", nr, MAX_PLANES))
	end

	local p = off + SYN_LEN
	for i = 1, nr do
		if tvb:len() < p + PLANE_LEN then
			nr_item:add_proto_expert_info(e.short,
				string.format("room for %d of %d planes",
					      i - 1, nr))
			break
		end
		local id = tvb(p, 1):uint()
		local fam = tvb(p + 1, 1):uint()
		local pt = body:add(f.plane, tvb(p, PLANE_LEN))
		pt:add(f.plane_id, tvb(p, 1))
		local fam_item = pt:add(f.plane_family, tvb(p + 1, 1))
		local r = pt:add(f.plane_reserved, tvb(p + 2, 2))
		if tvb(p + 2, 2):uint() ~= 0 then
			r:add_proto_expert_info(e.reserved)
		end
		local addr
		if fam == 4 then
			pt:add(f.plane_addr4, tvb(p + 4, 4))
			addr = tostring(tvb(p + 4, 4):ipv4())
			local tail = tvb(p + 8, 12)
			if not all_zero(tail:tvb()) then
				pt:add(f.padding, tail)
					:add_proto_expert_info(e.padding)
			end
		elseif fam == 6 then
			pt:add(f.plane_addr6, tvb(p + 4, 16))
			addr = tostring(tvb(p + 4, 16):ipv6())
		else
			pt:add(f.plane_addr, tvb(p + 4, 16))
			fam_item:add_proto_expert_info(e.family,
				string.format("family %d, not 4 or 6", fam))
			addr = "?"
		end
		pt:set_text(string.format("Plane %d: %s %s", id,
					  family_names[fam] or "family " .. fam,
					  addr))
		planes[#planes + 1] = string.format("%d=%s", id, addr)
		p = p + PLANE_LEN
	end
	if ptype == SYN then
		rest(tvb, p, body, true)
		if tvb:len() < off + SYN_PADDED then
			tree:add_proto_expert_info(e.unpadded,
				string.format("SYN body of %d bytes, not %d",
					      len, SYN_PADDED))
		end
	else
		rest(tvb, p, body, false)
	end
	return string.format(" Port=%d->%d Win=%d Planes=[%s]",
			     tvb(off, 2):uint(), tvb(off + 2, 2):uint(),
			     tvb(off + 4, 4):uint(), table.concat(planes, " "))
end

-- The acknowledgment from OFF (of ACK, NACK, or in DATA when RIDE);
-- returns a summary for Info and the offset after it.
local function dissect_ack(tvb, off, tree, ride)
	local len = tvb:len() - off
	local body = tree:add(f.ack, tvb(off, math.max(math.min(len, ACK_LEN), 0)))
	local info

	if not need(tvb, off, ACK_LEN, body, "acknowledgment") then
		return " [short]", tvb:len()
	end
	body:add(f.cum_dsn, tvb(off, 4))
	body:add(f.wnd_end, tvb(off + 4, 4))
	body:add(f.echo_psn, tvb(off + 8, 4))
	body:add(f.echo_dsn, tvb(off + 12, 4))
	body:add(f.delay_us, tvb(off + 16, 4))
	body:add(f.echo_ev, tvb(off + 20, 2))
	local nr = tvb(off + 22, 1):uint()
	local nr_item = body:add(f.nr_sack, tvb(off + 22, 1))
	local res = body:add(f.ack_reserved, tvb(off + 23, 1))
	if tvb(off + 23, 1):uint() ~= 0 then
		res:add_proto_expert_info(e.reserved)
	end
	body:append_text(string.format(", cumulative %d, %d SACK blocks",
		tvb(off, 4):uint(), nr))
	info = string.format(" Cum=%d WndEnd=%d Echo=%d/%d",
			     tvb(off, 4):uint(), tvb(off + 4, 4):uint(),
			     tvb(off + 8, 4):uint(), tvb(off + 12, 4):uint())

	if ride and nr ~= 0 then
		nr_item:add_proto_expert_info(e.ride)
		return info, off + ACK_LEN
	end
	if nr > MAX_SACK then
		nr_item:add_proto_expert_info(e.sack,
			string.format("%d SACK blocks, at most %d", nr, MAX_SACK))
	end

	local p = off + ACK_LEN
	local blocks = {}
	local prev_end
	for i = 1, nr do
		if tvb:len() < p + SACK_LEN then
			nr_item:add_proto_expert_info(e.short,
				string.format("room for %d of %d SACK blocks",
					      i - 1, nr))
			p = tvb:len()
			break
		end
		local s = tvb(p, 4):uint()
		local en = tvb(p + 4, 4):uint()
		-- DSNs wrap at 2^32: the block's size modulo 2^32.
		local n = (en - s) % 4294967296
		local st = body:add(f.sack, tvb(p, SACK_LEN))
		st:set_text(string.format("SACK block [%d, %d): %d packets",
					  s, en, n))
		st:add(f.sack_start, tvb(p, 4))
		st:add(f.sack_end, tvb(p + 4, 4))
		st:add(f.sack_len, n):set_generated()
		local ahead = prev_end and (s - prev_end) % 4294967296 or 1
		if n == 0 or n >= 2147483648 or ahead == 0 or
		   ahead >= 2147483648 then
			st:add_proto_expert_info(e.sack_order)
		end
		-- The first block is the run of the packet answered, wherever
		-- it lies; the others follow lowest first.
		if i > 1 then
			prev_end = en
		end
		blocks[#blocks + 1] = string.format("%d-%d", s, en)
		p = p + SACK_LEN
	end
	body:set_len(p - off)
	if #blocks > 0 then
		info = info .. " SACK=" .. table.concat(blocks, ",")
	end
	return info, p
end

function mrc.dissector(tvb, pinfo, tree)
	local len = tvb:len()

	pinfo.cols.protocol = "MRC"
	local root = tree:add(mrc, tvb())
	if len < 1 then
		root:add_proto_expert_info(e.short, "empty datagram")
		pinfo.cols.info = "MRC [empty]"
		return len
	end

	local ver = bit.rshift(tvb(0, 1):uint(), 4)
	local ptype = bit.band(tvb(0, 1):uint(), 0x0f)
	local name = type_names[ptype] or string.format("type %d", ptype)
	local vitem = root:add(f.version, tvb(0, 1))
	local titem = root:add(f.type, tvb(0, 1))

	if ver ~= VERSION then
		vitem:add_proto_expert_info(e.version,
			string.format("version %d, not %d", ver, VERSION))
	end
	if not type_names[ptype] then
		titem:add_proto_expert_info(e.type)
	end
	pinfo.cols.info = name
	root:append_text(", " .. name)
	if len < HDR_LEN then
		root:add_proto_expert_info(e.short,
			string.format("header needs %d bytes, %d there",
				      HDR_LEN, len))
		pinfo.cols.info:append(" [short]")
		return len
	end

	-- Flags, by type.
	local flags = tvb(1, 1):uint()
	local fitem = root:add(f.flags, tvb(1, 1))
	local fnames = ""
	if ptype == DATA then
		for _, fl in ipairs({ f.f_last, f.f_fin, f.f_retx, f.f_trimmed,
				      f.f_ack }) do
			fitem:add(fl, tvb(1, 1))
		end
		fnames = flag_names(data_flags, flags, DATA_FLAGS_ALL)
		if bit.band(flags, bit.bnot(DATA_FLAGS_ALL)) ~= 0 then
			fitem:add_proto_expert_info(e.flags)
		end
	elseif ptype == ACK or ptype == NACK then
		fitem:add(f.f_ece, tvb(1, 1))
		fitem:add(f.f_probe_echo, tvb(1, 1))
		fitem:add(f.f_echo_told, tvb(1, 1))
		fitem:add(f.f_echo_dup, tvb(1, 1))
		fitem:add(f.f_no_room, tvb(1, 1))
		fitem:add(f.f_room, tvb(1, 1))
		local known = ptype == ACK and ACK_FLAGS_ALL or NACK_FLAGS_ALL

		fnames = flag_names(ack_flags, flags, known)
		if bit.band(flags, bit.bnot(known)) ~= 0 then
			fitem:add_proto_expert_info(e.flags)
		end
	elseif flags ~= 0 then
		fnames = string.format("0x%02x", flags)
		fitem:add_proto_expert_info(e.flags,
			"flags on a packet type that has none")
	end
	if fnames ~= "" then
		fitem:append_text(" (" .. fnames .. ")")
		pinfo.cols.info:append(" [" .. fnames .. "]")
	end

	root:add(f.ev, tvb(2, 2))
	root:add(f.dst_cid, tvb(4, 4))
	root:add(f.src_cid, tvb(8, 4))
	root:add(f.cid, tvb(4, 4)):set_hidden()
	root:add(f.cid, tvb(8, 4)):set_hidden()
	root:add(f.psn, tvb(12, 4))
	local dsn_item = root:add(f.dsn, tvb(16, 4))
	root:add(f.msg_id, tvb(20, 4))
	root:add(f.offset, tvb(24, 4))
	if ptype == SYN or ptype == SYN_ACK then
		dsn_item:append_text(" (initial DSN)")
	elseif ptype == PROBE then
		dsn_item:append_text(" (oldest unacknowledged, or a challenge)")
	end

	local psn, dsn = tvb(12, 4):uint(), tvb(16, 4):uint()
	pinfo.cols.info:append(string.format(" 0x%08x->0x%08x EV=%d PSN=%d DSN=%d",
		tvb(8, 4):uint(), tvb(4, 4):uint(), tvb(2, 2):uint(), psn, dsn))
	root:append_text(string.format(", PSN %d, DSN %d", psn, dsn))

	local off = HDR_LEN
	local info = ""
	if ptype == SYN or ptype == SYN_ACK then
		info = dissect_syn(tvb, off, root, ptype)
	elseif ptype == ACK or ptype == NACK then
		local after
		info, after = dissect_ack(tvb, off, root, false)
		rest(tvb, after, root, false)
		if ptype == NACK then
			root:add_proto_expert_info(e.nack)
		end
	elseif ptype == DATA then
		if bit.band(flags, F_ACK) ~= 0 then
			local ack_info
			ack_info, off = dissect_ack(tvb, off, root, true)
			info = " Ack:" .. ack_info
		end
		local n = math.max(len - off, 0)
		if n > 0 then
			root:add(f.payload, tvb(off, n))
		end
		root:add(f.payload_len, n):set_generated()
		info = string.format(" Msg=%d Off=%d Len=%d",
				     tvb(20, 4):uint(), tvb(24, 4):uint(),
				     n) .. info
		if bit.band(flags, F_TRIMMED) ~= 0 then
			fitem:add_proto_expert_info(e.trimmed)
		end
		if bit.band(flags, F_RETX) ~= 0 then
			fitem:add_proto_expert_info(e.retx)
		end
		if n > 0 and bit.band(flags, F_FIN + F_TRIMMED) ~= 0 then
			root:add_proto_expert_info(e.no_payload,
				"payload on a FIN or TRIMMED packet")
		end
	elseif ptype == PROBE then
		rest(tvb, off, root, true)
		if len > off and len ~= off + PROBE_PAD then
			root:add_proto_expert_info(e.padding,
				string.format("padding of %d bytes, not %d",
					      len - off, PROBE_PAD))
		end
	elseif ptype == RST then
		rest(tvb, off, root, false)
		root:add_proto_expert_info(e.rst)
	else
		if len > off then
			root:add(f.trailing, tvb(off, len - off))
		end
	end
	pinfo.cols.info:append(info)
	return len
end

-- The UDP port: registered at start and again when the preference changes;
-- "Decode As" offers MRC for any other port.
local udp_table = DissectorTable.get("udp.port")
local registered_port = DEFAULT_PORT
udp_table:add(registered_port, mrc)
udp_table:add_for_decode_as(mrc)

function mrc.prefs_changed()
	local port = mrc.prefs.udp_port

	if port ~= registered_port then
		if registered_port ~= 0 then
			udp_table:remove(registered_port, mrc)
		end
		if port ~= 0 then
			udp_table:add(port, mrc)
		end
		registered_port = port
	end
end
