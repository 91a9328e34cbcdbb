#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# version-check.sh - cqpool's version is said in three places, and they
# must agree: include/cqpool/cqpool.h (CQPOOL_VERSION_MAJOR/MINOR, the
# module's MODULE_VERSION, what modinfo shows), dkms.conf
# (PACKAGE_VERSION: DKMS's /usr/src/cqpool-VERSION and /var/lib/dkms
# tree) and debian/changelog (the packages' version; the package is
# native, so it has no Debian revision to strip).  The header is the one
# place a release changes first; the other two must follow it.  Prints
# the version; exits non-zero, naming each, when they differ.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

header=$(awk '/^#define CQPOOL_VERSION_MAJOR/ { ma = $3 }
	      /^#define CQPOOL_VERSION_MINOR/ { mi = $3 }
	      END { if (ma != "" && mi != "") print ma "." mi }' include/cqpool/cqpool.h)
conf=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
# The first line, "cqpool (VERSION) DIST; urgency=...": read without
# dpkg-parsechangelog, so that make dkms needs no dpkg-dev.
deb=$(sed -n '1s/^cqpool (\([^)]*\)) .*/\1/p' debian/changelog)

bad=0
[[ -n $header ]] || { echo "version-check: no CQPOOL_VERSION_MAJOR/MINOR in include/cqpool/cqpool.h" >&2; bad=1; }
[[ $conf == "$header" ]] ||
	{ echo "version-check: dkms.conf's PACKAGE_VERSION is '$conf', include/cqpool/cqpool.h's $header" >&2; bad=1; }
[[ $deb == "$header" ]] ||
	{ echo "version-check: debian/changelog's version is '$deb', include/cqpool/cqpool.h's $header" >&2; bad=1; }
((bad == 0)) || exit 1
echo "$header"
