#include "tool/html_report.h"

#include "conform/check_registry.h"
#include "report/conform_html.h"

namespace sectl::tool {

std::string RenderConformHtmlWithExplanations(const report::ConformReport& report) {
  return report::RenderConformHtml(
      report, [](std::string_view id) -> std::optional<report::CheckExplanation> {
        const conform::CheckDefinition* check = conform::CheckRegistry::Global().Find(id);
        if (check == nullptr) return std::nullopt;
        const conform::CheckTraits& traits = check->traits;
        return report::CheckExplanation{.establishes = std::string(traits.establishes),
                                        .severity_reason = std::string(traits.severity_reason),
                                        .common_mistakes = std::string(traits.common_mistakes),
                                        .how_to_fix = std::string(traits.how_to_fix)};
      });
}

}  // namespace sectl::tool
