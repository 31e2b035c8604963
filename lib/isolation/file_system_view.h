// What a plugin's process sees of the file system, in its own mount
// namespace: all of it, read-only, except what is its own.
//
//  - Every mount is made read-only (recursively): a plugin cannot fill
//    sectl's disk, rewrite a root-owned file as a root without
//    capabilities could, or write a cgroup's freezer.
//  - Its scratch directory (plugin_identity.h), its working directory and
//    TMPDIR, is a private tmpfs of kScratchBytes that vanishes with it; /tmp
//    itself stays the host's, readable (a plugin and its libraries may live
//    there) and read-only. /dev/shm is a fresh tmpfs of the same size.
//  - What sectl was told the plugin writes (--plugin-writes, the
//    validation layer's report and trace) stays writable where it is.
//  - /proc is writable again for a plugin that runs as a plain user (its
//    own /proc/self), and stays read-only for one that stays uid 0
//    (/proc/sysrq-trigger).
// Mounts the kernel refuses are left as they were, and DescribeFileSystem
// says so for the report.
#pragma once

#include <string>
#include <vector>

#include "base/error.h"
#include "isolation/plugin_identity.h"

namespace sectl::isolation {

// In the reaper of the plugin's namespaces (namespaces.h), after /proc is
// mounted and before the plugin's process forks. `scratch` is the
// directory sectl made for it; `writable` what must stay writable. Nothing
// is undone on an error, which names the step that failed.
Expected<void> PrepareFileSystemView(const std::string& scratch,
                                     const std::vector<std::string>& writable,
                                     const PluginIdentity& identity);

// Tries PrepareFileSystemView once, in a short-lived child in new
// namespaces as a plugin's would be, and caches the answer: empty when it
// works here, else what failed. Call it where forking is safe.
const std::string& FileSystemViewTrialFailure();

// The line for the report: what the plugin's processes get here.
std::string DescribeFileSystemView(bool namespaced);

}  // namespace sectl::isolation
