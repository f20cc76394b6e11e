#include "sim/serving/service_loader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "engine/config/config_fields.hpp"
#include "engine/config/quote.hpp"
#include "engine/config/resource_fields.hpp"
#include "engine/config/units.hpp"
#include "sim/gang_fit.hpp"
#include "sim/scenario_values.hpp"

namespace gantry {

namespace {

// A single part of a cold start (an image pull, a load) of a day is surely a typo.
constexpr Duration kMaxColdStartPart = days(1);
// Knative's bounds of the stable window (autoscaling.WindowMin, WindowMax).
constexpr Duration kMinStableWindow = seconds(6);
constexpr Duration kMaxStableWindow = hours(1);
// Kubernetes caps behavior.scaleDown.stabilizationWindowSeconds at 3600.
constexpr Duration kMaxStabilization = hours(1);
constexpr Duration kMaxSlo = days(1);
constexpr double kMaxRate = 1e6;
constexpr double kMaxSpeedup = 1e6;

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

// A number above zero and at most `max`.
double read_positive(const ConfigNode& n, double max) {
  const double v = n.as_double(0, max);
  if (!(v > 0)) n.fail("expected a number greater than 0, got " + quote_for_message(n.as_string()));
  return v;
}

// A percentage in (0, 100], written 60 or "60%".
double read_percent(const ConfigNode& n) {
  const std::string text = n.as_string();
  double v = 0;
  if (!text.empty() && text.back() == '%') {
    const Result<double> r =
        parse_number(std::string_view(text).substr(0, text.size() - 1), 0, 100);
    if (!r)
      n.fail("expected a percentage above 0 and at most 100, such as 60 or \"60%\", got " +
             quote_for_message(text));
    v = r.value();
  } else {
    v = n.as_double(0, 100);
  }
  if (!(v > 0))
    n.fail("expected a percentage above 0 and at most 100, such as 60 or \"60%\", got " +
           quote_for_message(text));
  return v;
}

// A GPU model's spelling: the cluster catalog's (an unknown model is an error there), else the
// default catalog's when it knows the model, else as written.
std::string model_spelling(const ConfigNode& at, const std::string& model,
                           const ServiceContext& ctx) {
  if (ctx.topology) {
    const GpuTypeId id = ctx.topology->gpus.find(model);
    if (id >= 0) return ctx.topology->gpus.at(id).name;
    std::vector<std::string> known;
    for (const GpuType& t : ctx.topology->gpus.types()) known.push_back(t.name);
    at.fail("unknown GPU type " + quote_for_message(model) + "; known types: " + join(known) +
            " (add others under spec.cluster.gpuTypes)");
  }
  static const GpuCatalog defaults = GpuCatalog::with_defaults();
  const GpuTypeId id = defaults.find(model);
  return id >= 0 ? defaults.at(id).name : model;
}

// ---- predictors ----

struct PredictorEntry {
  PredictorSpec spec;
  std::optional<ConfigNode> name;       // absent when the name had an error
  std::optional<ConfigNode> resources;  // where a missing capacity entry is reported
  bool traffic_known = false;           // traffic given (or defaulted) and read
  bool request_ok = false;              // gpu and gpuType read without error
};

// The `gpuType` of a predictor: with a cluster, a type some node class has.
std::string read_predictor_gpu_type(const ConfigNode& n, const ServiceContext& ctx) {
  if (!ctx.topology) return model_spelling(n, n.as_name(), ctx);
  const Topology& t = *ctx.topology;
  const GpuTypeId id = read_gpu_type(n, t.gpus);
  const bool present = std::any_of(t.classes.begin(), t.classes.end(),
                                   [&](const NodeClass& c) { return c.gpu_type == id; });
  if (!present) n.fail("no node class in spec.cluster has GPU type " + t.gpus.at(id).name);
  return t.gpus.at(id).name;
}

// Whether one replica fits an empty node of some class (of the predictor's GPU type if set).
void check_replica_fits(const ConfigNode& where, const Topology& t, const PredictorSpec& p) {
  const GpuTypeId type = p.gpu_type.empty() ? -1 : t.gpus.find(p.gpu_type);
  const bool fits = std::any_of(t.classes.begin(), t.classes.end(), [&](const NodeClass& c) {
    if (type >= 0 && c.gpu_type != type) return false;
    if (c.gpu_type < 0) return false;
    return p.resources.fits_in(c.capacity);
  });
  if (fits) return;
  std::string message = "no node class can hold one replica of " + describe_request(p.resources);
  if (type >= 0) message += " on GPU type " + p.gpu_type;
  where.fail(message);
}

PredictorEntry read_predictor(const ConfigNode& node, const ServiceContext& ctx,
                              bool traffic_required, ConfigErrors& errors) {
  PredictorEntry e;
  PredictorSpec& p = e.spec;
  const ConfigFields m(node, {"name", "model", "traffic", "resources", "gpuType", "image"}, errors);
  if (!m.valid()) return e;
  m.read_required("name", [&](const ConfigNode& n) {
    p.name = n.as_name();
    e.name = n;
  });
  m.read_required("model", [&](const ConfigNode& n) { p.model = n.as_name(); });
  if (m.has("traffic")) {
    e.traffic_known =
        m.read("traffic", [&](const ConfigNode& n) { p.traffic = n.as_double(0, 100); });
  } else if (traffic_required) {
    m.missing("traffic",
              ": with several predictors each says its share of the requests in percent (or set "
              "canaryTrafficPercent)");
  } else {
    p.traffic = 100;  // the one predictor takes every request
    e.traffic_known = true;
  }
  m.read("image", [&](const ConfigNode& n) { p.image = n.as_name(); });

  std::optional<ConfigNode> type_node = m.optional("gpuType");
  bool gpu_ok = false;
  bool type_ok = true;
  if (const std::optional<ConfigNode> r = m.required("resources")) {
    e.resources = r;
    const ConfigFields f(*r, {"gpu", "cpu", "memory", "gpuType"}, errors);
    gpu_ok = f.read_required("gpu", [&](const ConfigNode& n) {
      read_gpu(n, p.resources);
      if (!p.resources.needs_gpu())
        n.fail("a replica needs a GPU or a share of one (capacity is given per GPU model), got " +
               quote_for_message(n.as_string()));
    });
    f.read("cpu", [&](const ConfigNode& n) { p.resources.cpu_milli = read_cpu(n); });
    f.read("memory", [&](const ConfigNode& n) { p.resources.memory_bytes = read_memory(n); });
    if (const std::optional<ConfigNode> inner = f.optional("gpuType")) {
      if (type_node) {
        errors.add(*type_node,
                   "gpuType is given both here and in resources; they are one setting, give one "
                   "of them");
        type_ok = false;
        type_node.reset();
      } else {
        type_node = inner;
      }
    }
  }
  if (type_node)
    type_ok = errors.attempt([&] { p.gpu_type = read_predictor_gpu_type(*type_node, ctx); });
  e.request_ok = gpu_ok && type_ok;
  if (e.request_ok && ctx.topology && e.resources) {
    const size_t before = errors.size();
    errors.attempt([&] { check_replica_fits(*e.resources, *ctx.topology, p); });
    e.request_ok = errors.size() == before;
  }
  return e;
}

// ---- capacity ----

// A key's request: "@0.5" a share, "x2" two whole GPUs, "" one whole GPU (capacity_key_share of
// the key). `text` is the whole key, for messages; `model` its canonical model.
Resources read_key_request(const ConfigNode& key, const std::string& text, const std::string& model,
                           const std::string& share) {
  Resources r;
  if (share.empty()) {
    r.gpus = 1;
    return r;
  }
  const auto whole_key = [&](int64_t gpus) {
    Resources w;
    w.gpus = static_cast<int32_t>(gpus);
    return quote_for_message(capacity_key(model, w));
  };
  if (share.front() == 'x') {  // "x<digits>": that many whole GPUs
    const Result<int64_t> gpus = parse_integer(share.substr(1), 0, kMaxGpusPerPod);
    if (!gpus || gpus.value() < 1)
      key.fail("expected 2 to " + std::to_string(kMaxGpusPerPod) + " GPUs after 'x', such as " +
               whole_key(2) + ", got " + quote_for_message(text));
    if (gpus.value() == 1)
      key.fail("a replica of one whole GPU uses the key " + whole_key(1) + ", not " +
               quote_for_message(text));
    r.gpus = static_cast<int32_t>(gpus.value());
    return r;
  }
  // "@<share>"
  const std::string number = share.substr(1);
  const Result<int64_t> milli = parse_cpu_milli(number, kMaxGpusPerPod * kMilliPerGpu);
  const bool decimal = milli && !number.empty() && number.back() != 'm';
  if (decimal && milli.value() >= kMilliPerGpu && milli.value() % kMilliPerGpu == 0)
    key.fail("a share is below 1 GPU; a replica of whole GPUs uses the key " +
             whole_key(milli.value() / kMilliPerGpu));
  if (!decimal || milli.value() <= 0 || milli.value() >= kMilliPerGpu)
    key.fail(
        "expected a share of one GPU above 0 and below 1 after '@', with at most three "
        "decimals, such as A10@0.5, got " +
        quote_for_message(text));
  r.gpu_milli = static_cast<int32_t>(milli.value());
  return r;
}

// "A10", "A10@0.5" or "A10x2", in the canonical form capacity_key gives (see the header).
std::string read_capacity_key(const ConfigNode& key, const ServiceContext& ctx) {
  const std::string text = key.as_name();
  const std::string share = capacity_key_share(text);
  const std::string model = text.substr(0, text.size() - share.size());
  if (model.empty())
    key.fail(
        "expected a GPU model such as A10, a model and a share of one GPU such as A10@0.5, or "
        "a model and a number of GPUs such as A10x2, got " +
        quote_for_message(text));
  const std::string spelled = model_spelling(key, model, ctx);
  return capacity_key(spelled, read_key_request(key, text, spelled, share));
}

ReplicaCapacity read_capacity_value(const ConfigNode& node, ConfigErrors& errors) {
  ReplicaCapacity c;
  const ConfigFields m(
      node, {"tokensPerSecond", "maxBatch", "prefillTokensPerSecond", "pricePerHour"}, errors);
  m.read_required("tokensPerSecond", [&](const ConfigNode& n) {
    c.tokens_per_second = read_positive(n, kMaxTokensPerSecond);
  });
  m.read_required("maxBatch", [&](const ConfigNode& n) {
    c.max_batch = static_cast<int>(n.as_int(1, kMaxBatch));
  });
  m.read("prefillTokensPerSecond", [&](const ConfigNode& n) {
    c.prefill_tokens_per_second = read_positive(n, kMaxTokensPerSecond);
  });
  m.read("pricePerHour", [&](const ConfigNode& n) { c.price_per_hour = n.as_double(0, 1e9); });
  return c;
}

std::vector<ReplicaCapacity> read_capacity(const ConfigNode& node, const ServiceContext& ctx,
                                           ConfigErrors& errors) {
  std::vector<ReplicaCapacity> out;
  std::vector<ConfigEntry> entries;
  if (!errors.attempt([&] {
        entries = node.as_entries(ConfigNode::Keys::kPlainOrQuoted);
        if (entries.empty())
          node.fail(
              "expected at least one entry, such as A10: {tokensPerSecond: 2400, maxBatch: "
              "16}");
      }))
    return out;
  std::map<std::string, ConfigNode, std::less<>> seen;  // canonical key -> the key written
  for (const ConfigEntry& entry : entries) {
    std::string key;
    const bool key_ok = errors.attempt([&] {
      key = read_capacity_key(entry.key, ctx);
      const auto [it, inserted] = seen.emplace(key, entry.key);
      if (!inserted)
        entry.key.fail("capacity key " + quote_for_message(entry.name) + " is the same as " +
                       quote_for_message(it->second.as_string()) + " (line " +
                       std::to_string(it->second.location().line) + ")");
    });
    ReplicaCapacity c = read_capacity_value(entry.value, errors);
    if (!key_ok) continue;
    c.key = key;
    out.push_back(std::move(c));
  }
  return out;
}

// The predictor's GPU request as a message shows it: "0.5", "1", "2".
std::string gpu_text(const Resources& r) {
  if (r.gpu_milli == 0) return std::to_string(r.gpus);
  return capacity_key_share(r).substr(1);  // "@0.5" -> "0.5"
}

// Whether the service has a capacity entry for `p` (ServiceSpec::capacity_for); otherwise
// records why at `where`.
void check_capacity_entry(const ConfigNode& where, const ServiceSpec& s, const PredictorSpec& p) {
  if (s.capacity_for(p)) return;
  std::vector<std::string> keys;
  for (const ReplicaCapacity& c : s.capacity) keys.push_back(c.key);
  const std::string gpu = gpu_text(p.resources);
  if (!p.gpu_type.empty())
    where.fail("no capacity entry " + quote_for_message(capacity_key(p.gpu_type, p.resources)) +
               " for this predictor (gpu " + gpu + " on " + p.gpu_type +
               "); capacity has: " + join(keys));
  where.fail("no capacity entry for gpu " + gpu + " of any GPU model (a key such as " +
             quote_for_message(capacity_key("A10", p.resources)) +
             "; or set gpuType); capacity has: " + join(keys));
}

// ---- cold start ----

ColdStartSpec read_cold_start(const ConfigNode& node, ConfigErrors& errors) {
  ColdStartSpec s;
  const ConfigFields m(node, {"imagePull", "modelDownload", "load", "prefetch"}, errors);
  m.read("imagePull",
         [&](const ConfigNode& n) { s.image_pull = n.as_duration(kMaxColdStartPart); });
  m.read("load", [&](const ConfigNode& n) { s.load = n.as_duration(kMaxColdStartPart); });
  bool cache_known = !m.has("modelDownload");  // no download: nothing cached
  if (const std::optional<ConfigNode> d = m.optional("modelDownload")) {
    const ConfigFields f(*d, {"size", "cache", "bandwidth"}, errors);
    ModelDownloadSpec& md = s.model_download;
    f.read_required("size", [&](const ConfigNode& n) { md.size_bytes = n.as_bytes(); });
    cache_known =
        !f.has("cache") || f.read("cache", [&](const ConfigNode& n) { md.cache = n.as_bool(); });
    cache_known = cache_known && f.valid();
    f.read("bandwidth", [&](const ConfigNode& n) {
      md.bandwidth_bytes_per_second = read_positive_bandwidth(n);
    });
  }
  m.read("prefetch", [&](const ConfigNode& n) {
    s.prefetch_nodes = static_cast<int>(n.as_int(0, kMaxPrefetchNodes));
    if (s.prefetch_nodes > 0 && cache_known && !s.model_download.cache)
      n.fail("prefetch warms the model cache of nodes; it needs modelDownload with cache: true");
  });
  return s;
}

// ---- autoscaler ----

void read_kpa_target(const ConfigFields& t, AutoscalerSpec& a) {
  ConfigErrors& errors = t.errors();
  for (const char* key : {"metric", "averageValue"})
    if (const std::optional<ConfigNode> n = t.optional(key))
      errors.add(
          *n, std::string(key) + " is an HPA target; a KPA's target is {concurrency, utilization}");
  t.read("concurrency", [&](const ConfigNode& n) {
    a.target_concurrency = read_positive(n, kMaxTargetConcurrency);
  });
  t.read("utilization",
         [&](const ConfigNode& n) { a.target_utilization_percent = read_percent(n); });
}

// requests per second per replica, a Kubernetes quantity: 50, "50", "500m".
double read_average_value(const ConfigNode& n) {
  const std::string text = n.as_string();
  const Result<int64_t> milli = parse_cpu_milli(text, static_cast<int64_t>(kMaxServiceQps) * 1000);
  if (!milli || milli.value() <= 0)
    n.fail("expected requests per second per replica above 0, such as 50 or \"500m\", got " +
           quote_for_message(text));
  return static_cast<double>(milli.value()) / 1000.0;
}

void read_hpa_target(const ConfigFields& t, AutoscalerSpec& a) {
  ConfigErrors& errors = t.errors();
  if (const std::optional<ConfigNode> n = t.optional("concurrency"))
    errors.add(*n,
               "concurrency is a KPA target; an HPA's target is {metric: gpu|cpu, utilization} "
               "or {metric: qps, averageValue}");
  const bool metric_ok = t.read_required("metric", [&](const ConfigNode& n) {
    a.hpa_metric = n.as_enum<HpaMetric>(
        {{"gpu", HpaMetric::kGpu}, {"cpu", HpaMetric::kCpu}, {"qps", HpaMetric::kQps}});
  });
  if (!metric_ok) {  // read what is there, without checks that need the metric
    t.read("utilization", [&](const ConfigNode& n) { a.target_utilization = read_percent(n); });
    t.read("averageValue", [&](const ConfigNode& n) { a.target_qps = read_average_value(n); });
    return;
  }
  if (a.hpa_metric == HpaMetric::kQps) {
    if (const std::optional<ConfigNode> n = t.optional("utilization"))
      errors.add(*n,
                 "metric qps takes averageValue (requests per second per replica), not "
                 "utilization");
    if (!t.has("averageValue"))
      t.missing("averageValue",
                ": metric qps scales on requests per second per replica, such as averageValue: "
                "50");
    t.read("averageValue", [&](const ConfigNode& n) { a.target_qps = read_average_value(n); });
    return;
  }
  const std::string metric = a.hpa_metric == HpaMetric::kGpu ? "gpu" : "cpu";
  if (const std::optional<ConfigNode> n = t.optional("averageValue"))
    errors.add(
        *n, "averageValue goes with metric qps; metric " + metric + " takes utilization (percent)");
  if (!t.has("utilization"))
    t.missing("utilization",
              " (percent): metric " + metric + " scales on utilization, such as utilization: 60");
  t.read("utilization", [&](const ConfigNode& n) { a.target_utilization = read_percent(n); });
}

// A ratio 1.1..10, or "200%" (percent).
double read_panic_threshold(const ConfigNode& n) {
  const std::string text = n.as_string();
  if (!text.empty() && text.back() == '%') {
    const Result<double> r =
        parse_number(std::string_view(text).substr(0, text.size() - 1), 110, 1000);
    if (!r)
      n.fail("expected a percentage from 110% to 1000%, such as \"200%\", got " +
             quote_for_message(text));
    return r.value() / 100.0;
  }
  const double v = n.as_double(0, 1e9);
  if (v >= 1.1 && v <= 10) return v;
  std::string message =
      "expected a ratio from 1.1 to 10 (2 = panic at twice the ready pods' capacity), got " +
      quote_for_message(text);
  if (v >= 110 && v <= 1000)
    message +=
        "; for a percentage write \"" + text + "%\" or Knative's panicThresholdPercentage: " + text;
  n.fail(message);
}

// Knative's max-scale-up-rate and max-scale-down-rate: greater than 1.
double read_rate(const ConfigNode& n) {
  const double v = n.as_double(0, kMaxRate);
  if (!(v > 1))
    n.fail("expected a rate greater than 1 (Knative's rule), got " +
           quote_for_message(n.as_string()));
  return v;
}

// Two spellings of one setting, both given: recorded at the second.
void one_setting(const ConfigNode& second, std::string_view key, std::string_view knative_key,
                 ConfigErrors& errors) {
  errors.add(second, std::string(key) + " and " + std::string(knative_key) +
                         " (Knative's spelling) are one setting; give one of them");
}

void read_kpa_windows(const ConfigFields& m,
                      const std::function<std::optional<ConfigNode>(std::string_view)>& kpa_key,
                      AutoscalerSpec& a) {
  ConfigErrors& errors = m.errors();
  bool stable_ok = true;
  if (const std::optional<ConfigNode> n = kpa_key("stableWindow"))
    stable_ok = errors.attempt([&] {
      a.stable_window = n->as_duration(kMaxStableWindow);
      if (a.stable_window < kMinStableWindow)
        n->fail("expected 6s to 1h (Knative's range), got " + quote_for_message(n->as_string()));
      if (a.stable_window.micros() % seconds(1).micros() != 0)
        n->fail("expected whole seconds (Knative's rule), got " +
                quote_for_message(n->as_string()));
    });
  // Knative sets the panic window as a share of the stable window (10 % by default).
  a.panic_window = Duration(a.stable_window.micros() / 10);
  const std::optional<ConfigNode> window = kpa_key("panicWindow");
  const std::optional<ConfigNode> percentage = kpa_key("panicWindowPercentage");
  if (window && percentage) {
    one_setting(*percentage, "panicWindow", "panicWindowPercentage", errors);
  } else if (window) {
    errors.attempt([&] {
      a.panic_window = window->as_positive_duration(kMaxStableWindow);
      if (stable_ok && a.panic_window > a.stable_window)
        window->fail("panicWindow (" + window->as_string() +
                     ") is longer than the stable window (" + format_duration(a.stable_window) +
                     ")");
    });
  } else if (percentage) {
    errors.attempt([&] {
      const double pct = percentage->as_double(1, 100);
      a.panic_window = Duration::from_seconds(a.stable_window.seconds() * pct / 100.0);
    });
  }
  const std::optional<ConfigNode> ratio = kpa_key("panicThreshold");
  const std::optional<ConfigNode> percent = kpa_key("panicThresholdPercentage");
  if (ratio && percent)
    one_setting(*percent, "panicThreshold", "panicThresholdPercentage", errors);
  else if (ratio)
    errors.attempt([&] { a.panic_threshold = read_panic_threshold(*ratio); });
  else if (percent)
    errors.attempt([&] { a.panic_threshold = percent->as_double(110, 1000) / 100.0; });
  if (const std::optional<ConfigNode> n = kpa_key("maxScaleDownRate"))
    errors.attempt([&] { a.max_scale_down_rate = read_rate(*n); });
  if (const std::optional<ConfigNode> n = kpa_key("maxScaleUpRate"))
    errors.attempt([&] { a.max_scale_up_rate = read_rate(*n); });
  if (const std::optional<ConfigNode> n = kpa_key("scaleToZeroGracePeriod"))
    errors.attempt([&] { a.scale_to_zero_grace = n->as_positive_duration(); });
  // Knative's scale-down-delay: 0 to 1 h.
  if (const std::optional<ConfigNode> n = kpa_key("scaleDownDelay"))
    errors.attempt([&] { a.scale_down_delay = n->as_duration(hours(1)); });
}

AutoscalerSpec read_autoscaler(const ConfigNode& node, ConfigErrors& errors) {
  AutoscalerSpec a;
  const ConfigFields m(
      node,
      {"kind", "minReplicas", "maxReplicas", "replicas", "target", "stableWindow", "panicWindow",
       "panicWindowPercentage", "panicThreshold", "panicThresholdPercentage", "maxScaleDownRate",
       "maxScaleUpRate", "scaleToZeroGracePeriod", "scaleDownDelay", "tolerance",
       "scaleDownStabilization"},
      errors);
  if (!m.valid()) return a;
  std::optional<AutoscalerKind> kind;
  m.read_required("kind", [&](const ConfigNode& n) {
    kind = n.as_enum<AutoscalerKind>({{"KPA", AutoscalerKind::kKpa},
                                      {"HPA", AutoscalerKind::kHpa},
                                      {"none", AutoscalerKind::kNone},
                                      {"kpa.autoscaling.knative.dev", AutoscalerKind::kKpa},
                                      {"hpa.autoscaling.knative.dev", AutoscalerKind::kHpa}});
  });
  if (kind) a.kind = *kind;
  const bool scales = !kind || *kind != AutoscalerKind::kNone;  // KPA, HPA, or not known

  // A key of some kinds only: its node when it applies (or the kind is not known), else an error.
  const auto only = [&](std::string_view key, AutoscalerKind k, const char* whose) {
    std::optional<ConfigNode> n = m.optional(key);
    if (!n || !kind || *kind == k) return n;
    errors.add(*n, std::string(key) + " is a setting of the " + to_string(k) + " (" + whose +
                       "); this autoscaler's kind is " + to_string(*kind));
    return std::optional<ConfigNode>();
  };
  const auto scaling = [&](std::string_view key) {
    std::optional<ConfigNode> n = m.optional(key);
    if (!n || scales) return n;
    errors.add(*n, std::string(key) +
                       " applies to kinds KPA and HPA; kind none keeps `replicas` replicas");
    return std::optional<ConfigNode>();
  };

  if (const std::optional<ConfigNode> n = m.optional("replicas")) {
    if (kind && *kind == AutoscalerKind::kNone) {
      errors.attempt([&] {
        a.min_replicas = a.max_replicas = static_cast<int>(n->as_int(1, kMaxServiceReplicas));
      });
    } else if (kind) {
      errors.add(*n, std::string("replicas is the fixed count of kind none; a ") +
                         to_string(*kind) + " scales between minReplicas and maxReplicas");
    }
  } else if (kind && *kind == AutoscalerKind::kNone) {
    m.missing("replicas", ": kind none runs a fixed number of replicas");
  }

  const std::optional<ConfigNode> min_node = scaling("minReplicas");
  const std::optional<ConfigNode> max_node = scaling("maxReplicas");
  bool min_ok = false, max_ok = false;
  if (min_node)
    min_ok = errors.attempt(
        [&] { a.min_replicas = static_cast<int>(min_node->as_int(0, kMaxServiceReplicas)); });
  else if (scales)
    min_ok = true;  // KServe's default, 1
  if (max_node) {
    max_ok = errors.attempt([&] {
      a.max_replicas = static_cast<int>(max_node->as_int(0, kMaxServiceReplicas));
      if (a.max_replicas == 0)
        max_node->fail(
            "expected at least 1; Knative's 0 (no upper bound) is not simulated: give the most "
            "replicas the service may have");
    });
  } else if (kind && scales) {
    m.missing("maxReplicas", ": the most replicas the autoscaler may run, at least 1");
  }
  if (min_ok && max_ok && a.min_replicas > a.max_replicas) {
    errors.add(min_node ? *min_node : *max_node, "minReplicas (" + std::to_string(a.min_replicas) +
                                                     ") is above maxReplicas (" +
                                                     std::to_string(a.max_replicas) + ")");
  } else if (min_ok && kind && *kind == AutoscalerKind::kHpa && a.min_replicas == 0) {
    errors.add(*min_node,
               "Kubernetes disables an HPA whose target has 0 replicas; use KPA for scale to "
               "zero or minReplicas >= 1");
  }

  if (const std::optional<ConfigNode> n = scaling("target")) {
    const ConfigFields t(*n, {"concurrency", "utilization", "metric", "averageValue"}, errors);
    if (t.valid()) {
      if (kind && *kind == AutoscalerKind::kHpa)
        read_hpa_target(t, a);
      else if (kind)
        read_kpa_target(t, a);
    }
  } else if (kind && *kind == AutoscalerKind::kHpa) {
    m.missing("target",
              ": an HPA scales on {metric: gpu|cpu, utilization} or {metric: qps, "
              "averageValue}");
  }

  const auto kpa_key = [&](std::string_view key) {
    return only(key, AutoscalerKind::kKpa, "Knative");
  };
  read_kpa_windows(m, kpa_key, a);
  if (const std::optional<ConfigNode> n = only("tolerance", AutoscalerKind::kHpa, "Kubernetes"))
    errors.attempt([&] {
      a.tolerance = n->as_double(0, 1);
      if (a.tolerance >= 1)
        n->fail("expected a fraction from 0 to below 1, such as 0.1, got " +
                quote_for_message(n->as_string()));
    });
  if (const std::optional<ConfigNode> n =
          only("scaleDownStabilization", AutoscalerKind::kHpa, "Kubernetes"))
    errors.attempt([&] { a.scale_down_stabilization = n->as_duration(kMaxStabilization); });
  return a;
}

// ---- SLO and load ----

SloSpec read_slo(const ConfigNode& node, ConfigErrors& errors) {
  SloSpec s;
  const ConfigFields m(node, {"p99Latency"}, errors);
  m.read_required("p99Latency",
                  [&](const ConfigNode& n) { s.p99_latency = n.as_positive_duration(kMaxSlo); });
  return s;
}

void read_trace(const ConfigNode& node, LoadSpec& l, ConfigErrors& errors) {
  const ConfigFields m(node, {"format", "file", "loop", "speedup"}, errors);
  m.read_required("format", [&](const ConfigNode& n) {
    enum class Format { kAzureLlm2023 };
    n.as_enum<Format>({{"azure-llm-2023", Format::kAzureLlm2023}});
    l.trace_format = n.as_string();
  });
  m.read_required("file", [&](const ConfigNode& n) {
    const std::string file = n.as_name();
    const std::filesystem::path base = std::filesystem::path(n.file()).parent_path();
    l.trace_file = (base / file).lexically_normal().string();
    l.trace_where = n.location();
    l.trace_field = n.path();
    if (!std::filesystem::is_regular_file(l.trace_file)) n.fail("no such file: " + l.trace_file);
    std::ifstream in(l.trace_file, std::ios::binary);
    if (!in) n.fail("cannot read " + l.trace_file + ": " + std::strerror(errno));
  });
  m.read("loop", [&](const ConfigNode& n) { l.loop = n.as_bool(); });
  m.read("speedup", [&](const ConfigNode& n) { l.speedup = read_positive(n, kMaxSpeedup); });
}

void read_curve(const ConfigNode& node, LoadSpec& l, ConfigErrors& errors) {
  const ConfigFields m(node, {"kind", "peakQps", "troughQps", "period", "peakAt"}, errors);
  m.read_required("kind", [&](const ConfigNode& n) {
    enum class Curve { kDiurnal };
    n.as_enum<Curve>({{"diurnal", Curve::kDiurnal}});
  });
  const bool peak_ok = m.read_required(
      "peakQps", [&](const ConfigNode& n) { l.peak_qps = read_positive(n, kMaxServiceQps); });
  m.read_required("troughQps", [&](const ConfigNode& n) {
    l.trough_qps = n.as_double(0, kMaxServiceQps);
    if (peak_ok && l.trough_qps > l.peak_qps)
      n.fail("troughQps (" + n.as_string() + ") is above peakQps (" +
             m.optional("peakQps")->as_string() + ")");
  });
  const bool period_ok =
      m.read("period", [&](const ConfigNode& n) { l.period = n.as_positive_duration(); }) ||
      !m.has("period");
  // The default peak is 14:00 of a day: the same phase of another period.
  l.peak_at = Duration(l.period.micros() / 24 * 14);
  m.read("peakAt", [&](const ConfigNode& n) {
    l.peak_at = n.as_duration();
    if (period_ok && l.peak_at >= l.period)
      n.fail("peakAt (" + n.as_string() + ") must be within the period (" +
             format_duration(l.period) + "): an offset from its start");
  });
}

LoadSpec read_load(const ConfigNode& node, ConfigErrors& errors) {
  LoadSpec l;
  const ConfigFields m(node, {"trace", "curve", "poisson", "prefillTokens", "decodeTokens"},
                       errors);
  if (!m.valid()) return l;
  std::vector<std::string_view> given;
  for (std::string_view key : {"trace", "curve", "poisson"})
    if (m.has(key)) given.push_back(key);
  if (given.empty()) {
    errors.add(node,
               "expected one source of requests: trace, curve or poisson, such as poisson: "
               "{qps: 50}");
    return l;
  }
  if (given.size() > 1) {
    // Blamed on the later of the first two in the file.
    std::sort(given.begin(), given.end(), [&](std::string_view a, std::string_view b) {
      const SourceLocation la = m.optional(a)->location(), lb = m.optional(b)->location();
      return std::pair(la.line, la.column) < std::pair(lb.line, lb.column);
    });
    errors.add(*m.optional(given[1]), "a load has one source; " + std::string(given[0]) + " and " +
                                          std::string(given[1]) +
                                          " are both given, keep one of them");
    return l;
  }
  const ConfigNode source = *m.optional(given[0]);
  if (given[0] == "trace") {
    l.kind = LoadKind::kTrace;
    read_trace(source, l, errors);
    for (const char* key : {"prefillTokens", "decodeTokens"})
      if (const std::optional<ConfigNode> n = m.optional(key))
        errors.add(*n, std::string(key) +
                           " applies to generated loads (curve, poisson); a trace gives each "
                           "request's tokens");
    return l;
  }
  if (given[0] == "curve") {
    l.kind = LoadKind::kCurve;
    read_curve(source, l, errors);
  } else {
    l.kind = LoadKind::kPoisson;
    const ConfigFields p(source, {"qps"}, errors);
    p.read_required("qps", [&](const ConfigNode& n) { l.qps = read_positive(n, kMaxServiceQps); });
  }
  m.read("prefillTokens",
         [&](const ConfigNode& n) { l.prefill_tokens = n.as_int(0, kMaxRequestTokens); });
  m.read("decodeTokens",
         [&](const ConfigNode& n) { l.decode_tokens = n.as_int(1, kMaxRequestTokens); });
  return l;
}

// ---- the service ----

struct ServiceEntry {
  ServiceSpec spec;
  std::optional<ConfigNode> name;  // absent when the name had an error or came from elsewhere
};

void read_predictors(const ConfigFields& m, const ServiceContext& ctx, ServiceSpec& s,
                     std::vector<PredictorEntry>& entries) {
  ConfigErrors& errors = m.errors();
  const std::optional<ConfigNode> list = m.required("predictors");
  if (!list) return;
  std::vector<ConfigNode> items;
  if (!errors.attempt([&] {
        items = list->as_sequence();
        if (items.empty())
          list->fail(
              "expected at least one predictor, such as {name: v1, model: llama-13b, "
              "resources: {gpu: 1, gpuType: A10}}");
        if (static_cast<int64_t>(items.size()) > kMaxPredictors)
          list->fail(std::to_string(items.size()) + " predictors; at most " +
                     std::to_string(kMaxPredictors) + " are simulated");
      }))
    return;
  const bool traffic_required = items.size() > 1 && !m.has("canaryTrafficPercent");
  std::map<std::string, int, std::less<>> lines;  // predictor name -> line of its first use
  for (const ConfigNode& item : items) {
    PredictorEntry e = read_predictor(item, ctx, traffic_required, errors);
    if (e.name) {
      const auto [it, inserted] = lines.emplace(e.spec.name, e.name->location().line);
      if (!inserted)
        errors.add(*e.name, "duplicate predictor name " + quote_for_message(e.spec.name) +
                                " (first used at line " + std::to_string(it->second) + ")");
    }
    s.predictors.push_back(e.spec);
    entries.push_back(std::move(e));
  }
  // Without a canary the traffic weights route the requests: some must be above 0.
  if (m.has("canaryTrafficPercent")) return;
  const bool all_known = std::all_of(entries.begin(), entries.end(),
                                     [](const PredictorEntry& e) { return e.traffic_known; });
  double sum = 0;
  for (const PredictorEntry& e : entries) sum += e.spec.traffic;
  if (all_known && !(sum > 0))
    errors.add(*list,
               "every predictor's traffic is 0: no request would be served; give at least one "
               "a share above 0");
}

ServiceEntry read_service_fields(const ConfigFields& m, const ServiceContext& ctx) {
  ConfigErrors& errors = m.errors();
  ServiceEntry out;
  ServiceSpec& s = out.spec;
  if (!m.valid()) return out;
  m.read("start", [&](const ConfigNode& n) {
    s.start = n.as_duration();
    offset_time(n, ctx.start, s.start);
  });
  std::vector<PredictorEntry> predictors;
  read_predictors(m, ctx, s, predictors);
  m.read("canaryTrafficPercent", [&](const ConfigNode& n) {
    s.canary_percent = n.as_double(0, 100);
    if (!predictors.empty() && predictors.size() < 2)
      n.fail(
          "a canary splits the traffic between the last two predictors (the previous "
          "revision and the canary); this service has " +
          std::to_string(predictors.size()));
  });
  const size_t before_capacity = errors.size();
  if (const std::optional<ConfigNode> n = m.required("capacity")) {
    s.capacity = read_capacity(*n, ctx, errors);
    if (errors.size() == before_capacity)
      for (const PredictorEntry& p : predictors)
        if (p.request_ok && p.resources)
          errors.attempt([&] { check_capacity_entry(*p.resources, s, p.spec); });
  }
  if (const std::optional<ConfigNode> n = m.optional("coldStart"))
    s.cold_start = read_cold_start(*n, errors);
  if (const std::optional<ConfigNode> n = m.required("autoscaler"))
    s.autoscaler = read_autoscaler(*n, errors);
  if (const std::optional<ConfigNode> n = m.optional("slo")) s.slo = read_slo(*n, errors);
  if (const std::optional<ConfigNode> n = m.required("load")) s.load = read_load(*n, errors);
  return out;
}

ServiceEntry read_named_service(const ConfigNode& node, const ServiceContext& ctx,
                                ConfigErrors& errors) {
  const ConfigFields m(node,
                       {"name", "start", "predictors", "canaryTrafficPercent", "capacity",
                        "coldStart", "autoscaler", "slo", "load"},
                       errors);
  std::string name;
  std::optional<ConfigNode> name_node;
  m.read_required("name", [&](const ConfigNode& n) {
    name = n.as_name();
    name_node = n;
  });
  ServiceEntry e = read_service_fields(m, ctx);
  e.spec.name = std::move(name);
  e.name = name_node;
  return e;
}

}  // namespace

ServiceSpec read_service(const ConfigNode& node, const ServiceContext& ctx, ConfigErrors& errors) {
  return read_named_service(node, ctx, errors).spec;
}

ServiceSpec read_service_spec(const ConfigNode& node, std::string name, const ServiceContext& ctx,
                              ConfigErrors& errors) {
  const ConfigFields m(node,
                       {"start", "predictors", "canaryTrafficPercent", "capacity", "coldStart",
                        "autoscaler", "slo", "load"},
                       errors);
  ServiceSpec s = read_service_fields(m, ctx).spec;
  s.name = std::move(name);
  return s;
}

std::vector<ServiceSpec> read_services(const ConfigNode& list, const ServiceContext& ctx,
                                       ConfigErrors& errors) {
  std::vector<ServiceSpec> out;
  std::vector<ConfigNode> items;
  if (!errors.attempt([&] {
        items = list.as_sequence();
        if (static_cast<int64_t>(items.size()) > kMaxServices)
          list.fail(std::to_string(items.size()) + " services; at most " +
                    std::to_string(kMaxServices) + " are simulated");
      }))
    return out;
  std::map<std::string, int, std::less<>> lines;  // service name -> line of its first use
  for (const ConfigNode& item : items) {
    ServiceEntry e = read_named_service(item, ctx, errors);
    if (e.name) {
      const auto [it, inserted] = lines.emplace(e.spec.name, e.name->location().line);
      if (!inserted)
        errors.add(*e.name, "duplicate service name " + quote_for_message(e.spec.name) +
                                " (first used at line " + std::to_string(it->second) + ")");
    }
    out.push_back(std::move(e.spec));
  }
  return out;
}

}  // namespace gantry
