// SPDX-License-Identifier: GPL-2.0
#include "../table.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace cqpoolctl;

TEST(Table, FirstColumnLeftOthersRightAligned)
{
	Table t({"device", "cqs", "cqes"});

	t.add({"rxe0", "2", "16382"});
	t.add({"siw0", "10", "7"});
	EXPECT_EQ(t.render(),
		  "device  cqs   cqes\n"
		  "rxe0      2  16382\n"
		  "siw0     10      7\n");
}

TEST(Table, ShortRowsAndNoTrailingBlanks)
{
	Table t({"", "a"});

	t.add({"x"});
	EXPECT_EQ(t.render(), "   a\nx\n");
}

TEST(Json, CommasKeysAndNesting)
{
	Json j;

	j.begin_object().field("name", "rxe0").field("cqs", uint64_t(2));
	j.key("list").begin_array().value(1).value(true).null().end_array();
	j.key("o").begin_object().end_object();
	j.end_object();
	EXPECT_EQ(j.str(), R"({"name":"rxe0","cqs":2,"list":[1,true,null],"o":{}})");
}

TEST(Json, EscapesAndNonFiniteNumbers)
{
	Json j;

	j.begin_array().value("a\"b\\c\n\x01").value(std::nan("")).value(1.5).end_array();
	EXPECT_EQ(j.str(), "[\"a\\\"b\\\\c\\n\\u0001\",null,1.5]");
}

TEST(Human, CountsTimesRatiosGroups)
{
	EXPECT_EQ(human_count(999), "999");
	EXPECT_EQ(human_count(1234567), "1.23M");
	EXPECT_EQ(human_count(12345678), "12.3M");
	EXPECT_EQ(human_ns(850), "850 ns");
	EXPECT_EQ(human_ns(12345), "12.3 us");
	EXPECT_EQ(human_ns(4.56e6), "4.56 ms");
	EXPECT_EQ(human_ns(1.234e9), "1.23 s");
	EXPECT_EQ(ratio_str(1.0126), "1.013x");
	EXPECT_EQ(ratio_str(std::nan("")), "-");
	EXPECT_EQ(grouped(327670), "327,670");
	EXPECT_EQ(grouped(999), "999");
	EXPECT_EQ(grouped(1000), "1,000");
	EXPECT_EQ(grouped(0), "0");
}
