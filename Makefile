# SPDX-License-Identifier: GPL-2.0
#
# MRC for Linux.
#
#   make                 mrc.ko for every installed target kernel, and the selftests
#   make KVER=6.12       the same for one kernel (a release or a series)
#   make deps            install what building and testing need (apt-get)
#   make check           build, lint, and run the selftests on every kernel in VMs
#   make lint            checkpatch --strict, generated code freshness, and
#                        W=1 builds with sparse for every kernel
#   make check-debug     run a subset of the selftests on a KASAN/lockdep/
#                        kmemleak/UBSAN kernel built from linux-source-6.12
#                        (built once, 20-30 minutes, and cached outside the tree)
#   make debug-kernel    only build (or find) that kernel
#   make KDIR=DIR        mrc.ko against the kernel build tree DIR
#   make demo            boot a VM and show MRC at work
#   make bench           boot a VM and benchmark MRC, TCP and MPTCP
#                        (QUICK=1: a smoke run of a few minutes; REPEAT=3:
#                        three runs of each, min/median/max; BASE_RTT=US:
#                        MRC's planes given that base round trip),
#                        results in build/bench/
#   make install         install mrc.ko (in /lib/modules/RELEASE/updates),
#                        the tools (mrcize's library in PREFIX/lib/mrcize),
#                        headers, man pages, completion and the systemd
#                        unit (PREFIX=/usr/local, DESTDIR)
#   make install-tools   all but mrc.ko (with install-dkms)
#                        (NO_BUILD=1: install what is built, build nothing)
#   make install-dkms    mrc.ko's sources in /usr/src/mrc-VERSION, built and
#                        installed by DKMS for every kernel, now and later
#   make uninstall, make uninstall-dkms
#   make clean

TOP := $(CURDIR)
BUILD := $(TOP)/build
KSRC := $(BUILD)/linux-source-6.12
KSFT := $(KSRC)/tools/testing/selftests
SELFTESTS := tools/testing/selftests/net/mrc

.PHONY: all modules selftests mrcctl examples deps check lint checkpatch netlink-check \
	demo clean mrcperf mrcize bench need-kernels debug-kernel check-debug \
	install install-modules install-tools install-dkms uninstall \
	uninstall-dkms dkms-test

# "make deps check": what this file learns at parse time (the installed
# kernels) is what was there before deps ran.  So with deps and other
# goals on one command line, install first, then build the other goals in
# a new make that sees what deps installed.
AFTER_DEPS := $(if $(filter deps,$(MAKECMDGOALS)),$(filter-out deps,$(MAKECMDGOALS)))
ifneq ($(AFTER_DEPS),)

deps:
	@scripts/deps
	@$(MAKE) --no-print-directory $(AFTER_DEPS)

$(AFTER_DEPS): deps
	@:

else

all: modules mrcctl mrcperf mrcize examples selftests

# The target kernels: the installed ones, or one (KVER=), or the kernel
# whose build tree KDIR names.  None is needed to parse this file (make
# deps on a bare machine); the targets that build for them check.
ifneq ($(KDIR),)
KVERS := $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
else
KVERS := $(shell scripts/kernels $(KVER))
endif
kdir = $(if $(KDIR),$(KDIR),/lib/modules/$(1)/build)

need-kernels:
	@if [ -z "$(KVERS)" ]; then \
		echo "no target kernel installed$(if $(KVER), for KVER=$(KVER))$(if $(KDIR), in KDIR=$(KDIR)); run 'make deps'" >&2; \
		exit 1; \
	fi

# Sources that checkpatch checks: every C file and header of the project
# but those generated from the netlink spec.
GENERATED = net/mrc/netlink_gen.c net/mrc/netlink_gen.h \
	include/uapi/linux/mrc_netlink.h
CHECK_FILES = $(sort $(filter-out $(GENERATED),$(wildcard net/mrc/*.[ch] \
	include/uapi/linux/*.h tools/mrcctl/*.[ch] tools/mrcize/*.[ch] \
	tools/examples/*.c $(SELFTESTS)/*.c \
	$(SELFTESTS)/modules/*.c)))

SELFTEST_VARS = KSFT_DIR=$(KSFT) OUTPUT=$(BUILD)/selftests \
	KHDR_INCLUDES="-isystem $(TOP)/include/uapi"

mrcctl:
	$(MAKE) -C tools/mrcctl

mrcperf:
	$(MAKE) -C tools/mrcperf

examples:
	$(MAKE) -C tools/examples

# mrcize looks for its library where install-tools puts it, under PREFIX.
mrcize:
	$(MAKE) -C tools/mrcize PREFIX=$(PREFIX)

# Each kernel gets its own build tree mirroring the sources with symlinks,
# so that objects for different kernels never mix.
define module_rules
.PHONY: module-$(1) lint-$(1)
modules: module-$(1)
module-$(1): need-kernels
	@mkdir -p $(BUILD)/$(1)
	@cp -rsf $(TOP)/Kbuild $(TOP)/VERSION $(TOP)/net $(TOP)/include $(BUILD)/$(1)/
	$(MAKE) -C $(2) M=$(BUILD)/$(1) W=1 modules
	@mkdir -p $(BUILD)/$(1)/test-modules
	@cp -rsf $(TOP)/$(SELFTESTS)/modules/. $(BUILD)/$(1)/test-modules/
	$(MAKE) -C $(2) M=$(BUILD)/$(1)/test-modules W=1 modules

# A fresh W=1 build with sparse (C=1): every file is compiled and checked.
lint-$(1):
	@echo "  LINT    $(1)"
	@rm -rf $(BUILD)/lint/$(1) && mkdir -p $(BUILD)/lint/$(1)
	@cp -rs $(TOP)/Kbuild $(TOP)/VERSION $(TOP)/net $(TOP)/include $(BUILD)/lint/$(1)/
	@$(MAKE) -s -C $(2) M=$(BUILD)/lint/$(1) W=1 C=1 \
		modules > $(BUILD)/lint/$(1).log 2>&1 || \
		{ cat $(BUILD)/lint/$(1).log; exit 1; }
	@! grep -E 'warning|error' $(BUILD)/lint/$(1).log
endef
$(foreach k,$(KVERS),$(eval $(call module_rules,$(k),$(call kdir,$(k)))))
modules: need-kernels

$(KSFT)/lib.mk:
	@scripts/linux-source

selftests: $(KSFT)/lib.mk dkms-test
	@mkdir -p $(BUILD)/selftests
	@mkdir -p $(KSFT)/net && ln -sfn $(TOP)/$(SELFTESTS) $(KSFT)/net/mrc
	$(MAKE) -C $(SELFTESTS) $(SELFTEST_VARS)

# The DKMS builds of mrc.ko that install.sh installs in the guest, made on
# the host (tools/testing/dkms-prebuild says why), again when a source of
# the module changes.
DKMS_SOURCES := Kbuild VERSION dkms.conf net/mrc/Kbuild \
	$(wildcard net/mrc/*.[ch] include/uapi/linux/*.h)
dkms-test: $(BUILD)/dkms/stamp
$(BUILD)/dkms/stamp: $(DKMS_SOURCES) | need-kernels
	@tools/testing/dkms-prebuild $(KVERS)

deps:
	@scripts/deps

checkpatch: $(KSFT)/lib.mk
	@echo "  CHECKPATCH $(words $(CHECK_FILES)) files"
	@$(KSRC)/scripts/checkpatch.pl --no-tree --strict --show-types --terse \
		-f $(CHECK_FILES) > $(BUILD)/checkpatch.log; rc=$$?; \
		grep -v '^total: 0 errors, 0 warnings, 0 checks' $(BUILD)/checkpatch.log; \
		exit $$rc

lint: need-kernels checkpatch netlink-check $(addprefix lint-,$(KVERS))

netlink-check: $(KSFT)/lib.mk
	@scripts/netlink-gen --check

# The lint steps run inside the suite, where each counts as a test.
check: need-kernels all
	@tools/testing/check $(KVERS)

debug-kernel:
	@scripts/debug-kernel > /dev/null

# The debug kernel is built (or found) and mrc.ko built for it by the
# suite, which then boots it.
check-debug: mrcctl mrcperf mrcize selftests
	@tools/testing/check --no-host --debug

demo: need-kernels all
	@tools/testing/vm/run -q -k 6.12 -- tools/testing/demo.sh

bench: need-kernels all
	@QUICK=$(QUICK) REPEAT=$(REPEAT) BASE_RTT=$(BASE_RTT) tools/testing/bench/run

# Installing on a host: README.md, "Installing on a host".  The version
# of MRC for Linux is in one place, the VERSION file: the module's
# MODULE_VERSION, mrcctl -V and the DKMS package read it.
VERSION := $(strip $(shell cat $(TOP)/VERSION))
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/mrc
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc
DKMSDIR ?= /usr/src/mrc-$(VERSION)
INSTALL ?= install
DEPMOD ?= depmod
DKMS ?= dkms

install: install-modules install-tools

# mrc.ko for each target kernel; depmod, unless into a DESTDIR (a package's
# tree: its installation runs depmod).  NO_BUILD=1: install what was built,
# build nothing (make as a user, then make install as root).
install-modules: $(if $(NO_BUILD),,modules)
	@for k in $(KVERS); do \
		$(INSTALL) -D -m 644 $(BUILD)/$$k/net/mrc/mrc.ko \
			$(DESTDIR)/lib/modules/$$k/updates/mrc.ko || exit; \
		[ -n "$(DESTDIR)" ] || $(DEPMOD) -a $$k || exit; \
	done

# The configuration file is the operator's: never overwritten.
install-tools: $(if $(NO_BUILD),,mrcctl mrcperf mrcize)
	$(INSTALL) -D -m 755 tools/mrcctl/mrcctl $(DESTDIR)$(BINDIR)/mrcctl
	$(INSTALL) -D -m 755 tools/mrcperf/mrcperf $(DESTDIR)$(BINDIR)/mrcperf
	$(INSTALL) -D -m 755 tools/mrcize/mrcize $(DESTDIR)$(BINDIR)/mrcize
	$(INSTALL) -D -m 755 tools/mrcize/libmrcize.so \
		$(DESTDIR)$(PREFIX)/lib/mrcize/libmrcize.so
	$(INSTALL) -D -m 644 -t $(DESTDIR)$(INCLUDEDIR)/linux \
		include/uapi/linux/mrc.h include/uapi/linux/mrc_netlink.h \
		include/uapi/linux/mrc_diag.h
	$(INSTALL) -D -m 644 tools/mrcctl/mrcctl.8 $(DESTDIR)$(MANDIR)/man8/mrcctl.8
	$(INSTALL) -D -m 644 tools/mrcperf/mrcperf.1 $(DESTDIR)$(MANDIR)/man1/mrcperf.1
	$(INSTALL) -D -m 644 Documentation/man/mrc.7 $(DESTDIR)$(MANDIR)/man7/mrc.7
	$(INSTALL) -D -m 644 tools/mrcize/mrcize.1 $(DESTDIR)$(MANDIR)/man1/mrcize.1
	$(INSTALL) -D -m 644 tools/completion/mrcctl \
		$(DESTDIR)$(COMPLETIONDIR)/mrcctl
	@mkdir -p $(DESTDIR)$(UNITDIR)
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		tools/systemd/mrc.service.in > $(DESTDIR)$(UNITDIR)/mrc.service
	$(INSTALL) -D -m 644 -t $(DESTDIR)$(DOCDIR)/examples \
		tools/etc/mrc.conf tools/examples/mrc_echo.c
	$(INSTALL) -D -m 644 tools/modules-load.d/mrc.conf \
		$(DESTDIR)$(DOCDIR)/examples/modules-load.d/mrc.conf
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/mrc/mrc.conf ]; then \
		echo "keeping $(DESTDIR)$(SYSCONFDIR)/mrc/mrc.conf"; \
	else \
		echo "$(INSTALL) -D -m 644 tools/etc/mrc.conf $(DESTDIR)$(SYSCONFDIR)/mrc/mrc.conf"; \
		$(INSTALL) -D -m 644 tools/etc/mrc.conf $(DESTDIR)$(SYSCONFDIR)/mrc/mrc.conf; \
	fi

# The module's sources, as DKMS wants them, with the version written into
# dkms.conf; then (but into a DESTDIR) DKMS builds and installs mrc.ko for
# every kernel that has its headers installed, and does so again for each
# kernel installed later.  A kernel that dkms.conf excludes (older than 6.1)
# is skipped.
install-dkms:
	@if [ -z "$(DESTDIR)" ] && $(DKMS) status mrc/$(VERSION) | grep -q .; then \
		echo "$(DKMS) remove mrc/$(VERSION) --all"; \
		$(DKMS) remove mrc/$(VERSION) --all || exit; \
	fi
	rm -rf $(DESTDIR)$(DKMSDIR)
	@mkdir -p $(DESTDIR)$(DKMSDIR)
	cp -r Kbuild VERSION net include $(DESTDIR)$(DKMSDIR)/
	sed 's|^PACKAGE_VERSION=.*|PACKAGE_VERSION="$(VERSION)"|' dkms.conf \
		> $(DESTDIR)$(DKMSDIR)/dkms.conf
	@if [ -z "$(DESTDIR)" ]; then \
		echo "$(DKMS) add mrc/$(VERSION)"; \
		$(DKMS) add mrc/$(VERSION) || exit; \
		for build in /lib/modules/*/build; do \
			k=$${build%/build}; k=$${k#/lib/modules/}; \
			echo "$(DKMS) install mrc/$(VERSION) -k $$k"; \
			$(DKMS) install mrc/$(VERSION) -k $$k; rc=$$?; \
			[ $$rc = 0 ] || [ $$rc = 77 ] || exit $$rc; \
		done; \
	fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/mrcctl $(DESTDIR)$(BINDIR)/mrcperf \
		$(DESTDIR)$(BINDIR)/mrcize \
		$(DESTDIR)$(PREFIX)/lib/mrcize/libmrcize.so \
		$(DESTDIR)$(INCLUDEDIR)/linux/mrc.h \
		$(DESTDIR)$(INCLUDEDIR)/linux/mrc_netlink.h \
		$(DESTDIR)$(INCLUDEDIR)/linux/mrc_diag.h \
		$(DESTDIR)$(MANDIR)/man8/mrcctl.8 $(DESTDIR)$(MANDIR)/man1/mrcperf.1 \
		$(DESTDIR)$(MANDIR)/man1/mrcize.1 $(DESTDIR)$(MANDIR)/man7/mrc.7 \
		$(DESTDIR)$(COMPLETIONDIR)/mrcctl $(DESTDIR)$(UNITDIR)/mrc.service
	rm -rf $(DESTDIR)$(DOCDIR)
	@rmdir $(DESTDIR)$(PREFIX)/lib/mrcize 2> /dev/null || true
	@for ko in $(DESTDIR)/lib/modules/*/updates/mrc.ko; do \
		[ -e "$$ko" ] || continue; \
		echo "rm -f $$ko"; rm -f "$$ko" || exit; \
		k=$${ko%/updates/mrc.ko}; k=$${k##*/}; \
		[ -n "$(DESTDIR)" ] || $(DEPMOD) -a $$k || exit; \
	done
	@[ ! -e $(DESTDIR)$(SYSCONFDIR)/mrc/mrc.conf ] || \
		echo "keeping $(DESTDIR)$(SYSCONFDIR)/mrc/mrc.conf"

uninstall-dkms:
	@if [ -z "$(DESTDIR)" ] && $(DKMS) status mrc/$(VERSION) | grep -q .; then \
		echo "$(DKMS) remove mrc/$(VERSION) --all"; \
		$(DKMS) remove mrc/$(VERSION) --all || exit; \
	fi
	rm -rf $(DESTDIR)$(DKMSDIR)

clean:
	rm -rf $(BUILD)
	$(MAKE) -C tools/mrcctl clean
	$(MAKE) -C tools/mrcperf clean
	$(MAKE) -C tools/examples clean
	$(MAKE) -C tools/mrcize clean

endif
