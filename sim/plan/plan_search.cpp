#include "sim/plan/plan_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gantry {

namespace {

using Sizes = std::vector<int64_t>;
constexpr int kGrid = 7;

// Evenly spread sizes from lo to hi, both included, at most kGrid of them.
std::vector<int64_t> grid(int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  const int64_t span = hi - lo;
  const int64_t points = std::min<int64_t>(kGrid, span + 1);
  for (int64_t i = 0; i < points; ++i) {
    const int64_t v = points == 1 ? lo : lo + (span * i + (points - 1) / 2) / (points - 1);
    if (out.empty() || out.back() != v) out.push_back(v);
  }
  return out;
}

class Search {
 public:
  Search(const PlanSpec& plan, PlanEvaluator& e)
      : plan_(plan), e_(e), last_(plan.pools.size() - 1) {}

  // For each prefix (sizes of pools 0 .. last − 1), the fewest nodes of the last pool that hold
  // the SLOs; nullopt when even its max does not. Bisections in lockstep.
  std::vector<std::optional<Sizes>> size_last(const std::vector<Sizes>& prefixes) {
    const PlanPool& pool = plan_.pools[last_];
    struct State {
      int64_t lo, hi;  // lo fails (or is below min), hi holds
      bool done = false;
      std::optional<Sizes> answer;
    };
    std::vector<State> states(prefixes.size(), State{pool.min - 1, pool.max});
    const auto with = [&](size_t i, int64_t n) {
      Sizes s = prefixes[i];
      s.push_back(n);
      return s;
    };
    // The top first: a prefix whose last pool at max fails has no answer.
    std::vector<Sizes> batch;
    for (size_t i = 0; i < prefixes.size(); ++i) batch.push_back(with(i, pool.max));
    e_.evaluate(batch);
    for (size_t i = 0; i < prefixes.size(); ++i)
      if (!e_.feasible(with(i, pool.max))) states[i].done = true;
    while (true) {
      batch.clear();
      for (size_t i = 0; i < states.size(); ++i) {
        State& s = states[i];
        if (s.done) continue;
        if (s.hi - s.lo <= 1) {
          s.done = true;
          s.answer = with(i, s.hi);
          continue;
        }
        batch.push_back(with(i, s.lo + (s.hi - s.lo) / 2));
      }
      if (batch.empty()) break;
      e_.evaluate(batch);
      for (size_t i = 0; i < states.size(); ++i) {
        State& s = states[i];
        if (s.done) continue;
        const int64_t mid = s.lo + (s.hi - s.lo) / 2;
        (e_.feasible(with(i, mid)) ? s.hi : s.lo) = mid;
      }
    }
    std::vector<std::optional<Sizes>> out;
    for (State& s : states) out.push_back(std::move(s.answer));
    return out;
  }

  // The cheapest configuration extending `prefix` (pools 0 .. prefix.size() − 1 fixed).
  std::optional<Sizes> cheapest(const Sizes& prefix) {
    const size_t pool = prefix.size();
    if (pool == last_) return size_last({prefix}).front();
    int64_t lo = plan_.pools[pool].min, hi = plan_.pools[pool].max;
    std::optional<Sizes> best;
    while (true) {
      const std::vector<int64_t> values = grid(lo, hi);
      std::vector<std::optional<Sizes>> found;
      if (pool + 1 == last_) {
        std::vector<Sizes> prefixes;
        for (int64_t v : values) {
          prefixes.push_back(prefix);
          prefixes.back().push_back(v);
        }
        found = size_last(prefixes);
      } else {
        for (int64_t v : values) {
          Sizes p = prefix;
          p.push_back(v);
          found.push_back(cheapest(p));
        }
      }
      size_t at = values.size();
      for (size_t i = 0; i < values.size(); ++i)
        if (found[i] && (at == values.size() || cost(*found[i]) < cost(*found[at]))) at = i;
      if (at == values.size()) return best;
      if (!best || cost(*found[at]) < cost(*best)) best = found[at];
      if (values.size() < 2 || values[1] - values[0] <= 1) return best;
      lo = at > 0 ? values[at - 1] : values[at];
      hi = at + 1 < values.size() ? values[at + 1] : values[at];
    }
  }

  // Takes nodes off any pool that can lose them while the SLOs hold, until none can.
  Sizes descend(Sizes a) {
    for (bool moved = true; moved;) {
      moved = false;
      // Every pool's one-node-smaller neighbour at once (one batch on every core); they are
      // the answer's evidence when none holds.
      std::vector<Sizes> neighbours;
      for (size_t i = 0; i < a.size(); ++i)
        if (a[i] > plan_.pools[i].min) {
          neighbours.push_back(a);
          --neighbours.back()[i];
        }
      e_.evaluate(neighbours);
      for (size_t i = 0; i < a.size(); ++i) {
        if (a[i] <= plan_.pools[i].min) continue;
        Sizes one_less = a;
        --one_less[i];
        e_.evaluate({one_less});
        if (!e_.feasible(one_less)) continue;
        // It can: find the fewest by bisection, the others fixed.
        int64_t lo = plan_.pools[i].min - 1, hi = one_less[i];
        while (hi - lo > 1) {
          Sizes mid = a;
          mid[i] = lo + (hi - lo) / 2;
          e_.evaluate({mid});
          (e_.feasible(mid) ? hi : lo) = mid[i];
        }
        a[i] = hi;
        moved = true;
      }
    }
    return a;
  }

  double cost(const Sizes& s) const {
    double c = 0;
    for (size_t i = 0; i < s.size(); ++i)
      c += static_cast<double>(s[i]) * plan_.pools[i].price_per_node_hour;
    return c;
  }

 private:
  const PlanSpec& plan_;
  PlanEvaluator& e_;
  size_t last_;
};

}  // namespace

double full_grid_configurations(const PlanSpec& plan) {
  double n = 1;
  for (const PlanPool& p : plan.pools) n *= static_cast<double>(p.max - p.min + 1);
  return n;
}

PlanStepResult search_plan_step(const PlanSpec& plan, PlanEvaluator& evaluator, double growth) {
  PlanStepResult out{.growth = growth};
  Sizes top;
  for (const PlanPool& p : plan.pools) top.push_back(p.max);
  evaluator.evaluate({top});
  out.largest = &evaluator.at(top);
  Search search(plan, evaluator);
  if (out.largest->feasible) {
    if (const std::optional<Sizes> found = search.cheapest({})) {
      const Sizes answer = search.descend(*found);
      out.answer = &evaluator.at(answer);
      for (size_t i = 0; i < answer.size(); ++i) {
        if (answer[i] <= plan.pools[i].min) continue;
        Sizes one_less = answer;
        --one_less[i];
        evaluator.evaluate({one_less});
        out.neighbours.push_back({i, &evaluator.at(one_less)});
      }
    }
  }
  // The frontier: cost ascending, each waiting less than every cheaper one.
  const size_t wait = [&] {
    const auto& m = evaluator.metrics();
    return static_cast<size_t>(std::find(m.begin(), m.end(), "wait.p95") - m.begin());
  }();
  double best_wait = std::numeric_limits<double>::infinity();
  for (const PlanEvaluation* e : evaluator.all()) {
    if (!e->valid || std::isnan(e->stats[wait].mean)) continue;
    if (e->stats[wait].mean < best_wait) {
      best_wait = e->stats[wait].mean;
      out.frontier.push_back(e);
    }
  }
  out.simulations = evaluator.simulations();
  out.configurations = evaluator.all().size();
  return out;
}

}  // namespace gantry
