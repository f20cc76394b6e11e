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

void ElasticityConfig::add(ElasticPolicy p) {
  if (p == ElasticPolicy::kNone || has(p)) return;
  policies.push_back(p);
  // The run order is the enum's: shrink for the waiting, then grow into what is idle, then move.
  std::sort(policies.begin(), policies.end(), [](ElasticPolicy a, ElasticPolicy b) {
    const auto rank = [](ElasticPolicy x) {
      return x == ElasticPolicy::kShrinkToAdmit ? 0 : x == ElasticPolicy::kScaleOutIdle ? 1 : 2;
    };
    return rank(a) < rank(b);
  });
}

}  // namespace gantry
