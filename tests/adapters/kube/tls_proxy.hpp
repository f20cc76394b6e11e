#pragma once
// A TLS front for the fake API server: accepts TLS on loopback with OpenSSL and relays the
// plain bytes to a backend port, so tests can talk https to the fake.
//
// Why not civetweb's own TLS: Debian 12's libcivetweb (1.15) loads OpenSSL with dlopen and
// looks up SSL_get_peer_certificate, which OpenSSL 3 no longer exports (it is a macro for
// SSL_get1_peer_certificate), then calls the null pointer on every TLS connection.
//
// Each connection gets a thread; closing the backend side closes the TLS side (a watch the
// fake drops is dropped for the client too). Threads: the constructor starts an accept thread;
// the destructor closes everything and joins.
//
// Errors: the constructor throws std::runtime_error when the key, certificate or CA cannot be
// loaded or the port cannot be opened.

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gantry::kube::testing {

class TlsProxy {
 public:
  // `pem_file` holds the server's key and certificate; `client_ca_file` non-empty requires a
  // client certificate signed by it.
  TlsProxy(int backend_port, const std::string& pem_file, const std::string& client_ca_file);
  ~TlsProxy();
  TlsProxy(const TlsProxy&) = delete;
  TlsProxy& operator=(const TlsProxy&) = delete;

  int port() const { return port_; }

 private:
  void accept_loop();
  void relay(int client_fd);

  int backend_port_;
  void* ctx_ = nullptr;  // SSL_CTX*
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<std::thread> relays_;  // guarded by mutex_
  std::vector<int> open_fds_;        // guarded by mutex_: client and backend sockets
};

}  // namespace gantry::kube::testing
