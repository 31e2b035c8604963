// What sectl says to a mistyped command, a `help` word, and a bad flag:
// one line naming what was meant, and the --help of the command at fault.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sectl_process.h"

namespace sectl::testing {
namespace {

void ExpectOneLineUsageError(const std::vector<std::string>& arguments,
                             const std::vector<std::string>& expected_parts) {
  const CommandResult result = RunSectl(arguments);
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(result.err.rfind("sectl: error: ", 0), 0U) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  for (const std::string& part : expected_parts) {
    EXPECT_NE(result.err.find(part), std::string::npos) << "no '" << part << "' in " << result.err;
  }
}

TEST(CommandWords, AMistypedCommandNamesTheNearestOnes) {
  ExpectOneLineUsageError({"prob"}, {"'prob' is not a sectl command", "did you mean 'probe'?"});
  ExpectOneLineUsageError({"bench", "memcpyy"},
                          {"not a sectl bench command", "'memcpy'", "'sectl bench --help'"});
  ExpectOneLineUsageError({"xyzzy"}, {"no command is close to it", "'sectl --help'"});
}

TEST(CommandWords, HelpWordShowsTheCommandsHelp) {
  const CommandResult conform = RunSectl({"help", "conform"});
  EXPECT_EQ(conform.exit_code, 0) << conform.err;
  EXPECT_NE(conform.out.find("Usage: sectl conform"), std::string::npos) << conform.out;
  const CommandResult memcpy = RunSectl({"help", "bench", "memcpy"});
  EXPECT_EQ(memcpy.exit_code, 0) << memcpy.err;
  EXPECT_NE(memcpy.out.find("--sizes"), std::string::npos) << memcpy.out;
  const CommandResult top = RunSectl({"help"});
  EXPECT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(top.out.find("conform"), std::string::npos) << top.out;
}

TEST(CommandWords, ABadFlagPointsAtItsOwnCommandsHelp) {
  ExpectOneLineUsageError({"conform", "--repeat", "0"}, {"(see 'sectl conform --help')"});
  ExpectOneLineUsageError({"bench", "memcpy", "--budget", "-1"},
                          {"(see 'sectl bench memcpy --help')"});
}

}  // namespace
}  // namespace sectl::testing
