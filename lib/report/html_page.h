// What sectl's HTML reports (conform, report, bench) share: escaping text
// that came from a plugin, a small writer of elements, and the page around
// them. A page is one self-contained file: its CSS and script are inline,
// and its Content-Security-Policy forbids fetching anything and running any
// script but its own, so a report opened from a CI artefact reaches no
// network and markup a plugin smuggled in stays text twice over.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace sectl::report {

// `text` safe as HTML text or as a quoted attribute value: control
// characters written out and invalid UTF-8 replaced (EscapeControlCharacters,
// as in the terminal table), then & < > " ' as character references.
std::string EscapeHtml(std::string_view text);

// One attribute of an element: its name (sectl's own, never escaped) and
// its value (escaped).
using HtmlAttribute = std::pair<std::string_view, std::string>;
using HtmlAttributes = std::initializer_list<HtmlAttribute>;

// Accumulates a document's body. Every text and attribute value passes
// through EscapeHtml; only Raw takes markup, for what sectl made itself.
class HtmlWriter {
 public:
  // <tag attributes...>; the caller closes it with Close(tag).
  void Open(std::string_view tag, HtmlAttributes attributes = {});
  void Close(std::string_view tag);
  // <tag attributes...>text</tag>
  void Element(std::string_view tag, std::string_view text, HtmlAttributes attributes = {});
  // A void element (<meta>, <br>): no content, no closing tag.
  void Empty(std::string_view tag, HtmlAttributes attributes = {});
  void Text(std::string_view text);
  // Markup sectl produced itself (an SVG plot, a nested writer's output).
  void Raw(std::string_view markup);

  std::string Take() { return std::move(html_); }

 private:
  void StartTag(std::string_view tag, HtmlAttributes attributes);

  std::string html_;
};

struct HtmlPage {
  std::string title;        // the <title>, escaped
  std::string body;         // markup from an HtmlWriter
  std::string extra_style;  // CSS beside the shared stylesheet
  std::string script;       // JavaScript run at the end of the body, or empty
};

// The whole document: doctype, UTF-8, the viewport, the policy, the shared
// stylesheet (status colours, tables, code blocks) and `page`'s parts.
std::string RenderHtmlPage(const HtmlPage& page);

}  // namespace sectl::report
