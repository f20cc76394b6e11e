#include "engine/policy/elastic/elastic_config.hpp"

namespace gantry {

namespace {

struct Name {
  ElasticPolicy policy;
  const char* name;
};
constexpr Name kNames[] = {
    {ElasticPolicy::kNone, "none"},
    {ElasticPolicy::kScaleOutIdle, "scale-out-idle"},
    {ElasticPolicy::kShrinkToAdmit, "shrink-to-admit"},
    {ElasticPolicy::kGoodput, "goodput"},
};

}  // namespace

const char* to_string(ElasticPolicy p) {
  for (const Name& n : kNames)
    if (n.policy == p) return n.name;
  return "?";
}

std::optional<ElasticPolicy> parse_elastic_policy(std::string_view name) {
  for (const Name& n : kNames)
    if (name == n.name) return n.policy;
  return std::nullopt;
}

}  // namespace gantry
