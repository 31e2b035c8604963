// Op registration (ops.h): TF_NewOpDefinitionBuilder and its modifiers
// collect an OpRegistration, and TF_RegisterOpDefinition records it
// (recorded_registrations.h) instead of handing it to TensorFlow's OpRegistry.
// The shape-inference functions are stand-ins: sectl never runs a shape
// function, so nothing can legitimately call them.
//
// As in TensorFlow (ops.cc), TF_RegisterOpDefinition takes ownership of the
// builder and reports OK; the spec strings are not parsed. TensorFlow parses
// them when the registry next initializes and aborts the process on a bad
// one; sectl keeps them as written. Where TensorFlow would crash at once (a
// NULL name or spec) sectl records the reason and reports
// TF_INVALID_ARGUMENT.

#include <fmt/format.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensorflow/c/ops.h"
#include "tf_c_api/recorded_registrations.h"

// What a builder has collected since TF_NewOpDefinitionBuilder.
struct TF_OpDefinitionBuilder {
  sectl::tf_c_api::OpRegistration registration;
  // Set when registered: the builder then belongs to the host.
  bool registered = false;
};

namespace sectl::tf_c_api {
namespace {

using OpBuilderRegistry = BuilderRegistry<TF_OpDefinitionBuilder>;

// Never destroyed, like the recordings: plugin threads may outlive statics.
OpBuilderRegistry& OpBuilders() {
  static OpBuilderRegistry& registry = *std::make_unique<OpBuilderRegistry>().release();
  return registry;
}

void AddError(OpRegistration& registration, const char* function, std::string_view problem) {
  AppendError(registration.registration_error, fmt::format("{}: {}", function, problem),
              &registration.truncated);
}

// Applies a modifier to a usable builder; anything else is recorded as a
// misuse.
template <typename Change>
void ChangeBuilder(const char* function, TF_OpDefinitionBuilder* builder,
                   Change&& change) noexcept {
  try {
    const auto found = OpBuilders().WithUsable(
        builder, [&](TF_OpDefinitionBuilder& usable) { change(usable.registration); });
    if (found != OpBuilderRegistry::Found::kUsable) {
      RecordMisuse(function, OpBuilderRegistry::Describe(found));
    }
  } catch (...) {
    // Out of memory while recording: the change is lost.
  }
}

// Appends one spec string (an input, output or attr) to `specs`.
void AddSpec(const char* function, TF_OpDefinitionBuilder* builder, const char* spec,
             std::vector<std::string> OpRegistration::*specs) noexcept {
  ChangeBuilder(function, builder, [&](OpRegistration& registration) {
    std::vector<std::string>& list = registration.*specs;
    if (spec == nullptr) {
      AddError(registration, function, "the spec is NULL");
    } else if (list.size() >= kMaxRecordedListEntries) {
      registration.truncated = true;
    } else {
      list.push_back(BoundedCopy(spec, &registration.truncated));
    }
  });
}

}  // namespace
}  // namespace sectl::tf_c_api

using sectl::tf_c_api::OpRegistration;

extern "C" {

TF_OpDefinitionBuilder* TF_NewOpDefinitionBuilder(const char* op_name) {
  using sectl::tf_c_api::kMaxRecordedOps;
  try {
    auto builder = std::make_unique<TF_OpDefinitionBuilder>();
    OpRegistration& registration = builder->registration;
    registration.name = sectl::tf_c_api::BoundedCopy(op_name, &registration.truncated);
    if (op_name == nullptr) {
      sectl::tf_c_api::AddError(registration, __func__, "op_name is NULL");
    }
    // A registered builder stays kept, so the registration cap bounds the
    // builders too.
    TF_OpDefinitionBuilder* handle =
        sectl::tf_c_api::OpBuilders().Add(std::move(builder), kMaxRecordedOps);
    if (handle == nullptr) {
      sectl::tf_c_api::RecordMisuse(
          __func__, fmt::format("more than {} op builders; sectl returned NULL", kMaxRecordedOps));
    }
    return handle;
  } catch (...) {
    return nullptr;  // out of memory
  }
}

void TF_RegisterOpDefinition(TF_OpDefinitionBuilder* builder, TF_Status* status) {
  using Registry = sectl::tf_c_api::OpBuilderRegistry;
  try {
    OpRegistration registration;
    const auto found =
        sectl::tf_c_api::OpBuilders().WithUsable(builder, [&](TF_OpDefinitionBuilder& usable) {
          // The host owns the builder from here on; what it collected moves
          // to the record.
          registration = std::move(usable.registration);
          usable.registration = OpRegistration();
          usable.registered = true;
        });
    if (found != Registry::Found::kUsable) {
      sectl::tf_c_api::RecordMisuse(__func__, Registry::Describe(found));
      sectl::tf_c_api::SetStatusFor(status, TF_INVALID_ARGUMENT, __func__,
                                    Registry::Describe(found));
      return;
    }
    std::string error = registration.registration_error;
    sectl::tf_c_api::RecordOp(std::move(registration));
    if (error.empty()) {
      TF_SetStatus(status, TF_OK, "");
    } else {
      sectl::tf_c_api::SetStatusFor(status, TF_INVALID_ARGUMENT, /*function=*/nullptr, error);
    }
  } catch (...) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "sectl ran out of memory recording an op");
  }
}

void TF_DeleteOpDefinitionBuilder(TF_OpDefinitionBuilder* builder) {
  if (builder == nullptr) {
    return;
  }
  using Registry = sectl::tf_c_api::OpBuilderRegistry;
  try {
    const auto found = sectl::tf_c_api::OpBuilders().Delete(builder);
    if (found != Registry::Found::kUsable) {
      sectl::tf_c_api::RecordMisuse(__func__, Registry::Describe(found));
    }
  } catch (...) {
    // Only locking can throw; the builder stays allocated.
  }
}

void TF_OpDefinitionBuilderAddAttr(TF_OpDefinitionBuilder* builder, const char* attr_spec) {
  sectl::tf_c_api::AddSpec(__func__, builder, attr_spec, &OpRegistration::attrs);
}

void TF_OpDefinitionBuilderAddInput(TF_OpDefinitionBuilder* builder, const char* input_spec) {
  sectl::tf_c_api::AddSpec(__func__, builder, input_spec, &OpRegistration::inputs);
}

void TF_OpDefinitionBuilderAddOutput(TF_OpDefinitionBuilder* builder, const char* output_spec) {
  sectl::tf_c_api::AddSpec(__func__, builder, output_spec, &OpRegistration::outputs);
}

void TF_OpDefinitionBuilderSetIsCommutative(TF_OpDefinitionBuilder* builder, bool is_commutative) {
  sectl::tf_c_api::ChangeBuilder(__func__, builder, [&](OpRegistration& registration) {
    registration.is_commutative = is_commutative;
  });
}

void TF_OpDefinitionBuilderSetIsAggregate(TF_OpDefinitionBuilder* builder, bool is_aggregate) {
  sectl::tf_c_api::ChangeBuilder(__func__, builder, [&](OpRegistration& registration) {
    registration.is_aggregate = is_aggregate;
  });
}

void TF_OpDefinitionBuilderSetIsStateful(TF_OpDefinitionBuilder* builder, bool is_stateful) {
  sectl::tf_c_api::ChangeBuilder(__func__, builder, [&](OpRegistration& registration) {
    registration.is_stateful = is_stateful;
  });
}

void TF_OpDefinitionBuilderSetAllowsUninitializedInput(TF_OpDefinitionBuilder* builder,
                                                       bool allows_uninitialized_input) {
  sectl::tf_c_api::ChangeBuilder(__func__, builder, [&](OpRegistration& registration) {
    registration.allows_uninitialized_input = allows_uninitialized_input;
  });
}

void TF_OpDefinitionBuilderDeprecated(TF_OpDefinitionBuilder* builder, int version,
                                      const char* explanation) {
  sectl::tf_c_api::ChangeBuilder(__func__, builder, [&](OpRegistration& registration) {
    registration.deprecated_at_version = version;
    registration.deprecation_explanation =
        sectl::tf_c_api::BoundedCopy(explanation, &registration.truncated);
    if (explanation == nullptr) {
      sectl::tf_c_api::AddError(registration, "TF_OpDefinitionBuilderDeprecated",
                                "explanation is NULL");
    }
  });
}

void TF_OpDefinitionBuilderSetShapeInferenceFunction(
    TF_OpDefinitionBuilder* builder,
    void (*shape_inference_func)(TF_ShapeInferenceContext* ctx, TF_Status* status)) {
  sectl::tf_c_api::ChangeBuilder(__func__, builder, [&](OpRegistration& registration) {
    registration.has_shape_inference_function = shape_inference_func != nullptr;
  });
}

// The shape-inference functions: stand-ins (see the top of the file). Each
// records the call, fails through its status if it has one, and returns a
// zero value.

int64_t TF_ShapeInferenceContextNumInputs(TF_ShapeInferenceContext* /*ctx*/) {
  sectl::tf_c_api::NoteUnprovided(__func__, nullptr);
  return 0;
}

TF_ShapeHandle* TF_NewShapeHandle(void) {
  sectl::tf_c_api::NoteUnprovided(__func__, nullptr);
  return nullptr;
}

void TF_ShapeInferenceContextGetInput(TF_ShapeInferenceContext* /*ctx*/, int /*i*/,
                                      TF_ShapeHandle* /*handle*/, TF_Status* status) {
  sectl::tf_c_api::NoteUnprovided(__func__, status);
}

void TF_ShapeInferenceContextSetOutput(TF_ShapeInferenceContext* /*ctx*/, int /*i*/,
                                       TF_ShapeHandle* /*handle*/, TF_Status* status) {
  sectl::tf_c_api::NoteUnprovided(__func__, status);
}

TF_ShapeHandle* TF_ShapeInferenceContextScalar(TF_ShapeInferenceContext* /*ctx*/) {
  sectl::tf_c_api::NoteUnprovided(__func__, nullptr);
  return nullptr;
}

TF_ShapeHandle* TF_ShapeInferenceContextVectorFromSize(TF_ShapeInferenceContext* /*ctx*/,
                                                       size_t /*size*/) {
  sectl::tf_c_api::NoteUnprovided(__func__, nullptr);
  return nullptr;
}

TF_DimensionHandle* TF_NewDimensionHandle(void) {
  sectl::tf_c_api::NoteUnprovided(__func__, nullptr);
  return nullptr;
}

void TF_ShapeInferenceContext_GetAttrType(TF_ShapeInferenceContext* /*ctx*/,
                                          const char* /*attr_name*/, TF_DataType* /*val*/,
                                          TF_Status* status) {
  sectl::tf_c_api::NoteUnprovided(__func__, status);
}

int64_t TF_ShapeInferenceContextRank(TF_ShapeInferenceContext* /*ctx*/,
                                     TF_ShapeHandle* /*handle*/) {
  sectl::tf_c_api::NoteUnprovided(__func__, nullptr);
  return 0;
}

int TF_ShapeInferenceContextRankKnown(TF_ShapeInferenceContext* /*ctx*/,
                                      TF_ShapeHandle* /*handle*/) {
  sectl::tf_c_api::NoteUnprovided(__func__, nullptr);
  return 0;
}

void TF_ShapeInferenceContextWithRank(TF_ShapeInferenceContext* /*ctx*/, TF_ShapeHandle* /*handle*/,
                                      int64_t /*rank*/, TF_ShapeHandle* /*result*/,
                                      TF_Status* status) {
  sectl::tf_c_api::NoteUnprovided(__func__, status);
}

void TF_ShapeInferenceContextWithRankAtLeast(TF_ShapeInferenceContext* /*ctx*/,
                                             TF_ShapeHandle* /*handle*/, int64_t /*rank*/,
                                             TF_ShapeHandle* /*result*/, TF_Status* status) {
  sectl::tf_c_api::NoteUnprovided(__func__, status);
}

void TF_ShapeInferenceContextWithRankAtMost(TF_ShapeInferenceContext* /*ctx*/,
                                            TF_ShapeHandle* /*handle*/, int64_t /*rank*/,
                                            TF_ShapeHandle* /*result*/, TF_Status* status) {
  sectl::tf_c_api::NoteUnprovided(__func__, status);
}

void TF_ShapeInferenceContextDim(TF_ShapeInferenceContext* /*ctx*/,
                                 TF_ShapeHandle* /*shape_handle*/, int64_t /*i*/,
                                 TF_DimensionHandle* /*result*/) {
  sectl::tf_c_api::NoteUnprovided(__func__, nullptr);
}

void TF_ShapeInferenceContextSubshape(TF_ShapeInferenceContext* /*ctx*/,
                                      TF_ShapeHandle* /*shape_handle*/, int64_t /*start*/,
                                      int64_t /*end*/, TF_ShapeHandle* /*result*/,
                                      TF_Status* status) {
  sectl::tf_c_api::NoteUnprovided(__func__, status);
}

void TF_ShapeInferenceContextSetUnknownShape(TF_ShapeInferenceContext* /*ctx*/, TF_Status* status) {
  sectl::tf_c_api::NoteUnprovided(__func__, status);
}

int TF_DimensionHandleValueKnown(TF_DimensionHandle* /*dim_handle*/) {
  sectl::tf_c_api::NoteUnprovided(__func__, nullptr);
  return 0;
}

int64_t TF_DimensionHandleValue(TF_DimensionHandle* /*dim_handle*/) {
  sectl::tf_c_api::NoteUnprovided(__func__, nullptr);
  return 0;
}

void TF_ShapeInferenceContextConcatenateShapes(TF_ShapeInferenceContext* /*ctx*/,
                                               TF_ShapeHandle* /*first*/,
                                               TF_ShapeHandle* /*second*/,
                                               TF_ShapeHandle* /*result*/, TF_Status* status) {
  sectl::tf_c_api::NoteUnprovided(__func__, status);
}

void TF_DeleteShapeHandle(TF_ShapeHandle* /*handle*/) {
  sectl::tf_c_api::NoteUnprovided(__func__, nullptr);
}

void TF_DeleteDimensionHandle(TF_DimensionHandle* /*handle*/) {
  sectl::tf_c_api::NoteUnprovided(__func__, nullptr);
}

}  // extern "C"
