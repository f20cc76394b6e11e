// gantry-sse-count: one Server-Sent Events subscriber of `gantry serve` that checks for loss
// (bench/serve_sse.sh, issue #10's figure "10,000 state changes per second reach a subscriber
// with no loss").
//
//   gantry-sse-count --port 8080 --token T [--after 0] [--quiet 3] [--max 600]
//
// Reads GET /api/v1/events?lastEventId=AFTER. The bus numbers its events 1, 2, 3, ... with no
// hole (web/server/event_bus.hpp), so the subscriber must see AFTER+1, AFTER+2, ... in order:
// any id that is not the previous one plus one is a loss (its size is counted), and so is a
// `reset` event (the subscriber fell behind the bus's buffer). It stops when no event came for
// --quiet seconds after the first one (the load is over), or after --max seconds. Then it
// checks that it is not behind: a probe connection (no lastEventId) learns the bus's newest id
// at that moment from the first event it gets (its id minus one), and the subscriber reads on
// until it has that id — so every event published up to the end of the measurement reached
// it, in order, with no hole — and says how far behind it was (ids) and how long catching up
// took.
// Prints one line of JSON: events received, first and last id, missing ids, resets, events by
// type, the probe's result, and events received in each wall second (for the sustained rate).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "gantry-sse-count: %s\n", what.c_str());
  std::exit(2);
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string host = "127.0.0.1", token;
  int port = 8080;
  unsigned long long after = 0;
  double quiet = 3, max_s = 600;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) die(a + ": a value expected");
      return argv[++i];
    };
    if (a == "--host")
      host = next();
    else if (a == "--port")
      port = std::stoi(next());
    else if (a == "--token")
      token = next();
    else if (a == "--after")
      after = std::stoull(next());
    else if (a == "--quiet")
      quiet = std::stod(next());
    else if (a == "--max")
      max_s = std::stod(next());
    else
      die("unknown option " + a);
  }
  const auto subscribe = [&](const std::string& query) {
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
    if (::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) die("connect");
    const std::string req = "GET /api/v1/events" + query + " HTTP/1.1\r\nHost: " + host +
                            "\r\nAuthorization: Bearer " + token +
                            "\r\nAccept: text/event-stream\r\n\r\n";
    if (::send(s, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size()))
      die("send");
    return s;
  };
  const int fd = subscribe("?lastEventId=" + std::to_string(after));
  std::fprintf(stderr, "subscribed\n");
  // The probe: the first event id a new subscriber (no lastEventId: "from now on") gets.
  const auto probe = [&]() -> unsigned long long {
    const int s = subscribe("");
    std::string b;
    char c[4096];
    const double until = now_s() + 10;
    while (now_s() < until) {
      pollfd p{s, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const ssize_t n = ::recv(s, c, sizeof c, 0);
      if (n <= 0) break;
      b.append(c, static_cast<size_t>(n));
      const size_t at = b.find("\nid: ");
      if (at != std::string::npos && b.find('\n', at + 1) != std::string::npos) {
        ::close(s);
        return std::strtoull(b.c_str() + at + 5, nullptr, 10);
      }
    }
    ::close(s);
    return 0;
  };
  unsigned long long target = 0;  // after the measurement: read until this id
  double probe_at = 0, caught_up_at = -1;
  unsigned long long behind = 0;

  std::string buf;
  bool head_done = false;
  unsigned long long expected = after + 1, received = 0, missing = 0, resets = 0, gaps = 0;
  unsigned long long first_id = 0, last_id = 0;
  std::map<std::string, unsigned long long> by_type;
  std::vector<unsigned long long> per_second;
  const double start = now_s();
  double first_at = -1, last_event_at = -1;
  char chunk[1 << 16];
  while (true) {
    const double t = now_s();
    if (target == 0 && (t - start > max_s || (first_at >= 0 && t - last_event_at > quiet))) {
      const unsigned long long first_new = probe();
      if (first_new == 0) break;  // nothing more was published within 10 s
      target = first_new - 1;
      probe_at = now_s();
      behind = target > last_id ? target - last_id : 0;
    }
    if (target != 0 && last_id >= target) {
      caught_up_at = now_s();
      break;
    }
    if (target != 0 && t - probe_at > 30) break;  // never caught up
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) break;  // the server closed the stream
    buf.append(chunk, static_cast<size_t>(n));
    if (!head_done) {
      const size_t h = buf.find("\r\n\r\n");
      if (h == std::string::npos) continue;
      if (buf.compare(0, 12, "HTTP/1.1 200") != 0) die("answer: " + buf.substr(0, h));
      buf.erase(0, h + 4);
      head_done = true;
    }
    size_t pos = 0;
    for (size_t end; (end = buf.find("\n\n", pos)) != std::string::npos; pos = end + 2) {
      unsigned long long id = 0;
      std::string type;
      bool has_id = false;
      for (size_t l = pos; l < end;) {
        size_t eol = buf.find('\n', l);
        if (eol == std::string::npos || eol > end) eol = end;
        if (buf.compare(l, 4, "id: ") == 0) {
          id = std::strtoull(buf.c_str() + l + 4, nullptr, 10);
          has_id = true;
        } else if (buf.compare(l, 7, "event: ") == 0) {
          type = buf.substr(l + 7, eol - l - 7);
        }
        l = eol + 1;
      }
      if (type == "reset") ++resets;
      if (!has_id) continue;  // retry:, keep-alive comments, reset
      const double at = now_s();
      if (first_at < 0) {
        first_at = at;
        first_id = id;
      }
      last_event_at = at;
      const size_t sec = static_cast<size_t>(at - first_at);
      if (target == 0) {  // the catching up after the measurement is not a rate
        if (per_second.size() <= sec) per_second.resize(sec + 1, 0);
        ++per_second[sec];
      }
      if (id != expected) {
        ++gaps;
        if (id > expected)
          missing += id - expected;
        else
          die("id " + std::to_string(id) + " after " + std::to_string(expected - 1));
      }
      expected = id + 1;
      last_id = id;
      ++received;
      ++by_type[type];
    }
    buf.erase(0, pos);
  }
  ::close(fd);
  std::printf(
      "{\"after\":%llu,\"received\":%llu,\"first_id\":%llu,\"last_id\":%llu,\"missing\":%llu,"
      "\"gaps\":%llu,\"resets\":%llu,\"probe_last_id\":%llu,\"behind_at_probe\":%llu,"
      "\"caught_up\":%s,\"catch_up_ms\":%.1f,\"by_type\":{",
      after, received, first_id, last_id, missing, gaps, resets, target, behind,
      caught_up_at >= 0 ? "true" : "false",
      caught_up_at >= 0 ? (caught_up_at - probe_at) * 1000 : -1.0);
  bool comma = false;
  for (const auto& [type, n] : by_type) {
    std::printf("%s\"%s\":%llu", comma ? "," : "", type.c_str(), n);
    comma = true;
  }
  std::printf("},\"per_second\":[");
  for (size_t i = 0; i < per_second.size(); ++i) std::printf("%s%llu", i ? "," : "", per_second[i]);
  std::printf("]}\n");
  return 0;
}
