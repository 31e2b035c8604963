// Content digests of files, for reports that must say exactly which plugin ran.
#pragma once

#include <cstdint>
#include <string>

#include "base/error.h"

namespace sectl {

// What distinguishes one state of a file from another without reading it:
// which file a path names (device, inode) and whether its bytes or inode
// were changed since (size, modification and status-change times). The
// status-change time (st_ctime) is set by the kernel on every write, rename,
// link or utimensat and cannot be set back by an unprivileged process, so a
// file rewritten in place and given its old mtime still reads as changed.
struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  int64_t size = 0;
  int64_t modified_ns = 0;
  int64_t changed_ns = 0;

  bool operator==(const FileIdentity&) const = default;
};

// The identity of the file open on `fd` (fstat(2)).
Expected<FileIdentity> IdentityOfOpenFile(int fd);

// A file's SHA-256 and the identity of exactly the bytes that were hashed.
struct FileDigest {
  std::string sha256;  // 64 lowercase hex digits
  FileIdentity identity;
};

// Opens `path` once and hashes it through that descriptor. Fails when it is
// not a regular file (a FIFO would block the read forever) or when it
// changed while it was being read (its identity before and after differ).
Expected<FileDigest> DigestFile(const std::string& path);

// The SHA-256 of the file's bytes, as 64 lowercase hex digits.
Expected<std::string> Sha256OfFile(const std::string& path);

}  // namespace sectl
