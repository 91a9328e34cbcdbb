// SPDX-License-Identifier: GPL-2.0
#include "table.h"

#include <cmath>
#include <cstdio>

namespace cqpoolctl {

std::string Table::render() const
{
	std::vector<size_t> width(header_.size(), 0);
	std::string out;

	auto measure = [&](const std::vector<std::string> &row) {
		for (size_t i = 0; i < row.size() && i < width.size(); i++)
			if (row[i].size() > width[i])
				width[i] = row[i].size();
	};
	auto emit = [&](const std::vector<std::string> &row) {
		std::string line;

		for (size_t i = 0; i < width.size(); i++) {
			const std::string cell = i < row.size() ? row[i] : "";
			std::string pad(width[i] - cell.size(), ' ');

			if (i)
				line += "  ";
			line += i == 0 ? cell + pad : pad + cell;
		}
		while (!line.empty() && line.back() == ' ')
			line.pop_back();
		out += line + "\n";
	};

	measure(header_);
	for (const auto &r : rows_)
		measure(r);
	emit(header_);
	for (const auto &r : rows_)
		emit(r);
	return out;
}

void json_samples(Json &j, const char *k, const std::vector<double> &v)
{
	j.key(k).begin_array();
	for (double x : v)
		j.value(x);
	j.end_array();
}

std::string json_escape(const std::string &s)
{
	std::string out = "\"";

	for (unsigned char c : s) {
		switch (c) {
		case '"': out += "\\\""; break;
		case '\\': out += "\\\\"; break;
		case '\n': out += "\\n"; break;
		case '\t': out += "\\t"; break;
		case '\r': out += "\\r"; break;
		default:
			if (c < 0x20) {
				char buf[8];

				std::snprintf(buf, sizeof(buf), "\\u%04x", c);
				out += buf;
			} else {
				out += char(c);
			}
		}
	}
	return out + "\"";
}

void Json::comma()
{
	if (after_key_) {
		after_key_ = false;
		return;
	}
	if (!has_member_.empty()) {
		if (has_member_.back())
			out_ += ",";
		has_member_.back() = true;
	}
}

Json &Json::begin_object()
{
	comma();
	out_ += "{";
	has_member_.push_back(false);
	return *this;
}

Json &Json::end_object()
{
	has_member_.pop_back();
	out_ += "}";
	return *this;
}

Json &Json::begin_array()
{
	comma();
	out_ += "[";
	has_member_.push_back(false);
	return *this;
}

Json &Json::end_array()
{
	has_member_.pop_back();
	out_ += "]";
	return *this;
}

Json &Json::key(const std::string &k)
{
	comma();
	out_ += json_escape(k) + ":";
	after_key_ = true;
	return *this;
}

Json &Json::value(const std::string &s)
{
	comma();
	out_ += json_escape(s);
	return *this;
}

Json &Json::value(uint64_t v)
{
	comma();
	out_ += std::to_string(v);
	return *this;
}

Json &Json::value(int64_t v)
{
	comma();
	out_ += std::to_string(v);
	return *this;
}

Json &Json::value(double v)
{
	char buf[32];

	// JSON has no NaN or infinity; a ratio over nothing is null.
	if (!std::isfinite(v))
		return null();
	comma();
	std::snprintf(buf, sizeof(buf), "%.6g", v);
	out_ += buf;
	return *this;
}

Json &Json::value(bool v)
{
	comma();
	out_ += v ? "true" : "false";
	return *this;
}

Json &Json::null()
{
	comma();
	out_ += "null";
	return *this;
}

std::string human_count(double v)
{
	static const char *const units[] = {"", "k", "M", "G", "T"};
	char buf[32];
	int u = 0;

	while (std::fabs(v) >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	if (u == 0)
		std::snprintf(buf, sizeof(buf), "%.0f", v);
	else
		std::snprintf(buf, sizeof(buf), "%.*f%s", v < 10 ? 2 : 1, v,
			      units[u]);
	return buf;
}

std::string human_ns(double ns)
{
	char buf[32];

	if (ns < 1e3)
		std::snprintf(buf, sizeof(buf), "%.0f ns", ns);
	else if (ns < 1e6)
		std::snprintf(buf, sizeof(buf), "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		std::snprintf(buf, sizeof(buf), "%.2f ms", ns / 1e6);
	else
		std::snprintf(buf, sizeof(buf), "%.2f s", ns / 1e9);
	return buf;
}

std::string ratio_str(double r)
{
	char buf[32];

	if (!std::isfinite(r))
		return "-";
	std::snprintf(buf, sizeof(buf), "%.3fx", r);
	return buf;
}

std::string grouped(uint64_t v)
{
	std::string digits = std::to_string(v), out;
	size_t n = digits.size();

	for (size_t i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			out += ",";
		out += digits[i];
	}
	return out;
}

} // namespace cqpoolctl
