# SPDX-License-Identifier: GPL-2.0
#
# make             build the modules, for each kernel (below)
# make check       every test: lint, build, userspace, the VMs of every
#                  kernel (subsets on 6.12-rt and 6.12 debug: TESTING.md)
# make check-all   the same with everything on 6.12-rt and the 6.12 debug
#                  kernel too, and the KCSAN kernel
# make check-fast  the stock kernels only
# make demo        boot the stock kernel with soft-RoCE and show cqpool
# make bench       cqpool vs upstream vs per-QP CQs in one stock VM boot: bench/results.json, BENCHMARKS.md
# make soak        the soak on the debug kernel, SOAK_MINUTES (default 30):
#                  connections, fio, the takeover off and on, reclaim and
#                  removals at random; counts back where they started
# make dkms        add cqpool to DKMS, build and install it for each kernel
# make deb         the Debian packages cqpool-dkms and cqpool-tools
#                  (debian/), in build/deb/, and lintian on them
# make coverage    line coverage of module/*.c from the last make check
# make oneliners   run the README's tracing one-liners in the stock VM, and
#                  put what they printed into the README
# make ulp-table   README's table of each ULP's CQs and CQEs, from the last make check
# make blktests    blktests' nvme/ (rdma) and srp/ groups, whole, upstream vs takeover,
#                  on the stock and debug kernels: BLKTESTS.md.  BLKTESTS_KINDS=debug
#                  runs one kernel and keeps the other's section; BLKTESTS_TESTS=srp
#                  runs a choice of tests and keeps the other tests' rows, so a
#                  suite adds up over runs; BLKTESTS_JOBS=2 boots the two modes side
#                  by side (a core each; stock kernel only: TESTING.md)
#
# Which kernels: KVER=VERSION (its /usr/src/linux-headers-VERSION) or
# KDIR=DIR picks one, built in place (as DKMS does).  Otherwise KERNELS,
# by default every supported Debian 12 kernel whose headers are installed
# (scripts/kernels.sh: 6.1, 6.12, 6.12-rt), each in build/kbuild-VERSION.
# Nothing depends on which kernel is the newest.

ifneq ($(KVER),)
KDIR ?= /usr/src/linux-headers-$(KVER)
endif
KERNELS ?= $(shell scripts/kernels.sh)

.PHONY: all module clean check check-all check-fast demo symcheck userspace

all: module

ifneq ($(KDIR),)
module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
else
module:
	@test -n "$(KERNELS)" || scripts/kernels.sh
	@set -e; for v in $(KERNELS); do \
		echo "== cqpool for $$v: build/kbuild-$$v"; \
		scripts/kbuild.sh --production $$v /usr/src/linux-headers-$$v; \
	done
endif

clean:
	$(if $(KDIR),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)
	$(MAKE) -C userspace clean
	rm -rf build

userspace:
	$(MAKE) -C userspace

check:
	./scripts/check.sh full

check-all:
	./scripts/check.sh all

check-fast:
	./scripts/check.sh fast

demo:
	./scripts/demo.sh

.PHONY: bench
bench:
	./scripts/bench.sh

.PHONY: soak
SOAK_MINUTES ?= 30
soak:
	./scripts/soak.sh -m $(SOAK_MINUTES)

# cqpool in DKMS, built and installed for each of KERNELS.
.PHONY: dkms
dkms:
	scripts/dkms.sh $(KERNELS)

# The Debian packages: dpkg-buildpackage -us -uc -b from a copy of the
# tree, then lintian on the .changes (errors and warnings fail).
.PHONY: deb
deb:
	scripts/deb.sh
	scripts/deb-lintian.sh

# The line coverage of module/*.c from the last `make check`'s debug VM.
.PHONY: coverage
coverage:
	@test -f build/check/coverage/coverage.txt || \
		{ echo "no coverage yet: make check runs the GCOV build on the debug kernel" >&2; exit 1; }
	@cat build/check/coverage/coverage.txt
	@echo
	@cat build/check/coverage/uncovered.txt

.PHONY: oneliners
oneliners:
	./scripts/oneliners.sh

# From the stock kernels' VMs.
.PHONY: ulp-table
ulp-table:
	scripts/ulp-table.sh --readme $(wildcard build/check/vm-6.1/results.log \
		build/check/vm-6.12/results.log build/check/vm-6.12-rt/results.log)

.PHONY: blktests
BLKTESTS_KINDS ?= stock debug
BLKTESTS_JOBS ?= 1
BLKTESTS_TESTS ?= nvme srp
blktests:
	./scripts/blktests.sh -j $(BLKTESTS_JOBS) -t "$(BLKTESTS_TESTS)" -k BLKTESTS.md \
		-o build/blktests $(BLKTESTS_KINDS)
	cp build/blktests/BLKTESTS.md BLKTESTS.md
