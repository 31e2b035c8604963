// A description of the machine sectl runs on, for the provenance of reports.
#pragma once

#include <string>

namespace sectl {

struct HostInfo {
  std::string os;         // "Linux"
  std::string kernel;     // uname release, e.g. "6.1.0-18-amd64"
  std::string machine;    // uname machine, e.g. "x86_64"
  std::string cpu_model;  // from /proc/cpuinfo; empty when unknown
  unsigned logical_cpus = 0;
  unsigned long long memory_bytes = 0;
};

HostInfo DescribeHost();

}  // namespace sectl
