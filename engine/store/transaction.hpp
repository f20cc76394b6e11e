#pragma once
// Transaction: an RAII write transaction.
//
//   {
//     Transaction tx(db);      // BEGIN IMMEDIATE
//     ... statements ...
//     tx.commit();             // COMMIT
//   }                          // not committed (an exception, an early return): ROLLBACK
//
// BEGIN IMMEDIATE takes the write lock up front, so a transaction never fails halfway
// through with SQLITE_BUSY because another connection started writing first (it waits up to
// the busy timeout at BEGIN instead).
//
// Ownership: refers to a Database it does not own, which must outlive it. Not copyable, not
// movable: a transaction is a scope. Transactions do not nest (SQLite's BEGIN does not).
//
// Errors: the constructor and commit() throw StoreError. If commit() throws, the transaction
// is still open and the destructor rolls it back. The destructor never throws: a failed
// ROLLBACK there is ignored (SQLite then rolls back when the connection closes).

#include "engine/store/database.hpp"

namespace gantry {

class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  // Commits. Calling it twice is a programming error (asserted).
  void commit();
  bool committed() const { return committed_; }

 private:
  Database& db_;
  bool committed_ = false;
};

}  // namespace gantry
