// Declaring a conformance check: one declaration, found by the runner.
//
//   SECTL_CHECK("memcpy.htod", kRequired,
//               "Asynchronous host-to-device copies move exactly the bytes asked for",
//               .tests = {kMemcpyHtod},
//               .severity_reason = "TensorFlow 2.5 and later copy every tensor ...") {
//     auto& device = check.device();
//     ...
//     check.Expect(back == source, "the bytes read back differ from those written");
//   }
//
// After the title come CheckTraits as designated initialisers, with the
// PluginFunction enumerators in scope: `.tests` names the plugin functions
// the check tests; every other function it calls it only uses, and a
// failure there makes the check blocked by that function, not failed.
// `.severity_reason` grounds the severity: for a required check, the
// released TensorFlow generation(s) a failure harms, and how.
// `.establishes`, `.common_mistakes`, `.how_to_fix` and `.proven_by`
// explain the check to plugin authors: `sectl explain`, the README's table
// of checks and reports show them (see CheckTraits). Every check has the
// first three.
//
// The body receives `check`, a CheckContext: the plugin registered by the
// embedded host runtime, the device under test, and the ways to report
// (Expect, Fail, Warn, Skip, Blocked, Require). Each check runs in a process
// of its own, so a body may leave the plugin in any state. Checks of TVM's
// C Device API are declared with SECTL_TVM_C_DEVICE_CHECK and get a
// TvmCheckContext instead; both share the reporting (CommonCheckContext).
#pragma once

#include "conform/check_context.h"
#include "conform/check_registry.h"
#include "conform/tvm_check_context.h"

#define SECTL_CHECK_CONCAT_INNER(a, b) a##b
#define SECTL_CHECK_CONCAT(a, b) SECTL_CHECK_CONCAT_INNER(a, b)

// SECTL_CHECK(id, severity, title, traits...) for the TensorFlow profile;
// severity is kRequired, kRecommended or kInfo.
#define SECTL_CHECK(id, severity, title, ...)                                                \
  SECTL_CHECK_IN_PROFILES(id, severity, title,                                               \
                          {std::string(::sectl::conform::kTensorFlowProfile)} __VA_OPT__(, ) \
                              __VA_ARGS__)

// The same for checks of other profiles: `profiles` is a braced list of
// profile names, `...` the CheckTraits.
#define SECTL_CHECK_IN_PROFILES(id, severity, title, profiles, ...)                          \
  static void SECTL_CHECK_CONCAT(SectlCheckBody, __LINE__)(::sectl::conform::CheckContext&); \
  static const ::sectl::conform::CheckRegistrar SECTL_CHECK_CONCAT(                          \
      sectl_check_registrar_, __LINE__)(::sectl::conform::CheckDefinition{                   \
      id, title, ::sectl::report::CheckSeverity::severity, profiles,                         \
      [] {                                                                                   \
        using enum ::sectl::abi::PluginFunction;                                             \
        return ::sectl::conform::CheckTraits{__VA_ARGS__};                                   \
      }(),                                                                                   \
      __FILE__, __LINE__, &SECTL_CHECK_CONCAT(SectlCheckBody, __LINE__)});                   \
  static void SECTL_CHECK_CONCAT(SectlCheckBody, __LINE__)(::sectl::conform::CheckContext & check)

// The profile of TVM's C Device API checks.
#define SECTL_TVM_C_DEVICE_PROFILE "tvm-c-device"

// SECTL_TVM_C_DEVICE_CHECK(id, severity, title, traits...) for the TVM C
// Device API profile: the body receives `check`, a TvmCheckContext, which
// offers the plugin's devices and their sessions instead of a registered
// StreamExecutor platform.
#define SECTL_TVM_C_DEVICE_CHECK(id, severity, title, ...)                                      \
  static void SECTL_CHECK_CONCAT(SectlCheckBody, __LINE__)(::sectl::conform::TvmCheckContext&); \
  static const ::sectl::conform::CheckRegistrar SECTL_CHECK_CONCAT(sectl_check_registrar_,      \
                                                                   __LINE__)(                   \
      ::sectl::conform::CheckDefinition{id,                                                     \
                                        title,                                                  \
                                        ::sectl::report::CheckSeverity::severity,               \
                                        {std::string(SECTL_TVM_C_DEVICE_PROFILE)},              \
                                        [] {                                                    \
                                          using enum ::sectl::abi::PluginFunction;              \
                                          return ::sectl::conform::CheckTraits{__VA_ARGS__};    \
                                        }(),                                                    \
                                        __FILE__,                                               \
                                        __LINE__,                                               \
                                        nullptr,                                                \
                                        &SECTL_CHECK_CONCAT(SectlCheckBody, __LINE__)});        \
  static void SECTL_CHECK_CONCAT(SectlCheckBody,                                                \
                                 __LINE__)(::sectl::conform::TvmCheckContext & check)
