#include "conform/crash_backtrace.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>
#include <string_view>

#include "loader/exported_symbols.h"

namespace sectl::conform {
namespace {

// One line of backtrace_symbols_fd: "MODULE(SYMBOL+0xOFFSET)[0xADDRESS]",
// the symbol empty when the address is in none the module exports (then
// the offset is from where the module was loaded).
struct Frame {
  std::string module;
  std::string symbol;
  uint64_t offset = 0;
  bool negative = false;  // "SYMBOL-0x..": before the symbol
};

std::optional<uint64_t> ParseHex(std::string_view text) {
  if (!text.starts_with("0x")) return std::nullopt;
  text.remove_prefix(2);
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<Frame> ParseFrame(std::string_view line) {
  const size_t open = line.find('(');
  const size_t close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  const std::string_view inside = line.substr(open + 1, close - open - 1);
  const size_t sign = inside.find_last_of("+-");
  if (sign == std::string_view::npos) return std::nullopt;
  const auto offset = ParseHex(inside.substr(sign + 1));
  if (!offset) return std::nullopt;
  return Frame{.module = std::string(line.substr(0, open)),
               .symbol = std::string(inside.substr(0, sign)),
               .offset = *offset,
               .negative = inside[sign] == '-'};
}

std::string FileName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// The plugin's exported functions, for turning "Symbol+0x16" into an
// offset in the file; empty when the file cannot be read.
class PluginSymbols {
 public:
  explicit PluginSymbols(const std::string& path) {
    if (auto read = loader::ExportedFunctionAddresses(path)) functions_ = std::move(*read);
  }
  std::optional<uint64_t> AddressOf(const std::string& name) const {
    const auto found =
        std::lower_bound(functions_.begin(), functions_.end(), name,
                         [](const loader::ExportedFunction& function, const std::string& wanted) {
                           return function.name < wanted;
                         });
    if (found == functions_.end() || found->name != name) return std::nullopt;
    return found->address;
  }

 private:
  std::vector<loader::ExportedFunction> functions_;
};

// "faulty.so+0x33a6 (CreateStream+0x16)": the module and the offset
// addr2line takes, then the symbol when there is one.
std::string Describe(const Frame& frame, bool in_plugin, const std::string& plugin_path,
                     const PluginSymbols& symbols) {
  const std::string module = in_plugin ? plugin_path : frame.module;
  const char sign = frame.negative ? '-' : '+';
  if (frame.symbol.empty()) return fmt::format("{}+{:#x}", module, frame.offset);
  if (in_plugin) {
    if (const auto address = symbols.AddressOf(frame.symbol)) {
      const uint64_t at = frame.negative ? *address - frame.offset : *address + frame.offset;
      return fmt::format("{}+{:#x} ({}{}{:#x})", module, at, frame.symbol, sign, frame.offset);
    }
  }
  return fmt::format("{} ({}{}{:#x})", module, frame.symbol, sign, frame.offset);
}

}  // namespace

std::vector<std::string> ReadableBacktrace(const std::vector<std::string>& frames,
                                           const std::string& plugin_path) {
  std::vector<std::optional<Frame>> parsed;
  parsed.reserve(frames.size());
  for (const std::string& line : frames) parsed.push_back(ParseFrame(line));
  if (parsed.empty() || !parsed.front()) return frames;

  // Frame 0 is sectl's signal handler, so its module is sectl's own; the
  // frame after the handler's is the kernel's return trampoline in libc.
  const std::string sectl_module = parsed.front()->module;
  const std::string plugin_file = FileName(plugin_path);
  const auto is_sectl = [&](size_t i) { return parsed[i] && parsed[i]->module == sectl_module; };
  const auto is_plugin = [&](size_t i) {
    return parsed[i] &&
           (parsed[i]->module == plugin_path || FileName(parsed[i]->module) == plugin_file);
  };
  size_t first = 0;
  while (first < frames.size() && is_sectl(first)) ++first;
  if (first < frames.size() && !is_plugin(first)) ++first;  // the trampoline
  if (first >= frames.size()) return frames;

  // Kept down to the plugin's last frame (or, with none, down to the first
  // frame of sectl's, which made the call that crashed).
  size_t last = first;
  bool plugin_seen = false;
  for (size_t i = first; i < frames.size(); ++i) {
    if (is_plugin(i)) {
      last = i;
      plugin_seen = true;
    }
  }
  if (!plugin_seen) {
    while (last + 1 < frames.size() && !is_sectl(last)) ++last;
  }

  const PluginSymbols symbols(plugin_path);
  std::vector<std::string> readable;
  for (size_t i = first; i <= last; ++i) {
    readable.push_back(parsed[i] ? Describe(*parsed[i], is_plugin(i), plugin_path, symbols)
                                 : frames[i]);
  }
  if (const size_t below = frames.size() - 1 - last; below > 0) {
    readable.push_back(fmt::format("... {} more frame{}: sectl's check, which made the call", below,
                                   below == 1 ? "" : "s"));
  }
  return readable;
}

}  // namespace sectl::conform
