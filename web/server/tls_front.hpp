#pragma once
// TLS in front of a plain HTTP server on loopback: accepts TLS connections with OpenSSL and
// relays the bytes both ways, one thread per connection.
//
// Why not civetweb's own TLS: Debian 12's libcivetweb (1.15) loads OpenSSL with dlopen() and
// looks up SSL_get_peer_certificate, which OpenSSL 3 no longer exports (it became a macro for
// SSL_get1_peer_certificate): its TLS context never initialises ("Error initializing SSL
// context"), or, where the lookup is lazy, calls a null pointer. So `gantry serve --tls-cert`
// serves civetweb on a loopback port of its own and this front on the address asked for.
//
// Streams (Server-Sent Events, Kubernetes watches in the tests' fake API server) pass through
// as they come; closing either side closes the other. The backend sees every client as
// 127.0.0.1 (nothing in Gantry decides on client addresses).
//
// Threads: the constructor starts an accept thread; each connection runs on its own thread,
// reaped when it ends; the destructor closes every connection and joins every thread.
// Errors: the constructor throws std::runtime_error naming what failed (the certificate, the
// key, a client CA, the address).

#include <atomic>
#include <chrono>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gantry::web {

struct TlsFrontOptions {
  std::string host = "127.0.0.1";  // an IPv4 or IPv6 literal, or a name
  int port = 0;                    // 0: any free port (port() tells which)
  std::string cert_file;           // PEM certificate chain
  std::string key_file;            // PEM private key (may be the same file as the chain)
  std::string client_ca_file;      // non-empty: clients must present a certificate it signed
  int backend_port = 0;            // the plain server on 127.0.0.1
  // The TLS handshake must end within this; a client that stays silent is dropped (else each
  // idle socket would keep a thread for ever).
  std::chrono::milliseconds handshake_timeout{10'000};
};

class TlsFront {
 public:
  explicit TlsFront(TlsFrontOptions options);
  ~TlsFront();
  TlsFront(const TlsFront&) = delete;
  TlsFront& operator=(const TlsFront&) = delete;

  int port() const { return port_; }
  // Connections being relayed now.
  size_t open_connections() const;

 private:
  struct Relay {
    std::thread thread;
    std::atomic<bool> done{false};
  };
  void accept_loop();
  void relay(int client_fd, Relay& self);
  void reap();  // joins finished relays; mutex_ held

  TlsFrontOptions options_;
  void* ctx_ = nullptr;  // SSL_CTX*
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::list<Relay> relays_;    // guarded by mutex_
  std::vector<int> open_fds_;  // guarded by mutex_: client and backend sockets
};

}  // namespace gantry::web
