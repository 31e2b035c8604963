// The module checks (kernels.*, graph.*, profiler.*) judge what probe's
// descriptions of a module find (probe/*_module_description.h): each check
// fails on the findings that speak of its part.
#pragma once

#include <initializer_list>
#include <string_view>
#include <vector>

#include "conform/check.h"
#include "probe/probe_report.h"

namespace sectl::checks {

// Fails the check with every finding whose id starts with one of
// `prefixes`, and lists those findings in its details.
void FailOnFindings(conform::CheckContext& check, const std::vector<probe::Finding>& findings,
                    std::initializer_list<std::string_view> prefixes);

}  // namespace sectl::checks
