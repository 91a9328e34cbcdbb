#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cxx-check.sh OBJ... - prove the C++ core objects stay freestanding:
# every undefined symbol is on module/core/allowed-symbols, and no object
# carries a section that needs a C++ runtime (static constructors,
# destructors, unwind tables, exception tables, thread-local storage).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
allow=$top/module/core/allowed-symbols
forbidden='^\.(init_array|fini_array|ctors|dtors|eh_frame|eh_frame_hdr|gcc_except_table|tdata|tbss|preinit_array)(\..*)?$'

[ $# -gt 0 ] || { echo "usage: $0 OBJ..." >&2; exit 2; }
pattern=$(grep -v -e '^#' -e '^$' "$allow" | paste -sd'|')

# tsan_ctor_only OBJ: the code of OBJ's constructors (.text.startup)
# calls __tsan_init and nothing else.
tsan_ctor_only() {
	local calls
	calls=$(objdump -dr -j .text.startup "$1" 2>/dev/null |
		awk '/R_X86_64_(PLT32|PC32)/ { print $3 }' | sort -u)
	[[ $calls == __tsan_init-0x4 ]]
}

bad=0
for obj in "$@"; do
	while read -r sym; do
		if ! [[ $sym =~ ^($pattern)$ ]]; then
			echo "$obj: undefined symbol not allowed: $sym" \
				"($(c++filt "$sym"))"
			bad=1
		fi
	done < <(nm -u "$obj" | awk '{print $2}')
	while read -r sec; do
		# KCSAN's instrumentation (gcc's -fsanitize=thread) adds a
		# constructor of the priority reserved to the compiler, 99,
		# that calls __tsan_init and nothing else; the kernel runs
		# it (CONFIG_CONSTRUCTORS).  No source can ask for that
		# priority, so it is allowed when that is all it does.
		if [[ $sec == .init_array.00099 ]] && tsan_ctor_only "$obj"; then
			continue
		fi
		if [[ $sec =~ $forbidden ]]; then
			echo "$obj: forbidden section: $sec"
			bad=1
		fi
	done < <(readelf -SW "$obj" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p')
done
exit $bad
