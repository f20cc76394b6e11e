#include "tools/gantry/cli_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <thread>

#include "engine/config/reader.hpp"
#include "engine/core/errors.hpp"
#include "engine/store/store_error.hpp"
#include "sim/results_writer.hpp"
#include "workflow/pipeline/pipeline_loader.hpp"

namespace gantry::cli {

namespace fs = std::filesystem;

CLI::Validator seed_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits =
            !text.empty() && text.size() <= 19 &&
            std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (digits && std::stoull(text) <= kMaxSeed) return {};
        return fmt::format("expected an integer from 0 to {}, got '{}'", kMaxSeed, text);
      },
      "0..2^63-1", "seed");
}

std::vector<std::string> expand_pipeline_args(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    std::error_code ec;
    const fs::file_status status = fs::status(arg, ec);
    if (status.type() == fs::file_type::not_found)
      throw FileError(arg + ": no such file or folder");
    if (status.type() != fs::file_type::directory) {
      out.push_back(arg);
      continue;
    }
    std::vector<std::string> found;
    for (const fs::directory_entry& e : fs::directory_iterator(arg, ec)) {
      const std::string ext = e.path().extension().string();
      if ((ext == ".yaml" || ext == ".yml") && e.is_regular_file())
        found.push_back(e.path().string());
    }
    if (ec) throw FileError(arg + ": cannot list the folder: " + ec.message());
    if (found.empty())
      throw InputError({arg}, "", "the folder holds no *.yaml or *.yml file to load");
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

PipelineDocuments load_pipelines(const std::vector<std::string>& files) {
  std::vector<PipelineSource> sources;
  for (const std::string& f : files) sources.push_back({f, read_text_file(f)});
  PipelineDocuments docs;
  std::vector<InputError> errors = validate_pipeline_sources(sources, docs);
  for (const PipelineSource& s : sources) {
    const auto from = [&](const SourceLocation& w) { return w.file == s.file_name; };
    const bool declares = std::any_of(docs.pipelines.begin(), docs.pipelines.end(),
                                      [&](const PipelineSpec& p) {
                                        return p.file == s.file_name || from(p.where);
                                      }) ||
                          std::any_of(docs.pools.begin(), docs.pools.end(),
                                      [&](const PoolSpec& p) { return from(p.where); });
    const bool reported = std::any_of(errors.begin(), errors.end(),
                                      [&](const InputError& e) { return from(e.where()); });
    if (declares || reported) continue;
    const bool blank = s.text.find_first_not_of(" \t\r\n") == std::string::npos;
    errors.emplace_back(SourceLocation{s.file_name, 1, 1}, "",
                        blank ? "the file is empty; expected kind: Pipeline or kind: Pool documents"
                              : "the file declares no Pipeline and no Pool");
  }
  if (!errors.empty()) throw PipelineErrors(std::move(errors));
  return docs;
}

void make_output_dir(const std::string& flag, const std::string& dir) {
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (status.type() == fs::file_type::directory) return;
  if (status.type() != fs::file_type::not_found && !ec)
    throw GantryError(fmt::format("{}: '{}' exists and is not a folder", flag, dir));
  fs::create_directories(dir, ec);
  if (ec)
    throw GantryError(
        fmt::format("{}: cannot create the folder '{}': {}", flag, dir, ec.message()));
}

void check_output_database(const std::string& db_path) {
  try {
    check_results_target(db_path);
  } catch (const StoreError& e) {
    throw GantryError(fmt::format("--out: {}", e.what()));
  }
}

std::string first_document_kind(const std::string& text, const std::string& file) {
  try {
    const std::vector<ConfigNode> docs = parse_yaml_documents(text, file);
    if (docs.empty() || !docs.front().is_map()) return {};
    const YAML::Node kind = docs.front().yaml()["kind"];
    return kind && kind.IsScalar() ? kind.Scalar() : std::string();
  } catch (const InputError&) {
    return {};
  }
}

// --parallel: a decimal integer in [1, kMaxParallel]. Checked on the text, so that "-1" is not
// read as a huge unsigned number and "2x" is not read as 2.
CLI::Validator parallel_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits =
            !text.empty() && text.size() <= 3 &&
            std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (digits && std::stoul(text) >= 1 && std::stoul(text) <= kMaxParallel) return {};
        return fmt::format("expected a number of runs at once from 1 to {}, got '{}'", kMaxParallel,
                           text);
      },
      "1.." + std::to_string(kMaxParallel), "parallel");
}

unsigned threads_for(unsigned parallel) {
  if (parallel > 0) return parallel;
  return std::max(1u, std::thread::hardware_concurrency());  // 0 when it cannot tell
}

}  // namespace gantry::cli
