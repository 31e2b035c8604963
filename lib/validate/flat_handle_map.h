// The layer's lookup tables (handle -> state, callback id -> callback): an
// open-addressing hash map over one array, for the calls every stream
// operation makes. std::unordered_map costs a node allocation per insert
// and an integer division per lookup (its bucket count is prime); a
// stream-ordered call looks up two or three handles, so that was a third of
// what the layer added to it. Here a lookup is a multiplication, a shift and
// a short linear probe, and an insert allocates only when the table grows.
//
// Only what the layer uses: find, operator[], erase, iteration, size. Keys
// are pointers or integers; the table is kept at most half full, and an
// erase shifts the entries after it back (no tombstones), so probes stay
// short however many handles come and go.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <utility>
#include <vector>

namespace sectl::validate {

template <typename Key, typename Value>
class FlatHandleMap {
 public:
  using value_type = std::pair<Key, Value>;

  explicit FlatHandleMap(std::pmr::memory_resource* resource) : slots_(resource), used_(resource) {}

  template <typename Map, typename Entry>
  class Iterator {
   public:
    Iterator(Map* map, size_t index) : map_(map), index_(index) { SkipEmpty(); }
    Entry& operator*() const { return map_->slots_[index_]; }
    Entry* operator->() const { return &map_->slots_[index_]; }
    Iterator& operator++() {
      ++index_;
      SkipEmpty();
      return *this;
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }

   private:
    friend class FlatHandleMap;
    void SkipEmpty() {
      while (index_ < map_->used_.size() && map_->used_[index_] == 0) ++index_;
    }
    Map* map_;
    size_t index_;
  };
  using iterator = Iterator<FlatHandleMap, value_type>;
  using const_iterator = Iterator<const FlatHandleMap, const value_type>;

  iterator begin() { return {this, 0}; }
  iterator end() { return {this, used_.size()}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, used_.size()}; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  iterator find(Key key) { return {this, IndexOf(key)}; }
  const_iterator find(Key key) const { return {this, IndexOf(key)}; }

  // The entry for `key`, made with a default Value if there is none.
  Value& operator[](Key key) {
    if (const size_t found = IndexOf(key); found != used_.size()) return slots_[found].second;
    if (2 * (size_ + 1) > used_.size()) Grow();
    size_t index = HomeOf(key);
    while (used_[index] != 0) index = (index + 1) & Mask();
    used_[index] = 1;
    slots_[index] = value_type{key, Value{}};
    ++size_;
    return slots_[index].second;
  }

  void erase(iterator position) { EraseAt(position.index_); }
  void erase(Key key) {
    if (const size_t found = IndexOf(key); found != used_.size()) EraseAt(found);
  }

 private:
  size_t Mask() const { return used_.size() - 1; }

  // Fibonacci hashing: the top bits of the key times 2^64 / phi.
  size_t HomeOf(Key key) const {
    const auto bits = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(AsPointer(key)));
    return static_cast<size_t>((bits * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  static const void* AsPointer(const void* key) { return key; }
  static const void* AsPointer(uint64_t key) {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): only hashed, never followed
    return reinterpret_cast<const void*>(static_cast<uintptr_t>(key));
  }

  // The slot holding `key`, or used_.size() when there is none.
  size_t IndexOf(Key key) const {
    if (size_ == 0) return used_.size();
    for (size_t index = HomeOf(key);; index = (index + 1) & Mask()) {
      if (used_[index] == 0) return used_.size();
      if (slots_[index].first == key) return index;
    }
  }

  void Grow() {
    const size_t capacity = used_.empty() ? 16 : 2 * used_.size();
    std::pmr::vector<value_type> old_slots(capacity, slots_.get_allocator());
    std::pmr::vector<uint8_t> old_used(capacity, 0, used_.get_allocator());
    old_slots.swap(slots_);
    old_used.swap(used_);
    shift_ = 64 - std::countr_zero(capacity);
    size_ = 0;
    for (size_t index = 0; index < old_used.size(); ++index) {
      if (old_used[index] == 0) continue;
      size_t place = HomeOf(old_slots[index].first);
      while (used_[place] != 0) place = (place + 1) & Mask();
      used_[place] = 1;
      slots_[place] = std::move(old_slots[index]);
      ++size_;
    }
  }

  // Backward-shift deletion: each later entry of the same probe run that
  // may sit in the freed slot (its home is not between the gap and it)
  // moves into the gap, which moves on to where it was.
  void EraseAt(size_t gap) {
    for (size_t next = (gap + 1) & Mask(); used_[next] != 0; next = (next + 1) & Mask()) {
      const size_t home = HomeOf(slots_[next].first);
      const bool stays = gap <= next ? (gap < home && home <= next) : (gap < home || home <= next);
      if (stays) continue;
      slots_[gap] = std::move(slots_[next]);
      gap = next;
    }
    used_[gap] = 0;
    slots_[gap] = value_type{};
    --size_;
  }

  std::pmr::vector<value_type> slots_;
  std::pmr::vector<uint8_t> used_;
  size_t size_ = 0;
  int shift_ = 64;
};

}  // namespace sectl::validate
