#include "base/file_digest.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

namespace sectl {
namespace {

struct DigestContextDeleter {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};

}  // namespace

Expected<std::string> Sha256OfFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return Fail(ErrorCode::kIoError, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  }
  std::unique_ptr<EVP_MD_CTX, DigestContextDeleter> context(EVP_MD_CTX_new());
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) {
    return Fail(ErrorCode::kInternal, "OpenSSL could not start a SHA-256 digest");
  }
  std::array<char, 1 << 16> buffer{};
  while (file) {
    file.read(buffer.data(), buffer.size());
    if (file.gcount() > 0) {
      EVP_DigestUpdate(context.get(), buffer.data(), static_cast<size_t>(file.gcount()));
    }
  }
  if (file.bad()) {
    return Fail(ErrorCode::kIoError, fmt::format("error while reading {}", path));
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), digest.data(), &length);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace sectl
