#pragma once
// The data files a what-if scenario posted to the API may name (POST /api/v1/simulations):
// only files of the scenarios folder (issue 22: a posted `trace.file: /etc/shadow` was opened,
// and its first line's length and field count came back in the error).
//
// A scenario names its data files in `file:` fields (a cluster's or an experiment's trace, a
// service's request trace), relative to the scenario's own file; a posted one is treated as the
// file posted.yaml of the scenarios folder. Each must be a relative path that, resolved and
// canonicalised (symbolic links followed, for the part of it that exists), stays inside the
// folder: no absolute path, no "../" out of it, no link that leads out.
//
// Messages show paths relative to the folder, never the server's own absolute paths.

#include <filesystem>
#include <string>

#include "sim/trace_loaders.hpp"

namespace gantry::web {

// Checks every `file:` field of the YAML document `text` (named `file_label` in errors: the
// posted file, inside `folder`). Throws InputErrors naming each bad field (file, line, column,
// dotted path such as spec.workload.services[0].load.trace.file) with what is allowed. A
// document that does not parse is left to the loader, which reports that with its position.
// `relative_to`: the folder relative paths are resolved against, when not `folder` itself (a
// distributed sweep's base in a subfolder of its private folder).
void check_data_paths(const std::string& text, const std::string& file_label,
                      const std::filesystem::path& folder,
                      const std::filesystem::path& relative_to = {});

// Is `path` inside `folder` once both are canonicalised (symbolic links followed where they
// exist)? The folder itself is not inside.
bool inside_folder(const std::filesystem::path& folder, const std::filesystem::path& path);

// Throws an InputError at the reference's `file` when the trace `ref` names is not inside
// `folder` ("'data/x.csv' is not a file of " + `place`).
void require_trace_inside(const std::filesystem::path& folder, const TraceRef& ref,
                          const std::string& place);

// adapters/traces' readers (trace_loaders()), refusing any file outside `folder`: a cluster
// trace with an InputError at its reference's `file`, a service's request trace with one
// naming the file. `place` says what the folder is in those messages ("the scenarios folder",
// "the posted documents"). The last line of defence behind check_data_paths(): overrides and
// generated variants are loaded through these too.
TraceLoaders confined_trace_loaders(const std::filesystem::path& folder, const std::string& place);

// `text` with every occurrence of the folder's path (as given, and canonical) and the slash
// after it removed: "no such file: /srv/scenarios/data/x.csv" becomes "no such file:
// data/x.csv".
std::string relative_to_folder(std::string text, const std::filesystem::path& folder);

}  // namespace gantry::web
