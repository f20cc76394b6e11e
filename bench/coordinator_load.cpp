// gantry-coordinator-load: the sweep coordinator of `gantry serve` on loopback (issue 25's
// figures): runs posted per second, and 1,000 long polls held at once (the pods' watches for
// cancellation), with the posting rate while they are held and the time for all of them to
// answer once the sweep ends.
//
//   gantry-coordinator-load [REPS=5] [CLIENTS=4] [POLLS=1000] [BATCH=1]
//
// In one process, as `gantry serve` wires it: a SweepCoordinator on a WAL database in a
// temporary folder, the ApiServer (token checks included) and civetweb (POLLS + 64 threads).
// Each repetition submits two sweeps of 20,000 runs (20 points of the quickstart × 1,000
// seeds) split into CLIENTS shards:
//  1. CLIENTS threads each post their shard's runs, BATCH runs a request, one request after
//     the other over a keep-alive connection (libcurl, as the workers do): runs/s;
//  2. POLLS raw connections each send GET .../progress?timeout=60 (a watch for the end) and
//     wait; once the coordinator counts all of them waiting, the threads post the second
//     sweep's runs (runs/s with the polls held); its last run ends the sweep, and the time
//     until every poll has its answer is measured.
// Prints a JSON line per repetition and the medians. The figures go to bench/RESULTS.md.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "web/client/sweep_coordinator_client.hpp"
#include "web/server/api_routes.hpp"
#include "web/server/http_server.hpp"

namespace {

using namespace gantry;
using namespace gantry::web;
using SteadyClock = std::chrono::steady_clock;

double seconds_since(SteadyClock::time_point t) {
  return std::chrono::duration<double>(SteadyClock::now() - t).count();
}

// CPU seconds (user + system) of the process or of the calling thread.
double cpu_seconds(int who) {
  rusage u{};
  ::getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

long rss_kib() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return 0;
}

SweepDocuments documents() {
  std::ifstream in(std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml");
  std::stringstream base;
  base << in.rdbuf();
  SweepDocuments d;
  d.sweep = "load.yaml";
  d.files["quickstart.yaml"] = base.str();
  d.files["load.yaml"] = R"(apiVersion: gantry.dev/v1
kind: Sweep
metadata: {name: load}
spec:
  base: quickstart.yaml
  seeds: 1000
  axes:
  - {name: placement, path: spec.policy.placement, values: [binpack, spread, topology, random]}
  - {name: nodes, path: "spec.cluster.racks[*].nodes", values: [6, 7, 8, 9, 10]}
  metrics: [wait.p95, jct.mean, gpu.allocated, jobs.finished]
)";
  return d;
}

// Posts every run of `shard` but those in `skip`, `batch` at a time; returns the runs posted.
size_t post_shard(const std::string& url, const SweepSubmission& s, size_t shard, size_t batch,
                  const std::vector<size_t>& skip) {
  SweepCoordinatorClient client(url, s.token);
  const SweepShard w = client.shard(s.id, shard);
  size_t posted = 0;
  std::vector<PostedRun> runs;
  for (size_t r = w.range.begin; r < w.range.end; ++r) {
    if (std::find(skip.begin(), skip.end(), r) != skip.end()) continue;
    runs.push_back({r, 42 + r % 1000, 0x9e3779b97f4a7c15ULL * (r + 1), {1.5, 2.5, 0.75, 12}});
    if (runs.size() == batch || r + 1 == w.range.end) {
      client.post_runs(s.id, shard, runs);
      posted += runs.size();
      runs.clear();
    }
  }
  if (!runs.empty()) {
    client.post_runs(s.id, shard, runs);
    posted += runs.size();
  }
  return posted;
}

struct PostFigures {
  double runs_per_s = 0;
  // CPU time per run: the whole process's, and the server's alone (the process's less the
  // posting threads'). The machine's other load does not change them, unlike runs_per_s.
  double cpu_us_per_run = 0, server_cpu_us_per_run = 0;
};

// Every shard posted by its own thread.
PostFigures post_all(const std::string& url, const SweepSubmission& s, size_t batch,
                     const std::vector<size_t>& skip) {
  std::vector<std::thread> threads;
  std::vector<size_t> counts(s.shards);
  std::vector<double> client_cpu(s.shards);
  const double cpu0 = cpu_seconds(RUSAGE_SELF);
  const auto t0 = SteadyClock::now();
  for (size_t k = 0; k < s.shards; ++k)
    threads.emplace_back([&, k] {
      const double c0 = cpu_seconds(RUSAGE_THREAD);
      counts[k] = post_shard(url, s, k, batch, skip);
      client_cpu[k] = cpu_seconds(RUSAGE_THREAD) - c0;
    });
  for (std::thread& t : threads) t.join();
  const double secs = seconds_since(t0);
  const double cpu = cpu_seconds(RUSAGE_SELF) - cpu0;
  size_t total = 0;
  double clients = 0;
  for (size_t k = 0; k < s.shards; ++k) {
    total += counts[k];
    clients += client_cpu[k];
  }
  const double n = static_cast<double>(total);
  return {n / secs, cpu * 1e6 / n, (cpu - clients) * 1e6 / n};
}

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    std::perror("connect");
    std::exit(2);
  }
  return fd;
}

// A complete HTTP answer in `in` (head and Content-Length bytes of body)?
bool complete(const std::string& in) {
  const size_t head = in.find("\r\n\r\n");
  if (head == std::string::npos) return false;
  const size_t cl = in.find("Content-Length: ");
  if (cl == std::string::npos || cl > head) return false;
  return in.size() >= head + 4 + std::strtoul(in.c_str() + cl + 16, nullptr, 10);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  const size_t clients = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 4;
  const size_t polls = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 1000;
  const size_t batch = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 1;
  std::vector<double> post_rates, held_rates, wake_ms, cpu_us, server_cpu_us;
  for (int rep = 0; rep < reps; ++rep) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "gantry-coordinator-load-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) return 2;
    const std::string db = pattern + "/g.db";
    double post_rate = 0, held_rate = 0, wake = 0;
    PostFigures figures;
    size_t answered = 0;
    long rss_before = 0, rss_held = 0;
    {
      EventBus bus;
      TokenStore tokens(db);
      SweepCoordinator coordinator(db, tokens, bus, {.max_waiters = polls});
      ApiServer api(tokens, {.ui_root = pattern + "/ui"});
      add_distributed_sweep_routes(api.router(), coordinator);
      HttpServer server({.listen = "127.0.0.1:0", .threads = static_cast<int>(polls + 64)},
                        [&api](HttpRequest& r) { return api.dispatch(r); });
      const std::string admin = tokens.create(TokenRole::kAdmin, "bench");
      SweepCoordinatorClient cli(server.url(), admin);

      const SweepSubmission first = cli.submit(documents(), clients);
      figures = post_all(server.url(), first, batch, {});
      post_rate = figures.runs_per_s;
      // Every run counted once: the group commit lost none and doubled none.
      if (cli.get(first.id)["runs"]["done"] != first.runs) {
        std::fprintf(stderr, "gantry-coordinator-load: runs lost or doubled\n");
        return 1;
      }

      const SweepSubmission second = cli.submit(documents(), clients);
      rss_before = rss_kib();
      std::vector<int> fds;
      const std::string request = "GET /api/v1/distributed-sweeps/" + second.id +
                                  "/progress?timeout=60 HTTP/1.1\r\nHost: x\r\nAuthorization: "
                                  "Bearer " +
                                  second.token + "\r\n\r\n";
      for (size_t i = 0; i < polls; ++i) {
        const int fd = connect_to(server.port());
        if (::write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size()))
          return 2;
        fds.push_back(fd);
      }
      // The coordinator's own count says when all of them wait (the benchmark may spin).
      while (coordinator.waiting() < polls)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      rss_held = rss_kib();
      // Every run but the sweep's last, with the polls held.
      const size_t last = second.runs - 1;
      held_rate = post_all(server.url(), second, batch, {last}).runs_per_s;
      const int ep = ::epoll_create1(0);
      std::vector<std::string> in(polls);
      for (size_t i = 0; i < polls; ++i) {
        epoll_event e{};
        e.events = EPOLLIN;
        e.data.u64 = i;
        ::epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e);
      }
      const auto t0 = SteadyClock::now();
      SweepCoordinatorClient(server.url(), second.token)
          .post_runs(second.id, second.shards - 1, {{last, 42, 1, {1.5, 2.5, 0.75, 12}}});
      std::vector<epoll_event> events(256);
      while (answered < polls) {
        const int n = ::epoll_wait(ep, events.data(), static_cast<int>(events.size()), 70'000);
        if (n <= 0) break;
        for (int j = 0; j < n; ++j) {
          const size_t i = events[j].data.u64;
          char buf[4096];
          const ssize_t got = ::read(fds[i], buf, sizeof buf);
          if (got > 0) in[i].append(buf, static_cast<size_t>(got));
          if (got <= 0 || complete(in[i])) {
            if (in[i].rfind("HTTP/1.1 200", 0) == 0 && in[i].find("\"done\"") != std::string::npos)
              ++answered;
            ::epoll_ctl(ep, EPOLL_CTL_DEL, fds[i], nullptr);
          }
        }
      }
      wake = seconds_since(t0) * 1000;
      ::close(ep);
      for (int fd : fds) ::close(fd);
      coordinator.close();
    }
    std::filesystem::remove_all(pattern);
    post_rates.push_back(post_rate);
    held_rates.push_back(held_rate);
    wake_ms.push_back(wake);
    cpu_us.push_back(figures.cpu_us_per_run);
    server_cpu_us.push_back(figures.server_cpu_us_per_run);
    std::printf(
        "{\"rep\": %d, \"clients\": %zu, \"batch\": %zu, \"runs_per_s\": %.0f, "
        "\"cpu_us_per_run\": %.1f, \"server_cpu_us_per_run\": %.1f, \"polls\": %zu, "
        "\"runs_per_s_with_polls_held\": %.0f, \"polls_answered\": %zu, "
        "\"ms_until_all_answered\": %.1f, \"rss_kib_before_polls\": %ld, "
        "\"rss_kib_polls_held\": %ld}\n",
        rep + 1, clients, batch, post_rate, figures.cpu_us_per_run, figures.server_cpu_us_per_run,
        polls, held_rate, answered, wake, rss_before, rss_held);
    std::fflush(stdout);
  }
  std::printf(
      "median: %.0f runs/s (CPU per run %.1f us, of it the server's %.1f us); %.0f runs/s with "
      "%zu long polls held; %.1f ms until all answered\n",
      median(post_rates), median(cpu_us), median(server_cpu_us), median(held_rates), polls,
      median(wake_ms));
}
