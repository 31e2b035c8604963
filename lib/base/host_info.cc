#include "base/host_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <thread>

namespace sectl {
namespace {

std::string CpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return {};
}

}  // namespace

HostInfo DescribeHost() {
  HostInfo host;
  struct utsname names {};
  if (::uname(&names) == 0) {
    host.os = names.sysname;
    host.kernel = names.release;
    host.machine = names.machine;
  }
  host.cpu_model = CpuModelName();
  host.logical_cpus = std::thread::hardware_concurrency();
  long pages = ::sysconf(_SC_PHYS_PAGES);
  long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) {
    host.memory_bytes =
        static_cast<unsigned long long>(pages) * static_cast<unsigned long long>(page_size);
  }
  return host;
}

}  // namespace sectl
