# SPDX-License-Identifier: GPL-2.0
#
# MRC for Linux.
#
#   make                 mrc.ko for every installed target kernel, and the selftests
#   make KVER=6.12       the same for one kernel (a release or a series)
#   make deps            install what building and testing need (apt-get)
#   make check           build, lint, and run the selftests on every kernel in VMs
#   make lint            checkpatch --strict, and W=1 C=2 (sparse) module builds
#   make demo            boot a VM and show MRC at work
#   make clean

TOP := $(CURDIR)
BUILD := $(TOP)/build
KSRC := $(BUILD)/linux-source-6.12
KSFT := $(KSRC)/tools/testing/selftests
SELFTESTS := tools/testing/selftests/net/mrc

KVERS := $(shell scripts/kernels $(KVER))
ifeq ($(KVERS),)
$(error no target kernel installed$(if $(KVER), for KVER=$(KVER)); run 'make deps')
endif

# Sources that checkpatch checks: every C file and header of the project
# but those generated from the netlink spec.
GENERATED = net/mrc/netlink_gen.c net/mrc/netlink_gen.h \
	include/uapi/linux/mrc_netlink.h
CHECK_FILES = $(sort $(filter-out $(GENERATED),$(wildcard net/mrc/*.[ch] \
	include/uapi/linux/*.h tools/mrcctl/*.[ch] $(SELFTESTS)/*.c)))

SELFTEST_VARS = KSFT_DIR=$(KSFT) OUTPUT=$(BUILD)/selftests \
	KHDR_INCLUDES="-isystem $(TOP)/include/uapi"

.PHONY: all modules selftests deps check lint checkpatch sparse demo clean

all: modules selftests

# Each kernel gets its own build tree mirroring the sources with symlinks,
# so that objects for different kernels never mix.
define module_rules
.PHONY: module-$(1) sparse-$(1)
modules: module-$(1)
module-$(1):
	@mkdir -p $(BUILD)/$(1)
	@cp -rsf $(TOP)/Kbuild $(TOP)/net $(TOP)/include $(BUILD)/$(1)/
	$(MAKE) -C /lib/modules/$(1)/build M=$(BUILD)/$(1) W=1 modules

sparse: sparse-$(1)
sparse-$(1): module-$(1)
	@echo "  SPARSE  $(1)"
	@$(MAKE) -s -C /lib/modules/$(1)/build M=$(BUILD)/$(1) W=1 C=2 \
		modules > $(BUILD)/$(1)/sparse.log 2>&1 || \
		{ cat $(BUILD)/$(1)/sparse.log; exit 1; }
	@if grep -E 'warning|error' $(BUILD)/$(1)/sparse.log; then exit 1; fi
endef
$(foreach k,$(KVERS),$(eval $(call module_rules,$(k))))

$(KSFT)/lib.mk:
	@scripts/linux-source

selftests: $(KSFT)/lib.mk
	@mkdir -p $(BUILD)/selftests
	@mkdir -p $(KSFT)/net && ln -sfn $(TOP)/$(SELFTESTS) $(KSFT)/net/mrc
	$(MAKE) -C $(SELFTESTS) $(SELFTEST_VARS)

deps:
	@scripts/deps

checkpatch: $(KSFT)/lib.mk
	@echo "  CHECKPATCH $(words $(CHECK_FILES)) files"
	@$(KSRC)/scripts/checkpatch.pl --no-tree --strict --show-types --terse \
		-f $(CHECK_FILES) > $(BUILD)/checkpatch.log; rc=$$?; \
		grep -v '^total: 0 errors, 0 warnings, 0 checks' $(BUILD)/checkpatch.log; \
		exit $$rc

lint: checkpatch sparse

check: all lint
	@tools/testing/check $(KVERS)

demo: all
	@tools/testing/vm/run -q -k 6.12 -- tools/testing/demo.sh

clean:
	rm -rf $(BUILD)
