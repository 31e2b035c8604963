/* An empty library built under the names of TensorFlow's own shared
 * libraries (libtensorflow_framework.so.2, _pywrap_tensorflow_internal.so).
 *
 * Most real plugins name one of them as needed (DT_NEEDED), and the dynamic
 * loader must find a library of that name before it resolves a single
 * symbol. sectl loads this stand-in first, so the need is met by name; the
 * TF_* functions the plugin then resolves come from sectl's own executable
 * (lib/tf_c_api/), which exports them. A plugin that needs TensorFlow's C++
 * API from these libraries still fails to load, with a message that says
 * so (loader/plugin_library.cc). */

/* A translation unit must declare something; this names what the library
 * is, for anyone who inspects it. */
const char sectl_tensorflow_stand_in[] = "sectl's stand-in for a TensorFlow library";
