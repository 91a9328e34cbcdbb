// SPDX-License-Identifier: GPL-2.0
#include "ioctl.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cqpoolctl {

namespace {

int sys_open(const char *path, int flags) { return ::open(path, flags); }
int sys_ioctl(int fd, unsigned long req, void *arg) { return ::ioctl(fd, req, arg); }
int sys_close(int fd) { return ::close(fd); }

const Backend real_backend = {sys_open, sys_ioctl, sys_close};
const Backend *backend = &real_backend;

} // namespace

void set_backend(const Backend *b)
{
	backend = b ? b : &real_backend;
}

std::string describe(const Error &e)
{
	const std::string what = e.what;

	if (e.err == ENOENT && what == "open")
		return "cqpool's test harness is not loaded (no " CQPOOL_DEVICE_PATH
		       "), and this command needs it: only the test build has it "
		       "(`insmod cqpool.ko`, then `insmod cqpool_harness.ko`, both of "
		       "scripts/kbuild.sh's build); a machine's cqpool (DKMS, the "
		       "cqpool-dkms package) has `cqpoolctl devices` and `cqpoolctl pools`";
	// cqpool.ko's own debugfs (debugfs.cpp), where devices and pools
	// read when there is no harness; @device is the path.
	if (e.err == ENOENT && what == "debugfs")
		return "cqpool is not loaded: run `modprobe cqpool` (no " CQPOOL_DEVICE_PATH
		       " nor " + e.device + "; if cqpool is loaded, mount debugfs: "
		       "`mount -t debugfs none /sys/kernel/debug`)";
	if (e.err == EPROTO && what == "debugfs")
		return "cqpool's debugfs is not as this cqpoolctl reads it (" + e.device +
		       "): a cqpool.ko of another version?";
	if (e.err == EACCES || e.err == EPERM)
		return what + ": needs root (CAP_SYS_ADMIN)";
	if (e.err == ENODEV)
		return "no RDMA device '" + e.device +
		       "': see `cqpoolctl devices` or `rdma link show`";
	if (e.err == ENOTTY && what != "open")
		return what + ": not known to the loaded cqpool module "
			      "(older than this cqpoolctl?)";
	return what + ": " + std::strerror(e.err);
}

bool set_name(char (&dst)[CQPOOL_NAME_LEN], const std::string &src)
{
	std::memset(dst, 0, sizeof(dst));
	if (src.size() >= sizeof(dst))
		return false;
	std::memcpy(dst, src.data(), src.size());
	return true;
}

std::string get_name(const char (&src)[CQPOOL_NAME_LEN])
{
	return std::string(src, strnlen(src, sizeof(src)));
}

Error Cqpool::open(const char *path)
{
	close();
	fd_ = backend->open(path, O_RDWR | O_CLOEXEC);
	if (fd_ < 0)
		return Error{errno, "open"};
	return Error{};
}

void Cqpool::close()
{
	if (fd_ >= 0)
		backend->close(fd_);
	fd_ = -1;
}

Error Cqpool::call(unsigned long req, void *arg, const char *what,
		   const std::string &device)
{
	int ret;

	do {
		ret = backend->ioctl(fd_, req, arg);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return Error{errno, what, device};
	return Error{};
}

Error Cqpool::version(cqpool_version &v)
{
	return call(CQPOOL_IOC_VERSION, &v, "CQPOOL_IOC_VERSION");
}

Error Cqpool::conn_create(cqpool_conn_create &c)
{
	std::string dev = get_name(c.device);

	// ENODEV may be about the peer; name both when there is one.
	if (c.peer[0])
		dev += "' or '" + get_name(c.peer);
	return call(CQPOOL_IOC_CONN_CREATE, &c, "CQPOOL_IOC_CONN_CREATE", dev);
}

Error Cqpool::conn_destroy(uint32_t id)
{
	auto d = make_arg<cqpool_destroy>();

	d.id = id;
	return call(CQPOOL_IOC_CONN_DESTROY, &d, "CQPOOL_IOC_CONN_DESTROY");
}

Error Cqpool::traffic(cqpool_traffic &t)
{
	return call(CQPOOL_IOC_TRAFFIC, &t, "CQPOOL_IOC_TRAFFIC");
}

Error Cqpool::trigger(cqpool_trigger &t)
{
	return call(CQPOOL_IOC_TRIGGER, &t, "CQPOOL_IOC_TRIGGER",
		    get_name(t.device));
}

Error Cqpool::events_watch(cqpool_events_watch &w)
{
	return call(CQPOOL_IOC_EVENTS_WATCH, &w, "CQPOOL_IOC_EVENTS_WATCH",
		    get_name(w.device));
}

Error Cqpool::events_read(cqpool_events_read &r)
{
	return call(CQPOOL_IOC_EVENTS_READ, &r, "CQPOOL_IOC_EVENTS_READ");
}

Error Cqpool::events_unwatch(uint32_t id)
{
	auto d = make_arg<cqpool_destroy>();

	d.id = id;
	return call(CQPOOL_IOC_EVENTS_UNWATCH, &d, "CQPOOL_IOC_EVENTS_UNWATCH");
}

Error Cqpool::bench(cqpool_bench &b)
{
	return call(CQPOOL_IOC_BENCH, &b, "CQPOOL_IOC_BENCH", get_name(b.device));
}

Error Cqpool::list(uint32_t what, uint32_t entry_size, std::vector<char> &buf,
		   uint32_t &count)
{
	auto l = make_arg<cqpool_list>();

	l.what = what;
	l.entry_size = entry_size;
	l.count = 0;
	l.entries = 0;
	Error e = call(CQPOOL_IOC_LIST, &l, "CQPOOL_IOC_LIST");
	if (e)
		return e;

	// The set can grow between the sizing call and the real one: leave
	// some slack, and go round again if even that was not enough.
	for (int tries = 0; tries < 4; tries++) {
		uint32_t room = l.count + 16;

		if (room > CQPOOL_MAX_LIST)
			room = CQPOOL_MAX_LIST;
		buf.assign(size_t(room) * entry_size, 0);
		l.count = room;
		l.entries = reinterpret_cast<uintptr_t>(buf.data());
		e = call(CQPOOL_IOC_LIST, &l, "CQPOOL_IOC_LIST");
		if (e)
			return e;
		if (l.count <= room || room == CQPOOL_MAX_LIST) {
			count = l.count < room ? l.count : room;
			return Error{};
		}
	}
	return Error{EAGAIN, "CQPOOL_IOC_LIST"};
}

template <typename T> Error Cqpool::list_as(uint32_t what, std::vector<T> &out)
{
	std::vector<char> buf;
	uint32_t count = 0;
	Error e = list(what, sizeof(T), buf, count);

	out.assign(count, T{});
	if (!e && count)
		std::memcpy(static_cast<void *>(out.data()), buf.data(),
			    size_t(count) * sizeof(T));
	return e;
}

Error Cqpool::list_devices(std::vector<cqpool_device_info> &out)
{
	return list_as(CQPOOL_LIST_DEVICES, out);
}

Error Cqpool::list_pools(std::vector<cqpool_pool_info> &out)
{
	return list_as(CQPOOL_LIST_POOLS, out);
}

Error Cqpool::list_cqs(std::vector<cqpool_cq_info> &out)
{
	return list_as(CQPOOL_LIST_CQS, out);
}

Error Cqpool::list_conns(std::vector<cqpool_conn_info> &out)
{
	return list_as(CQPOOL_LIST_CONNS, out);
}

} // namespace cqpoolctl
