#include "web/server/tls_front.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

namespace gantry::web {

namespace {

int connect_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd, data, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

std::string ssl_error() {
  char buf[256] = "";
  ERR_error_string_n(ERR_get_error(), buf, sizeof buf);
  return buf;
}

// A listening socket on host:port (port 0: any); throws naming the address.
int listen_on(const std::string& host, int port, int& bound_port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0 || found == nullptr)
    throw std::runtime_error("TLS: cannot resolve " + host);
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) throw std::runtime_error("TLS: cannot listen on " + host + ":" + service);
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  bound_port = addr.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                                          : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return fd;
}

}  // namespace

TlsFront::TlsFront(TlsFrontOptions options) : options_(std::move(options)) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) throw std::runtime_error("TLS: " + ssl_error());
  ctx_ = ctx;
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  const auto fail = [&](const std::string& what) {
    const std::string detail = ssl_error();
    SSL_CTX_free(ctx);
    throw std::runtime_error("TLS: " + what + ": " + detail);
  };
  if (SSL_CTX_use_certificate_chain_file(ctx, options_.cert_file.c_str()) != 1)
    fail("cannot load the certificate chain " + options_.cert_file);
  if (SSL_CTX_use_PrivateKey_file(ctx, options_.key_file.c_str(), SSL_FILETYPE_PEM) != 1)
    fail("cannot load the private key " + options_.key_file);
  if (SSL_CTX_check_private_key(ctx) != 1)
    fail(options_.key_file + " is not the key of " + options_.cert_file);
  if (!options_.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, options_.client_ca_file.c_str(), nullptr) != 1)
      fail("cannot load the client CA " + options_.client_ca_file);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  try {
    listen_fd_ = listen_on(options_.host, options_.port, port_);
  } catch (...) {
    SSL_CTX_free(ctx);
    throw;
  }
  acceptor_ = std::thread([this] { accept_loop(); });
}

TlsFront::~TlsFront() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  std::list<Relay> relays;
  {
    std::lock_guard lock(mutex_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    relays.swap(relays_);
  }
  for (Relay& r : relays) r.thread.join();
  SSL_CTX_free(static_cast<SSL_CTX*>(ctx_));
}

size_t TlsFront::open_connections() const {
  std::lock_guard lock(mutex_);
  return static_cast<size_t>(
      std::count_if(relays_.begin(), relays_.end(), [](const Relay& r) { return !r.done; }));
}

void TlsFront::reap() {
  for (auto it = relays_.begin(); it != relays_.end();) {
    if (it->done) {
      it->thread.join();
      it = relays_.erase(it);
    } else {
      ++it;
    }
  }
}

void TlsFront::accept_loop() {
  while (!stopping_) {
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) {
      if (stopping_ || errno == EBADF || errno == EINVAL) break;
      continue;  // a client that gave up (ECONNABORTED), or out of descriptors for a moment
    }
    std::lock_guard lock(mutex_);
    if (stopping_) {
      ::close(fd);
      break;
    }
    reap();
    open_fds_.push_back(fd);
    Relay& r = relays_.emplace_back();
    r.thread = std::thread([this, fd, &r] { relay(fd, r); });
  }
}

void TlsFront::relay(int client_fd, Relay& self) {
  SSL* ssl = SSL_new(static_cast<SSL_CTX*>(ctx_));
  SSL_set_fd(ssl, client_fd);
  int backend = -1;
  // The handshake under a deadline (receive and send timeouts on the socket), then none: an
  // event stream may stay quiet between its keep-alive comments.
  const auto set_timeout = [client_fd](std::chrono::milliseconds t) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(t.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((t.count() % 1000) * 1000);
    ::setsockopt(client_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(client_fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  };
  set_timeout(options_.handshake_timeout);
  if (SSL_accept(ssl) == 1) {
    set_timeout(std::chrono::milliseconds(0));
    backend = connect_loopback(options_.backend_port);
  }
  if (backend >= 0) {
    {
      std::lock_guard lock(mutex_);
      open_fds_.push_back(backend);
    }
    char buf[16384];
    bool open = true;
    while (open && !stopping_) {
      // Bytes OpenSSL already decrypted do not show on the socket: serve them first.
      if (SSL_pending(ssl) == 0) {
        pollfd fds[2] = {{client_fd, POLLIN, 0}, {backend, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) break;
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
          const ssize_t n = ::recv(backend, buf, sizeof buf, 0);
          if (n <= 0 || SSL_write(ssl, buf, static_cast<int>(n)) <= 0) break;
          continue;
        }
        if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      }
      const int n = SSL_read(ssl, buf, sizeof buf);
      if (n <= 0) {
        const int err = SSL_get_error(ssl, n);
        if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) continue;
        open = false;
      } else if (!write_all(backend, buf, static_cast<size_t>(n))) {
        open = false;
      }
    }
    SSL_shutdown(ssl);
  }
  {
    std::lock_guard lock(mutex_);
    std::erase(open_fds_, client_fd);
    if (backend >= 0) std::erase(open_fds_, backend);
  }
  if (backend >= 0) ::close(backend);
  SSL_free(ssl);
  ::close(client_fd);
  ERR_clear_error();
  self.done = true;
}

}  // namespace gantry::web
