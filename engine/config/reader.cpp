#include "engine/config/reader.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "engine/config/quote.hpp"
#include "engine/config/units.hpp"

namespace gantry {

namespace {

// yaml-cpp marks are 0-based and -1 when unknown; SourceLocation is 1-based with 0 unknown.
SourceLocation to_location(const std::string& file, const YAML::Mark& mark) {
  SourceLocation where{file, 0, 0};
  if (mark.line >= 0) {
    where.line = mark.line + 1;
    where.column = mark.column >= 0 ? mark.column + 1 : 0;
  }
  return where;
}

// yaml-cpp reports "?" for plain scalars and untagged collections, "!" for quoted scalars.
// Anything else was written by the user.
bool has_user_tag(const YAML::Node& node) {
  const std::string& tag = node.Tag();
  return !tag.empty() && tag != "?" && tag != "!";
}

std::string join(const std::vector<std::string_view>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  return out;
}

template <typename T>
T unwrap(const ConfigNode& node, Result<T> result) {
  if (!result) node.fail(result.error());
  return std::move(result).value();
}

}  // namespace

ConfigNode::ConfigNode(YAML::Node node, std::shared_ptr<const std::string> file, std::string path,
                       YAML::Mark fallback)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)), fallback_(fallback) {}

SourceLocation ConfigNode::location() const {
  const YAML::Mark mark = node_.Mark();
  if (mark.line < 0) return to_location(*file_, fallback_);
  // An explicit `~` on the key's line has a good mark; an empty value is marked at whatever
  // token follows, usually on a later line.
  if (node_.IsNull() && fallback_.line >= 0 && mark.line != fallback_.line)
    return to_location(*file_, fallback_);
  return to_location(*file_, mark);
}

void ConfigNode::fail(const std::string& message) const {
  throw InputError(location(), path_, message);
}

void ConfigNode::fail_expected(std::string_view what) const {
  std::string got;
  switch (node_.Type()) {
    case YAML::NodeType::Map:
      got = "a map";
      break;
    case YAML::NodeType::Sequence:
      got = "a list";
      break;
    case YAML::NodeType::Scalar:
      got = node_.Tag() == "!" ? "the string " + quote_for_message(node_.Scalar())
                               : quote_for_message(node_.Scalar());
      break;
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      got = "nothing (null)";
      break;
  }
  fail("expected " + std::string(what) + ", got " + got);
}

const std::string& ConfigNode::scalar(std::string_view what) const {
  if (!node_.IsScalar()) fail_expected(what);
  if (has_user_tag(node_))
    fail("YAML tags such as " + quote_for_message(node_.Tag()) + " are not used in Gantry files");
  return node_.Scalar();
}

const std::string& ConfigNode::plain_scalar(std::string_view what) const {
  const std::string& text = scalar(what);
  if (node_.Tag() == "!") fail_expected(what);
  return text;
}

std::string ConfigNode::as_string() const { return scalar("a string"); }

std::string ConfigNode::as_name() const {
  const std::string& text = scalar("a name");
  constexpr size_t kMaxName = 253;  // Kubernetes' limit for object names
  if (text.empty()) fail("expected a name, got an empty string");
  if (text.size() > kMaxName) fail("a name is at most 253 characters long");
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      fail("expected a name, got " + quote_for_message(text) +
           " (control characters are not allowed)");
  }
  if (text.front() == ' ' || text.back() == ' ')
    fail("expected a name, got " + quote_for_message(text) + " (leading or trailing spaces)");
  return text;
}

int64_t ConfigNode::as_int(int64_t min, int64_t max) const {
  return unwrap(*this, parse_integer(plain_scalar(describe_integer(min, max)), min, max));
}

double ConfigNode::as_double(double min, double max) const {
  return unwrap(*this, parse_number(plain_scalar(describe_number(min, max)), min, max));
}

bool ConfigNode::as_bool() const {
  const std::string& text = plain_scalar("true or false");
  if (text == "true") return true;
  if (text == "false") return false;
  fail_expected("true or false");
}

int64_t ConfigNode::as_bytes(int64_t max) const {
  return unwrap(*this, parse_bytes(scalar("a size in bytes such as 80Gi, 512Mi or 1.5GB"), max));
}

double ConfigNode::as_bandwidth(double max) const {
  return unwrap(*this, parse_bandwidth(scalar("a bandwidth such as 400Gbps or 25GB/s"), max));
}

Duration ConfigNode::as_duration(Duration max) const {
  return unwrap(*this, parse_duration(scalar("a duration such as 90s, 1h30m or 500ms"), max));
}

Duration ConfigNode::as_positive_duration(Duration max) const {
  const Duration d = as_duration(max);
  if (d <= Duration(0))
    fail("expected a duration greater than zero, got " + quote_for_message(node_.Scalar()));
  return d;
}

int64_t ConfigNode::as_cpu_milli(int64_t max) const {
  return unwrap(*this, parse_cpu_milli(scalar("a CPU amount such as 2, 0.5 or 500m"), max));
}

Time ConfigNode::as_time() const {
  constexpr std::string_view kWhat = "an RFC 3339 time such as 2026-01-01T00:00:00Z";
  const std::string& text = scalar(kWhat);
  Result<Time> t = read_rfc3339(text);
  if (!t && t.error() == kRfc3339Malformed) fail_expected(kWhat);
  if (!t)
    fail("expected " + std::string(kWhat) + ", got " + quote_for_message(text) + " (" + t.error() +
         ")");
  return t.value();
}

size_t ConfigNode::as_choice(const std::vector<std::string_view>& names) const {
  const std::string what = "one of: " + join(names);
  const std::string& text = scalar(what);
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == text) return i;
  fail("unknown value " + quote_for_message(text) + "; expected " + what);
}

std::vector<ConfigNode> ConfigNode::as_sequence() const {
  if (!node_.IsSequence()) fail_expected("a list");
  if (has_user_tag(node_))
    fail("YAML tags such as " + quote_for_message(node_.Tag()) + " are not used in Gantry files");
  std::vector<ConfigNode> items;
  items.reserve(node_.size());
  size_t index = 0;
  for (const YAML::Node& item : node_) {
    items.push_back(derive(item, item_path(index), node_.Mark()));
    ++index;
  }
  return items;
}

std::vector<ConfigEntry> ConfigNode::as_entries(Keys keys) const {
  if (!node_.IsMap()) fail_expected("a map");
  if (has_user_tag(node_))
    fail("YAML tags such as " + quote_for_message(node_.Tag()) + " are not used in Gantry files");
  std::vector<ConfigEntry> entries;
  std::map<std::string, int, std::less<>> key_lines;  // for duplicate-key messages
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    // Copies: the iterator's pair is a temporary proxy, references into it would dangle.
    const YAML::Node key = it->first;
    const YAML::Node value_node = it->second;
    // A key node's path is the path of the field it names.
    const std::string name = key.IsScalar() ? key.Scalar() : std::string();
    ConfigNode key_node = derive(key, child_path(name), node_.Mark());
    const bool quoted_ok = keys == Keys::kPlainOrQuoted && key.Tag() == "!";
    if (!key.IsScalar() || (key.Tag() != "?" && !quoted_ok)) {
      key_node.path_ = path_;
      key_node.fail("field names must be plain strings");
    }
    const auto [existing, inserted] = key_lines.try_emplace(name, key_node.location().line);
    if (!inserted)
      key_node.fail("duplicate field " + quote_for_message(name) + " (first given at line " +
                    std::to_string(existing->second) + ")");
    ConfigNode value = derive(value_node, child_path(name), key.Mark());
    entries.push_back(ConfigEntry{name, std::move(key_node), std::move(value)});
  }
  return entries;
}

ConfigMap ConfigNode::as_map(std::initializer_list<std::string_view> allowed) const {
  return ConfigMap(*this, allowed);
}

ConfigNode ConfigNode::derive(YAML::Node node, std::string path, YAML::Mark fallback) const {
  return ConfigNode(std::move(node), file_, std::move(path), fallback);
}

std::string ConfigNode::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::string ConfigNode::item_path(size_t index) const {
  return path_ + "[" + std::to_string(index) + "]";
}

std::vector<ConfigEntry> ConfigNode::allowed_entries(
    const std::vector<std::string_view>& allowed,
    const std::function<void(const ConfigEntry&, std::string)>& unknown) const {
  if (!is_map()) fail_expected("a map with fields " + join(allowed));
  std::vector<ConfigEntry> entries = as_entries();
  std::vector<ConfigEntry> known;
  known.reserve(entries.size());
  for (ConfigEntry& entry : entries) {
    if (std::find(allowed.begin(), allowed.end(), entry.name) != allowed.end()) {
      known.push_back(std::move(entry));
      continue;
    }
    unknown(entry, "unknown field " + quote_for_message(entry.name) +
                       "; expected one of: " + join(allowed));
  }
  return known;
}

InputError ConfigNode::missing_field(std::string_view key) const {
  return InputError(location(), child_path(key),
                    "missing required field " + quote_for_message(key));
}

ConfigMap::ConfigMap(const ConfigNode& node, std::initializer_list<std::string_view> allowed)
    : node_(node), allowed_(allowed.begin(), allowed.end()) {
  const auto refuse = [](const ConfigEntry& entry, std::string message) {
    entry.key.fail(message);
  };
  for (ConfigEntry& entry : node.allowed_entries({allowed.begin(), allowed.end()}, refuse))
    entries_.try_emplace(entry.name, std::move(entry.value));
}

void ConfigMap::check_allowed(std::string_view key) const {
  if (std::find(allowed_.begin(), allowed_.end(), key) == allowed_.end())
    throw std::logic_error("ConfigMap: field '" + std::string(key) +
                           "' is not in the allowed list of " + node_.path());
}

bool ConfigMap::has(std::string_view key) const {
  check_allowed(key);
  return entries_.find(key) != entries_.end();
}

ConfigNode ConfigMap::required(std::string_view key) const {
  check_allowed(key);
  const auto it = entries_.find(key);
  if (it == entries_.end()) throw node_.missing_field(key);
  return it->second;
}

std::optional<ConfigNode> ConfigMap::optional(std::string_view key) const {
  check_allowed(key);
  const auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

namespace {

// Records where each document starts and refuses collections nested deeper than
// kMaxYamlDepth, at the collection that goes too deep (yaml-cpp's own recursion limit reports
// neither what is wrong nor where, and each level costs it stack).
class DocumentStarts : public YAML::EventHandler {
 public:
  explicit DocumentStarts(const std::string& file) : file_(file) {}
  void OnDocumentStart(const YAML::Mark& mark) override {
    start = mark;
    depth_ = 0;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    enter(mark);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    enter(mark);
  }
  void OnMapEnd() override { --depth_; }

  YAML::Mark start;

 private:
  void enter(const YAML::Mark& mark) {
    if (++depth_ > kMaxYamlDepth)
      throw InputError(to_location(file_, mark), "",
                       "YAML nesting too deep: more than " + std::to_string(kMaxYamlDepth) +
                           " levels of lists and maps (Gantry files need fewer than 10)");
  }
  const std::string& file_;
  int depth_ = 0;
};

// yaml-cpp 0.7 (Debian 12) loops forever in LoadAll, allocating a null document per turn, when
// a document starts with a token it cannot handle, such as a ',' outside a flow collection
// (jbeder/yaml-cpp#1040, fixed upstream by #1319 in 2024). This pass walks the stream with the
// public event parser and stops as soon as a document fails to move past the previous one's
// start, which never happens for a stream yaml-cpp actually reads. Throws YAML::Exception for
// syntax errors like LoadAll would.
void check_stream_progresses(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts(file);
  int last_pos = -1;
  while (parser.HandleNextDocument(starts)) {
    if (starts.start.pos <= last_pos)
      throw InputError(to_location(file, starts.start), "",
                       "YAML syntax error: unexpected character outside a flow collection");
    last_pos = starts.start.pos;
  }
}

}  // namespace

std::vector<ConfigNode> parse_yaml_documents(const std::string& text, const std::string& file) {
  std::vector<YAML::Node> docs;
  try {
    check_stream_progresses(text, file);
    docs = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {
    // Not expected (the depth check above comes first), but never a bare "bad file".
    throw InputError(to_location(file, e.mark), "", "YAML nesting too deep");
  } catch (const YAML::Exception& e) {
    // e.msg is the bare message; e.what() repeats the position in yaml-cpp's own format.
    throw InputError(to_location(file, e.mark), "", "YAML syntax error: " + e.msg);
  }
  const auto shared_file = std::make_shared<const std::string>(file);
  std::vector<ConfigNode> out;
  for (YAML::Node& doc : docs) {
    if (doc.IsNull()) continue;
    out.emplace_back(std::move(doc), shared_file, "", YAML::Mark());
  }
  return out;
}

ConfigNode parse_yaml_document(const std::string& text, const std::string& file) {
  std::vector<ConfigNode> docs = parse_yaml_documents(text, file);
  if (docs.empty())
    throw InputError(SourceLocation{file, 0, 0}, "", "the file holds no YAML document");
  if (docs.size() > 1)
    throw InputError(docs[1].location(), "",
                     "expected a single YAML document, found another one here");
  return std::move(docs.front());
}

std::string read_text_file(const std::string& path, int64_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError("cannot open '" + path + "': " + std::strerror(errno));
  // The size first: a huge file is refused before any of it is read or parsed. Files whose
  // size is not known in advance (a pipe) are still held to the limit while reading.
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && static_cast<uintmax_t>(max_bytes) < size)
    throw InputError(SourceLocation{path, 0, 0}, "",
                     "the file is " + std::to_string(size) + " bytes; input files are at most " +
                         format_bytes_exact(max_bytes) + " (" + std::to_string(max_bytes) +
                         " bytes)");
  std::string text;
  // On the heap: the server reads files on civetweb's worker threads, whose stacks are small
  // (a 64 KiB array there overflowed under AddressSanitizer).
  std::vector<char> buffer(65536);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    text.append(buffer.data(), static_cast<size_t>(in.gcount()));
    if (static_cast<int64_t>(text.size()) > max_bytes)
      throw InputError(SourceLocation{path, 0, 0}, "",
                       "the file is larger than the " + format_bytes_exact(max_bytes) +
                           " allowed for input files");
  }
  if (in.bad()) throw FileError("cannot read '" + path + "': " + std::strerror(errno));
  return text;
}

}  // namespace gantry
