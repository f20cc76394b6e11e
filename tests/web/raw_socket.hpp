#pragma once
// Plain TCP clients for the tests that play a misbehaving HTTP client (half a request head, an
// idle socket, hundreds of event streams at once): libcurl cannot stop half-way through a
// request. Reads wait with poll() under a deadline that only bounds a failure (a test that
// passes never reaches it); nothing sleeps.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::web::testing {

class RawSocket {
 public:
  // Connects to 127.0.0.1:port; throws std::runtime_error when it cannot.
  explicit RawSocket(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw std::runtime_error("socket");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      throw std::runtime_error("connect to port " + std::to_string(port));
    }
  }
  ~RawSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawSocket(RawSocket&& o) noexcept : fd_(o.fd_), got_(std::move(o.got_)), closed_(o.closed_) {
    o.fd_ = -1;
  }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;

  int fd() const { return fd_; }
  bool send(std::string_view text) const {
    return ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
  }
  // Reads what has arrived (without waiting); false once the peer has closed (or reset) the
  // connection.
  bool read_available() {
    char buf[4096];
    while (true) {
      const ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0) {
        got_.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
      closed_ = true;  // 0: orderly close; an error (ECONNRESET): closed too
      return false;
    }
  }
  // Waits until what arrived contains `text` (true), or the peer closed or the deadline passed
  // (false).
  bool wait_for(std::string_view text, std::chrono::milliseconds deadline) {
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (got_.find(text) == std::string::npos) {
      if (closed_ || !wait_readable(end) || !read_available())
        return got_.find(text) != std::string::npos;
    }
    return true;
  }
  // Waits until the peer closes the connection (true) or the deadline passes (false).
  bool wait_closed(std::chrono::milliseconds deadline) {
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (!closed_) {
      if (!wait_readable(end)) return false;
      read_available();
    }
    return true;
  }
  const std::string& received() const { return got_; }
  bool closed() const { return closed_; }

 private:
  bool wait_readable(std::chrono::steady_clock::time_point end) const {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, static_cast<int>(left.count())) > 0;
  }

  int fd_ = -1;
  std::string got_;
  bool closed_ = false;
};

// Waits until every socket's answer contains `text` or its peer closed it, polling them all
// together; false when the deadline passes first.
inline bool wait_all(std::vector<RawSocket>& sockets, std::string_view text,
                     std::chrono::milliseconds deadline) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (true) {
    std::vector<pollfd> waiting;
    std::vector<RawSocket*> who;
    for (RawSocket& s : sockets)
      if (!s.closed() && s.received().find(text) == std::string::npos) {
        waiting.push_back({s.fd(), POLLIN, 0});
        who.push_back(&s);
      }
    if (waiting.empty()) return true;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    if (::poll(waiting.data(), waiting.size(), static_cast<int>(left.count())) <= 0) return false;
    for (size_t i = 0; i < waiting.size(); ++i)
      if (waiting[i].revents != 0) who[i]->read_available();
  }
}

}  // namespace gantry::web::testing
