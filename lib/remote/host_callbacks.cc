#include "remote/host_callbacks.h"

#include <fmt/format.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "tensorflow/c/tf_status.h"

namespace sectl::remote {
namespace {

struct StatusDeleter {
  void operator()(TF_Status* status) const { TF_DeleteStatus(status); }
};

void PutText(EventAnswer& answer, const std::string& text) {
  answer.text_length = static_cast<uint32_t>(std::min(text.size(), kMaxMessageText));
  std::memcpy(answer.text, text.data(), answer.text_length);
}

}  // namespace

HostCallbacks::~HostCallbacks() {
  {
    const std::lock_guard<std::mutex> held(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  workers_.clear();  // joins
}

uint64_t HostCallbacks::Register(StatusCallback function, void* argument) {
  const std::lock_guard<std::mutex> held(mutex_);
  if (registered_.size() >= kMaxHostCallbacks) return 0;
  registered_.emplace_back(function, argument);
  return registered_.size();
}

void HostCallbacks::Handle(const Event& event) {
  const std::lock_guard<std::mutex> held(mutex_);
  if (stopping_) return;
  queue_.push_back(event);
  // A new thread unless one is waiting for each queued event: a callback
  // that blocks must not hold up the next one.
  if (queue_.size() > idle_ && workers_.size() < kMaxCallbackThreads) {
    workers_.emplace_back([this] { Work(); });
  }
  work_.notify_one();
}

void HostCallbacks::Work() {
  std::unique_lock<std::mutex> held(mutex_);
  while (true) {
    ++idle_;
    work_.wait(held, [this] { return !queue_.empty() || stopping_; });
    --idle_;
    if (queue_.empty()) return;
    const Event event = queue_.front();
    queue_.pop_front();
    held.unlock();
    Run(event);
    held.lock();
  }
}

void HostCallbacks::Run(const Event& event) {
  EventAnswer answer;
  answer.sequence = event.sequence;
  std::pair<StatusCallback, void*> callback{nullptr, nullptr};
  {
    const std::lock_guard<std::mutex> held(mutex_);
    // The id came back from the plugin's process: only a registered one is
    // run; anything else is the plugin's (or its server's) invention.
    if (event.callback >= 1 && event.callback <= registered_.size()) {
      callback = registered_[event.callback - 1];
    } else {
      ++unknown_events_;
      last_unknown_id_ = event.callback;
    }
  }
  if (callback.first == nullptr) {
    answer.status_code = TF_INTERNAL;
    PutText(answer, fmt::format("sectl registered no host callback with id {}", event.callback));
    Answer(answer);
    return;
  }
  const std::unique_ptr<TF_Status, StatusDeleter> status(TF_NewStatus());
  const std::string text_in(event.text, std::min<size_t>(event.text_length, kMaxMessageText));
  TF_SetStatus(status.get(), static_cast<TF_Code>(event.status_code), text_in.c_str());
  callback.first(callback.second, status.get());
  answer.status_code = TF_GetCode(status.get());
  const char* message = TF_Message(status.get());
  PutText(answer, message != nullptr ? message : "");
  Answer(answer);
}

void HostCallbacks::Answer(const EventAnswer& answer) const {
  // A failed send means the server is gone; the listener finds that out.
  (void)::send(event_channel_, &answer, sizeof(answer), MSG_NOSIGNAL);
}

uint64_t HostCallbacks::unknown_events() const {
  const std::lock_guard<std::mutex> held(mutex_);
  return unknown_events_;
}

uint64_t HostCallbacks::last_unknown_id() const {
  const std::lock_guard<std::mutex> held(mutex_);
  return last_unknown_id_;
}

}  // namespace sectl::remote
