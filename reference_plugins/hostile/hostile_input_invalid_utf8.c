/* hostile_input_invalid_utf8: sectl_minimal, except that every piece of text
 * it hands sectl is not valid UTF-8 and carries terminal escapes: the
 * platform's name and type, the device's name and vendor, the TF_Status
 * message of synchronize_all_activity, and what it prints (with NUL bytes).
 * JSON encoders throw on such text unless told to replace it; sectl must
 * still write valid JSON, valid JUnit XML and a table, and blame the plugin
 * only for what it did wrong (the platform name, the failing call). */
#include <stdio.h>

#define SE_InitPlugin Minimal_SE_InitPlugin
#include "../minimal/minimal.c"
#undef SE_InitPlugin

/* A lone continuation byte, a truncated sequence, the two bytes UTF-8 never
 * uses, an overlong '/', a UTF-16 surrogate, a terminal escape that clears
 * the screen and one that sets the window title. */
#define HOSTILE_TEXT "\x80\xe2\x82 \xff\xfe \xc0\xaf \xed\xa0\x80 \x1b[2J\x1b[31m\x1b]0;owned\x07"

static const char kHostileName[] = "SECTL_" HOSTILE_TEXT;
static const char kHostileType[] = HOSTILE_TEXT "TYPE";
static const char kHostileHardwareName[] = "device " HOSTILE_TEXT;
static const char kHostileVendor[] = "vendor " HOSTILE_TEXT;

/* Written to stdout and stderr: text with NUL bytes in it. */
static void PrintHostileText(const char* when) {
  static const char kWithNuls[] = "before NUL\0after NUL " HOSTILE_TEXT "\n";
  printf("%s: " HOSTILE_TEXT "\n", when);
  fflush(stdout);
  fwrite(kWithNuls, 1, sizeof(kWithNuls) - 1, stdout);
  fflush(stdout);
  fwrite(kWithNuls, 1, sizeof(kWithNuls) - 1, stderr);
}

static void HostileCreateDevice(const SP_Platform* platform, SE_CreateDeviceParams* params,
                                TF_Status* status) {
  CreateDevice(platform, params, status);
  if (TF_GetCode(status) != TF_OK) return;
  PrintHostileText("create_device");
  params->device->hardware_name = kHostileHardwareName;
  params->device->device_vendor = kHostileVendor;
  params->device->pci_bus_id = kHostileHardwareName;
}

static void HostileSynchronizeAllActivity(const SP_Device* device, TF_Status* status) {
  (void)device;
  PrintHostileText("synchronize_all_activity");
  TF_SetStatus(status, TF_INTERNAL, "synchronize_all_activity failed: " HOSTILE_TEXT);
}

static void (*minimal_create_stream_executor)(const SP_Platform*, SE_CreateStreamExecutorParams*,
                                              TF_Status*);

static void HostileCreateStreamExecutor(const SP_Platform* platform,
                                        SE_CreateStreamExecutorParams* params, TF_Status* status) {
  minimal_create_stream_executor(platform, params, status);
  if (TF_GetCode(status) != TF_OK) return;
  params->stream_executor->synchronize_all_activity = HostileSynchronizeAllActivity;
}

TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  Minimal_SE_InitPlugin(params, status);
  if (TF_GetCode(status) != TF_OK) return;
  PrintHostileText("SE_InitPlugin");
  params->platform->name = kHostileName;
  params->platform->type = kHostileType;
  params->platform_fns->create_device = HostileCreateDevice;
  minimal_create_stream_executor = params->platform_fns->create_stream_executor;
  params->platform_fns->create_stream_executor = HostileCreateStreamExecutor;
}
