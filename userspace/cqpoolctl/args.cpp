// SPDX-License-Identifier: GPL-2.0
#include "args.h"

#include <cstring>

namespace cqpoolctl {

std::string Args::get(const std::string &name, const std::string &def) const
{
	auto it = values_.find(name);

	return it == values_.end() ? def : it->second;
}

bool parse_number(const std::string &s, uint64_t &out)
{
	uint64_t v = 0, mult = 1;
	size_t end = s.size();

	if (s.empty())
		return false;
	switch (s.back()) {
	case 'k': case 'K': mult = 1ULL << 10; end--; break;
	case 'm': case 'M': mult = 1ULL << 20; end--; break;
	case 'g': case 'G': mult = 1ULL << 30; end--; break;
	default: break;
	}
	if (end == 0)
		return false;
	for (size_t i = 0; i < end; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + uint64_t(s[i] - '0');
	}
	if (v > UINT64_MAX / mult)
		return false;
	out = v * mult;
	return true;
}

bool Args::get_u64(const std::string &name, uint64_t def, uint64_t min,
		   uint64_t max, uint64_t &out, std::string &err) const
{
	if (!has(name)) {
		out = def;
		return true;
	}
	if (!parse_number(get(name), out) || out < min || out > max) {
		err = "--" + name + " wants a number from " + std::to_string(min) +
		      " to " + std::to_string(max) + ", not '" + get(name) + "'";
		return false;
	}
	return true;
}

bool Args::get_u32(const std::string &name, uint32_t def, uint32_t min,
		   uint32_t max, uint32_t &out, std::string &err) const
{
	uint64_t v;

	if (!get_u64(name, def, min, max, v, err))
		return false;
	out = uint32_t(v);
	return true;
}

static const OptionSpec *find(const CommandSpec &spec, const std::string &name)
{
	for (const auto &o : spec.options)
		if (name == o.name)
			return &o;
	return nullptr;
}

std::string parse_args(const CommandSpec &spec,
		       const std::vector<std::string> &argv, Args &out)
{
	const std::string see = "; see `cqpoolctl " + std::string(spec.name) +
				" --help`";

	for (size_t i = 0; i < argv.size(); i++) {
		const std::string &a = argv[i];

		if (a == "--help" || a == "-h") {
			out.help = true;
			continue;
		}
		if (a.size() < 3 || a.compare(0, 2, "--") != 0) {
			out.positional.push_back(a);
			continue;
		}
		std::string name = a.substr(2), value;
		bool inline_value = false;
		size_t eq = name.find('=');

		if (eq != std::string::npos) {
			value = name.substr(eq + 1);
			name.resize(eq);
			inline_value = true;
		}
		const OptionSpec *o = find(spec, name);
		if (!o)
			return "unknown option --" + name + " for '" + spec.name +
			       "'" + see;
		if (!o->metavar) {
			if (inline_value)
				return "--" + name + " takes no value" + see;
			out.set(name, "1");
			continue;
		}
		if (!inline_value) {
			if (i + 1 >= argv.size())
				return "--" + name + " needs a value (" +
				       o->metavar + ")" + see;
			value = argv[++i];
		}
		out.set(name, value);
	}
	return "";
}

std::string usage(const CommandSpec &spec)
{
	std::string s = "usage: cqpoolctl [--json] " + std::string(spec.name) +
			(*spec.synopsis ? " " : "") + spec.synopsis + "\n\n" +
			spec.summary + "\n";
	size_t width = 0;

	if (spec.options.empty())
		return s;
	for (const auto &o : spec.options) {
		size_t w = 2 + std::strlen(o.name) +
			   (o.metavar ? 1 + std::strlen(o.metavar) : 0);
		if (w > width)
			width = w;
	}
	s += "\noptions:\n";
	for (const auto &o : spec.options) {
		std::string left = std::string("--") + o.name;

		if (o.metavar)
			left += std::string(" ") + o.metavar;
		s += "  " + left + std::string(width - left.size() + 2, ' ') +
		     o.help + "\n";
	}
	return s;
}

} // namespace cqpoolctl
