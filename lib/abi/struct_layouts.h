// The layouts of the StreamExecutor structs, current and historical, as data.
//
// A plugin reports the layout it was built with through struct_size. The
// header's version numbers never changed, and the layout was not append-only
// (mem_zero/memset/memset32 were inserted before host_callback), so the size
// is the only evidence of a plugin's vintage. These tables let the host read
// a plugin's struct at the offsets of the header it was compiled against.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace sectl::abi {

enum class StructKind {
  kRegistrationParams,  // SE_PlatformRegistrationParams
  kPlatform,            // SP_Platform
  kPlatformFns,         // SP_PlatformFns
  kCreateDeviceParams,  // SE_CreateDeviceParams
  kDevice,              // SP_Device
  kCreateDeviceFnsParams,
  kDeviceFns,
  kCreateStreamExecutorParams,
  kStreamExecutor,
  kTimerFns,
  kAllocatorStats,
  kDeviceMemoryBase,
};

struct MemberLayout {
  std::string_view name;
  size_t offset;
  size_t width;
};

struct StructLayout {
  StructKind kind;
  std::string_view struct_name;
  size_t struct_size;        // TF_OFFSET_OF_END of the last member
  size_t sizeof_bytes;       // sizeof, padding included
  std::string_view vintage;  // which headers had this layout
  bool compatible;           // false: a pre-release layout today's host cannot read
  std::span<const MemberLayout> members;
};

// Every known layout of `kind`, oldest first; the last is the current one.
std::span<const StructLayout> KnownLayouts(StructKind kind);
const StructLayout& CurrentLayout(StructKind kind);
std::span<const StructKind> AllStructKinds();

enum class SizeVerdict {
  kCurrent,             // exactly this host's layout
  kOlderKnown,          // a published older layout
  kNewer,               // larger than any layout this host knows: a newer header
  kSizeofInsteadOfEnd,  // sizeof(struct) where TF_OFFSET_OF_END was meant
  kUnknown,             // matches no layout; read only the members that fit
  kIncompatible,        // a known pre-release layout that cannot be read
  kZero,                // never set: TensorFlow rejects the plugin
};

// How the host reads a struct whose plugin reported `struct_size`.
struct StructSizeReading {
  SizeVerdict verdict;
  size_t reported_size;
  const StructLayout* layout;  // the layout to read with; never null
  // A sentence for people: "264 bytes: the TF 2.5-2.6 layout (host_callback at 256)".
  std::string Describe() const;
};

StructSizeReading ReadStructSize(StructKind kind, size_t reported_size);

// Copies the members of a plugin-written struct, laid out as `reading`
// says, into a struct of the current layout at `current_out`. Members the
// plugin's layout lacks, or that lie beyond its reported size or the
// `available_bytes` the host gave it, are left zero (absent). The
// struct_size member of the result is the size the plugin reported.
void DecodeToCurrentLayout(const StructSizeReading& reading, const void* plugin_bytes,
                           size_t available_bytes, void* current_out);

}  // namespace sectl::abi
