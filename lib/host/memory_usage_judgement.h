// What is wrong with a device_memory_usage answer, as TensorFlow reads it.
// One judgement for everyone who reports on it: conform's memory.usage check
// fails with these problems and `sectl probe` lists them as findings, so
// the two can never disagree about the same answer.
#pragma once

#include <string>
#include <vector>

#include "host/device.h"

namespace sectl::host {

// The problems with the free and total memory device_memory_usage reported
// while returning true (an answer of false is Device::QueryMemoryUsage's
// error): one sentence each, empty when TensorFlow can size its memory pool
// from them.
std::vector<std::string> MemoryUsageProblems(const MemoryUsage& usage);

}  // namespace sectl::host
