#include "host/platform.h"

#include <fmt/format.h>

#include <cstring>
#include <utility>

#include "host/compatibility.h"
#include "host/device.h"
#include "host/guarded_struct.h"
#include "host/plugin_string.h"

namespace sectl::host {
namespace {

using abi::PluginFunction;
using abi::StructKind;

// Copies the bytes the plugin filled into the host's own copy of the struct.
template <typename T>
T CopyOf(const GuardedStruct<T>& filled) {
  T copy{};
  std::memcpy(&copy, filled.bytes(), std::min(sizeof(T), filled.host_bytes()));
  return copy;
}

}  // namespace

bool IsValidDeviceTypeName(const std::string& name) {
  if (name.empty() || name[0] < 'A' || name[0] > 'Z') return false;
  for (char c : name) {
    if (!((c >= 'A' && c <= 'Z') || c == '_')) return false;
  }
  return true;
}

Platform::Platform(Passkey, Journal& journal, PlatformOptions options)
    : dispatcher_(journal), options_(std::move(options)) {
  dispatcher_.UseServer(options_.server);
}

Expected<std::unique_ptr<Platform>> Platform::Create(const loader::PluginLibrary& library,
                                                     Journal& journal,
                                                     const PlatformOptions& options) {
  // A plugin in a server is called there or nowhere: its addresses mean
  // nothing in this process.
  if (library.server() != options.server) {
    return Fail(ErrorCode::kInternal,
                fmt::format("sectl's own defect: {} was loaded {} but registered as if it "
                            "were {}",
                            library.path(),
                            library.server() != nullptr ? "in a plugin server" : "in this process",
                            options.server != nullptr ? "in a plugin server" : "in this process"));
  }
  auto platform = std::make_unique<Platform>(Passkey{}, journal, options);
  if (auto registered = platform->Register(library); !registered) {
    return tl::unexpected(registered.error());
  }
  platform->ValidatePlatform();
  platform->CreateDeviceFns();
  platform->CreateStreamExecutor();
  platform->CreateTimerFns();
  platform->ValidateRequiredMembers();
  return platform;
}

HostStructSize Platform::HostSizeOf(StructKind kind) const {
  if (auto chosen = options_.struct_sizes.find(kind); chosen != options_.struct_sizes.end()) {
    return chosen->second;
  }
  const auto& layout = abi::CurrentLayout(kind);
  if (kind == StructKind::kPlatform) {
    return {options_.generation.platform_struct_size, layout.sizeof_bytes};
  }
  if (kind == StructKind::kStreamExecutor) {
    // An older host's SP_StreamExecutor is smaller in storage too.
    const size_t size = options_.generation.stream_executor_struct_size;
    return {size, size};
  }
  return {layout.struct_size, layout.sizeof_bytes};
}

abi::StructSizeReading Platform::NoteStructSize(StructKind kind, size_t reported_size) {
  const auto reading = abi::ReadStructSize(kind, reported_size);
  struct_reports_.push_back({kind, reading});
  const std::string_view name = reading.layout->struct_name;
  const std::string id_suffix(name);
  switch (reading.verdict) {
    case abi::SizeVerdict::kCurrent:
      break;
    case abi::SizeVerdict::kZero:
      findings_.Add(Severity::kError, fmt::format("struct_size.zero.{}", id_suffix),
                    fmt::format("{}.struct_size is 0: TensorFlow rejects the plugin with "
                                "FAILED_PRECONDITION (\"Expected initialized `{}` structure with "
                                "`struct_size` field set\")",
                                name, name));
      break;
    case abi::SizeVerdict::kOlderKnown:
      findings_.Add(Severity::kInfo, fmt::format("struct_size.older.{}", id_suffix),
                    fmt::format("{} reports {}", name, reading.Describe()));
      break;
    case abi::SizeVerdict::kNewer:
      findings_.Add(Severity::kInfo, fmt::format("struct_size.newer.{}", id_suffix),
                    fmt::format("{} reports {}", name, reading.Describe()));
      break;
    case abi::SizeVerdict::kSizeofInsteadOfEnd:
      findings_.Add(Severity::kWarning, fmt::format("struct_size.sizeof.{}", id_suffix),
                    fmt::format("{} reports {}; a host reading members by struct_size may read "
                                "padding as members",
                                name, reading.Describe()));
      break;
    case abi::SizeVerdict::kUnknown:
      findings_.Add(Severity::kWarning, fmt::format("struct_size.unknown.{}", id_suffix),
                    fmt::format("{} reports {}", name, reading.Describe()));
      break;
    case abi::SizeVerdict::kIncompatible:
      findings_.Add(Severity::kError, fmt::format("struct_size.incompatible.{}", id_suffix),
                    fmt::format("{} reports {}; rebuild against a released TensorFlow header", name,
                                reading.Describe()));
      break;
  }
  return reading;
}

void Platform::NoteOverrun(std::string_view struct_name, size_t host_bytes, WritePastEnd written) {
  if (written.empty()) return;
  const size_t past = written.end - host_bytes;
  const std::string where = written.first == host_bytes
                                ? fmt::format("up to byte {}", written.end)
                                : fmt::format("at bytes {} to {}, ending {} bytes past its end",
                                              written.first, written.end - 1, past);
  findings_.Add(
      Severity::kError, fmt::format("struct_size.overrun.{}", struct_name),
      fmt::format("the plugin wrote {} byte{} past the end of the host's {}-byte {} ({}): "
                  "memory corruption inside that host",
                  written.bytes(), written.bytes() == 1 ? "" : "s", host_bytes, struct_name,
                  where));
}

Expected<void> Platform::Register(const loader::PluginLibrary& library) {
  auto params = HandOver<SE_PlatformRegistrationParams>(StructKind::kRegistrationParams);
  auto platform = HandOver<SP_Platform>(StructKind::kPlatform);
  auto platform_fns = HandOver<SP_PlatformFns>(StructKind::kPlatformFns);
  version_offered_ = options_.offered_version;
  params->major_version = version_offered_.major;
  params->minor_version = version_offered_.minor;
  params->patch_version = version_offered_.patch;
  params->platform = platform.get();
  params->platform_fns = platform_fns.get();

  auto initialized = dispatcher_.CallInitPlugin(library.init_plugin(), params.get());
  if (!initialized) return initialized;

  version_after_init_ = {params->major_version, params->minor_version, params->patch_version};
  NoteOverrun("SE_PlatformRegistrationParams", params);
  NoteOverrun("SP_Platform", platform);
  NoteOverrun("SP_PlatformFns", platform_fns);

  NoteStructSize(StructKind::kRegistrationParams, params->struct_size);
  teardown_.destroy_platform = params->destroy_platform;
  teardown_.destroy_platform_fns = params->destroy_platform_fns;

  // TensorFlow keeps copies; the plugin sees those addresses from now on.
  const auto platform_reading = NoteStructSize(StructKind::kPlatform, platform->struct_size);
  SP_Platform as_filled = CopyOf(platform);
  abi::DecodeToCurrentLayout(platform_reading, &as_filled, platform.host_bytes(), &platform_);
  const auto fns_reading = NoteStructSize(StructKind::kPlatformFns, platform_fns->struct_size);
  SP_PlatformFns fns_as_filled = CopyOf(platform_fns);
  abi::DecodeToCurrentLayout(fns_reading, &fns_as_filled, platform_fns.host_bytes(),
                             &platform_fns_);
  return {};
}

void Platform::ValidatePlatform() {
  if (version_after_init_.major != version_offered_.major ||
      version_after_init_.minor != version_offered_.minor ||
      version_after_init_.patch != version_offered_.patch) {
    findings_.Add(Severity::kInfo, "registration.version_overwritten",
                  fmt::format("SE_InitPlugin overwrote the version fields {}.{}.{} with {}.{}.{} "
                              "(TensorFlow never reads them back)",
                              version_offered_.major, version_offered_.minor,
                              version_offered_.patch, version_after_init_.major,
                              version_after_init_.minor, version_after_init_.patch));
  }
  if (teardown_.destroy_platform == nullptr) {
    findings_.Add(Severity::kError, "registration.destroy_platform.missing",
                  abi::TensorFlowMissingMemberMessage(PluginFunction::kDestroyPlatform));
  }
  if (teardown_.destroy_platform_fns == nullptr) {
    findings_.Add(Severity::kError, "registration.destroy_platform_fns.missing",
                  abi::TensorFlowMissingMemberMessage(PluginFunction::kDestroyPlatformFns));
  }
  struct Field {
    const char* member;
    const char* text;
    std::string* copy;
  };
  for (auto [member, text, copy] :
       {Field{"name", platform_.name, &name_}, Field{"type", platform_.type, &type_}}) {
    if (text == nullptr) {
      findings_.Add(Severity::kError, fmt::format("platform.{}.missing", member),
                    fmt::format("'{}' field in SP_Platform must be set.", member));
      continue;
    }
    *copy = dispatcher_.ReadPluginText(text);
    if (copy->size() == kMaxPluginString) {
      findings_.Add(Severity::kError, fmt::format("platform.{}.unterminated", member),
                    fmt::format("SP_Platform.{} has no terminating NUL within {} bytes", member,
                                kMaxPluginString));
    } else if (!IsValidDeviceTypeName(*copy)) {
      findings_.Add(Severity::kError, fmt::format("platform.{}.invalid", member),
                    fmt::format("Device name/type '{}' must match [A-Z][A-Z_]*. (SP_Platform.{}; "
                                "TensorFlow refuses to register it)",
                                *copy, member));
    }
  }
}

void Platform::CreateDeviceFns() {
  auto device_fns = HandOver<SP_DeviceFns>(StructKind::kDeviceFns);
  auto params = HandOver<SE_CreateDeviceFnsParams>(StructKind::kCreateDeviceFnsParams);
  params->device_fns = device_fns.get();
  auto created = dispatcher_.CallWithStatus<&SP_PlatformFns::create_device_fns>(
      platform_fns_, &platform_, params.get());
  if (!created) {
    if (created.error().code() != ErrorCode::kUnimplemented) {
      findings_.Add(Severity::kError, "platform.create_device_fns.failed",
                    created.error().message());
    }
    return;
  }
  NoteOverrun("SP_DeviceFns", device_fns);
  const auto reading = NoteStructSize(StructKind::kDeviceFns, device_fns->struct_size);
  SP_DeviceFns as_filled = CopyOf(device_fns);
  abi::DecodeToCurrentLayout(reading, &as_filled, device_fns.host_bytes(), &device_fns_);
  has_device_fns_ = true;
}

void Platform::CreateStreamExecutor() {
  auto stream_executor = HandOver<SP_StreamExecutor>(StructKind::kStreamExecutor);
  auto params = HandOver<SE_CreateStreamExecutorParams>(StructKind::kCreateStreamExecutorParams);
  params->stream_executor = stream_executor.get();
  auto created = dispatcher_.CallWithStatus<&SP_PlatformFns::create_stream_executor>(
      platform_fns_, &platform_, params.get());
  if (!created) {
    if (created.error().code() != ErrorCode::kUnimplemented) {
      findings_.Add(Severity::kError, "platform.create_stream_executor.failed",
                    created.error().message());
    }
    return;
  }
  NoteOverrun("SP_StreamExecutor", stream_executor);
  const auto reading = NoteStructSize(StructKind::kStreamExecutor, stream_executor->struct_size);
  stream_executor_as_filled_ = CopyOf(stream_executor);
  abi::DecodeToCurrentLayout(reading, &stream_executor_as_filled_, stream_executor.host_bytes(),
                             &stream_executor_);
  has_stream_executor_ = true;
}

void Platform::CreateTimerFns() {
  // The newest TensorFlow no longer calls create_timer_fns; older ones
  // require it. sectl calls it whenever the plugin provides it, so timers
  // can be exercised, in the place older TensorFlow calls it.
  if (platform_fns_.create_timer_fns == nullptr) return;
  auto timer_fns = HandOver<SP_TimerFns>(StructKind::kTimerFns);
  auto created = dispatcher_.CallWithStatus<&SP_PlatformFns::create_timer_fns>(
      platform_fns_, &platform_, timer_fns.get());
  if (!created) {
    findings_.Add(Severity::kError, "platform.create_timer_fns.failed", created.error().message());
    return;
  }
  NoteOverrun("SP_TimerFns", timer_fns);
  const auto reading = NoteStructSize(StructKind::kTimerFns, timer_fns->struct_size);
  SP_TimerFns as_filled = CopyOf(timer_fns);
  abi::DecodeToCurrentLayout(reading, &as_filled, timer_fns.host_bytes(), &timer_fns_);
  has_timer_fns_ = true;
}

std::string Platform::AbiVintage() const {
  const auto& reports = struct_reports_;
  std::optional<size_t> platform;
  std::optional<size_t> stream_executor;
  for (const auto& report : reports) {
    if (report.kind == abi::StructKind::kPlatform) platform = report.reading.reported_size;
    if (report.kind == abi::StructKind::kStreamExecutor) {
      stream_executor = report.reading.reported_size;
    }
  }
  const std::string sizes =
      fmt::format("SP_Platform {}, SP_StreamExecutor {}",
                  platform ? fmt::format("{} bytes", *platform) : "not reported",
                  stream_executor ? fmt::format("{} bytes", *stream_executor) : "not reported");
  if (stream_executor == 264) return fmt::format("TensorFlow 2.5-2.6 header ({})", sizes);
  if (stream_executor == SP_STREAMEXECUTOR_STRUCT_SIZE) {
    if (platform == SP_PLATFORM_STRUCT_SIZE) {
      return fmt::format("TensorFlow 2.10 or newer header ({})", sizes);
    }
    if (platform && (*platform == 33 || *platform == 34)) {
      return fmt::format("TensorFlow 2.7-2.9 header ({})", sizes);
    }
  }
  return fmt::format("no single published header ({})", sizes);
}

bool Platform::Provides(PluginFunction function) const {
  const auto& info = abi::InfoOf(function);
  const void* table = nullptr;
  if (info.struct_name == "SE_PlatformRegistrationParams") {
    return function == PluginFunction::kDestroyPlatform ? teardown_.destroy_platform != nullptr
                                                        : teardown_.destroy_platform_fns != nullptr;
  }
  if (info.struct_name == "SP_PlatformFns") table = &platform_fns_;
  if (info.struct_name == "SP_DeviceFns") table = &device_fns_;
  if (info.struct_name == "SP_StreamExecutor") table = &stream_executor_;
  if (info.struct_name == "SP_TimerFns") table = &timer_fns_;
  if (table == nullptr) return true;  // SE_InitPlugin: present, or we would not be here
  void* pointer = nullptr;
  std::memcpy(&pointer, static_cast<const unsigned char*>(table) + info.offset, sizeof(pointer));
  return pointer != nullptr;
}

void Platform::ValidateRequiredMembers() {
  // As the generation reads the plugin's structs, at its own offsets (the
  // same judgement as registration.required_callbacks and compat.*).
  for (const auto& problem : JudgeRequiredMembers(options_.generation, *this)) {
    if (problem.function == PluginFunction::kCount) continue;
    findings_.Add(
        Severity::kError, fmt::format("required.{}", abi::InfoOf(problem.function).member),
        problem.kind == "refused" ? fmt::format("{} ({} refuses to register the plugin)",
                                                problem.message, options_.generation.description)
                                  : problem.message);
  }
}

Expected<int> Platform::DeviceCount() const {
  int count = 0;
  auto counted = dispatcher_.CallWithStatus<&SP_PlatformFns::get_device_count>(platform_fns_,
                                                                               &platform_, &count);
  if (!counted) return tl::unexpected(counted.error());
  return count;
}

Expected<std::unique_ptr<Device>> Platform::CreateDevice(int ordinal) {
  return Device::Create(*this, ordinal);
}

Platform::~Platform() {
  // TensorFlow's ~CPlatform order (the older, explicit one; devices first,
  // which the caller guarantees by destroying every Device beforehand).
  if (has_device_fns_) {
    (void)dispatcher_.Call<&SP_PlatformFns::destroy_device_fns>(platform_fns_, &platform_,
                                                                &device_fns_);
  }
  if (has_stream_executor_) {
    (void)dispatcher_.Call<&SP_PlatformFns::destroy_stream_executor>(platform_fns_, &platform_,
                                                                     &stream_executor_as_filled_);
  }
  // Called even when create_timer_fns was not, as the newest TensorFlow does.
  if (platform_fns_.destroy_timer_fns != nullptr) {
    (void)dispatcher_.Call<&SP_PlatformFns::destroy_timer_fns>(platform_fns_, &platform_,
                                                               &timer_fns_);
  }
  (void)dispatcher_.Call<&SE_PlatformRegistrationParams::destroy_platform>(teardown_, &platform_);
  (void)dispatcher_.Call<&SE_PlatformRegistrationParams::destroy_platform_fns>(teardown_,
                                                                               &platform_fns_);
}

}  // namespace sectl::host
