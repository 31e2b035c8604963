#include "report/html_page.h"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <array>

#include "base/text.h"

namespace sectl::report {
namespace {

// The look every report shares: system fonts, a narrow palette, statuses
// as coloured tags (green pass; red fail, crash, timeout; amber warn; grey
// skip; blue blocked; purple sectl's own error).
constexpr std::string_view kSharedStyle = R"css(
:root { --fg: #1d2330; --muted: #5b6474; --line: #dfe3ea; --bg: #ffffff; --panel: #f6f7f9;
  --pass: #1a7f37; --fail: #c62828; --warn: #a35f00; --skip: #6b7280; --blocked: #2f5fa8;
  --error: #8e3cb4; --code: #f3f4f6; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans",
  sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1200px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 14px; margin: 14px 0 6px; color: var(--muted); text-transform: uppercase;
  letter-spacing: .04em; }
.subtitle { color: var(--muted); margin: 0 0 16px; word-break: break-all; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
  font-size: 13px; }
pre { background: var(--code); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px;
  margin: 4px 0 8px; overflow: auto; max-height: 360px; white-space: pre-wrap;
  word-break: break-word; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line);
  vertical-align: top; }
th { font-size: 13px; color: var(--muted); font-weight: 600; background: var(--panel); }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; word-break: break-all; }
.verdict { border-radius: 8px; padding: 14px 18px; margin: 8px 0 16px; color: #fff;
  font-size: 18px; font-weight: 700; }
.verdict .why { font-weight: 400; font-size: 15px; opacity: .95; }
.verdict.good { background: var(--pass); }
.verdict.bad { background: var(--fail); }
.verdict.unsure { background: var(--warn); }
.tag { display: inline-block; min-width: 64px; text-align: center; border-radius: 4px;
  padding: 1px 6px; font-size: 12px; font-weight: 700; letter-spacing: .03em; color: #fff;
  text-transform: uppercase; }
.tag.pass { background: var(--pass); } .tag.fail, .tag.crash, .tag.timeout { background: var(--fail); }
.tag.warn { background: var(--warn); } .tag.skip { background: var(--skip); }
.tag.blocked { background: var(--blocked); } .tag.error { background: var(--error); }
.tag.flag { background: #fff; color: var(--fail); border: 1px solid var(--fail); min-width: 0; }
.tag.note { background: #fff; color: var(--warn); border: 1px solid var(--warn); min-width: 0; }
.notice { border-left: 4px solid var(--warn); background: #fff8e6; padding: 8px 12px; margin: 12px 0; }
.notice.bad { border-color: var(--fail); background: #fdecec; }
.muted { color: var(--muted); }
)css";

// The SHA-256 of `text`, base64-encoded: a Content-Security-Policy's hash
// of the one inline script it lets run.
std::string Sha256Base64(std::string_view text) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest.data(), &length, EVP_sha256(), nullptr);
  std::array<unsigned char, 4 * ((SHA256_DIGEST_LENGTH + 2) / 3) + 1> encoded{};
  const int written = EVP_EncodeBlock(encoded.data(), digest.data(), static_cast<int>(length));
  return {reinterpret_cast<const char*>(encoded.data()), static_cast<size_t>(written)};
}

// Nothing is fetched (default-src 'none'), styles may be inline, and the
// only script that runs is the page's own, by its hash: should markup ever
// slip past the escaping, a script in it still would not run.
std::string ContentSecurityPolicy(const HtmlPage& page) {
  std::string policy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";
  if (!page.script.empty()) {
    policy += fmt::format("; script-src 'sha256-{}'", Sha256Base64(page.script));
  }
  return policy;
}

}  // namespace

std::string EscapeHtml(std::string_view text) {
  const std::string clean = EscapeControlCharacters(text);
  std::string escaped;
  escaped.reserve(clean.size());
  for (const char c : clean) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      case '\'':
        escaped += "&#39;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

void HtmlWriter::StartTag(std::string_view tag, HtmlAttributes attributes) {
  html_ += '<';
  html_ += tag;
  for (const auto& [name, value] : attributes) {
    html_ += fmt::format(" {}=\"{}\"", name, EscapeHtml(value));
  }
  html_ += '>';
}

void HtmlWriter::Open(std::string_view tag, HtmlAttributes attributes) {
  StartTag(tag, attributes);
}

void HtmlWriter::Close(std::string_view tag) { html_ += fmt::format("</{}>", tag); }

void HtmlWriter::Element(std::string_view tag, std::string_view text, HtmlAttributes attributes) {
  StartTag(tag, attributes);
  Text(text);
  Close(tag);
}

void HtmlWriter::Empty(std::string_view tag, HtmlAttributes attributes) {
  StartTag(tag, attributes);
}

void HtmlWriter::Text(std::string_view text) { html_ += EscapeHtml(text); }

void HtmlWriter::Raw(std::string_view markup) { html_ += markup; }

std::string RenderHtmlPage(const HtmlPage& page) {
  HtmlWriter head;
  head.Empty("meta", {{"charset", "utf-8"}});
  head.Empty("meta", {{"name", "viewport"}, {"content", "width=device-width, initial-scale=1"}});
  head.Empty("meta",
             {{"http-equiv", "Content-Security-Policy"}, {"content", ContentSecurityPolicy(page)}});
  head.Empty("meta", {{"name", "generator"}, {"content", "sectl"}});
  head.Element("title", page.title);
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n" + head.Take() + "\n<style>" +
                     std::string(kSharedStyle) + page.extra_style + "</style>\n</head>\n<body>\n" +
                     "<main>\n" + page.body + "\n</main>\n";
  if (!page.script.empty()) html += "<script>" + page.script + "</script>\n";
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace sectl::report
