// SPDX-License-Identifier: GPL-2.0
#include "../args.h"

#include <gtest/gtest.h>

using namespace cqpoolctl;

namespace {

const CommandSpec spec = {
	"run", "--device DEV", "Runs.",
	{
		{"device", "DEV", "the device"},
		{"seconds", "S", "how long"},
		{"wait-idle", nullptr, "wait"},
	},
};

} // namespace

TEST(Args, TakesSpacedAndInlineValuesAndSwitches)
{
	Args a;

	ASSERT_EQ(parse_args(spec, {"--device", "rxe0", "--seconds=5", "--wait-idle"}, a), "");
	EXPECT_EQ(a.get("device"), "rxe0");
	EXPECT_EQ(a.get("seconds"), "5");
	EXPECT_TRUE(a.has("wait-idle"));
	EXPECT_FALSE(a.help);
}

TEST(Args, UnknownOptionPointsAtHelp)
{
	Args a;

	EXPECT_EQ(parse_args(spec, {"--devcie", "rxe0"}, a),
		  "unknown option --devcie for 'run'; see `cqpoolctl run --help`");
}

TEST(Args, MissingValueAndValueOnASwitchAreErrors)
{
	Args a, b;

	EXPECT_NE(parse_args(spec, {"--device"}, a).find("needs a value"), std::string::npos);
	EXPECT_NE(parse_args(spec, {"--wait-idle=1"}, b).find("takes no value"),
		  std::string::npos);
}

TEST(Args, HelpAndPositionals)
{
	Args a;

	ASSERT_EQ(parse_args(spec, {"sq-drain", "-h"}, a), "");
	EXPECT_TRUE(a.help);
	ASSERT_EQ(a.positional.size(), 1u);
	EXPECT_EQ(a.positional[0], "sq-drain");
}

TEST(Args, NumbersWithSuffixesAndRanges)
{
	uint64_t v;

	EXPECT_TRUE(parse_number("4k", v));
	EXPECT_EQ(v, 4096u);
	EXPECT_TRUE(parse_number("1M", v));
	EXPECT_EQ(v, 1u << 20);
	EXPECT_TRUE(parse_number("0", v));
	EXPECT_EQ(v, 0u);
	EXPECT_FALSE(parse_number("", v));
	EXPECT_FALSE(parse_number("k", v));
	EXPECT_FALSE(parse_number("-1", v));
	EXPECT_FALSE(parse_number("12x", v));
	EXPECT_FALSE(parse_number("99999999999999999999", v));

	Args a;
	std::string err;
	uint32_t u;
	ASSERT_EQ(parse_args(spec, {"--seconds", "700"}, a), "");
	EXPECT_FALSE(a.get_u32("seconds", 3, 1, 600, u, err));
	EXPECT_EQ(err, "--seconds wants a number from 1 to 600, not '700'");
	EXPECT_TRUE(a.get_u32("device-absent", 3, 1, 600, u, err));
	EXPECT_EQ(u, 3u);
}

TEST(Args, UsageListsEveryOption)
{
	std::string u = usage(spec);

	EXPECT_EQ(u.find("usage: cqpoolctl [--json] run --device DEV\n"), 0u);
	EXPECT_NE(u.find("  --device DEV  the device\n"), std::string::npos);
	EXPECT_NE(u.find("  --wait-idle   wait\n"), std::string::npos);
}
