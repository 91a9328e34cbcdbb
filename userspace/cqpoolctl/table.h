// SPDX-License-Identifier: GPL-2.0
//
// Output: aligned tables for people, JSON for scripts.  Both by hand:
// a static binary for a busybox VM wants no dependencies.
#ifndef CQPOOLCTL_TABLE_H
#define CQPOOLCTL_TABLE_H

#include <cstdint>
#include <string>
#include <vector>

namespace cqpoolctl {

// Columns of text; the first is left-aligned (names), the rest right-
// aligned (numbers line up by their last digit).
class Table {
public:
	explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
	void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
	size_t rows() const { return rows_.size(); }
	std::string render() const;

private:
	std::vector<std::string> header_;
	std::vector<std::vector<std::string>> rows_;
};

// A JSON writer that places commas and quotes itself; the caller only
// says what comes next.  Output is one line.
class Json {
public:
	Json &begin_object();
	Json &end_object();
	Json &begin_array();
	Json &end_array();
	Json &key(const std::string &k);
	Json &value(const std::string &s);
	Json &value(const char *s) { return value(std::string(s)); }
	Json &value(uint64_t v);
	Json &value(uint32_t v) { return value(uint64_t(v)); }
	Json &value(int64_t v);
	Json &value(int v) { return value(int64_t(v)); }
	Json &value(double v);
	Json &value(bool v);
	Json &null();

	template <typename T> Json &field(const std::string &k, T v)
	{
		key(k);
		return value(v);
	}

	const std::string &str() const { return out_; }

private:
	void comma();

	std::string out_;
	// Per open container: has it a member yet?  A key just written
	// suppresses the comma before its value.
	std::vector<bool> has_member_;
	bool after_key_ = false;
};

std::string json_escape(const std::string &s);

// "k": [v...], a series of samples.
void json_samples(Json &j, const char *k, const std::vector<double> &v);

// 1234567 -> "1.2M", 999 -> "999": progress lines and rates.
std::string human_count(double v);
// Nanoseconds as "850 ns", "12.3 us", "4.56 ms", "1.23 s".
std::string human_ns(double ns);
// "1.013x"
std::string ratio_str(double r);
// Thousands separators: 327670 -> "327,670", as the README writes them.
std::string grouped(uint64_t v);

} // namespace cqpoolctl

#endif
