// Tests for the host's TF_Status functions (lib/status/tf_status.cc): the
// behaviour plugins rely on from TensorFlow, plus tolerance of a null status.

#include "tensorflow/c/tf_status.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

// Owns a TF_Status for the length of a test.
struct StatusDeleter {
  void operator()(TF_Status* status) const { TF_DeleteStatus(status); }
};
using StatusPtr = std::unique_ptr<TF_Status, StatusDeleter>;

StatusPtr NewStatus() { return StatusPtr(TF_NewStatus()); }

using Payloads = std::vector<std::pair<std::string, std::string>>;

// Collects every payload in the order TF_ForEachPayload visits them.
Payloads PayloadsOf(const TF_Status* status) {
  Payloads payloads;
  TF_ForEachPayload(
      status,
      [](const char* key, const char* value, void* capture) {
        static_cast<Payloads*>(capture)->emplace_back(key, value);
      },
      &payloads);
  return payloads;
}

TEST(TfStatusTest, CodesHaveTensorFlowsNumericValues) {
  // The values of tensorflow/core/protobuf/error_codes.proto; a plugin
  // compiled against TensorFlow's header sends these numbers.
  EXPECT_EQ(TF_OK, 0);
  EXPECT_EQ(TF_CANCELLED, 1);
  EXPECT_EQ(TF_UNKNOWN, 2);
  EXPECT_EQ(TF_INVALID_ARGUMENT, 3);
  EXPECT_EQ(TF_DEADLINE_EXCEEDED, 4);
  EXPECT_EQ(TF_NOT_FOUND, 5);
  EXPECT_EQ(TF_ALREADY_EXISTS, 6);
  EXPECT_EQ(TF_PERMISSION_DENIED, 7);
  EXPECT_EQ(TF_RESOURCE_EXHAUSTED, 8);
  EXPECT_EQ(TF_FAILED_PRECONDITION, 9);
  EXPECT_EQ(TF_ABORTED, 10);
  EXPECT_EQ(TF_OUT_OF_RANGE, 11);
  EXPECT_EQ(TF_UNIMPLEMENTED, 12);
  EXPECT_EQ(TF_INTERNAL, 13);
  EXPECT_EQ(TF_UNAVAILABLE, 14);
  EXPECT_EQ(TF_DATA_LOSS, 15);
  EXPECT_EQ(TF_UNAUTHENTICATED, 16);
}

TEST(TfStatusTest, NewStatusIsOkWithEmptyMessage) {
  StatusPtr status = NewStatus();
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(TF_GetCode(status.get()), TF_OK);
  EXPECT_STREQ(TF_Message(status.get()), "");
  EXPECT_TRUE(PayloadsOf(status.get()).empty());
}

TEST(TfStatusTest, DeleteStatusAcceptsNull) { TF_DeleteStatus(nullptr); }

TEST(TfStatusTest, SetStatusStoresEveryCodeAndMessage) {
  StatusPtr status = NewStatus();
  for (int value = 1; value <= 16; ++value) {
    const auto code = static_cast<TF_Code>(value);
    const std::string message = "error number " + std::to_string(value);
    TF_SetStatus(status.get(), code, message.c_str());
    EXPECT_EQ(TF_GetCode(status.get()), code);
    EXPECT_EQ(std::string(TF_Message(status.get())), message);
  }
}

TEST(TfStatusTest, SetStatusCopiesTheMessage) {
  StatusPtr status = NewStatus();
  std::string message = "device lost";
  TF_SetStatus(status.get(), TF_INTERNAL, message.c_str());
  message.assign("overwritten by the caller");
  EXPECT_STREQ(TF_Message(status.get()), "device lost");
}

TEST(TfStatusTest, SetStatusWithOkDropsMessageAndPayloads) {
  StatusPtr status = NewStatus();
  TF_SetStatus(status.get(), TF_INTERNAL, "device lost");
  TF_SetPayload(status.get(), "key", "value");
  TF_SetStatus(status.get(), TF_OK, "this message is dropped");
  EXPECT_EQ(TF_GetCode(status.get()), TF_OK);
  EXPECT_STREQ(TF_Message(status.get()), "");
  EXPECT_TRUE(PayloadsOf(status.get()).empty());
}

TEST(TfStatusTest, NewErrorReplacesThePreviousOneWithItsPayloads) {
  // TensorFlow assigns a fresh absl::Status, so payloads do not carry over.
  StatusPtr status = NewStatus();
  TF_SetStatus(status.get(), TF_INTERNAL, "first");
  TF_SetPayload(status.get(), "key", "value");
  TF_SetStatus(status.get(), TF_ABORTED, "second");
  EXPECT_EQ(TF_GetCode(status.get()), TF_ABORTED);
  EXPECT_STREQ(TF_Message(status.get()), "second");
  EXPECT_TRUE(PayloadsOf(status.get()).empty());
}

TEST(TfStatusTest, SetStatusTreatsNullMessageAsEmpty) {
  StatusPtr status = NewStatus();
  TF_SetStatus(status.get(), TF_INTERNAL, nullptr);
  EXPECT_EQ(TF_GetCode(status.get()), TF_INTERNAL);
  EXPECT_STREQ(TF_Message(status.get()), "");
}

TEST(TfStatusTest, SetStatusMayReuseItsOwnMessage) {
  StatusPtr status = NewStatus();
  TF_SetStatus(status.get(), TF_INTERNAL, "a message long enough to live on the heap, not inline");
  TF_SetStatus(status.get(), TF_ABORTED, TF_Message(status.get()));
  EXPECT_EQ(TF_GetCode(status.get()), TF_ABORTED);
  EXPECT_STREQ(TF_Message(status.get()), "a message long enough to live on the heap, not inline");
}

TEST(TfStatusTest, UnknownCodeValuesReadBackAsUnknown) {
  // absl::Status, which TensorFlow wraps, maps non-canonical codes to UNKNOWN.
  StatusPtr status = NewStatus();
  TF_SetStatus(status.get(), static_cast<TF_Code>(17), "invented");
  EXPECT_EQ(TF_GetCode(status.get()), TF_UNKNOWN);
  EXPECT_STREQ(TF_Message(status.get()), "invented");
  TF_SetStatus(status.get(), static_cast<TF_Code>(-1), "negative");
  EXPECT_EQ(TF_GetCode(status.get()), TF_UNKNOWN);
}

TEST(TfStatusTest, MessageStaysValidWhilePayloadsChange) {
  StatusPtr status = NewStatus();
  TF_SetStatus(status.get(), TF_INTERNAL, "a message long enough to live on the heap, not inline");
  const char* message = TF_Message(status.get());
  TF_SetPayload(status.get(), "key", "value");
  EXPECT_EQ(TF_Message(status.get()), message);
  EXPECT_STREQ(message, "a message long enough to live on the heap, not inline");
}

TEST(TfStatusTest, SetPayloadIsIgnoredWhileOk) {
  StatusPtr status = NewStatus();
  TF_SetPayload(status.get(), "key", "value");
  EXPECT_TRUE(PayloadsOf(status.get()).empty());
  EXPECT_EQ(TF_GetCode(status.get()), TF_OK);
}

TEST(TfStatusTest, LaterPayloadForTheSameKeyReplacesTheEarlier) {
  StatusPtr status = NewStatus();
  TF_SetStatus(status.get(), TF_INTERNAL, "error");
  TF_SetPayload(status.get(), "key", "first");
  TF_SetPayload(status.get(), "key", "second");
  EXPECT_EQ(PayloadsOf(status.get()), (Payloads{{"key", "second"}}));
}

TEST(TfStatusTest, ForEachPayloadVisitsInKeyOrder) {
  StatusPtr status = NewStatus();
  TF_SetStatus(status.get(), TF_INTERNAL, "error");
  TF_SetPayload(status.get(), "zeta", "3");
  TF_SetPayload(status.get(), "alpha", "1");
  TF_SetPayload(status.get(), "mu", "2");
  EXPECT_EQ(PayloadsOf(status.get()), (Payloads{{"alpha", "1"}, {"mu", "2"}, {"zeta", "3"}}));
}

TEST(TfStatusTest, NullPayloadArgumentsAreTolerated) {
  StatusPtr status = NewStatus();
  TF_SetStatus(status.get(), TF_INTERNAL, "error");
  TF_SetPayload(status.get(), nullptr, "value");  // Names nothing: ignored.
  TF_SetPayload(status.get(), "key", nullptr);    // Read as an empty value.
  EXPECT_EQ(PayloadsOf(status.get()), (Payloads{{"key", ""}}));
  TF_ForEachPayload(status.get(), nullptr, nullptr);
}

TEST(TfStatusTest, ErrnoZeroIsOkWithoutMessage) {
  StatusPtr status = NewStatus();
  TF_SetStatus(status.get(), TF_INTERNAL, "earlier error");
  TF_SetStatusFromIOError(status.get(), 0, "reading config");
  EXPECT_EQ(TF_GetCode(status.get()), TF_OK);
  EXPECT_STREQ(TF_Message(status.get()), "");
}

TEST(TfStatusTest, IoErrorMessageIsContextThenErrnoText) {
  StatusPtr status = NewStatus();
  TF_SetStatusFromIOError(status.get(), ENOENT, "opening /dev/sectl0");
  EXPECT_EQ(TF_GetCode(status.get()), TF_NOT_FOUND);
  EXPECT_EQ(std::string(TF_Message(status.get())),
            std::string("opening /dev/sectl0; ") + std::strerror(ENOENT));
}

TEST(TfStatusTest, IoErrorWithNullContextStillNamesTheError) {
  StatusPtr status = NewStatus();
  TF_SetStatusFromIOError(status.get(), EACCES, nullptr);
  EXPECT_EQ(TF_GetCode(status.get()), TF_PERMISSION_DENIED);
  EXPECT_EQ(std::string(TF_Message(status.get())), std::string("; ") + std::strerror(EACCES));
}

struct ErrnoCase {
  const char* name;
  int error_number;
  TF_Code code;
};

// At least one errno for every code TensorFlow's mapping produces, plus the
// group boundaries most likely to be mistyped.
const ErrnoCase kErrnoCases[] = {
    {"ECANCELED", ECANCELED, TF_CANCELLED},
    {"EIO", EIO, TF_UNKNOWN},
    {"ELOOP", ELOOP, TF_UNKNOWN},
    {"EINVAL", EINVAL, TF_INVALID_ARGUMENT},
    {"ENAMETOOLONG", ENAMETOOLONG, TF_INVALID_ARGUMENT},
    {"E2BIG", E2BIG, TF_INVALID_ARGUMENT},
    {"EFAULT", EFAULT, TF_INVALID_ARGUMENT},
    {"ENOTTY", ENOTTY, TF_INVALID_ARGUMENT},
    {"ESPIPE", ESPIPE, TF_INVALID_ARGUMENT},
    {"ETIMEDOUT", ETIMEDOUT, TF_DEADLINE_EXCEEDED},
    {"ENOENT", ENOENT, TF_NOT_FOUND},
    {"ENODEV", ENODEV, TF_NOT_FOUND},
    {"ENXIO", ENXIO, TF_NOT_FOUND},
    {"ESRCH", ESRCH, TF_NOT_FOUND},
    {"EEXIST", EEXIST, TF_ALREADY_EXISTS},
    {"EPERM", EPERM, TF_PERMISSION_DENIED},
    {"EACCES", EACCES, TF_PERMISSION_DENIED},
    {"EROFS", EROFS, TF_PERMISSION_DENIED},
    {"EISDIR", EISDIR, TF_FAILED_PRECONDITION},
    {"ENOTDIR", ENOTDIR, TF_FAILED_PRECONDITION},
    {"ENOTEMPTY", ENOTEMPTY, TF_FAILED_PRECONDITION},
    {"EBUSY", EBUSY, TF_FAILED_PRECONDITION},
    {"EBADF", EBADF, TF_FAILED_PRECONDITION},
    {"EPIPE", EPIPE, TF_FAILED_PRECONDITION},
    {"ENOSPC", ENOSPC, TF_RESOURCE_EXHAUSTED},
    {"ENOMEM", ENOMEM, TF_RESOURCE_EXHAUSTED},
    {"EMFILE", EMFILE, TF_RESOURCE_EXHAUSTED},
    {"ENFILE", ENFILE, TF_RESOURCE_EXHAUSTED},
    {"EFBIG", EFBIG, TF_OUT_OF_RANGE},
    {"EOVERFLOW", EOVERFLOW, TF_OUT_OF_RANGE},
    {"ERANGE", ERANGE, TF_OUT_OF_RANGE},
    {"ENOSYS", ENOSYS, TF_UNIMPLEMENTED},
    {"ENOTSUP", ENOTSUP, TF_UNIMPLEMENTED},
    {"EAGAIN", EAGAIN, TF_UNAVAILABLE},
    {"EINTR", EINTR, TF_UNAVAILABLE},
    {"ECONNREFUSED", ECONNREFUSED, TF_UNAVAILABLE},
    {"EDEADLK", EDEADLK, TF_ABORTED},
    {"ESTALE", ESTALE, TF_ABORTED},
    {"an errno no system defines", 123456, TF_UNKNOWN},
};

TEST(TfStatusTest, ErrnoMapsToTensorFlowsCode) {
  StatusPtr status = NewStatus();
  for (const ErrnoCase& errno_case : kErrnoCases) {
    TF_SetStatusFromIOError(status.get(), errno_case.error_number, "context");
    EXPECT_EQ(TF_GetCode(status.get()), errno_case.code) << errno_case.name;
  }
}

TEST(TfStatusTest, IoErrorReplacesPayloads) {
  StatusPtr status = NewStatus();
  TF_SetStatus(status.get(), TF_INTERNAL, "error");
  TF_SetPayload(status.get(), "key", "value");
  TF_SetStatusFromIOError(status.get(), EIO, "writing");
  EXPECT_TRUE(PayloadsOf(status.get()).empty());
}

TEST(TfStatusTest, NullStatusIsToleratedEverywhere) {
  // A buggy plugin may pass the status it never created; nothing may crash.
  TF_SetStatus(nullptr, TF_INTERNAL, "ignored");
  TF_SetPayload(nullptr, "key", "value");
  TF_SetStatusFromIOError(nullptr, ENOENT, "ignored");
  bool visited = false;
  TF_ForEachPayload(
      nullptr, [](const char*, const char*, void* capture) { *static_cast<bool*>(capture) = true; },
      &visited);
  EXPECT_FALSE(visited);
  EXPECT_EQ(TF_GetCode(nullptr), TF_OK);
  EXPECT_STREQ(TF_Message(nullptr), "");
  TF_DeleteStatus(nullptr);
}

}  // namespace
