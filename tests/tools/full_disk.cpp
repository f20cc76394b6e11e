#include "tests/tools/full_disk.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <atomic>
#include <cstring>
#include <mutex>

namespace gantry::testing {

namespace {

std::atomic<bool> g_full{false};
std::atomic<long> g_refused{0};
std::string g_flag;  // set once, before any database is opened
sqlite3_vfs* g_real = nullptr;
sqlite3_vfs g_vfs;

bool disk_full() {
  if (g_full.load()) return true;
  struct stat st;
  return !g_flag.empty() && ::stat(g_flag.c_str(), &st) == 0;
}

// Our file: the real one follows it in the same allocation (szOsFile covers both).
struct File {
  sqlite3_file base;
  sqlite3_file* real;
};

sqlite3_file* real_of(sqlite3_file* f) { return reinterpret_cast<File*>(f)->real; }

int x_close(sqlite3_file* f) { return real_of(f)->pMethods->xClose(real_of(f)); }
int x_read(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) {
  return real_of(f)->pMethods->xRead(real_of(f), buf, n, off);
}
int x_write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 off) {
  if (disk_full()) {
    ++g_refused;
    return SQLITE_FULL;
  }
  return real_of(f)->pMethods->xWrite(real_of(f), buf, n, off);
}
int x_truncate(sqlite3_file* f, sqlite3_int64 size) {
  return real_of(f)->pMethods->xTruncate(real_of(f), size);
}
int x_sync(sqlite3_file* f, int flags) { return real_of(f)->pMethods->xSync(real_of(f), flags); }
int x_file_size(sqlite3_file* f, sqlite3_int64* size) {
  return real_of(f)->pMethods->xFileSize(real_of(f), size);
}
int x_lock(sqlite3_file* f, int level) { return real_of(f)->pMethods->xLock(real_of(f), level); }
int x_unlock(sqlite3_file* f, int level) {
  return real_of(f)->pMethods->xUnlock(real_of(f), level);
}
int x_check_reserved_lock(sqlite3_file* f, int* out) {
  return real_of(f)->pMethods->xCheckReservedLock(real_of(f), out);
}
int x_file_control(sqlite3_file* f, int op, void* arg) {
  return real_of(f)->pMethods->xFileControl(real_of(f), op, arg);
}
int x_sector_size(sqlite3_file* f) { return real_of(f)->pMethods->xSectorSize(real_of(f)); }
int x_device_characteristics(sqlite3_file* f) {
  return real_of(f)->pMethods->xDeviceCharacteristics(real_of(f));
}
int x_shm_map(sqlite3_file* f, int page, int size, int extend, void volatile** out) {
  return real_of(f)->pMethods->xShmMap(real_of(f), page, size, extend, out);
}
int x_shm_lock(sqlite3_file* f, int offset, int n, int flags) {
  return real_of(f)->pMethods->xShmLock(real_of(f), offset, n, flags);
}
void x_shm_barrier(sqlite3_file* f) { real_of(f)->pMethods->xShmBarrier(real_of(f)); }
int x_shm_unmap(sqlite3_file* f, int del) {
  return real_of(f)->pMethods->xShmUnmap(real_of(f), del);
}
int x_fetch(sqlite3_file* f, sqlite3_int64 off, int n, void** out) {
  return real_of(f)->pMethods->xFetch(real_of(f), off, n, out);
}
int x_unfetch(sqlite3_file* f, sqlite3_int64 off, void* p) {
  return real_of(f)->pMethods->xUnfetch(real_of(f), off, p);
}

const sqlite3_io_methods kMethods = {3,
                                     x_close,
                                     x_read,
                                     x_write,
                                     x_truncate,
                                     x_sync,
                                     x_file_size,
                                     x_lock,
                                     x_unlock,
                                     x_check_reserved_lock,
                                     x_file_control,
                                     x_sector_size,
                                     x_device_characteristics,
                                     x_shm_map,
                                     x_shm_lock,
                                     x_shm_barrier,
                                     x_shm_unmap,
                                     x_fetch,
                                     x_unfetch};

int x_open(sqlite3_vfs*, const char* name, sqlite3_file* f, int flags, int* out_flags) {
  File* file = reinterpret_cast<File*>(f);
  file->real = reinterpret_cast<sqlite3_file*>(file + 1);
  const int rc = g_real->xOpen(g_real, name, file->real, flags, out_flags);
  // SQLite calls xClose only on a file whose pMethods is set.
  file->base.pMethods = rc == SQLITE_OK && file->real->pMethods != nullptr ? &kMethods : nullptr;
  return rc;
}

}  // namespace

void FullDisk::install(const std::string& flag_file) {
  static std::once_flag once;
  std::call_once(once, [&] {
    g_flag = flag_file;
    g_real = sqlite3_vfs_find(nullptr);
    std::memcpy(&g_vfs, g_real, sizeof g_vfs);
    g_vfs.zName = "gantry-full-disk";
    g_vfs.szOsFile = static_cast<int>(sizeof(File)) + g_real->szOsFile;
    g_vfs.xOpen = x_open;
    sqlite3_vfs_register(&g_vfs, 1);
  });
}

void FullDisk::set_full(bool full) { g_full = full; }
bool FullDisk::full() { return disk_full(); }
long FullDisk::refused() { return g_refused; }

}  // namespace gantry::testing
