#include "tvm/c_device_names.h"

#include <fmt/format.h>

#include <cctype>

namespace sectl::tvm {
namespace {

constexpr std::string_view kSymbolPrefix = "TVMDevice";

bool IsLetter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool IsLetterOrDigit(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

}  // namespace

std::string_view HookName(Hook hook) {
  switch (hook) {
    case Hook::kInit:
      return "Init";
    case Hook::kActivate:
      return "Activate";
    case Hook::kOpen:
      return "Open";
    case Hook::kClose:
      return "Close";
    case Hook::kDeactivate:
      return "Deactivate";
    case Hook::kDestroy:
      return "Destroy";
  }
  return "?";
}

std::string CDeviceName(std::string_view target_name) {
  std::string c_name;
  bool block_starts = true;
  for (char c : target_name) {
    if (!IsLetterOrDigit(c)) {  // sanitised to '_', which starts a new block
      block_starts = true;
    } else if (IsLetter(c)) {
      const auto letter = static_cast<unsigned char>(c);
      c_name.push_back(
          static_cast<char>(block_starts ? std::toupper(letter) : std::tolower(letter)));
      block_starts = false;
    }
    // A digit is dropped and does not start a block: "npu2x" -> "Npux".
  }
  return c_name;
}

std::vector<std::string> NamingPitfalls(std::string_view target_name) {
  std::vector<std::string> pitfalls;
  std::string digits;
  for (char c : target_name) {
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) digits.push_back(c);
  }
  const std::string c_name = CDeviceName(target_name);
  if (!digits.empty()) {
    pitfalls.push_back(fmt::format(
        "'{}' contains the digit(s) {}, which TVM drops: its hooks are TVMDevice{}<Hook>, and "
        "any device differing only in digits collides with it",
        target_name, digits, c_name));
  }
  std::string letters_as_written;
  bool block_starts = true;
  for (char c : target_name) {
    if (!IsLetterOrDigit(c)) {
      block_starts = true;
    } else if (IsLetter(c)) {
      letters_as_written.push_back(
          block_starts ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c);
      block_starts = false;
    }
  }
  if (letters_as_written != c_name) {
    pitfalls.push_back(fmt::format(
        "'{}' has upper-case letters inside a word, which TVM lower-cases: the hooks are "
        "TVMDevice{}<Hook>, not TVMDevice{}<Hook>",
        target_name, c_name, letters_as_written));
  }
  if (c_name.empty()) {
    pitfalls.push_back(fmt::format(
        "'{}' has no letters: TVM would generate TVMDevice<Hook> with no name", target_name));
  }
  return pitfalls;
}

std::string HookSymbol(std::string_view c_name, Hook hook) {
  return fmt::format("{}{}{}", kSymbolPrefix, c_name, HookName(hook));
}

std::optional<HookSymbolParts> ParseHookSymbol(std::string_view symbol) {
  if (!symbol.starts_with(kSymbolPrefix)) return std::nullopt;
  const std::string_view rest = symbol.substr(kSymbolPrefix.size());
  // Deactivate before Activate: "...Deactivate" also ends in "Activate".
  static constexpr std::array kLongestFirst = {Hook::kDeactivate, Hook::kActivate, Hook::kDestroy,
                                               Hook::kClose,      Hook::kOpen,     Hook::kInit};
  for (Hook hook : kLongestFirst) {
    const std::string_view name = HookName(hook);
    if (rest.size() > name.size() && rest.ends_with(name)) {
      const std::string_view c_name = rest.substr(0, rest.size() - name.size());
      for (char c : c_name) {
        if (!IsLetter(c)) return std::nullopt;  // TVM never generates anything else
      }
      return HookSymbolParts{std::string(c_name), hook};
    }
  }
  return std::nullopt;
}

std::string MangledHookSymbol(std::string_view c_name, Hook hook) {
  const std::string plain = HookSymbol(c_name, hook);
  return fmt::format("_Z{}{}Pv", plain.size(), plain);  // f(void*) in the Itanium C++ ABI
}

}  // namespace sectl::tvm
