// SPDX-License-Identifier: GPL-2.0
#include "debugfs.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

namespace cqpoolctl {

namespace {

const char *dir_override;

// The whitespace-separated words of @line.
std::vector<std::string> words(const std::string &line)
{
	std::istringstream in(line);
	std::vector<std::string> w;
	std::string s;

	while (in >> s)
		w.push_back(s);
	return w;
}

bool number(const std::string &s, uint64_t &v, int base = 10)
{
	char *end;

	if (s.empty() || s[0] == '-')
		return false;
	errno = 0;
	v = std::strtoull(s.c_str(), &end, base);
	return !errno && *end == '\0';
}

// "key value" pairs of @w from @from on, into @kv; a lone word (a pool's
// "owned" or "shared") into @flags_word.  false on a key without a value.
bool pairs(const std::vector<std::string> &w, size_t from,
	   std::map<std::string, std::string> &kv, std::string &lone)
{
	for (size_t i = from; i < w.size(); i++) {
		if (w[i] == "owned" || w[i] == "shared") {
			lone = w[i];
			continue;
		}
		if (i + 1 >= w.size())
			return false;
		kv[w[i]] = w[i + 1];
		i++;
	}
	return true;
}

// @kv[@key] as a number into @v; false if missing or not one.
template <typename T>
bool field(const std::map<std::string, std::string> &kv, const char *key, T &v, int base = 10)
{
	auto it = kv.find(key);
	uint64_t n;

	if (it == kv.end() || !number(it->second, n, base) || n > uint64_t(T(~T(0))))
		return false;
	v = T(n);
	return true;
}

bool poll_ctx(const std::string &s, uint32_t &out)
{
	// module/pool.c's names: the workqueue that is not bound to a CPU
	// is "unbound_workqueue" there, "unbound" in cqpoolctl.
	static const struct {
		const char *name;
		uint32_t ctx;
	} names[] = {
		{"softirq", CQPOOL_POLL_SOFTIRQ},
		{"workqueue", CQPOOL_POLL_WORKQUEUE},
		{"unbound_workqueue", CQPOOL_POLL_UNBOUND_WORKQUEUE},
	};

	for (const auto &n : names)
		if (s == n.name) {
			out = n.ctx;
			return true;
		}
	return false;
}

std::vector<std::string> lines(const std::string &text)
{
	std::vector<std::string> out;
	std::istringstream in(text);
	std::string l;

	while (std::getline(in, l))
		out.push_back(l);
	return out;
}

// The file @name of the debugfs dir into @out.
Error read_file(const char *name, std::string &out)
{
	std::string path = std::string(debugfs_dir()) + "/" + name;
	FILE *f = std::fopen(path.c_str(), "re");
	char buf[4096];
	size_t n;

	if (!f)
		return Error{errno, "debugfs", path};
	out.clear();
	while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
		out.append(buf, n);
	int err = std::ferror(f) ? errno : 0;
	std::fclose(f);
	if (err)
		return Error{err, "debugfs", path};
	return Error{};
}

} // namespace

void set_debugfs_dir(const char *dir)
{
	dir_override = dir;
}

const char *debugfs_dir()
{
	return dir_override ? dir_override : CQPOOL_DEBUGFS_DIR;
}

Error debugfs_probe()
{
	std::string path = std::string(debugfs_dir()) + "/devices";
	struct stat st;

	// debugfs is mode 0700, root's: stat() of a file in it fails with
	// EACCES for anyone else, which says "needs root" and not "not
	// loaded".
	if (stat(path.c_str(), &st) < 0)
		return Error{errno, "debugfs", path};
	return Error{};
}

std::string parse_debugfs_pools(const std::string &text, std::vector<cqpool_pool_info> &pools,
				std::vector<cqpool_cq_info> &cqs)
{
	unsigned int n = 0;

	pools.clear();
	cqs.clear();
	for (const auto &l : lines(text)) {
		std::vector<std::string> w = words(l);
		std::map<std::string, std::string> kv;
		std::string lone;

		n++;
		if (w.empty())
			continue;
		const std::string where = "pools, line " + std::to_string(n);
		if (w[0] == "pool") {
			auto p = cqpool_pool_info{};
			uint32_t flags = 0;

			// pool NAME device DEV ctx CTX owned|shared flags 0xF
			// cqs N cqes N reserved N users N
			if (w.size() < 2 || !pairs(w, 2, kv, lone) || lone.empty() ||
			    !set_name(p.name, w[1]) || !set_name(p.device, kv["device"]) ||
			    kv["device"].empty() || !poll_ctx(kv["ctx"], p.poll_ctx) ||
			    !field(kv, "flags", flags, 16) || !field(kv, "cqs", p.cqs) ||
			    !field(kv, "cqes", p.cqes) || !field(kv, "reserved", p.reserved_cqes) ||
			    !field(kv, "users", p.users))
				return where + ": not a pool: " + l;
			// The kernel's CQPOOL_F_* are the ABI's CQPOOL_POOL_*.
			p.flags = flags | (lone == "owned" ? CQPOOL_POOL_INFO_OWNED : 0);
			pools.push_back(p);
		} else if (w[0] == "cq") {
			auto c = cqpool_cq_info{};

			// cq ID vec V size S reserved R users U age_ms A
			// idle_ms I events E delivered D, under its pool
			kv["cq"] = w.size() > 1 ? w[1] : "";
			if (pools.empty() || !pairs(w, 2, kv, lone) || !lone.empty() ||
			    !field(kv, "cq", c.cq_id) || !field(kv, "vec", c.vector) ||
			    !field(kv, "size", c.cqe) || !field(kv, "reserved", c.reserved_cqes) ||
			    !field(kv, "users", c.users) || !field(kv, "age_ms", c.age_ms) ||
			    !field(kv, "idle_ms", c.idle_ms) || !field(kv, "events", c.events) ||
			    !field(kv, "delivered", c.delivered))
				return where + ": not a CQ of a pool: " + l;
			std::memcpy(c.device, pools.back().device, sizeof(c.device));
			std::memcpy(c.pool, pools.back().name, sizeof(c.pool));
			if (!c.users)
				pools.back().idle_cqs++;
			cqs.push_back(c);
		} else {
			return where + ": neither a pool nor a CQ: " + l;
		}
	}
	return "";
}

std::string parse_debugfs_devices(const std::string &devices, const std::string &pools_text,
				  const std::string &ib_core_pools,
				  std::vector<cqpool_device_info> &out)
{
	std::vector<cqpool_pool_info> pools;
	std::vector<cqpool_cq_info> cqs;
	std::string err = parse_debugfs_pools(pools_text, pools, cqs);
	std::vector<std::string> dl = lines(devices);

	out.clear();
	if (!err.empty())
		return err;
	// The header, then NAME VECTORS NVEC MAX_CQE MAX_CQ EVENTS
	// DELIVERED MASKED.
	if (dl.empty() || words(dl[0]).empty() || words(dl[0])[0] != "device")
		return "devices: no header line";
	for (size_t i = 1; i < dl.size(); i++) {
		std::vector<std::string> w = words(dl[i]);
		auto d = cqpool_device_info{};
		uint64_t v[7];
		bool ok = w.size() == 8 && set_name(d.name, w[0]);

		if (w.empty())
			continue;
		for (size_t j = 0; ok && j < 7; j++)
			ok = number(w[j + 1], v[j]) && (j >= 4 || v[j] <= UINT32_MAX);
		if (!ok)
			return "devices, line " + std::to_string(i + 1) + ": not a device: " + dl[i];
		d.num_comp_vectors = uint32_t(v[0]);
		d.nvec = uint32_t(v[1]);
		d.max_cqe = uint32_t(v[2]);
		d.max_cq = uint32_t(v[3]);
		d.events = v[4];
		d.delivered = v[5];
		d.masked = v[6];
		for (const auto &p : pools) {
			if (get_name(p.device) != w[0])
				continue;
			d.pools++;
			d.cqs += p.cqs;
			d.cqes += p.cqes;
			d.reserved_cqes += p.reserved_cqes;
			d.users += p.users;
		}
		out.push_back(d);
	}
	// NAME cqs N cqes N used N, a line per device.
	unsigned int n = 0;
	for (const auto &l : lines(ib_core_pools)) {
		std::vector<std::string> w = words(l);
		std::map<std::string, std::string> kv;
		std::string lone;
		auto u = cqpool_device_info{};

		n++;
		if (w.empty())
			continue;
		if (!pairs(w, 1, kv, lone) || !lone.empty() || !field(kv, "cqs", u.upstream_cqs) ||
		    !field(kv, "cqes", u.upstream_cqes) || !field(kv, "used", u.upstream_used))
			return "ib_core_pools, line " + std::to_string(n) + ": not a device: " + l;
		for (auto &d : out)
			if (get_name(d.name) == w[0]) {
				d.upstream_cqs = u.upstream_cqs;
				d.upstream_cqes = u.upstream_cqes;
				d.upstream_used = u.upstream_used;
			}
	}
	return "";
}

Error debugfs_devices(std::vector<cqpool_device_info> &out)
{
	std::string devices, pools, ib_core;
	Error e = read_file("devices", devices);

	if (!e)
		e = read_file("pools", pools);
	if (!e)
		e = read_file("ib_core_pools", ib_core);
	if (e)
		return e;
	std::string err = parse_debugfs_devices(devices, pools, ib_core, out);
	if (!err.empty())
		return Error{EPROTO, "debugfs", std::string(debugfs_dir()) + "/" + err};
	return Error{};
}

Error debugfs_pools(std::vector<cqpool_pool_info> &pools, std::vector<cqpool_cq_info> &cqs)
{
	std::string text;
	Error e = read_file("pools", text);

	if (e)
		return e;
	std::string err = parse_debugfs_pools(text, pools, cqs);
	if (!err.empty())
		return Error{EPROTO, "debugfs", std::string(debugfs_dir()) + "/" + err};
	return Error{};
}

} // namespace cqpoolctl
