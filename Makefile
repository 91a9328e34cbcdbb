# SPDX-License-Identifier: GPL-2.0
#
# make             build cqpool.ko against KDIR
# make check       every test: lint, build, userspace, both VMs
# make check-fast  the same without the debug kernel
# make demo        boot the stock kernel with soft-RoCE and show cqpool
# make bench       cqpool vs upstream vs per-QP CQs in one stock VM boot: bench/results.json, BENCHMARKS.md
# make blktests    blktests' nvme/ (rdma) and srp/ groups, whole, upstream vs takeover,
#                  on the stock and debug kernels: BLKTESTS.md
#
# KDIR defaults to the running kernel's build dir, else the newest
# installed Debian linux-headers-*-amd64.

KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64))))

.PHONY: all module clean check check-fast demo symcheck userspace

all: module

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userspace clean
	rm -rf build

userspace:
	$(MAKE) -C userspace

check:
	./scripts/check.sh full

check-fast:
	./scripts/check.sh fast

demo:
	./scripts/demo.sh

.PHONY: bench
bench:
	./scripts/bench.sh

.PHONY: blktests
blktests:
	./scripts/blktests.sh -o build/blktests stock debug
	cp build/blktests/BLKTESTS.md BLKTESTS.md
