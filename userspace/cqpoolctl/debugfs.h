// SPDX-License-Identifier: GPL-2.0
//
// cqpool.ko's own debugfs, /sys/kernel/debug/cqpool/ (module/debugfs.c):
// what `devices` and `pools` read where there is no /dev/cqpool, which
// only the test build's harness makes.  A machine that runs the build
// for a real machine (make, DKMS, the cqpool-dkms package) has these
// files and nothing else.  They are read into the ioctl ABI's structs,
// so each command prints either source alike.
#ifndef CQPOOLCTL_DEBUGFS_H
#define CQPOOLCTL_DEBUGFS_H

#include "ioctl.h"

#include <string>
#include <vector>

namespace cqpoolctl {

constexpr const char *CQPOOL_DEBUGFS_DIR = "/sys/kernel/debug/cqpool";

// The directory read; unit tests point it at one of their own.
// nullptr: CQPOOL_DEBUGFS_DIR.
void set_debugfs_dir(const char *dir);
const char *debugfs_dir();

// Whether cqpool's debugfs is there: Error{} if so; ENOENT if not (cqpool
// not loaded, or debugfs not mounted), EACCES if it may not be read
// (debugfs is root's).  Its what is "debugfs".
Error debugfs_probe();

// devices: one entry per device of `devices`, its pools' sums from
// `pools` and ib_core's from `ib_core_pools`.
Error debugfs_devices(std::vector<cqpool_device_info> &out);
// pools: every pool and every CQ of `pools`.
Error debugfs_pools(std::vector<cqpool_pool_info> &pools, std::vector<cqpool_cq_info> &cqs);

// The parsers behind them, on the files' text.  "" or why the text is
// not what module/debugfs.c writes.
std::string parse_debugfs_pools(const std::string &text, std::vector<cqpool_pool_info> &pools,
				std::vector<cqpool_cq_info> &cqs);
std::string parse_debugfs_devices(const std::string &devices, const std::string &pools,
				  const std::string &ib_core_pools,
				  std::vector<cqpool_device_info> &out);

} // namespace cqpoolctl

#endif
