#include "sim/scenario_values.hpp"

#include "engine/config/quote.hpp"

namespace gantry {

double read_positive_bandwidth(const ConfigNode& n) {
  const double v = n.as_bandwidth();
  if (!(v > 0)) n.fail("a bandwidth must be greater than zero");
  return v;
}

const std::string& latest_time_text() {
  static const std::string text = format_rfc3339(kLatestTime);
  return text;
}

Time offset_time(const ConfigNode& n, Time start, Duration offset) {
  const std::optional<Time> t = checked_add(start, offset);
  if (!t || *t > kLatestTime)
    n.fail("the offset puts the instant past " + latest_time_text() +
           ", the latest instant Gantry simulates");
  return *t;
}

GpuTypeId read_gpu_type(const ConfigNode& n, const GpuCatalog& catalog, std::string_view hint) {
  const std::string name = n.as_name();
  const GpuTypeId id = catalog.find(name);
  if (id >= 0) return id;
  std::string known;
  for (const GpuType& t : catalog.types()) known += (known.empty() ? "" : ", ") + t.name;
  n.fail("unknown GPU type " + quote_for_message(name) + "; known types: " + known + " (" +
         std::string(hint) + ")");
}

}  // namespace gantry
