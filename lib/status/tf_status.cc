// The host's TF_Status: the error object plugins report through.
//
// A plugin resolves these functions from its host process at load time, so
// every sectl executable that loads plugins carries this file and exports
// exactly these symbols (see exported_symbols.list). The behaviour follows
// TensorFlow's own implementation (tsl_status.cc over absl::Status, and
// tensorflow::IOError for the errno mapping), because plugins are written and
// tested against that.
//
// Two things differ on purpose, both in favour of surviving a buggy plugin:
// every function accepts a null TF_Status* (getters report OK, setters do
// nothing), and null strings are read as empty ones. No C++ exception leaves
// this file: the callers are C code, and unwinding through them is undefined.

#include "tensorflow/c/tf_status.h"

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <utility>

struct TF_Status {
  TF_Code code = TF_OK;
  // Empty whenever code is TF_OK, so TF_Message can hand out c_str() as is.
  std::string message;
  // Ordered by key: TF_ForEachPayload promises key order.
  std::map<std::string, std::string> payloads;
};

namespace {

const char* OrEmpty(const char* text) { return text != nullptr ? text : ""; }

// absl::Status, which TensorFlow's TF_Status wraps, reports any value outside
// the 17 canonical codes as UNKNOWN; a plugin that invents a code gets the same
// answer here as in TensorFlow.
// A plugin written in C may pass any int as a TF_Code, and C allows that. In
// C++ reading an enum holding a value outside its range is undefined
// (UBSan: "not a valid value for type 'TF_Code'"), so the bits are read as
// an int before anything looks at them as a TF_Code.
static_assert(sizeof(TF_Code) == sizeof(int));
TF_Code Canonical(const TF_Code& code) {
  int value = 0;
  std::memcpy(&value, &code, sizeof value);
  return value >= TF_OK && value <= TF_UNAUTHENTICATED ? static_cast<TF_Code>(value) : TF_UNKNOWN;
}

// TensorFlow's errno-to-code table (tensorflow::ErrnoToCode, tsl/platform/
// errors.cc), kept in its grouping so the two can be compared line by line.
TF_Code CodeForErrno(int error_number) {
  switch (error_number) {
    case 0:
      return TF_OK;

    case EINVAL:
    case ENAMETOOLONG:
    case E2BIG:
    case EDESTADDRREQ:
    case EDOM:
    case EFAULT:
    case EILSEQ:
    case ENOPROTOOPT:
    case ENOSTR:
    case ENOTSOCK:
    case ENOTTY:
    case EPROTOTYPE:
    case ESPIPE:
      return TF_INVALID_ARGUMENT;

    case ETIMEDOUT:
    case ETIME:
      return TF_DEADLINE_EXCEEDED;

    case ENODEV:
    case ENOENT:
    case ENXIO:
    case ESRCH:
      return TF_NOT_FOUND;

    case EEXIST:
    case EADDRNOTAVAIL:
    case EALREADY:
      return TF_ALREADY_EXISTS;

    case EPERM:
    case EACCES:
    case EROFS:
      return TF_PERMISSION_DENIED;

    case ENOTEMPTY:
    case EISDIR:
    case ENOTDIR:
    case EADDRINUSE:
    case EBADF:
    case EBUSY:
    case ECHILD:
    case EISCONN:
    case ENOTBLK:
    case ENOTCONN:
    case EPIPE:
    case ESHUTDOWN:
    case ETXTBSY:
      return TF_FAILED_PRECONDITION;

    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case EMLINK:
    case ENFILE:
    case ENOBUFS:
    case ENODATA:
    case ENOMEM:
    case ENOSR:
    case EUSERS:
      return TF_RESOURCE_EXHAUSTED;

    case EFBIG:
    case EOVERFLOW:
    case ERANGE:
      return TF_OUT_OF_RANGE;

    case ENOSYS:
    case ENOTSUP:  // Also EOPNOTSUPP on Linux: the same number.
    case EAFNOSUPPORT:
    case EPFNOSUPPORT:
    case EPROTONOSUPPORT:
    case ESOCKTNOSUPPORT:
    case EXDEV:
      return TF_UNIMPLEMENTED;

    case EAGAIN:  // Also EWOULDBLOCK on Linux.
    case ECONNREFUSED:
    case ECONNABORTED:
    case ECONNRESET:
    case EINTR:
    case EHOSTDOWN:
    case EHOSTUNREACH:
    case ENETDOWN:
    case ENETRESET:
    case ENETUNREACH:
    case ENOLCK:
    case ENOLINK:
#ifdef ENONET
    case ENONET:
#endif
      return TF_UNAVAILABLE;

    case EDEADLK:
    case ESTALE:
      return TF_ABORTED;

    case ECANCELED:
      return TF_CANCELLED;

    // TensorFlow lists EBADMSG, EIDRM, EINPROGRESS, EIO, ELOOP, ENOEXEC,
    // ENOMSG, EPROTO and EREMOTE explicitly as UNKNOWN; so is everything else.
    default:
      return TF_UNKNOWN;
  }
}

// strerror_r comes in two shapes, and which one <cstring> declares depends on
// the C library and feature macros. Overloading on the return type accepts
// either without an #ifdef: the GNU one may return a static string instead of
// filling the buffer, the XSI one returns 0 after filling it.
[[maybe_unused]] const char* StrerrorResult(const char* gnu_result, const char* /*buffer*/) {
  return gnu_result;
}
[[maybe_unused]] const char* StrerrorResult(int xsi_result, const char* buffer) {
  return xsi_result == 0 ? buffer : "Unknown error";
}

// The text strerror gives, without strerror's shared buffer: plugins call in
// from many threads.
std::string ErrnoText(int error_number) {
  char buffer[256] = {};
  return StrerrorResult(strerror_r(error_number, buffer, sizeof(buffer)), buffer);
}

// Replaces the whole status, as assigning a new absl::Status does in
// TensorFlow: payloads of the previous error do not carry over. The new
// message is built before anything changes, so running out of memory leaves
// the status as it was, and a message that points into the status itself
// (TF_SetStatus(s, code, TF_Message(s))) is copied before it is overwritten.
void Replace(TF_Status* status, TF_Code code, std::string message) noexcept {
  if (code == TF_OK) {
    message.clear();  // An OK status carries no message.
  }
  status->code = code;
  status->message.swap(message);
  status->payloads.clear();
}

}  // namespace

extern "C" {

TF_Status* TF_NewStatus(void) {
  try {
    return std::make_unique<TF_Status>().release();
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

void TF_DeleteStatus(TF_Status* s) { std::unique_ptr<TF_Status> owned(s); }

void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg) {
  if (s == nullptr) {
    return;
  }
  const TF_Code canonical = Canonical(code);
  if (canonical == TF_OK) {
    Replace(s, TF_OK, std::string());
    return;
  }
  try {
    Replace(s, canonical, std::string(OrEmpty(msg)));
  } catch (const std::bad_alloc&) {
    // Leave the status unchanged.
  }
}

void TF_SetPayload(TF_Status* s, const char* key, const char* value) {
  // absl::Status keeps no payloads on an OK status, and TensorFlow inherits
  // that; a null key names nothing.
  if (s == nullptr || s->code == TF_OK || key == nullptr) {
    return;
  }
  try {
    // Built first so that a failed allocation changes nothing.
    std::string new_value(OrEmpty(value));
    s->payloads[key].swap(new_value);
  } catch (const std::bad_alloc&) {
    // Leave the status unchanged.
  }
}

// As with absl::Status::ForEachPayload, the visitor must not change the status
// it is visiting.
void TF_ForEachPayload(const TF_Status* s, TF_PayloadVisitor visitor, void* capture) {
  if (s == nullptr || visitor == nullptr) {
    return;
  }
  try {
    for (const auto& [key, value] : s->payloads) {
      visitor(key.c_str(), value.c_str(), capture);
    }
  } catch (...) {
    // A visitor written in C++ may throw; the exception must not unwind
    // through the C caller.
  }
}

void TF_SetStatusFromIOError(TF_Status* s, int error_code, const char* context) {
  if (s == nullptr) {
    return;
  }
  try {
    Replace(s, CodeForErrno(error_code),
            std::string(OrEmpty(context)) + "; " + ErrnoText(error_code));
  } catch (const std::bad_alloc&) {
    // Leave the status unchanged.
  }
}

TF_Code TF_GetCode(const TF_Status* s) { return s != nullptr ? s->code : TF_OK; }

const char* TF_Message(const TF_Status* s) { return s != nullptr ? s->message.c_str() : ""; }

}  // extern "C"
