// gantry-http-load: an open-loop HTTP/1.1 load generator for the REST figures of issue #10
// (bench/serve_rest.sh). Debian's wrk (4.1) has no constant-rate mode: it sends the next
// request on a connection when the previous answer arrives (a closed loop), so a slow answer
// delays the requests behind it and they are never timed — coordinated omission. This program
// sends request k at its intended instant t0 + k / rate, whatever happened before, and times
// each answer from that intended instant: a request that had to wait for a free connection
// (all of them busy with slow answers) counts its wait. It also reports the service time
// (from the moment the request was written) so the two can be compared.
//
//   gantry-http-load --host 127.0.0.1 --port 8080 --rate 1000 --duration 30 --warmup 3
//       --connections 8 --header "Authorization: Bearer T" --paths FILE   (or --path P ...)
//
// Paths are used in turn (FILE: one per line). Keep-alive connections, opened at start; a
// request due while every connection is busy waits in a queue (and its latency grows). One
// thread, epoll, nanosecond timeouts (epoll_pwait2), so the pacing costs no spinning core.
// Prints one line of JSON: sent, completed, errors (status not 2xx, or a connection lost),
// achieved rate (answers per second over the measured window), and percentiles in
// microseconds of both latencies. Requests due in the first --warmup seconds are sent but not
// counted.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "gantry-http-load: %s\n", what.c_str());
  std::exit(2);
}

struct Options {
  std::string host = "127.0.0.1";
  int port = 8080;
  double rate = 1000;
  double duration = 30;
  double warmup = 3;
  int connections = 8;
  std::vector<std::string> headers;
  std::vector<std::string> paths;
};

struct Request {
  int64_t intended_ns;
  size_t path;
  bool counted;
};

struct Conn {
  int fd = -1;
  bool busy = false;
  Request req{};
  int64_t sent_ns = 0;
  std::string in;
  std::string out;
  size_t out_off = 0;
};

int connect_to(const Options& o) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) die("socket");
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(o.port));
  if (::inet_pton(AF_INET, o.host.c_str(), &a.sin_addr) != 1) die("--host: an IPv4 address");
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 && errno != EINPROGRESS)
    die("connect: " + std::string(std::strerror(errno)));
  return fd;
}

// Length of a complete response at the front of `in` and its status, or 0 when incomplete.
// Handles Content-Length bodies (every answer of gantry serve's API and static files).
size_t complete_response(const std::string& in, int& status) {
  const size_t head_end = in.find("\r\n\r\n");
  if (head_end == std::string::npos) return 0;
  if (in.compare(0, 9, "HTTP/1.1 ") != 0 && in.compare(0, 9, "HTTP/1.0 ") != 0)
    die("not an HTTP response: " + in.substr(0, 40));
  status = std::atoi(in.c_str() + 9);
  size_t length = 0;
  bool found = false;
  for (size_t pos = in.find("\r\n") + 2; pos < head_end;) {
    const size_t eol = in.find("\r\n", pos);
    const std::string line = in.substr(pos, eol - pos);
    if (line.size() > 15 && strncasecmp(line.c_str(), "content-length:", 15) == 0) {
      length = std::strtoull(line.c_str() + 15, nullptr, 10);
      found = true;
    }
    if (strncasecmp(line.c_str(), "transfer-encoding:", 18) == 0)
      die("chunked answers are not supported");
    pos = eol + 2;
  }
  if (!found) die("an answer without Content-Length");
  const size_t total = head_end + 4 + length;
  return in.size() >= total ? total : 0;
}

int64_t percentile(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  const size_t i = std::min(sorted.size() - 1, static_cast<size_t>(p * sorted.size()));
  return sorted[i];
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) die(a + ": a value expected");
      return argv[++i];
    };
    if (a == "--host")
      o.host = next();
    else if (a == "--port")
      o.port = std::stoi(next());
    else if (a == "--rate")
      o.rate = std::stod(next());
    else if (a == "--duration")
      o.duration = std::stod(next());
    else if (a == "--warmup")
      o.warmup = std::stod(next());
    else if (a == "--connections")
      o.connections = std::stoi(next());
    else if (a == "--header")
      o.headers.push_back(next());
    else if (a == "--path")
      o.paths.push_back(next());
    else if (a == "--paths") {
      std::ifstream in(next());
      for (std::string line; std::getline(in, line);)
        if (!line.empty()) o.paths.push_back(line);
    } else
      die("unknown option " + a);
  }
  if (o.paths.empty()) die("--path or --paths required");
  if (!(o.rate > 0) || o.connections < 1) die("--rate > 0, --connections >= 1");

  std::vector<std::string> request_text;
  for (const std::string& p : o.paths) {
    std::string r = "GET " + p + " HTTP/1.1\r\nHost: " + o.host + "\r\n";
    for (const std::string& h : o.headers) r += h + "\r\n";
    r += "\r\n";
    request_text.push_back(r);
  }

  const int ep = ::epoll_create1(EPOLL_CLOEXEC);
  std::vector<Conn> conns(static_cast<size_t>(o.connections));
  const auto open_conn = [&](size_t i) {
    conns[i] = Conn{};
    conns[i].fd = connect_to(o);
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;  // edge-triggered: no busy loop
    ev.data.u64 = i;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
  };
  for (size_t i = 0; i < conns.size(); ++i) open_conn(i);

  const int64_t period_ns = static_cast<int64_t>(1e9 / o.rate);
  const int64_t total = static_cast<int64_t>((o.warmup + o.duration) * o.rate);
  const int64_t warm = static_cast<int64_t>(o.warmup * o.rate);
  std::vector<int64_t> latency, service;
  latency.reserve(static_cast<size_t>(total));
  service.reserve(static_cast<size_t>(total));
  int64_t sent = 0, completed = 0, errors = 0, reconnects = 0, max_queue = 0;
  int64_t first_counted_ns = -1, last_done_ns = 0, counted_done = 0;
  std::deque<Request> queue;
  const int64_t t0 = now_ns() + 200'000'000;  // connections settle first
  int64_t k = 0;                              // next request to make due

  const auto start_on = [&](Conn& c, const Request& r) {
    c.busy = true;
    c.req = r;
    c.out = request_text[r.path];
    c.out_off = 0;
    c.sent_ns = now_ns();
    const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n > 0) c.out_off = static_cast<size_t>(n);
    ++sent;
  };
  // Round robin over the idle connections, so that every connection stays in use: civetweb
  // closes a keep-alive connection idle for keep_alive_timeout_ms (500 ms by default).
  size_t next_conn = 0;
  const auto dispatch = [&] {
    for (size_t tried = 0; tried < conns.size() && !queue.empty(); ++tried) {
      Conn& c = conns[next_conn];
      next_conn = (next_conn + 1) % conns.size();
      if (c.busy) continue;
      start_on(c, queue.front());
      queue.pop_front();
    }
  };

  epoll_event events[64];
  while (true) {
    const int64_t now = now_ns();
    while (k < total && t0 + k * period_ns <= now) {
      queue.push_back(
          Request{t0 + k * period_ns, static_cast<size_t>(k) % o.paths.size(), k >= warm});
      ++k;
    }
    max_queue = std::max<int64_t>(max_queue, static_cast<int64_t>(queue.size()));
    dispatch();
    const bool idle =
        std::none_of(conns.begin(), conns.end(), [](const Conn& c) { return c.busy; });
    if (k >= total && queue.empty() && idle) break;
    timespec timeout{};
    if (k < total) {
      const int64_t wait = std::max<int64_t>(0, t0 + k * period_ns - now_ns());
      timeout.tv_sec = wait / 1'000'000'000;
      timeout.tv_nsec = wait % 1'000'000'000;
    } else {
      timeout.tv_sec = 1;
    }
    const int n = ::epoll_pwait2(ep, events, 64, &timeout, nullptr);
    for (int e = 0; e < n; ++e) {
      Conn& c = conns[events[e].data.u64];
      if ((events[e].events & EPOLLOUT) && c.busy && c.out_off < c.out.size()) {
        const ssize_t w =
            ::send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
        if (w > 0) c.out_off += static_cast<size_t>(w);
      }
      bool lost = (events[e].events & (EPOLLERR | EPOLLHUP)) != 0;
      if (events[e].events & (EPOLLIN | EPOLLRDHUP)) {
        char buf[65536];
        while (true) {
          const ssize_t r = ::recv(c.fd, buf, sizeof buf, 0);
          if (r > 0) {
            c.in.append(buf, static_cast<size_t>(r));
            continue;
          }
          if (r == 0) lost = true;
          break;
        }
        int status = 0;
        const size_t len = c.busy ? complete_response(c.in, status) : 0;
        if (len > 0) {
          const int64_t done = now_ns();
          c.in.erase(0, len);
          c.busy = false;
          ++completed;
          if (status < 200 || status >= 300) ++errors;
          if (c.req.counted) {
            latency.push_back(done - c.req.intended_ns);
            service.push_back(done - c.sent_ns);
            if (first_counted_ns < 0) first_counted_ns = c.req.intended_ns;
            last_done_ns = done;
            ++counted_done;
          }
        }
      }
      if (lost) {
        const size_t idx = static_cast<size_t>(&c - conns.data());
        if (c.busy) {
          ++errors;
          c.busy = false;
        }
        ::epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
        ::close(c.fd);
        ++reconnects;
        open_conn(idx);
      }
    }
  }

  std::sort(latency.begin(), latency.end());
  std::sort(service.begin(), service.end());
  const double window_s = (last_done_ns - first_counted_ns) / 1e9;
  const auto us = [](int64_t ns) { return ns / 1000.0; };
  std::printf(
      "{\"rate\":%.0f,\"connections\":%d,\"paths\":%zu,\"sent\":%lld,\"completed\":%lld,"
      "\"errors\":%lld,\"reconnects\":%lld,\"max_queue\":%lld,\"measured\":%zu,"
      "\"achieved_rate\":%.1f,"
      "\"latency_us\":{\"p50\":%.0f,\"p90\":%.0f,\"p99\":%.0f,\"p999\":%.0f,\"max\":%.0f},"
      "\"service_us\":{\"p50\":%.0f,\"p90\":%.0f,\"p99\":%.0f,\"p999\":%.0f,\"max\":%.0f}}\n",
      o.rate, o.connections, o.paths.size(), static_cast<long long>(sent),
      static_cast<long long>(completed), static_cast<long long>(errors),
      static_cast<long long>(reconnects), static_cast<long long>(max_queue), latency.size(),
      window_s > 0 ? counted_done / window_s : 0.0, us(percentile(latency, 0.5)),
      us(percentile(latency, 0.9)), us(percentile(latency, 0.99)), us(percentile(latency, 0.999)),
      us(latency.empty() ? 0 : latency.back()), us(percentile(service, 0.5)),
      us(percentile(service, 0.9)), us(percentile(service, 0.99)), us(percentile(service, 0.999)),
      us(service.empty() ? 0 : service.back()));
  return 0;
}
