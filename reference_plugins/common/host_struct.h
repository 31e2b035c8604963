// Writing into structs the host owns, without writing past their end.
//
// The host allocates every SP_* struct and pre-fills `struct_size` with the
// size it was compiled with. A host built against an older header has a
// shorter struct, and whatever lies just after it (often the host's own stack)
// is not ours to write. So a plugin must fill members one by one, and only
// those that end within the size the host announced. Whole-struct assignment
// (`*s = SP_Foo{...}`) or memset(s, 0, sizeof(*s)) would overrun such a host.

#ifndef SECTL_REFERENCE_PLUGINS_COMMON_HOST_STRUCT_H_
#define SECTL_REFERENCE_PLUGINS_COMMON_HOST_STRUCT_H_

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace sectl_plugin {

// A host-owned struct, seen through the size the host announced for it.
template <typename Struct>
class HostStruct {
 public:
  // `our_size` is this plugin's *_STRUCT_SIZE for Struct. A struct_size of 0
  // means the host did not say, and we assume it matches ours.
  HostStruct(Struct* host_struct, size_t our_size)
      : struct_(host_struct),
        our_size_(our_size),
        host_size_(host_struct->struct_size != 0 ? host_struct->struct_size : our_size) {}

  size_t host_size() const { return host_size_; }

  // Whether `member` lies entirely within the host's struct.
  template <typename Member>
  bool Has(Member Struct::*member) const {
    return EndOf(member) <= host_size_;
  }

  // Sets `member` if the host's struct has it; otherwise leaves memory alone.
  template <typename Member>
  void Set(Member Struct::*member, std::type_identity_t<Member> value) {
    if (Has(member)) struct_->*member = value;
  }

  // Writes `value` at a byte offset given by an older layout of Struct, where
  // a member lived at a place today's declaration no longer describes.
  template <typename Value>
  void SetAtOffset(size_t offset, const Value& value) {
    if (offset + sizeof(Value) > host_size_) return;
    std::memcpy(reinterpret_cast<std::byte*>(struct_) + offset, &value, sizeof(Value));
  }

  // Tells the host how much of the struct we filled: the size both sides know.
  void WriteBackSize() { struct_->struct_size = std::min(host_size_, our_size_); }

 private:
  // TF_OFFSET_OF_END for a pointer-to-member, measured on a probe object.
  template <typename Member>
  static size_t EndOf(Member Struct::*member) {
    static const Struct probe{};
    const auto* base = reinterpret_cast<const std::byte*>(&probe);
    const auto* field = reinterpret_cast<const std::byte*>(&(probe.*member));
    return static_cast<size_t>(field - base) + sizeof(Member);
  }

  Struct* struct_;
  size_t our_size_;
  size_t host_size_;
};

}  // namespace sectl_plugin

#endif  // SECTL_REFERENCE_PLUGINS_COMMON_HOST_STRUCT_H_
