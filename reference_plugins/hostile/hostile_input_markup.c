/* hostile_input_markup: sectl_minimal, except that every piece of text it
 * hands sectl is HTML markup meant to run in whoever opens a report: the
 * platform's name and type, the device's name and vendor, the TF_Status
 * message of synchronize_all_activity, and what it prints. sectl's HTML
 * reports (--report html, --html FILE) must show all of it as text
 * (tests/html_report_test.cc, tests/html_browser_test.cc), and blame the
 * plugin only for what it did wrong (the platform name, the failing call). */
#include <stdio.h>

#define SE_InitPlugin Minimal_SE_InitPlugin
#include "../minimal/minimal.c"
#undef SE_InitPlugin

/* A script element, an element that runs script when it fails to load, a
 * closing tag for whatever element the text lands in, an attribute breakout
 * and a character reference that must not be decoded twice. */
#define HOSTILE_MARKUP                                                                    \
  "<script>document.title='owned'</script><img src=x onerror=\"document.title='owned'\">" \
  "</pre></td></table>\"'><b>bold</b> &lt;"

static const char kHostileName[] = "SECTL_" HOSTILE_MARKUP;
static const char kHostileType[] = HOSTILE_MARKUP "TYPE";
static const char kHostileHardwareName[] = "device " HOSTILE_MARKUP;
static const char kHostileVendor[] = "vendor " HOSTILE_MARKUP;

static void PrintHostileMarkup(const char* when) {
  printf("%s: " HOSTILE_MARKUP "\n", when);
  fflush(stdout);
  fprintf(stderr, "%s: " HOSTILE_MARKUP "\n", when);
}

static void HostileCreateDevice(const SP_Platform* platform, SE_CreateDeviceParams* params,
                                TF_Status* status) {
  CreateDevice(platform, params, status);
  if (TF_GetCode(status) != TF_OK) return;
  PrintHostileMarkup("create_device");
  params->device->hardware_name = kHostileHardwareName;
  params->device->device_vendor = kHostileVendor;
}

static void HostileSynchronizeAllActivity(const SP_Device* device, TF_Status* status) {
  (void)device;
  PrintHostileMarkup("synchronize_all_activity");
  TF_SetStatus(status, TF_INTERNAL, "synchronize_all_activity failed: " HOSTILE_MARKUP);
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
  params->platform->name = kHostileName;
  params->platform->type = kHostileType;
  params->platform_fns->create_device = HostileCreateDevice;
  minimal_create_stream_executor = params->platform_fns->create_stream_executor;
  params->platform_fns->create_stream_executor = HostileCreateStreamExecutor;
}
