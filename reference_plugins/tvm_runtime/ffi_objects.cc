// The objects of sectl's reference tvm-ffi runtime: see ffi_objects.h.
//
// Each object is a C++ struct whose first member is the 24-byte header and
// whose second is the cell tvm-ffi puts after it (ffi_abi.h); what follows
// is this runtime's own storage. A handle is the header's address, which is
// the struct's. Objects are made with new (through std::make_unique) and
// handed out as raw handles, so their deleters delete them by hand.
#include "ffi_objects.h"

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <utility>

#include "device_core.h"
#include "ffi_arguments.h"

namespace reference_runtime::ffi {
namespace {

// --- the record of live objects ---------------------------------------------

std::mutex live_mutex;
std::set<const void*> live_objects;
std::atomic<int64_t> outstanding_references{0};

void Remember(const ObjectHeader* object) {
  std::lock_guard<std::mutex> lock(live_mutex);
  live_objects.insert(object);
}

void Forget(const ObjectHeader* object) {
  std::lock_guard<std::mutex> lock(live_mutex);
  live_objects.erase(object);
}

// tvm-ffi's deleter protocol: kDeleteStrong runs the destructor, kDeleteWeak
// frees the memory, kDeleteBoth does both.
template <typename Object>
void Delete(void* self, int flags) {
  auto* object = static_cast<Object*>(self);
  if ((flags & kDeleteBoth) == kDeleteBoth) {
    delete object;  // NOLINT(cppcoreguidelines-owning-memory): made by Adopt
    return;
  }
  if ((flags & kDeleteStrong) != 0) std::destroy_at(object);
  if ((flags & kDeleteWeak) != 0) ::operator delete(self);
}

// Gives `object` its header (one strong and one weak reference, as tvm-ffi's
// allocator does) and records it live; answers its handle.
template <typename Object>
ObjectHeader* Adopt(std::unique_ptr<Object> object, TypeIndex type_index) {
  static_assert(offsetof(Object, header) == 0, "the handle is the object's address");
  object->header = {kStrongOne | kWeakOne, type_index, 0, &Delete<Object>};
  ObjectHeader* handle = &object.release()->header;
  Remember(handle);
  return handle;
}

// --- the objects ------------------------------------------------------------

struct StrObject {
  ObjectHeader header{};
  ByteArray bytes{};  // into text
  std::string text;
};
static_assert(offsetof(StrObject, bytes) == sizeof(ObjectHeader));

struct ErrorObject {
  ObjectHeader header{};
  ErrorCell cell{};  // into kind, message and backtrace
  std::string kind;
  std::string message;
  std::string backtrace;

  void Point() {
    cell.kind = {kind.data(), kind.size()};
    cell.message = {message.data(), message.size()};
    cell.backtrace = {backtrace.data(), backtrace.size()};
  }
};
static_assert(offsetof(ErrorObject, cell) == sizeof(ObjectHeader));

// TVMFFIErrorCell's update_backtrace: mode 0 replaces, 1 appends.
void UpdateBacktrace(void* self, const ByteArray* backtrace, int32_t update_mode) {
  auto* error = static_cast<ErrorObject*>(self);
  const std::string text(backtrace->data, backtrace->size);
  error->backtrace = update_mode == 0 ? text : error->backtrace + text;
  error->Point();
}

struct ShapeObject {
  ObjectHeader header{};
  ShapeCell cell{};  // into dimensions
  std::vector<int64_t> dimensions;
};
static_assert(offsetof(ShapeObject, cell) == sizeof(ObjectHeader));

struct TensorObject {
  ObjectHeader header{};
  DLTensor tensor{};  // shape and strides into the vectors below
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;

  TensorObject() = default;
  TensorObject(const TensorObject&) = delete;
  TensorObject& operator=(const TensorObject&) = delete;
  TensorObject(TensorObject&&) = delete;
  TensorObject& operator=(TensorObject&&) = delete;
  // The tensor owns its data, as TVM's Tensor::Empty does.
  ~TensorObject() { (void)FreeDataSpace(tensor.device, tensor.data); }
};
static_assert(offsetof(TensorObject, tensor) == sizeof(ObjectHeader));

struct FunctionObject {
  ObjectHeader header{};
  FunctionCell cell{};
  const GlobalDefinition* definition = nullptr;
};
static_assert(offsetof(FunctionObject, cell) == sizeof(ObjectHeader));

// The safe call of every global: runs its body, and turns a Raised (or any
// exception) into a raised Error and -1, as tvm-ffi's safe call does.
int CallGlobal(void* self, const Any* args, int32_t num_args, Any* result) {
  const GlobalDefinition& definition = *static_cast<FunctionObject*>(self)->definition;
  try {
    definition.body(Arguments(definition, args, num_args), result);
    if (result->type_index >= kObjectBegin) CountHandedOut();
    return 0;
  } catch (const Raised& raised) {
    SetRaised(MakeError(raised.kind, raised.message));
  } catch (const std::exception& exception) {
    SetRaised(MakeError("InternalError", exception.what()));
  }
  return -1;
}

// A function made by TVMFFIFunctionCreate: the caller's safe call and self,
// reached through a trampoline, as tvm-ffi's ExternCFunctionObjImpl.
struct ExternFunctionObject {
  ObjectHeader header{};
  FunctionCell cell{};
  void* self = nullptr;
  SafeCall safe_call = nullptr;
  void (*deleter)(void*) = nullptr;
  ExternFunctionObject() = default;
  ExternFunctionObject(const ExternFunctionObject&) = delete;
  ExternFunctionObject& operator=(const ExternFunctionObject&) = delete;
  ~ExternFunctionObject() {
    if (deleter != nullptr) deleter(self);
  }
};
static_assert(offsetof(ExternFunctionObject, cell) == sizeof(ObjectHeader));

int CallExtern(void* handle, const Any* args, int32_t num_args, Any* result) {
  const auto* function = static_cast<ExternFunctionObject*>(handle);
  return function->safe_call(function->self, args, num_args, result);
}

// Globals registered at run time (TVMFFIFunctionSetGlobal), each holding
// one reference while the library is loaded.
std::mutex registered_mutex;
std::map<std::string, ObjectHeader*, std::less<>>& Registered() {
  static auto* const registered = new std::map<std::string, ObjectHeader*, std::less<>>();
  return *registered;
}

// The raised error, process-wide.
std::mutex raised_mutex;
ObjectHeader* raised = nullptr;

}  // namespace

void RequireLive(const void* handle, const char* operation) {
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    if (live_objects.count(handle) != 0) return;
  }
  std::fprintf(stderr,
               "sectl reference tvm-ffi runtime: %s(%p): not a live object of this runtime (a "
               "reference released twice, or never handed out)\n",
               operation, handle);
  std::abort();
}

void IncRef(ObjectHeader* object) {
  std::atomic_ref<uint64_t>(object->combined_ref_count)
      .fetch_add(kStrongOne, std::memory_order_relaxed);
}

void DecRef(ObjectHeader* object) {
  std::atomic_ref<uint64_t> count(object->combined_ref_count);
  const uint64_t before = count.fetch_sub(kStrongOne, std::memory_order_release);
  if ((before & kStrongMask) != kStrongOne) return;  // other strong references remain
  std::atomic_thread_fence(std::memory_order_acquire);
  Forget(object);
  if (before == (kStrongOne | kWeakOne)) {
    object->deleter(object, kDeleteBoth);
    return;
  }
  object->deleter(object, kDeleteStrong);
  if (count.fetch_sub(kWeakOne, std::memory_order_release) == kWeakOne) {
    std::atomic_thread_fence(std::memory_order_acquire);
    object->deleter(object, kDeleteWeak);
  }
}

void CountHandedOut() { ++outstanding_references; }
void CountGivenBack() { --outstanding_references; }
int64_t OutstandingReferences() { return outstanding_references.load(); }

ObjectHeader* MakeStr(std::string text) {
  auto object = std::make_unique<StrObject>();
  object->text = std::move(text);
  object->bytes = {object->text.data(), object->text.size()};
  return Adopt(std::move(object), kStr);
}

ObjectHeader* MakeError(std::string kind, std::string message) {
  auto object = std::make_unique<ErrorObject>();
  object->kind = std::move(kind);
  object->message = std::move(message);
  object->Point();
  object->cell.update_backtrace = &UpdateBacktrace;
  return Adopt(std::move(object), kError);
}

ObjectHeader* MakeShape(std::vector<int64_t> dimensions) {
  auto object = std::make_unique<ShapeObject>();
  object->dimensions = std::move(dimensions);
  object->cell = {object->dimensions.data(), object->dimensions.size()};
  return Adopt(std::move(object), kShape);
}

ObjectHeader* MakeTensor(void* data, DLDevice device, std::vector<int64_t> shape,
                         DLDataType dtype) {
  auto object = std::make_unique<TensorObject>();
  object->shape = std::move(shape);
  // Compact row-major strides, as tvm-ffi's Tensor fills them.
  object->strides.assign(object->shape.size(), 1);
  for (size_t i = object->shape.size(); i > 1; --i) {
    object->strides[i - 2] = object->strides[i - 1] * object->shape[i - 1];
  }
  object->tensor.data = data;
  object->tensor.device = device;
  object->tensor.ndim = static_cast<int32_t>(object->shape.size());
  object->tensor.dtype = dtype;
  object->tensor.shape = object->shape.data();
  object->tensor.strides = object->strides.data();
  object->tensor.byte_offset = 0;
  return Adopt(std::move(object), kTensor);
}

const ByteArray& StrBytes(const ObjectHeader* str) {
  return reinterpret_cast<const StrObject*>(str)->bytes;
}

const ShapeCell& ShapeDimensions(const ObjectHeader* shape) {
  return reinterpret_cast<const ShapeObject*>(shape)->cell;
}

DLTensor* TensorOf(ObjectHeader* tensor) {
  return &reinterpret_cast<TensorObject*>(tensor)->tensor;
}

ObjectHeader* FindGlobal(std::string_view name) {
  // Made on first use and kept (one reference each) while the library is
  // loaded, as tvm-ffi's global table keeps its functions.
  static const auto* const functions = [] {
    auto table = std::make_unique<std::map<std::string_view, ObjectHeader*>>();
    for (const GlobalDefinition& definition : GlobalDefinitions()) {
      auto object = std::make_unique<FunctionObject>();
      object->cell = {&CallGlobal, nullptr};
      object->definition = &definition;
      (*table)[definition.name] = Adopt(std::move(object), kFunction);
    }
    return table.release();  // never destroyed: callers may hold references
  }();
  auto found = functions->find(name);
  if (found != functions->end()) return found->second;
  std::lock_guard<std::mutex> lock(registered_mutex);
  auto registered = Registered().find(name);
  return registered == Registered().end() ? nullptr : registered->second;
}

ObjectHeader* MakeExternFunction(void* self, SafeCall safe_call, void (*deleter)(void*)) {
  auto object = std::make_unique<ExternFunctionObject>();
  object->cell = {&CallExtern, nullptr};
  object->self = self;
  object->safe_call = safe_call;
  object->deleter = deleter;
  return Adopt(std::move(object), kFunction);
}

bool RegisterGlobal(std::string_view name, ObjectHeader* function, bool allow_override) {
  ObjectHeader* replaced = nullptr;
  {
    std::lock_guard<std::mutex> lock(registered_mutex);
    auto& slot = Registered()[std::string(name)];
    if (slot != nullptr && !allow_override) return false;
    IncRef(function);
    replaced = std::exchange(slot, function);
  }
  if (replaced != nullptr) DecRef(replaced);
  return true;
}

void SetRaised(ObjectHeader* error) {
  ObjectHeader* replaced = nullptr;
  {
    std::lock_guard<std::mutex> lock(raised_mutex);
    replaced = std::exchange(raised, error);
  }
  if (replaced != nullptr) DecRef(replaced);
}

ObjectHeader* MoveFromRaised() {
  std::lock_guard<std::mutex> lock(raised_mutex);
  return std::exchange(raised, nullptr);
}

}  // namespace reference_runtime::ffi
