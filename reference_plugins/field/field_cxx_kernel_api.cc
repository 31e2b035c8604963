// A plugin whose kernels use TensorFlow's C++ API (REGISTER_KERNEL_BUILDER
// and tensorflow::OpKernel), as VEDA's and MUSA's do: it references
// symbols only TensorFlow's own libraries define, so it runs in nothing but
// the TensorFlow it was built against. sectl cannot load it, and must say
// why rather than report an unresolved symbol (tests/tensorflow_api_test.cc).
// The StreamExecutor part is field_cxx_whole_struct.cc's.

namespace tensorflow {
// A declaration of TensorFlow's own, as its headers make it: the
// definition is in libtensorflow_framework.so.2.
class OpKernel {  // NOLINT(cppcoreguidelines-special-member-functions): as declared
 public:
  virtual ~OpKernel();
};
}  // namespace tensorflow

namespace {

class FieldKernel : public tensorflow::OpKernel {};

}  // namespace

// Keeps the kernel's vtable, and with it the reference to
// tensorflow::OpKernel::~OpKernel, in the plugin.
extern "C" __attribute__((visibility("default"))) void* field_cxx_kernel_api_make() {
  static FieldKernel kernel;
  return &kernel;
}
