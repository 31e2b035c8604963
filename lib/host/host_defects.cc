#include "host/host_defects.h"

#include <mutex>

namespace sectl::host {
namespace {

struct Record {
  std::mutex mutex;
  std::optional<std::string> first;
};

Record& TheRecord() {
  static Record record;
  return record;
}

}  // namespace

void NoteHostDefect(const std::string& description) {
  Record& record = TheRecord();
  const std::lock_guard<std::mutex> held(record.mutex);
  if (!record.first) record.first = description;
}

std::optional<std::string> FirstHostDefect() {
  Record& record = TheRecord();
  const std::lock_guard<std::mutex> held(record.mutex);
  return record.first;
}

}  // namespace sectl::host
