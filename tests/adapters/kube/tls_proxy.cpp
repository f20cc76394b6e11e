#include "tests/adapters/kube/tls_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

namespace gantry::kube::testing {

namespace {

int connect_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
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

}  // namespace

TlsProxy::TlsProxy(int backend_port, const std::string& pem_file, const std::string& client_ca_file)
    : backend_port_(backend_port) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) throw std::runtime_error("TLS proxy: SSL_CTX_new failed");
  ctx_ = ctx;
  if (SSL_CTX_use_certificate_chain_file(ctx, pem_file.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, pem_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    SSL_CTX_free(ctx);
    throw std::runtime_error("TLS proxy: cannot load " + pem_file);
  }
  if (!client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, client_ca_file.c_str(), nullptr) != 1) {
      SSL_CTX_free(ctx);
      throw std::runtime_error("TLS proxy: cannot load " + client_ca_file);
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 64) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(listen_fd_);
    SSL_CTX_free(ctx);
    throw std::runtime_error("TLS proxy: cannot listen on loopback");
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

TlsProxy::~TlsProxy() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  std::vector<std::thread> relays;
  {
    std::lock_guard lock(mutex_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    relays.swap(relays_);
  }
  for (std::thread& t : relays) t.join();
  SSL_CTX_free(static_cast<SSL_CTX*>(ctx_));
}

void TlsProxy::accept_loop() {
  while (!stopping_) {
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) break;  // shut down
    std::lock_guard lock(mutex_);
    if (stopping_) {
      ::close(fd);
      break;
    }
    open_fds_.push_back(fd);
    relays_.emplace_back([this, fd] { relay(fd); });
  }
}

void TlsProxy::relay(int client_fd) {
  SSL* ssl = SSL_new(static_cast<SSL_CTX*>(ctx_));
  SSL_set_fd(ssl, client_fd);
  int backend = -1;
  if (SSL_accept(ssl) == 1) backend = connect_loopback(backend_port_);
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
    open_fds_.erase(std::remove(open_fds_.begin(), open_fds_.end(), client_fd), open_fds_.end());
    if (backend >= 0)
      open_fds_.erase(std::remove(open_fds_.begin(), open_fds_.end(), backend), open_fds_.end());
  }
  if (backend >= 0) ::close(backend);
  SSL_free(ssl);
  ::close(client_fd);
  ERR_clear_error();
}

}  // namespace gantry::kube::testing
