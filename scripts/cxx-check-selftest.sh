#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cxx-check-selftest.sh - scripts/cxx-check.sh must refuse what would
# need a C++ runtime and accept what a kernel build adds: a static
# constructor (plain, and beside KCSAN's own), an exception, operator
# new; KCSAN's constructor alone passes.  Objects are built with the
# host's g++, with the kernel's freestanding flags where they matter.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-c -O2 -ffreestanding -fno-rtti -fno-asynchronous-unwind-tables -fno-unwind-tables)
fails=0

# expect VERDICT NAME FLAGS... < SOURCE
expect() {
	local want=$1 name=$2 got
	shift 2
	cat >"$tmp/$name.cc"
	g++ "${flags[@]}" "$@" -o "$tmp/$name.o" "$tmp/$name.cc"
	if "$top/scripts/cxx-check.sh" "$tmp/$name.o" >"$tmp/$name.log" 2>&1; then
		got=pass
	else
		got=fail
	fi
	if [[ $got == "$want" ]]; then
		echo "ok: $name: $got"
	else
		echo "NOT OK: $name: cxx-check.sh says $got, should $want"
		sed 's/^/    /' "$tmp/$name.log"
		fails=$((fails + 1))
	fi
}

expect pass plain -fno-exceptions <<'CC'
unsigned long sum(const unsigned long *v, int n)
{ unsigned long s = 0; for (int i = 0; i < n; i++) s += v[i]; return s; }
CC
expect pass kcsan_only -fno-exceptions -fsanitize=thread <<'CC'
unsigned long g;
void bump(unsigned long *p) { *p += g; }
CC
expect fail static_ctor -fno-exceptions <<'CC'
int f();
struct A { A() : x(f()) {} int x; };
A a;
CC
expect fail static_ctor_kcsan -fno-exceptions -fsanitize=thread <<'CC'
int f();
struct A { A() : x(f()) {} int x; };
A a;
CC
expect fail exception -fexceptions <<'CC'
int f(int x) { if (x) throw x; return 0; }
CC
expect fail operator_new -fno-exceptions <<'CC'
struct B { int x; };
B *make() { return new B; }
CC
[[ $fails -eq 0 ]]
