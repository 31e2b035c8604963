// Sizes and percentages as people write them on sectl bench's command line,
// and sizes as sectl prints them.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/byte_sizes.h"

namespace sectl::bench {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;
constexpr uint64_t kGiB = 1024 * kMiB;

std::string SizeError(const std::string& text) {
  const Expected<uint64_t> size = ParseByteSize(text);
  return size ? "(parsed " + std::to_string(*size) + ")" : size.error().message();
}

std::string ListError(const std::string& text) {
  const Expected<std::vector<uint64_t>> sizes = ParseSizeList(text);
  return sizes ? "(parsed)" : sizes.error().message();
}

bool Contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

TEST(ParseByteSize, ReadsBinaryUnits) {
  EXPECT_EQ(ParseByteSize("4096"), 4096u);
  EXPECT_EQ(ParseByteSize("4KiB"), 4 * kKiB);
  EXPECT_EQ(ParseByteSize("4K"), 4 * kKiB);
  EXPECT_EQ(ParseByteSize("64MiB"), 64 * kMiB);
  EXPECT_EQ(ParseByteSize("64M"), 64 * kMiB);
  EXPECT_EQ(ParseByteSize("1GiB"), kGiB);
  EXPECT_EQ(ParseByteSize("1G"), kGiB);
  EXPECT_EQ(ParseByteSize("1TiB"), 1024 * kGiB);
  EXPECT_EQ(ParseByteSize("100B"), 100u);
}

TEST(ParseByteSize, ReadsDecimalUnits) {
  EXPECT_EQ(ParseByteSize("1kB"), 1000u);
  EXPECT_EQ(ParseByteSize("2MB"), 2000000u);
  EXPECT_EQ(ParseByteSize("3GB"), 3000000000u);
}

TEST(ParseByteSize, IgnoresCaseAndSpaces) {
  EXPECT_EQ(ParseByteSize("4kib"), 4 * kKiB);
  EXPECT_EQ(ParseByteSize("64 MiB"), 64 * kMiB);
  EXPECT_EQ(ParseByteSize(" 1 gib "), kGiB);
  EXPECT_EQ(ParseByteSize("4 k"), 4 * kKiB);
}

TEST(ParseByteSize, ReadsFractionsThatAreWholeBytes) {
  EXPECT_EQ(ParseByteSize("1.5KiB"), 1536u);
  EXPECT_EQ(ParseByteSize("0.5GiB"), 512 * kMiB);
  EXPECT_TRUE(Contains(SizeError("1.5"), "not a whole number of bytes")) << SizeError("1.5");
}

TEST(ParseByteSize, ReadsWhatFormatByteSizeWrites) {
  for (uint64_t bytes :
       std::vector<uint64_t>{100, 4 * kKiB, 1536, 64 * kMiB, 3 * kGiB / 2, 256 * kMiB}) {
    EXPECT_EQ(ParseByteSize(FormatByteSize(bytes)), bytes) << FormatByteSize(bytes);
  }
}

TEST(ParseByteSize, RefusesZeroHugeAndNonsenseNamingTheText) {
  EXPECT_EQ(SizeError("0"), "invalid size \"0\": a size must be at least 1 byte");
  EXPECT_EQ(SizeError("2TiB"), "invalid size \"2TiB\": larger than the largest size, 1 TiB");
  EXPECT_TRUE(Contains(SizeError("4QiB"), "unknown unit \"QiB\"")) << SizeError("4QiB");
  EXPECT_TRUE(Contains(SizeError("KiB"), "expected a number")) << SizeError("KiB");
  EXPECT_TRUE(Contains(SizeError("-4K"), "invalid size \"-4K\"")) << SizeError("-4K");
  EXPECT_TRUE(Contains(SizeError(""), "empty")) << SizeError("");
  EXPECT_TRUE(Contains(SizeError("1.2.3K"), "invalid size")) << SizeError("1.2.3K");
  EXPECT_TRUE(Contains(SizeError("1e9"), "unknown unit \"e9\"")) << SizeError("1e9");
  EXPECT_TRUE(Contains(SizeError("99999999999999999999999999999"), "larger than"));
  EXPECT_EQ(ParseByteSize("4K").value_or(0), 4 * kKiB);
}

TEST(ParseSizeList, ReadsOneSizeAndLists) {
  EXPECT_EQ(ParseSizeList("64MiB"), (std::vector<uint64_t>{64 * kMiB}));
  EXPECT_EQ(ParseSizeList("4KiB,1MiB,64MiB"), (std::vector<uint64_t>{4 * kKiB, kMiB, 64 * kMiB}));
}

TEST(ParseSizeList, SortsAndRemovesDuplicates) {
  EXPECT_EQ(ParseSizeList("1MiB, 4KiB, 1024KiB, 4096"), (std::vector<uint64_t>{4 * kKiB, kMiB}));
}

TEST(ParseSizeList, ExpandsRangesByDoubling) {
  const Expected<std::vector<uint64_t>> sweep = ParseSizeList("4KiB:256MiB");
  ASSERT_TRUE(sweep) << sweep.error().message();
  ASSERT_EQ(sweep->size(), 17u);  // 2^12 .. 2^28
  EXPECT_EQ(sweep->front(), 4 * kKiB);
  EXPECT_EQ(sweep->at(1), 8 * kKiB);
  EXPECT_EQ(sweep->back(), 256 * kMiB);
}

TEST(ParseSizeList, ExpandsRangesByAFactor) {
  EXPECT_EQ(ParseSizeList("4KiB:256MiB:x4"),
            (std::vector<uint64_t>{4 * kKiB, 16 * kKiB, 64 * kKiB, 256 * kKiB, kMiB, 4 * kMiB,
                                   16 * kMiB, 64 * kMiB, 256 * kMiB}));
  // The end is a bound, not a member: 1, 10, 100 (1000 is past 500).
  EXPECT_EQ(ParseSizeList("1:500:x10"), (std::vector<uint64_t>{1, 10, 100}));
  EXPECT_EQ(ParseSizeList("64MiB:64MiB"), (std::vector<uint64_t>{64 * kMiB}));
  // A huge factor stops after the first size instead of overflowing.
  EXPECT_EQ(ParseSizeList("1:1TiB:x18446744073709551615"), (std::vector<uint64_t>{1}));
}

TEST(ParseSizeList, MixesRangesAndSizes) {
  EXPECT_EQ(ParseSizeList("1MiB:4MiB,3MiB,4KiB"),
            (std::vector<uint64_t>{4 * kKiB, kMiB, 2 * kMiB, 3 * kMiB, 4 * kMiB}));
}

TEST(ParseSizeList, RefusesMalformedListsNamingTheCause) {
  EXPECT_TRUE(Contains(ListError("4KiB,,1MiB"), "an empty entry")) << ListError("4KiB,,1MiB");
  EXPECT_TRUE(Contains(ListError(""), "an empty entry")) << ListError("");
  EXPECT_TRUE(Contains(ListError("1MiB:4KiB"), "starts above where it ends"))
      << ListError("1MiB:4KiB");
  EXPECT_TRUE(Contains(ListError("4KiB:1MiB:4"), "not a factor")) << ListError("4KiB:1MiB:4");
  EXPECT_TRUE(Contains(ListError("4KiB:1MiB:x1"), "not a factor")) << ListError("4KiB:1MiB:x1");
  EXPECT_TRUE(Contains(ListError("4KiB:1MiB:x"), "not a factor")) << ListError("4KiB:1MiB:x");
  EXPECT_TRUE(Contains(ListError("4KiB:"), "invalid size \"\"")) << ListError("4KiB:");
  EXPECT_TRUE(Contains(ListError("4KiB:1MiB:x2:x2"), "not a factor"))
      << ListError("4KiB:1MiB:x2:x2");
  EXPECT_TRUE(Contains(ListError("4KiB,lots"), "invalid size \"lots\"")) << ListError("4KiB,lots");
}

TEST(FormatByteSize, UsesTheLargestUnitWithAtMostOneDecimal) {
  EXPECT_EQ(FormatByteSize(0), "0 B");
  EXPECT_EQ(FormatByteSize(100), "100 B");
  EXPECT_EQ(FormatByteSize(1023), "1023 B");
  EXPECT_EQ(FormatByteSize(1024), "1 KiB");
  EXPECT_EQ(FormatByteSize(4096), "4 KiB");
  EXPECT_EQ(FormatByteSize(1536), "1.5 KiB");
  EXPECT_EQ(FormatByteSize(64 * kMiB), "64 MiB");
  EXPECT_EQ(FormatByteSize(256 * kMiB), "256 MiB");
  EXPECT_EQ(FormatByteSize(3 * kGiB / 2), "1.5 GiB");
  EXPECT_EQ(FormatByteSize(1000000), "976.6 KiB");
  EXPECT_EQ(FormatByteSize(1024 * kGiB), "1 TiB");
}

TEST(ParsePercentage, ReadsWithOrWithoutThePercentSign) {
  EXPECT_DOUBLE_EQ(ParsePercentage("10%").value_or(-1), 0.10);
  EXPECT_DOUBLE_EQ(ParsePercentage("10").value_or(-1), 0.10);
  EXPECT_DOUBLE_EQ(ParsePercentage("2.5%").value_or(-1), 0.025);
  EXPECT_DOUBLE_EQ(ParsePercentage("0%").value_or(-1), 0.0);
  EXPECT_DOUBLE_EQ(ParsePercentage(" 5 % ").value_or(-1), 0.05);
}

TEST(ParsePercentage, RefusesNegativeWholeAndNonsense) {
  for (const char* text : {"-1%", "100%", "250", "ten", "", "%", "nan", "inf", "5%%"}) {
    const Expected<double> percent = ParsePercentage(text);
    ASSERT_FALSE(percent) << text;
    EXPECT_TRUE(Contains(percent.error().message(), std::string("\"") + text + "\""))
        << percent.error().message();
    EXPECT_EQ(percent.error().code(), ErrorCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace sectl::bench
