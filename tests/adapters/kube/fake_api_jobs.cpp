#include "tests/adapters/kube/fake_api_jobs.hpp"

#include <openssl/evp.h>

#include <regex>
#include <vector>

namespace gantry::kube::testing {

namespace {

using nlohmann::json;

// One field error as k8s.io/apimachinery/pkg/util/validation/field writes it.
struct FieldError {
  std::string type;  // the cause's reason: FieldValueInvalid, FieldValueRequired, ...
  std::string field;
  std::string body;  // "Invalid value: 3: requires indexed completion mode"
};

// Go's %v of a JSON value as field.Invalid prints it: strings quoted, numbers bare.
std::string go_value(const json& v) { return v.is_string() ? v.dump() : v.dump(); }

FieldError invalid(const std::string& field, const json& value, const std::string& detail) {
  return {"FieldValueInvalid", field, "Invalid value: " + go_value(value) + ": " + detail};
}
FieldError required(const std::string& field, const std::string& detail) {
  return {"FieldValueRequired", field, "Required value" + (detail.empty() ? "" : ": " + detail)};
}
FieldError not_supported(const std::string& field, const json& value,
                         const std::vector<std::string>& supported) {
  std::string list;
  for (const std::string& s : supported) list += (list.empty() ? "" : ", ") + json(s).dump();
  return {"FieldValueNotSupported", field,
          "Unsupported value: " + go_value(value) + ": supported values: " + list};
}

// apierrors.NewInvalid: `Job.batch "NAME" is invalid: ERR` (several: `[ERR, ERR]`).
Refusal invalid_status(const std::string& qualified_kind, const std::string& kind,
                       const std::string& group, const std::string& name,
                       const std::vector<FieldError>& errors) {
  std::string joined;
  json causes = json::array();
  for (const FieldError& e : errors) {
    joined += (joined.empty() ? "" : ", ") + e.field + ": " + e.body;
    causes.push_back({{"reason", e.type}, {"message", e.body}, {"field", e.field}});
  }
  if (errors.size() > 1) joined = "[" + joined + "]";
  json details = {{"name", name}, {"kind", kind}, {"causes", causes}};
  if (!group.empty()) details["group"] = group;
  return {422, "Invalid", qualified_kind + " \"" + name + "\" is invalid: " + joined, details};
}

void default_field(json& object, const char* key, json value) {
  if (!object.contains(key) || object[key].is_null()) object[key] = std::move(value);
}

bool has(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && !object[key].is_null();
}

// SetDefaults_Job (pkg/apis/batch/v1/defaults.go) as of v1.32, and the template's PodSpec
// defaults. `labels_alias`: whether metadata.labels is the template's map (set below).
void default_job(json& job, bool& labels_alias) {
  json& spec = job["spec"];
  if (!spec.is_object()) spec = json::object();
  // v1.24 already: both absent → both 1; parallelism 1.
  if (!has(spec, "completions") && !has(spec, "parallelism")) {
    spec["completions"] = 1;
    spec["parallelism"] = 1;
  }
  default_field(spec, "parallelism", 1);
  // v1.28+ (JobBackoffLimitPerIndex): with a per-index limit the global one is unlimited.
  default_field(spec, "backoffLimit", has(spec, "backoffLimitPerIndex") ? 2147483647 : 6);
  json& tmeta = spec["template"]["metadata"];
  if (!tmeta.is_object()) tmeta = json::object();
  json& meta = job["metadata"];
  // `if labels != nil && len(obj.Labels) == 0 { obj.Labels = labels }`: a Go map is shared,
  // so what generateSelector later adds to the template's labels shows on the Job too.
  labels_alias = has(tmeta, "labels") && (!has(meta, "labels") || meta["labels"].empty());
  default_field(spec, "completionMode", "NonIndexed");
  default_field(spec, "suspend", false);
  // v1.27+: manualSelector defaults to false.
  default_field(spec, "manualSelector", false);
  // v1.29+ (JobPodReplacementPolicy, beta, on by default).
  default_field(spec, "podReplacementPolicy",
                has(spec, "podFailurePolicy") ? "Failed" : "TerminatingOrFailed");
  json& pod_spec = spec["template"]["spec"];
  if (!pod_spec.is_object()) pod_spec = json::object();
  default_pod_spec(pod_spec);
}

const std::regex& dns_subdomain() {
  static const std::regex re("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  return re;
}

std::vector<FieldError> validate_job(const json& job) {
  std::vector<FieldError> errs;
  const std::string name = job["metadata"].value("name", "");
  if (name.size() > 253 || !std::regex_match(name, dns_subdomain())) {
    errs.push_back(invalid(
        "metadata.name", name,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
        "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
        "regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
  } else if (name.size() > 63 && !job["spec"].value("manualSelector", false)) {
    // The generated job-name label's value (ValidateLabels on the template).
    errs.push_back(invalid("spec.template.labels", name, "must be no more than 63 characters"));
  }
  const json& spec = job["spec"];
  for (const char* f : {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                        "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes"}) {
    if (has(spec, f) && spec[f].is_number() && spec[f].get<int64_t>() < 0)
      errs.push_back(
          invalid(std::string("spec.") + f, spec[f], "must be greater than or equal to 0"));
  }
  if (has(spec, "maxFailedIndexes") && !has(spec, "backoffLimitPerIndex"))
    errs.push_back(required("spec.backoffLimitPerIndex", "when maxFailedIndexes is specified"));
  const std::string mode = spec.value("completionMode", "NonIndexed");
  if (mode != "NonIndexed" && mode != "Indexed")
    errs.push_back(not_supported("spec.completionMode", mode, {"NonIndexed", "Indexed"}));
  if (mode == "Indexed") {
    if (!has(spec, "completions"))
      errs.push_back(required("spec.completions", "when completion mode is Indexed"));
    if (has(spec, "parallelism") && spec["parallelism"].get<int64_t>() > 100000)
      errs.push_back(invalid("spec.parallelism", spec["parallelism"],
                             "must be less than or equal to 100000 when completion mode is "
                             "Indexed"));
  } else {
    for (const char* f : {"backoffLimitPerIndex", "maxFailedIndexes"})
      if (has(spec, f))
        errs.push_back(
            invalid(std::string("spec.") + f, spec[f], "requires indexed completion mode"));
  }
  const json& pod_spec = spec["template"]["spec"];
  const json containers = pod_spec.value("containers", json::array());
  if (!containers.is_array() || containers.empty())
    errs.push_back(required("spec.template.spec.containers", ""));
  for (size_t i = 0; containers.is_array() && i < containers.size(); ++i) {
    const std::string at = "spec.template.spec.containers[" + std::to_string(i) + "]";
    if (containers[i].value("name", "").empty()) errs.push_back(required(at + ".name", ""));
    if (containers[i].value("image", "").empty()) errs.push_back(required(at + ".image", ""));
  }
  // The PodSpec default Always is refused: validation.go checks both "" and Always.
  const std::string restart = pod_spec.value("restartPolicy", "");
  if (restart.empty() || restart == "Always") {
    errs.push_back(
        required("spec.template.spec.restartPolicy", "valid values: \"OnFailure\", \"Never\""));
  } else if (restart != "OnFailure" && restart != "Never") {
    errs.push_back(
        not_supported("spec.template.spec.restartPolicy", restart, {"OnFailure", "Never"}));
  }
  return errs;
}

std::string base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace

std::variant<json, Refusal> admit_job(json job, const std::string& uid) {
  if (!job["metadata"].is_object()) job["metadata"] = json::object();
  bool labels_alias = false;
  default_job(job, labels_alias);
  json& spec = job["spec"];
  const std::string name = job["metadata"].value("name", "");
  // PrepareForCreate.
  job["status"] = json::object();
  job["metadata"]["generation"] = 1;
  // generateSelector (v1.27+ labels; the legacy ones kept), unless manualSelector.
  if (!spec.value("manualSelector", false)) {
    json& labels = spec["template"]["metadata"]["labels"];
    if (!labels.is_object()) labels = json::object();
    for (const auto& [key, value] :
         {std::pair{kJobNameLabel, name}, std::pair{kLegacyJobNameLabel, name},
          std::pair{kJobControllerUidLabel, uid}, std::pair{kLegacyControllerUidLabel, uid}})
      if (!labels.contains(key)) labels[key] = value;
    json& match = spec["selector"]["matchLabels"];
    if (!match.is_object()) match = json::object();
    if (!match.contains(kJobControllerUidLabel)) match[kJobControllerUidLabel] = uid;
  }
  if (labels_alias) job["metadata"]["labels"] = spec["template"]["metadata"]["labels"];
  if (std::vector<FieldError> errs = validate_job(job); !errs.empty())
    return invalid_status("Job.batch", "Job", "batch", name, errs);
  return job;
}

std::variant<json, Refusal> update_job(json job, const json& old) {
  if (!job["metadata"].is_object()) job["metadata"] = json::object();
  bool labels_alias = false;
  default_job(job, labels_alias);
  const std::string name = old["metadata"].value("name", "");
  std::vector<FieldError> errs = validate_job(job);
  const json& spec = job["spec"];
  const json& was = old["spec"];
  const auto immutable = [&](const char* field) {
    const json now = spec.value(field, json());
    if (now != was.value(field, json()))
      errs.push_back(invalid(std::string("spec.") + field, now.is_object() ? json("…") : now,
                             "field is immutable"));
  };
  immutable("selector");
  // The real message prints the whole core.PodTemplateSpec Go struct as the value; "…" here.
  immutable("template");
  immutable("completionMode");
  immutable("backoffLimitPerIndex");
  // validateCompletions: elastic Indexed Jobs may change completions together with
  // parallelism (completions == parallelism after the change); otherwise it is immutable.
  const bool elastic = spec.value("completionMode", "") == "Indexed" &&
                       spec.value("completions", json()) == spec.value("parallelism", json());
  if (!elastic) immutable("completions");
  if (!errs.empty()) return invalid_status("Job.batch", "Job", "batch", name, errs);
  // PrepareForUpdate: the status is the status subresource's; generation counts spec changes.
  job["status"] = old.value("status", json::object());
  const int64_t generation = old["metadata"].value("generation", int64_t{1});
  job["metadata"]["generation"] = spec != was ? generation + 1 : generation;
  return job;
}

std::variant<json, Refusal> admit_secret(json secret) {
  static const std::regex config_key("[-._a-zA-Z0-9]+");
  const std::string name = secret.value("metadata", json::object()).value("name", "");
  std::vector<FieldError> errs;
  json data = secret.value("data", json::object());
  if (secret.contains("stringData") && secret["stringData"].is_object())
    for (const auto& [k, v] : secret["stringData"].items())
      data[k] = base64(v.is_string() ? v.get<std::string>() : v.dump());
  for (const auto& [k, v] : data.items()) {
    if (!std::regex_match(k, config_key))
      errs.push_back(invalid("data[" + k + "]", k,
                             "a valid config key must consist of alphanumeric characters, '-', "
                             "'_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex "
                             "used for validation is '[-._a-zA-Z0-9]+')"));
  }
  if (!errs.empty()) return invalid_status("Secret", "Secret", "", name, errs);
  secret.erase("stringData");
  if (!data.empty()) secret["data"] = data;
  default_field(secret, "type", "Opaque");
  return secret;
}

}  // namespace gantry::kube::testing
