// What libsectl_validate.so exports, and nothing else (entry_points.map).
//
// SE_InitPlugin is the layer's own. The vendor's library also carries its
// kernels, graph optimizer and profiler, which TensorFlow looks up by name
// after SE_InitPlugin (pluggable_device_plugin_init.cc: TFNPD_InitPlugin
// and GetPjrtApi, then TF_InitKernel, TF_InitGraph, TF_InitProfiler). Each
// is optional there: found means "initialise it", not found means "this
// plugin has none". A static forwarder would turn "not found" into "found",
// so these are GNU indirect functions instead: when TensorFlow's dlsym asks
// for one, the resolver returns the vendor's own function, or null when the
// vendor has none, and dlsym then reports the symbol as absent, exactly as
// for the vendor's library itself. The host calls the vendor's functions
// directly; kernels get the vendor's own stream and memory handles, which
// the layer never replaces.
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "validate/layer.h"

extern "C" {

// Exported so that the layer can tell, from the file alone, that
// SECTL_VALIDATE_PLUGIN names the layer itself or a copy of it: loading
// that would load itself for ever (Layer::LoadVendor).
__attribute__((visibility("default"))) void sectl_validate_layer_identity() {}

__attribute__((visibility("default"))) void SE_InitPlugin(SE_PlatformRegistrationParams* params,
                                                          TF_Status* status) {
  // No exception of the layer's own into the host (wrapper_table.cc says why).
  try {
    sectl::validate::Layer::Get().InitPlugin(params, status);
  } catch (...) {
    sectl::validate::Layer::Get().NoteOwnFailure();
    if (status != nullptr) {
      TF_SetStatus(status, TF_INTERNAL, "sectl-validate: the layer failed while registering");
    }
  }
}

// NOLINTBEGIN: the resolvers are named from the ifunc attributes below.
// They have external C linkage (hidden, and local by entry_points.map):
// clang resolves an ifunc's resolver by its symbol name, and it mangles
// even a static function declared extern "C".
using EntryPoint = void (*)();
static EntryPoint VendorEntryPoint(const char* name) {
  return reinterpret_cast<EntryPoint>(sectl::validate::Layer::Get().VendorSymbol(name));
}
EntryPoint ResolveTfInitKernel() { return VendorEntryPoint("TF_InitKernel"); }
EntryPoint ResolveTfInitGraph() { return VendorEntryPoint("TF_InitGraph"); }
EntryPoint ResolveTfInitProfiler() { return VendorEntryPoint("TF_InitProfiler"); }
EntryPoint ResolveTfnpdInitPlugin() { return VendorEntryPoint("TFNPD_InitPlugin"); }
EntryPoint ResolveGetPjrtApi() { return VendorEntryPoint("GetPjrtApi"); }

__attribute__((visibility("default"), ifunc("ResolveTfInitKernel"))) void TF_InitKernel();
__attribute__((visibility("default"), ifunc("ResolveTfInitGraph"))) void TF_InitGraph();
__attribute__((visibility("default"), ifunc("ResolveTfInitProfiler"))) void TF_InitProfiler();
__attribute__((visibility("default"), ifunc("ResolveTfnpdInitPlugin"))) void TFNPD_InitPlugin();
__attribute__((visibility("default"), ifunc("ResolveGetPjrtApi"))) void GetPjrtApi();
// NOLINTEND

}  // extern "C"
