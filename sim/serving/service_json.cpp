#include "sim/serving/service_json.hpp"

#include <cmath>

#include "engine/core/time.hpp"

namespace gantry {

namespace {
// Rounded to the microsecond (latencies) or to 1e-6 (ratios, hours), so reports are stable text.
double rounded(double v) { return std::round(v * 1e6) / 1e6; }
}  // namespace

nlohmann::ordered_json services_json(const std::vector<ServiceReport>& services) {
  auto out = nlohmann::ordered_json::array();
  for (const ServiceReport& s : services) {
    nlohmann::ordered_json j;
    j["name"] = s.name;
    j["requests"] = s.requests;
    j["p50_s"] = rounded(s.p50_s);
    j["p99_s"] = rounded(s.p99_s);
    j["slo_attainment"] = rounded(s.slo_attainment);
    j["gpu_hours"] = rounded(s.gpu_hours);
    j["cold_starts"] = s.cold_starts;
    j["max_replicas"] = s.max_replicas;
    j["slo_p99_s"] = s.slo_p99_s > 0 ? nlohmann::ordered_json(rounded(s.slo_p99_s)) : nullptr;
    j["unserved"] = s.unserved;
    j["cold_start_p50_s"] = s.cold_start_s.empty()
                                ? nlohmann::ordered_json(nullptr)
                                : nlohmann::ordered_json(rounded(s.cold_start_s.percentile(50)));
    j["replicas_lost"] = s.replicas_lost;
    j["failed"] = s.failed;
    auto predictors = nlohmann::ordered_json::array();
    for (const PredictorReport& p : s.predictors) {
      predictors.push_back({{"name", p.name},
                            {"traffic_percent", p.traffic_percent},
                            {"requests", p.requests},
                            {"p99_s", rounded(p.p99_s)},
                            {"cold_starts", p.cold_starts},
                            {"max_replicas", p.max_replicas}});
    }
    j["predictors"] = std::move(predictors);
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::ordered_json service_intervals_json(const ServiceReport& service) {
  auto out = nlohmann::ordered_json::array();
  for (const ServiceInterval& i : service.intervals) {
    out.push_back({{"start", format_rfc3339(i.start)},
                   {"qps", rounded(i.qps)},
                   {"p50_s", rounded(i.p50_s)},
                   {"p99_s", rounded(i.p99_s)},
                   {"slo_attainment", rounded(i.slo_attainment)},
                   {"ready_replicas", rounded(i.ready_replicas)},
                   {"starting_replicas", rounded(i.starting_replicas)},
                   {"gpu_hours", rounded(i.gpu_hours)},
                   {"cold_starts", i.cold_starts},
                   {"arrivals", i.arrivals},
                   {"served", i.served},
                   {"failed", i.failed}});
  }
  return out;
}

}  // namespace gantry
