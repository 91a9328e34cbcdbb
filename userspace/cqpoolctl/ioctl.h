// SPDX-License-Identifier: GPL-2.0
//
// A thin wrapper over /dev/cqpool: one method per ioctl, failures as
// values that remember which call failed, so every message can name it.
#ifndef CQPOOLCTL_IOCTL_H
#define CQPOOLCTL_IOCTL_H

#include <linux/cqpool.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cqpoolctl {

struct Error {
	int err = 0;		// errno; 0 is success
	const char *what = "";	// "open" or the ioctl's name
	std::string device;	// the RDMA device the call was about, if any

	Error() = default;
	Error(int e, const char *w, std::string dev = "")
		: err(e), what(w), device(std::move(dev)) {}
	explicit operator bool() const { return err != 0; }
};

// The one-line message for @e: what went wrong and what to do about it.
std::string describe(const Error &e);

// Every argument struct starts with its own size (the ABI grows at the
// end); building them only through this keeps that true everywhere.
template <typename T> T make_arg()
{
	T v{};
	v.size = sizeof(T);
	return v;
}

// Copies @src into a NUL-terminated name field; false if it does not fit.
bool set_name(char (&dst)[CQPOOL_NAME_LEN], const std::string &src);
std::string get_name(const char (&src)[CQPOOL_NAME_LEN]);

// The system calls behind Cqpool.  Unit tests put a model of the module
// here to run the subcommands without a kernel; nothing else should.
struct Backend {
	int (*open)(const char *path, int flags);
	int (*ioctl)(int fd, unsigned long req, void *arg);
	int (*close)(int fd);
};
void set_backend(const Backend *b);	// nullptr: the real ones

class Cqpool {
public:
	Cqpool() = default;
	~Cqpool() { close(); }
	Cqpool(const Cqpool &) = delete;
	Cqpool &operator=(const Cqpool &) = delete;

	Error open(const char *path = CQPOOL_DEVICE_PATH);
	// Everything this fd made is released by the kernel on close.
	void close();
	bool is_open() const { return fd_ >= 0; }

	Error version(cqpool_version &v);
	Error conn_create(cqpool_conn_create &c);
	Error conn_destroy(uint32_t id);
	Error traffic(cqpool_traffic &t);
	Error trigger(cqpool_trigger &t);
	Error events_watch(cqpool_events_watch &w);
	Error events_read(cqpool_events_read &r);
	Error events_unwatch(uint32_t id);
	Error bench(cqpool_bench &b);

	Error list_devices(std::vector<cqpool_device_info> &out);
	Error list_pools(std::vector<cqpool_pool_info> &out);
	Error list_cqs(std::vector<cqpool_cq_info> &out);
	Error list_conns(std::vector<cqpool_conn_info> &out);

private:
	Error call(unsigned long req, void *arg, const char *what,
		   const std::string &device = "");
	Error list(uint32_t what, uint32_t entry_size, std::vector<char> &buf,
		   uint32_t &count);
	template <typename T> Error list_as(uint32_t what, std::vector<T> &out);

	int fd_ = -1;
};

} // namespace cqpoolctl

#endif
