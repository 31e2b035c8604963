// Kernel registration (kernels.h): TF_NewKernelBuilder and its modifiers
// collect a KernelRegistration, and TF_RegisterKernelBuilder records it
// (recorded_registrations.h) instead of handing it to an op registry.
//
// Ownership follows TensorFlow (kernels.cc): a registered builder belongs to
// the host, which keeps it; the plugin deletes only builders it never
// registered. Where TensorFlow would crash or abort (a NULL name, a label set
// twice) sectl records the reason on the registration and reports
// TF_INVALID_ARGUMENT instead. Where TensorFlow succeeds, so does sectl,
// including for defects TensorFlow only meets when the kernel runs.

#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "tensorflow/c/kernels.h"
#include "tf_c_api/recorded_registrations.h"

// What a builder has collected since TF_NewKernelBuilder.
struct TF_KernelBuilder {
  sectl::tf_c_api::KernelRegistration registration;
  // Set when registered: the builder then belongs to the host, and its
  // contents have moved to the recorded registration.
  bool registered = false;
};

namespace sectl::tf_c_api {
namespace {

using KernelBuilderRegistry = BuilderRegistry<TF_KernelBuilder>;

// Never destroyed, like the recordings: plugin threads may outlive statics.
KernelBuilderRegistry& KernelBuilders() {
  static KernelBuilderRegistry& registry = *std::make_unique<KernelBuilderRegistry>().release();
  return registry;
}

// A C caller may pass any int as a TF_DataType; reading such an enum value in
// C++ is undefined, so the bits are read as an int.
static_assert(sizeof(TF_DataType) == sizeof(int));
int DataTypeValue(const TF_DataType& type) {
  int value = 0;
  std::memcpy(&value, &type, sizeof(value));
  return value;
}

TF_KernelBuilder* NewBuilder(const char* function, const char* op_name, const char* device_name,
                             bool has_create, bool has_compute, bool has_delete,
                             bool async) noexcept {
  try {
    auto builder = std::make_unique<TF_KernelBuilder>();
    KernelRegistration& registration = builder->registration;
    registration.op = BoundedCopy(op_name, &registration.truncated);
    registration.device_type = BoundedCopy(device_name, &registration.truncated);
    // TensorFlow builds a std::string from each name: a NULL one crashes it.
    if (op_name == nullptr) {
      AppendError(registration.registration_error, fmt::format("{}: op_name is NULL", function),
                  &registration.truncated);
    }
    if (device_name == nullptr) {
      AppendError(registration.registration_error, fmt::format("{}: device_name is NULL", function),
                  &registration.truncated);
    }
    registration.has_create = has_create;
    registration.has_compute = has_compute;
    registration.has_delete = has_delete;
    registration.async = async;
    // A registered builder stays kept, so the registration cap bounds the
    // builders too.
    TF_KernelBuilder* handle = KernelBuilders().Add(std::move(builder), kMaxRecordedKernels);
    if (handle == nullptr) {
      RecordMisuse(function, fmt::format("more than {} kernel builders; sectl returned NULL",
                                         kMaxRecordedKernels));
    }
    return handle;
  } catch (...) {
    return nullptr;  // out of memory
  }
}

// Applies a modifier to a usable builder; anything else is recorded as a
// misuse. Returns null when the modifier ran, else what went wrong.
template <typename Change>
const char* ChangeBuilder(const char* function, TF_KernelBuilder* builder,
                          Change&& change) noexcept {
  try {
    const auto found = KernelBuilders().WithUsable(
        builder, [&](TF_KernelBuilder& usable) { change(usable.registration); });
    if (found == KernelBuilderRegistry::Found::kUsable) {
      return nullptr;
    }
    RecordMisuse(function, KernelBuilderRegistry::Describe(found));
    return KernelBuilderRegistry::Describe(found);
  } catch (...) {
    return "sectl ran out of memory recording the call";
  }
}

// Notes a problem on the registration being built, where sectl reports it
// with the registration.
void AddError(KernelRegistration& registration, const char* function, std::string_view problem) {
  AppendError(registration.registration_error, fmt::format("{}: {}", function, problem),
              &registration.truncated);
}

void Register(const char* function, const char* serialized_kernel_def, const char* kernel_name,
              TF_KernelBuilder* builder, TF_Status* status) noexcept {
  try {
    KernelRegistration registration;
    const auto found = KernelBuilders().WithUsable(builder, [&](TF_KernelBuilder& usable) {
      // The host owns the builder from here on; what it collected moves to
      // the record, leaving an empty husk behind.
      registration = std::move(usable.registration);
      usable.registration = KernelRegistration();
      usable.registered = true;
    });
    if (found != KernelBuilderRegistry::Found::kUsable) {
      const char* problem = KernelBuilderRegistry::Describe(found);
      RecordMisuse(function, problem);
      SetStatusFor(status, TF_INVALID_ARGUMENT, function, problem);
      return;
    }
    registration.kernel_name = BoundedCopy(kernel_name, &registration.truncated);
    if (kernel_name == nullptr) {
      AddError(registration, function, "the kernel name is NULL");
    }
    if (serialized_kernel_def != nullptr) {
      // TensorFlow parses the proto from a std::string built from this
      // pointer, so it reads up to the first NUL; so does sectl.
      registration.has_serialized_kernel_def = true;
      registration.serialized_kernel_def =
          BoundedCopy(serialized_kernel_def, &registration.truncated);
    }
    std::string error = registration.registration_error;
    RecordKernel(std::move(registration));
    if (error.empty()) {
      // TensorFlow reports OK without checking the op or the constraints.
      TF_SetStatus(status, TF_OK, "");
    } else {
      SetStatusFor(status, TF_INVALID_ARGUMENT, /*function=*/nullptr, error);
    }
  } catch (...) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "sectl ran out of memory recording a kernel");
  }
}

}  // namespace
}  // namespace sectl::tf_c_api

using sectl::tf_c_api::AddError;
using sectl::tf_c_api::KernelRegistration;
using sectl::tf_c_api::kMaxRecordedListEntries;

extern "C" {

TF_KernelBuilder* TF_NewKernelBuilder(const char* op_name, const char* device_name,
                                      void* (*create_func)(TF_OpKernelConstruction*),
                                      void (*compute_func)(void*, TF_OpKernelContext*),
                                      void (*delete_func)(void*)) {
  return sectl::tf_c_api::NewBuilder(__func__, op_name, device_name, create_func != nullptr,
                                     compute_func != nullptr, delete_func != nullptr,
                                     /*async=*/false);
}

TF_KernelBuilder* TF_NewAsyncKernelBuilder(
    const char* op_name, const char* device_name, void* (*create_func)(TF_OpKernelConstruction*),
    void (*compute_async_func)(void*, TF_OpKernelContext*, TF_AsyncOpKernelDoneCallback* done),
    void (*delete_func)(void*)) {
  return sectl::tf_c_api::NewBuilder(__func__, op_name, device_name, create_func != nullptr,
                                     compute_async_func != nullptr, delete_func != nullptr,
                                     /*async=*/true);
}

void TF_KernelBuilder_TypeConstraint(TF_KernelBuilder* kernel_builder, const char* attr_name,
                                     TF_DataType type, TF_Status* status) {
  bool attr_name_missing = false;
  const char* problem = sectl::tf_c_api::ChangeBuilder(
      __func__, kernel_builder, [&](KernelRegistration& registration) {
        if (attr_name == nullptr) {
          attr_name_missing = true;
          AddError(registration, "TF_KernelBuilder_TypeConstraint", "attr_name is NULL");
        } else if (registration.type_constraints.size() >= kMaxRecordedListEntries) {
          registration.truncated = true;
        } else {
          registration.type_constraints.emplace_back(
              sectl::tf_c_api::BoundedCopy(attr_name, &registration.truncated),
              sectl::tf_c_api::DataTypeValue(type));
        }
      });
  if (attr_name_missing && problem == nullptr) {
    problem = "attr_name is NULL";
  }
  if (problem == nullptr) {
    TF_SetStatus(status, TF_OK, "");  // as TensorFlow: the constraint is not checked here
  } else {
    sectl::tf_c_api::SetStatusFor(status, TF_INVALID_ARGUMENT, __func__, problem);
  }
}

void TF_KernelBuilder_HostMemory(TF_KernelBuilder* kernel_builder, const char* arg_name) {
  sectl::tf_c_api::ChangeBuilder(__func__, kernel_builder, [&](KernelRegistration& registration) {
    if (arg_name == nullptr) {
      AddError(registration, "TF_KernelBuilder_HostMemory", "arg_name is NULL");
    } else if (registration.host_memory_arguments.size() >= kMaxRecordedListEntries) {
      registration.truncated = true;
    } else {
      registration.host_memory_arguments.push_back(
          sectl::tf_c_api::BoundedCopy(arg_name, &registration.truncated));
    }
  });
}

void TF_KernelBuilder_Priority(TF_KernelBuilder* kernel_builder, int32_t priority_number) {
  sectl::tf_c_api::ChangeBuilder(__func__, kernel_builder, [&](KernelRegistration& registration) {
    registration.priority = priority_number;
    registration.priority_set = true;
  });
}

void TF_KernelBuilder_Label(TF_KernelBuilder* kernel_builder, const char* label) {
  sectl::tf_c_api::ChangeBuilder(__func__, kernel_builder, [&](KernelRegistration& registration) {
    if (label == nullptr) {
      AddError(registration, "TF_KernelBuilder_Label", "label is NULL");
    } else if (!registration.label.empty()) {
      // KernelDefBuilder::Label CHECK-fails on a second non-empty label.
      AddError(registration, "TF_KernelBuilder_Label",
               "the label is set a second time (TensorFlow aborts); the first one is kept");
    } else {
      registration.label = sectl::tf_c_api::BoundedCopy(label, &registration.truncated);
    }
  });
}

void TF_RegisterKernelBuilder(const char* kernel_name, TF_KernelBuilder* builder,
                              TF_Status* status) {
  sectl::tf_c_api::Register(__func__, /*serialized_kernel_def=*/nullptr, kernel_name, builder,
                            status);
}

void TF_RegisterKernelBuilderWithKernelDef(const char* serialized_kernel_def, const char* name,
                                           TF_KernelBuilder* builder, TF_Status* status) {
  sectl::tf_c_api::Register(__func__, serialized_kernel_def, name, builder, status);
}

void TF_DeleteKernelBuilder(TF_KernelBuilder* builder) {
  if (builder == nullptr) {
    return;  // TensorFlow accepts NULL too.
  }
  using Registry = sectl::tf_c_api::KernelBuilderRegistry;
  try {
    const auto found = sectl::tf_c_api::KernelBuilders().Delete(builder);
    if (found == Registry::Found::kRegistered) {
      // In TensorFlow the kernel factory deletes it again later: a double
      // free. sectl keeps it instead.
      sectl::tf_c_api::RecordMisuse(__func__,
                                    "the builder was registered, and TensorFlow deletes a "
                                    "registered builder itself: a double free; sectl kept it");
    } else if (found != Registry::Found::kUsable) {
      sectl::tf_c_api::RecordMisuse(__func__, Registry::Describe(found));
    }
  } catch (...) {
    // Only locking can throw; the builder stays allocated.
  }
}

}  // extern "C"
