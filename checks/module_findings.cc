#include "module_findings.h"

#include <algorithm>

namespace sectl::checks {

void FailOnFindings(conform::CheckContext& check, const std::vector<probe::Finding>& findings,
                    std::initializer_list<std::string_view> prefixes) {
  auto& listed = check.details()["findings"];
  listed = nlohmann::json::array();
  for (const auto& finding : findings) {
    const bool ours = std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view prefix) {
      return std::string_view(finding.id).starts_with(prefix);
    });
    if (!ours) continue;
    listed.push_back({{"id", finding.id}, {"message", finding.message}});
    check.Fail(finding.message);
  }
}

}  // namespace sectl::checks
