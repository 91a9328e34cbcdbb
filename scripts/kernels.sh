#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernels.sh - the supported Debian 12 kernels whose headers are installed,
# one version a line, oldest series first: the default of make's KERNELS.
#
# Supported: Debian 12's own 6.1 series (linux-headers-amd64) and the 6.12
# LTS it also ships (linux-headers-6.12-amd64, linux-headers-6.12-rt-amd64),
# the newest installed of each flavour.  Nothing depends on which is newest
# overall.  With none installed, says which packages to install and fails.
set -euo pipefail
set -f	# the flavours are patterns for find, not for the shell

# newest PATTERN [rt]: the newest installed headers matching PATTERN, of
# the RT flavour or not
newest() {
	find /usr/src -maxdepth 1 -name "linux-headers-$1" -printf '%f\n' |
		sed 's/^linux-headers-//' |
		awk -v rt="${2:-}" '(rt != "") == /-rt-amd64$/' | sort -V | tail -n 1
}

found=0
for flavour in '6.1.0-*-amd64' '6.12.*-amd64' '6.12.*-amd64 rt'; do
	# shellcheck disable=SC2086  # PATTERN and the flavour's word
	v=$(newest $flavour)
	[[ -n $v && -e /usr/src/linux-headers-$v/Makefile ]] || continue
	echo "$v"
	found=1
done
((found)) || {
	echo "kernels.sh: no supported kernel headers installed:" \
		"apt-get install linux-headers-amd64 (6.1)" \
		"or linux-headers-6.12-amd64 (6.12)" >&2
	exit 1
}
