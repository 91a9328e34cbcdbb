# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the payloads that run in the host's userland share (sourced from
# $CQPOOL_PAYLOAD/lib.sh: vm/payload-soak.sh, vm/payload-blktests.sh,
# vm/payload-bench-nvmeof.sh, vm/payload-deb.sh; what boots them copies
# it beside run.sh).

# wait_for SECONDS CMD...: poll CMD every 0.1 s
wait_for() {
	local i=0 n=$(($1 * 10))

	shift
	until "$@"; do
		i=$((i + 1))
		((i < n)) || return 1
		sleep 0.1
	done
}

# veth_up: a veth pair, v0 at 10.99.0.1 and v1 at 10.99.0.2, both up,
# as every guest has it (rxe0 goes on v0).
veth_up() {
	ip link add v0 type veth peer name v1 &&
		ip addr add 10.99.0.1/24 dev v0 && ip addr add 10.99.0.2/24 dev v1 &&
		ip link set v0 up && ip link set v1 up
}

rxe_active() { rdma link show rxe0/1 2>/dev/null | grep -q 'state ACTIVE'; }

# rxe_add: rxe0 on v0, waited for until ACTIVE (a new link is DOWN for
# a moment).
rxe_add() {
	rdma link add rxe0 type rxe netdev v0 && wait_for 20 rxe_active
}
