// Declaring a conformance check: one declaration, found by the runner.
//
//   SECTL_CHECK("memcpy.round_trip", kRequired,
//               "A buffer copied host to device and back is unchanged") {
//     auto& device = check.device();
//     ...
//     check.Expect(back == source, "the bytes read back differ from those written");
//   }
//
// The body receives `check`, a CheckContext: the plugin registered by the
// embedded host runtime, the device under test, and the ways to report
// (Expect, Fail, Warn, Skip, Require). Each check runs in a process of its
// own, so a body may leave the plugin in any state.
#pragma once

#include "conform/check_context.h"
#include "conform/check_registry.h"

#define SECTL_CHECK_CONCAT_INNER(a, b) a##b
#define SECTL_CHECK_CONCAT(a, b) SECTL_CHECK_CONCAT_INNER(a, b)

// SECTL_CHECK(id, severity, title) for the TensorFlow profile;
// severity is kRequired, kRecommended or kInfo.
#define SECTL_CHECK(id, severity, title) \
  SECTL_CHECK_IN_PROFILES(id, severity, title, {std::string(::sectl::conform::kTensorFlowProfile)})

#define SECTL_CHECK_IN_PROFILES(id, severity, title, ...)                                    \
  static void SECTL_CHECK_CONCAT(SectlCheckBody, __LINE__)(::sectl::conform::CheckContext&); \
  static const ::sectl::conform::CheckRegistrar SECTL_CHECK_CONCAT(                          \
      sectl_check_registrar_, __LINE__)(::sectl::conform::CheckDefinition{                   \
      id, title, ::sectl::report::CheckSeverity::severity, __VA_ARGS__, __FILE__, __LINE__,  \
      &SECTL_CHECK_CONCAT(SectlCheckBody, __LINE__)});                                       \
  static void SECTL_CHECK_CONCAT(SectlCheckBody, __LINE__)(::sectl::conform::CheckContext & check)
