#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Installing MRC on a host (README.md, "Installing on a host"): "make
# install DESTDIR=" puts every file where documented and "make uninstall"
# takes them away; DKMS adds, installs and removes mrc.ko, which modprobe
# then loads (that very file: its build ID) and which carries connections
# over IPv4 and IPv6 planes; the commands of the systemd unit mrc.service
# apply /etc/mrc/mrc.conf, again on restart, and flush on stop; "make
# install" into the real paths runs depmod, so that modprobe loads its
# mrc.ko, and systemd-analyze accepts its unit; the bash completion works.
#
# Nothing is left behind: the script runs in a mount namespace of its own
# and every directory an installation writes (the source tree, /usr/local,
# /usr/src, /var/lib/dkms, /etc) gets an overlay with a tmpfs upper layer;
# this kernel's /lib/modules is replaced by a small copy in tmpfs.  The
# mrc.ko layered in by the VM runner (extra/) is left out of that copy, so
# that DKMS does not refuse to install a module of the same version and
# modprobe can only find the installed one.  Systemd does not run in the
# guest: the unit's commands are read from the installed unit and run in
# two hosts (namespaces).
#
# The DKMS build: inside a TCG guest it takes about four minutes per
# kernel, too long for this test, so "make" runs it on the host
# (tools/testing/dkms-prebuild: dkms add and build into private trees under
# build/dkms).  Here "dkms add" runs for real, the built module is taken
# from there when its sources are the ones "make install-dkms" installs,
# and "dkms install" runs for real.  Without such a build (not built as
# root, or sources changed since), dkms builds here, slowly.  For the
# same reason "make install" runs with NO_BUILD=1: the host's "make" built
# everything, and even a kbuild run with nothing to do is slow in TCG.

. "$(dirname "$0")/mrc_lib.sh"

mrc_require_root
mrc_need_mrcctl
mrc_need_bin mrc_xfer
mrc_need_cmd make dkms unshare modinfo objcopy xz depmod

# A mount namespace of our own: the overlays go with it.
if [ -z "$MRC_INSTALL_NS" ]; then
	MRC_INSTALL_NS=1 unshare -m --propagation private "$0" "$@"
	exit
fi

mrc_plan 15

TOP=$(cd "$MRC_DIR" && cd "$(pwd -P)/../../../../.." && pwd)
VERSION=$(cat "$TOP/VERSION")
REL=$(uname -r)
MODS=/lib/modules/$REL
XFER=$MRC_BIN/mrc_xfer
PREBUILT=$TOP/build/dkms
suffix=$(printf '%04x' $RANDOM)
A=mrci-$suffix-a
B=mrci-$suffix-b
tmp=$(mktemp -d)
port=6000
mounts=()
was_loaded=0
mrc_module_loaded && was_loaded=1

cleanup()
{
	local i

	mrc_kill_jobs
	mrc_cleanup
	mrc_module_loaded && rmmod mrc
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount "${mounts[i]}"
	done
	rm -rf "$tmp"
	# The module the test started with, from the runner's module tree.
	[ "$was_loaded" = 0 ] || modprobe mrc
}
trap cleanup EXIT

# overlay DIR: writes to DIR land in tmpfs from now on.
overlay()
{
	local dir=$1 up

	up=$tmp/ovl/$(echo "$dir" | tr / _)
	mkdir -p "$up/u" "$up/w" "$dir" &&
		mount -t overlay overlay \
			-o "lowerdir=$dir,upperdir=$up/u,workdir=$up/w" "$dir" &&
		mounts+=("$dir")
}

# The kernel's module tree cut down to the modules loaded now and those
# mrc.ko needs, in tmpfs over $MODS: each depmod of the steps below then
# reads a few dozen modules, not thousands over 9p (more than a minute
# each under emulation), and what the steps install there goes with the
# test.  Those steps and modprobe behave as in the whole tree.
small_module_tree()
{
	local stage=$tmp/modules mod path rel

	modprobe veth || return 1
	mkdir -p "$stage" || return 1
	cp -P "$MODS"/modules.order "$MODS"/modules.builtin* "$stage/" || return 1
	for rel in build source; do
		[ ! -L "$MODS/$rel" ] || cp -P "$MODS/$rel" "$stage/" || return 1
	done
	for mod in $(awk '{ print $1 }' /proc/modules) \
		   $(modinfo -F depends mrc | tr , ' '); do
		[ "$mod" != mrc ] || continue
		path=$(modinfo -n "$mod" 2> /dev/null) || continue
		rel=${path#"$MODS"/}
		[ "$rel" != "$path" ] || continue
		mkdir -p "$stage/${rel%/*}" && cp "$path" "$stage/$rel" || return 1
	done
	mount -t tmpfs -o mode=0755 tmpfs "$MODS" && mounts+=("$MODS") &&
		cp -a "$stage/." "$MODS/" && depmod -a "$REL"
}

for dir in "$TOP" /usr/local /usr/src /var/lib/dkms /etc; do
	overlay "$dir" || { mrc_fail "cannot overlay $dir"; exit "$KSFT_FAIL"; }
done
small_module_tree || { mrc_fail "cannot cut down $MODS"; exit "$KSFT_FAIL"; }
mrc_module_loaded && rmmod mrc

# run NAME COMMAND...: run COMMAND, its output in $tmp/NAME; show it if
# it fails.
run()
{
	local name=$1

	shift
	"$@" > "$tmp/$name" 2>&1 && return 0
	mrc_fail "$* failed:"
	mrc_show "$tmp/$name"
	return 1
}

# The files "make install" writes, under PREFIX=/usr/local.
installed_files()
{
	cat <<-EOF
	/etc/mrc/mrc.conf
	/lib/modules/$REL/updates/mrc.ko
	/usr/local/bin/mrcctl
	/usr/local/bin/mrcize
	/usr/local/bin/mrcperf
	/usr/local/include/linux/mrc.h
	/usr/local/include/linux/mrc_diag.h
	/usr/local/include/linux/mrc_netlink.h
	/usr/local/lib/mrcize/libmrcize.so
	/usr/local/lib/systemd/system/mrc.service
	/usr/local/share/bash-completion/completions/mrcctl
	/usr/local/share/doc/mrc/examples/modules-load.d/mrc.conf
	/usr/local/share/doc/mrc/examples/mrc.conf
	/usr/local/share/doc/mrc/examples/mrc_echo.c
	/usr/local/share/man/man1/mrcize.1
	/usr/local/share/man/man1/mrcperf.1
	/usr/local/share/man/man7/mrc.7
	/usr/local/share/man/man8/mrcctl.8
	EOF
}

# build_id FILE: the build ID note of a module file (.ko or .ko.xz), raw,
# in $tmp/FILE's name.id; as /sys/module/mrc/notes shows it.
build_id()
{
	local ko=$tmp/id.ko

	case $1 in
	*.xz) xz -dc "$1" > "$ko" ;;
	*) cp "$1" "$ko" ;;
	esac
	objcopy -O binary --only-section=.note.gnu.build-id "$ko" "$tmp/file.id"
}

# loads_file FILE: modprobe mrc finds FILE and loads that very module.
loads_file()
{
	local found

	mrc_module_loaded && { rmmod mrc || return 1; }
	found=$(modinfo -n mrc 2>&1)
	mrc_expect "modinfo -n mrc" "$found" "$1" || return 1
	mrc_expect "version of $1" "$(modinfo -F version "$1")" "$VERSION" ||
		return 1
	modprobe mrc || return 1
	mrc_expect "/sys/module/mrc/version" "$(cat /sys/module/mrc/version)" \
		"$VERSION" || return 1
	build_id "$1" || return 1
	cmp -s "$tmp/file.id" /sys/module/mrc/notes/.note.gnu.build-id ||
		mrc_fail "the loaded mrc has not the build ID of $1"
}

# step DESCRIPTION COMMAND...: mrc_check, and the time it took.
step()
{
	local start=$SECONDS

	mrc_check "$@"
	mrc_info "$((SECONDS - start)) s"
}

############################################################################

destdir_install()
{
	local dest=$tmp/dest f want got

	run make-install make -s -C "$TOP" install DESTDIR="$dest" KVER="$REL" \
		NO_BUILD=1 ||
		return 1
	want=$(installed_files | sort)
	got=$(cd "$dest" && find . -type f | sed 's/^\.//' | sort)
	mrc_expect "files installed" "$got" "$want" || return 1
	for f in /usr/local/bin/mrcctl /usr/local/bin/mrcperf \
		 /usr/local/bin/mrcize; do
		[ -x "$dest$f" ] || mrc_fail "$f is not executable" || return 1
	done
	# The installed mrcize finds the installed library beside it.
	mrc_expect "mrcize lib" "$(MRCIZE_LIB='' "$dest/usr/local/bin/mrcize" lib)" \
		"$(realpath "$dest/usr/local/lib/mrcize/libmrcize.so")" || return 1
	mrc_expect "mrcctl -V" "$("$dest/usr/local/bin/mrcctl" -V)" \
		"mrcctl $VERSION" || return 1
	mrc_expect "version of mrc.ko" \
		"$(modinfo -F version "$dest$MODS/updates/mrc.ko")" "$VERSION" ||
		return 1
	cmp -s "$dest/etc/mrc/mrc.conf" "$TOP/tools/etc/mrc.conf" ||
		mrc_fail "/etc/mrc/mrc.conf is not the example" || return 1
	grep -qx "ExecStart=/usr/local/bin/mrcctl -batch /etc/mrc/mrc.conf -force" \
		"$dest/usr/local/lib/systemd/system/mrc.service" ||
		mrc_fail "mrc.service does not run the installed mrcctl"
}

# PREFIX=/usr, and the headers are usable as <linux/...>.
destdir_prefix()
{
	local dest=$tmp/dest-usr

	run make-tools make -s -C "$TOP" install-tools DESTDIR="$dest" PREFIX=/usr \
		NO_BUILD=1 ||
		return 1
	grep -qx "ExecStop=/usr/bin/mrcctl plane flush" \
		"$dest/usr/lib/systemd/system/mrc.service" ||
		mrc_fail "PREFIX=/usr: mrc.service does not run /usr/bin/mrcctl" ||
		return 1
	[ -x "$dest/usr/bin/mrcctl" ] &&
		[ -e "$dest/usr/share/bash-completion/completions/mrcctl" ] ||
		mrc_fail "PREFIX=/usr: files missing" || return 1
	printf '%s\n' '#include <linux/mrc.h>' '#include <linux/mrc_netlink.h>' \
		'#include <linux/mrc_diag.h>' \
		'int main(void) { return AF_MRC != 25 || !MRC_CMD_PLANE_GET ||' \
		'	sizeof(struct mrc_diag_req) != 24; }' \
		> "$tmp/hdr.c"
	run cc cc -I"$dest/usr/include" -o "$tmp/hdr" "$tmp/hdr.c" && "$tmp/hdr"
}

destdir_uninstall()
{
	local dest=$tmp/dest left

	run make-uninstall make -s -C "$TOP" uninstall DESTDIR="$dest" ||
		return 1
	left=$(cd "$dest" && find . -type f | sed 's/^\.//')
	mrc_expect "files left by make uninstall" "$left" /etc/mrc/mrc.conf
}

# "make install-dkms" into a DESTDIR, as the prebuilt tree was made, then
# into /usr/src; "dkms add".
dkms_add()
{
	local src=/usr/src/mrc-$VERSION

	run make-dkms make -s -C "$TOP" install-dkms DESTDIR="$tmp/pkg" ||
		return 1
	grep -qx "PACKAGE_VERSION=\"$VERSION\"" "$tmp/pkg$src/dkms.conf" ||
		mrc_fail "dkms.conf does not name version $VERSION" || return 1
	cp -r "$tmp/pkg$src" /usr/src/ &&
		run dkms-add dkms add "mrc/$VERSION" || return 1
	grep -q "^mrc/$VERSION: added" <(dkms status "mrc/$VERSION" 2> /dev/null) ||
		mrc_fail "dkms status: $(dkms status "mrc/$VERSION" 2> /dev/null)"
}

dkms_install()
{
	local built=$PREBUILT/tree/mrc/$VERSION/$REL ko

	if [ -d "$built" ] &&
	   diff -r "$PREBUILT/root/usr/src/mrc-$VERSION" "/usr/src/mrc-$VERSION" \
		> /dev/null; then
		mrc_info "the module DKMS built on the host, for dkms install"
		cp -r "$built" "/var/lib/dkms/mrc/$VERSION/"
	else
		mrc_info "no DKMS build of these sources from the host: building here"
		run dkms-build dkms build "mrc/$VERSION" -k "$REL" || return 1
	fi
	run dkms-install dkms install "mrc/$VERSION" -k "$REL" || return 1
	grep -q "^mrc/$VERSION, $REL, [^:]*: installed" <(dkms status "mrc/$VERSION" 2> /dev/null) ||
		mrc_fail "dkms status: $(dkms status "mrc/$VERSION" 2> /dev/null)" || return 1
	ko=$(ls "$MODS"/updates/dkms/mrc.ko* 2> /dev/null)
	[ -n "$ko" ] || mrc_fail "no mrc.ko in $MODS/updates/dkms" || return 1
	DKMS_KO=$ko
}

# The unit's commands, as systemd would run them, in host NS: start or
# stop.
unit_run()
{
	local ns=$1 what=$2 line cmd

	while IFS= read -r line; do
		case $what/$line in
		start/ExecStartPre=* | start/ExecStart=* | stop/ExecStop=*)
			cmd=${line#*=}
			# shellcheck disable=SC2086 # a command line, as systemd splits it
			ip netns exec "$ns" $cmd || return 1
			;;
		esac
	done < "$UNIT"
}

# The planes that mrc.conf makes on each host: IPv4 on veth1, IPv6 on
# veth2, with their settings.
unit_conf()
{
	cat > /etc/mrc/mrc.conf <<-EOF
	# Written by install.sh.
	config set port 4800 evs 16
	plane add dev veth1 id 1
	plane add dev veth2 id 2 evs 24
	EOF
}

# unit_planes NS: what the unit made, as showconf prints it.
unit_planes()
{
	local addr1 addr2 want

	addr1=$(mrc_addr 4 1 "$2")
	addr2=$(mrc_addr 6 2 "$2")
	want="config set port 4800 evs 16
plane add dev veth1 id 1 addr $addr1 evs 16
plane add dev veth2 id 2 addr $addr2 evs 24"
	mrc_expect "showconf in $1" "$("$MRCCTL" -n "$1" showconf)" "$want" &&
		mrc_wait_for 10 mrc_planes_up "$1" 2
}

unit_start()
{
	mrc_ns_add "$A" "$B" && mrc_link_hosts "$A" "$B" 4 1 1 &&
		mrc_link_hosts "$A" "$B" 6 2 2 || return 1
	UNIT=/usr/local/lib/systemd/system/mrc.service
	run make-install-unit make -s -C "$TOP" install-tools NO_BUILD=1 || return 1
	unit_conf
	unit_run "$A" start && unit_run "$B" start || return 1
	unit_planes "$A" 1 && unit_planes "$B" 2
}

# transfer FAMILY: 1 MiB from A to B's address on the plane of FAMILY.
transfer()
{
	local peer rc srv

	port=$((port + 1))
	if [ "$1" = 4 ]; then
		peer=$(mrc_addr 4 1 2)
	else
		peer=$(mrc_addr 6 2 2)
	fi
	rm -f "$tmp"/[sc].out "$tmp"/[sc].err
	ip netns exec "$B" "$XFER" -l -p "$port" > "$tmp/s.out" 2> "$tmp/s.err" &
	srv=$!
	mrc_wait_for 30 mrc_server_ready "$tmp/s.out" "$srv"
	ip netns exec "$A" "$XFER" -c "$peer" -p "$port" -s 1048576 -S "$port" \
		> "$tmp/c.out" 2> "$tmp/c.err"
	rc=$?
	[ "$rc" = 0 ] || { mrc_show "$tmp/c.err"; kill "$srv" 2> /dev/null; }
	wait "$srv" || { mrc_show "$tmp/s.err"; return 1; }
	[ "$rc" = 0 ] || return 1
	# "conn 0 bytes B msgs M sha256 H": the bytes and their hash.
	mrc_expect "what arrived" "$(awk '$1 == "conn" { print $4, $8 }' "$tmp/s.out")" \
		"$(awk '$1 == "conn" { print $4, $8 }' "$tmp/c.out")" &&
		grep -q '^conn 0 bytes 1048576 ' "$tmp/s.out"
}

# The completion, as bash-completion loads it, names the planes' devices.
completion()
{
	local file=/usr/local/share/bash-completion/completions/mrcctl got

	[ -r /usr/share/bash-completion/bash_completion ] || return "$KSFT_SKIP"
	got=$(PATH=$(dirname "$MRCCTL"):$PATH bash -c '
		. /usr/share/bash-completion/bash_completion
		. "$1"
		complete_words() {
			COMP_WORDS=("$@")
			COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMP_LINE="$*"
			COMP_POINT=${#COMP_LINE}
			COMPREPLY=()
			_mrcctl
			echo "${COMPREPLY[*]}"
		}
		complete_words mrcctl pl
		complete_words mrcctl plane add dev veth1 ""
		complete_words mrcctl -n "$2" plane del dev ""' - "$file" "$A")
	mrc_expect "completions" "$got" "plane
id addr evs up down
veth1 veth2"
}

# Stop: no plane left; start again (systemctl restart): the same planes.
unit_restart()
{
	unit_run "$A" stop || return 1
	[ -z "$("$MRCCTL" -n "$A" plane show)" ] ||
		mrc_fail "planes left after ExecStop" || return 1
	unit_run "$A" start && unit_run "$B" start && unit_planes "$A" 1 &&
		unit_planes "$B" 2 && transfer 4 || return 1
	unit_run "$A" stop && unit_run "$B" stop
}

dkms_remove()
{
	mrc_cleanup
	rmmod mrc || return 1
	run dkms-remove dkms remove "mrc/$VERSION" --all || return 1
	[ -z "$(ls "$MODS"/updates/dkms/mrc.ko* 2> /dev/null)" ] ||
		mrc_fail "mrc.ko left in $MODS/updates/dkms" || return 1
	! modinfo -n mrc > /dev/null 2>&1 ||
		mrc_fail "modprobe still finds $(modinfo -n mrc)"
}

# "make install" into the real paths: depmod, and the unit verifies.
real_install()
{
	run make-install-real make -s -C "$TOP" install KVER="$REL" NO_BUILD=1 &&
		loads_file "$MODS/updates/mrc.ko" || return 1
	mrc_expect "mrcctl -V" "$(/usr/local/bin/mrcctl -V)" "mrcctl $VERSION"
}

unit_verify()
{
	command -v systemd-analyze > /dev/null || return "$KSFT_SKIP"
	run verify systemd-analyze verify /usr/local/lib/systemd/system/mrc.service
}

real_uninstall()
{
	rmmod mrc || return 1
	run make-uninstall-real make -s -C "$TOP" uninstall || return 1
	for f in $(installed_files); do
		[ "$f" = /etc/mrc/mrc.conf ] && continue
		[ ! -e "$f" ] || mrc_fail "$f left by make uninstall" || return 1
	done
	! modinfo -n mrc > /dev/null 2>&1 ||
		mrc_fail "modprobe still finds $(modinfo -n mrc)"
}

step "make install DESTDIR= installs every file where documented" destdir_install
step "make install-tools PREFIX=/usr; the headers compile" destdir_prefix
step "make uninstall DESTDIR= removes all but mrc.conf" destdir_uninstall
step "make install-dkms; dkms add" dkms_add
step "dkms install: mrc.ko in updates/dkms, version $VERSION" dkms_install
step "modprobe loads the DKMS mrc.ko" loads_file "$DKMS_KO"
step "mrc.service's commands apply /etc/mrc/mrc.conf" unit_start
step "a connection over the IPv4 plane" transfer 4
step "a connection over the IPv6 plane" transfer 6
step "bash completion of mrcctl" completion
step "mrc.service stops and starts again" unit_restart
step "dkms remove" dkms_remove
step "make install: depmod, modprobe loads updates/mrc.ko" real_install
step "systemd-analyze verify mrc.service" unit_verify
step "make uninstall" real_uninstall

mrc_finish
