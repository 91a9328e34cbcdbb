// SPDX-License-Identifier: GPL-2.0
//
// Options of a subcommand: `--name value`, `--name=value` and switches,
// checked against the subcommand's own list so a typo is an error with
// a pointer to --help rather than a silently ignored flag.
#ifndef CQPOOLCTL_ARGS_H
#define CQPOOLCTL_ARGS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cqpoolctl {

struct OptionSpec {
	const char *name;	// without the leading "--"
	const char *metavar;	// nullptr for a switch
	const char *help;
};

struct CommandSpec {
	const char *name;
	const char *synopsis;	// after "cqpoolctl NAME "
	const char *summary;
	std::vector<OptionSpec> options;
};

class Args {
public:
	bool help = false;
	std::vector<std::string> positional;

	bool has(const std::string &name) const { return values_.count(name) != 0; }
	std::string get(const std::string &name, const std::string &def = "") const;

	// Option @name as a number in [@min, @max], @def when absent; k, M
	// and G multiply by 1024 (`--msg 4k`).  On failure @err names the
	// option and the range.
	bool get_u64(const std::string &name, uint64_t def, uint64_t min,
		     uint64_t max, uint64_t &out, std::string &err) const;
	bool get_u32(const std::string &name, uint32_t def, uint32_t min,
		     uint32_t max, uint32_t &out, std::string &err) const;

	void set(const std::string &name, const std::string &value) { values_[name] = value; }

private:
	std::map<std::string, std::string> values_;
};

// "" on success, else the message.  "--help"/"-h" set Args::help.
std::string parse_args(const CommandSpec &spec,
		       const std::vector<std::string> &argv, Args &out);

bool parse_number(const std::string &s, uint64_t &out);

std::string usage(const CommandSpec &spec);

} // namespace cqpoolctl

#endif
