#pragma once
// Splitting a request body of pipeline documents into one text per document, so the server can
// keep each pipeline and pool as it was submitted (GET /pipelines/{name} returns it).
//
// YAML: a document ends at a line that is exactly "---" (optionally followed by blanks or a
// comment) or "...", at column 0 — YAML's document markers, which cannot appear at column 0
// inside a block scalar or a flow collection of a valid document. JSON: one object, or
// {"items":[...]} whose items become one document each, written as block YAML (json_to_yaml():
// the loader reads YAML, and refuses the quoted keys JSON has).
//
// Each piece comes with the kind and metadata.name read from it (empty when absent or
// unreadable: the loader reports those errors with positions; the pieces are only for storage).

#include <string>
#include <vector>

namespace gantry::web {

struct DocumentText {
  std::string kind;
  std::string name;
  std::string text;
};

std::vector<DocumentText> split_documents(const std::string& body);

}  // namespace gantry::web
