#include "sim/sweep/sweep_documents.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "engine/config/reader.hpp"
#include "engine/core/errors.hpp"
#include "sim/sweep/sweep_loader.hpp"

namespace gantry {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void bad_key(const std::string& key, const std::string& why) {
  throw InputError({"documents"}, "documents[\"" + key + "\"]",
                   why +
                       "; a document's key is a relative path inside the sweep's folder "
                       "(such as sweeps/grid.yaml or data/nodes.csv)");
}

// Every scalar under a `file:` key of the YAML `text` (data files: traces of a cluster, an
// experiment or a service). A text that does not parse has none (its loader says why).
void data_file_fields(const YAML::Node& node, std::vector<std::string>& out) {
  if (node.IsMap()) {
    for (const auto& entry : node) {
      if (entry.first.IsScalar() && entry.first.Scalar() == "file" && entry.second.IsScalar())
        out.push_back(entry.second.Scalar());
      else
        data_file_fields(entry.second, out);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) data_file_fields(item, out);
  }
}

fs::path common_folder(const std::vector<fs::path>& files) {
  fs::path common = files.front().parent_path();
  for (const fs::path& f : files) {
    const fs::path dir = f.parent_path();
    fs::path prefix;
    for (auto a = common.begin(), b = dir.begin(); a != common.end() && b != dir.end() && *a == *b;
         ++a, ++b)
      prefix /= *a;
    common = prefix;
  }
  return common;
}

void replace_all(std::string& text, const std::string& what, const std::string& with) {
  if (what.empty()) return;
  for (size_t at = 0; (at = text.find(what, at)) != std::string::npos; at += with.size())
    text.replace(at, what.size(), with);
}

}  // namespace

void check_document_key(const std::string& key) {
  if (key.empty()) bad_key(key, "an empty path");
  if (key.size() > 1024) bad_key(key.substr(0, 64) + "...", "longer than 1024 characters");
  const fs::path p(key);
  if (p.is_absolute() || key.front() == '/') bad_key(key, "an absolute path");
  if (key.back() == '/') bad_key(key, "a folder, not a file");
  for (const fs::path& part : p) {
    const std::string s = part.string();
    if (s.empty() || s == "." || s == "..")
      bad_key(key, "'" + s + "' is not allowed in it (only plain names between the slashes)");
  }
  if (key.find('\0') != std::string::npos || key.find("//") != std::string::npos)
    bad_key(key, "not a plain path");
}

void check_sweep_documents(const SweepDocuments& docs) {
  if (docs.files.size() > kMaxSweepDocuments)
    throw InputError({"documents"}, "documents",
                     "at most " + std::to_string(kMaxSweepDocuments) + " documents, got " +
                         std::to_string(docs.files.size()));
  for (const auto& [key, text] : docs.files) check_document_key(key);
  if (!docs.files.contains(docs.sweep))
    throw InputError({"documents"}, "sweep",
                     "the sweep document '" + docs.sweep + "' is not among the documents");
}

SweepDocuments collect_sweep_documents(const std::string& sweep_path) {
  return collect_sweep_documents(sweep_path, read_text_file(sweep_path));
}

SweepDocuments collect_sweep_documents(const std::string& sweep_path,
                                       const std::string& sweep_text) {
  const SweepSpec sweep = load_sweep_text(sweep_text, sweep_path);
  std::vector<std::pair<fs::path, std::string>> files = {
      {fs::path(sweep_path).lexically_normal(), sweep_text}};
  const std::string base_text = read_text_file(sweep.base);
  files.push_back({fs::path(sweep.base).lexically_normal(), base_text});
  std::vector<std::string> data;
  try {
    data_file_fields(YAML::Load(base_text), data);
  } catch (const YAML::Exception&) {
    // The base's loader reports its syntax error, with the position, wherever it runs.
  }
  for (const std::string& d : data) {
    const fs::path p = fs::path(d).is_absolute()
                           ? fs::path(d)
                           : (fs::path(sweep.base).parent_path() / d).lexically_normal();
    if (fs::is_regular_file(p)) files.push_back({p, read_text_file(p.string())});
  }
  // One form for all (absolute when any is), so that they share a folder.
  bool any_absolute = false;
  for (const auto& f : files) any_absolute = any_absolute || f.first.is_absolute();
  std::vector<fs::path> paths;
  for (const auto& f : files)
    paths.push_back(any_absolute ? fs::absolute(f.first).lexically_normal() : f.first);
  // A relative path may climb ("../base.yaml"): the common folder then starts with "..", and
  // the keys below it do not.
  const fs::path root = common_folder(paths);
  SweepDocuments docs;
  docs.root = root.string();
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string key = paths[i].lexically_relative(root.empty() ? "." : root).string();
    docs.files[key] = files[i].second;
    if (i == 0) docs.sweep = key;
  }
  return docs;
}

SweepFolder::SweepFolder(const SweepDocuments& docs) : sweep_(docs.sweep), root_(docs.root) {
  check_sweep_documents(docs);
  std::string tmpl = (fs::temp_directory_path() / "gantry-sweep-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr)
    throw GantryError("cannot create a temporary folder in " + fs::temp_directory_path().string() +
                      ": " + std::strerror(errno));
  path_ = fs::canonical(tmpl);
  try {
    for (const auto& [key, text] : docs.files) {
      const fs::path p = path_ / key;
      fs::create_directories(p.parent_path());
      std::ofstream out(p, std::ios::binary);
      out << text;
      out.close();
      if (!out) throw GantryError(p.string() + ": cannot be written");
    }
  } catch (...) {
    std::error_code ec;
    fs::remove_all(path_, ec);
    throw;
  }
}

SweepFolder::~SweepFolder() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string SweepFolder::shown(std::string text) const {
  replace_all(text, path_.string() + "/", root_.empty() ? "" : root_ + "/");
  replace_all(text, path_.string(), root_.empty() ? "." : root_);
  return text;
}

}  // namespace gantry
