// Names in TVM's C Device API (RFC 0031, shipped in TVM v0.9-v0.18): how a
// target name becomes the C name in TVMDevice<Name><Hook>, and which hook a
// symbol is.
//
// TVM built the symbol as ToCFunctionStyle(PrefixName({"Device", name, hook})):
// every character that is not a letter or digit becomes '_', the result is
// split on '_', and each block is written with its first letter upper-case
// and the rest lower-case. Everything that is not a letter is dropped,
// digits included, so "ethos-u" gives "EthosU", but "npu2" and "NPU" both
// give "Npu": two devices can collide, and a digit never reaches the symbol.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sectl::tvm {

enum class Hook { kInit, kActivate, kOpen, kClose, kDeactivate, kDestroy };

inline constexpr std::array kAllHooks = {Hook::kInit,  Hook::kActivate,   Hook::kOpen,
                                         Hook::kClose, Hook::kDeactivate, Hook::kDestroy};

// The four hooks generated code calls; Init and Destroy are the application's.
inline constexpr std::array kGeneratedCodeHooks = {Hook::kActivate, Hook::kOpen, Hook::kClose,
                                                   Hook::kDeactivate};

// "Activate", ...
std::string_view HookName(Hook hook);

// TVM's C name for a target name: "ethos-u" -> "EthosU", "woofles" -> "Woofles".
std::string CDeviceName(std::string_view target_name);

// What the conversion loses, one sentence each: digits and other characters
// that are dropped, letters whose case changes. Empty for a name that
// survives as written (apart from its first letter's case).
std::vector<std::string> NamingPitfalls(std::string_view target_name);

// "TVMDeviceEthosUOpen".
std::string HookSymbol(std::string_view c_name, Hook hook);

// A symbol split into its device's C name and hook, or nullopt when it is
// not TVMDevice<Name><Hook> with a non-empty name.
struct HookSymbolParts {
  std::string c_name;
  Hook hook;
};
std::optional<HookSymbolParts> ParseHookSymbol(std::string_view symbol);

// The C++-mangled form of a hook declared `int32_t TVMDevice<Name><Hook>(void*)`
// without extern "C", as a C++ compiler would export it: generated C code
// cannot link to it. For telling the vendor what went wrong.
std::string MangledHookSymbol(std::string_view c_name, Hook hook);

}  // namespace sectl::tvm
