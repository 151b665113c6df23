#ifndef BOOKSHELF_CSQLITE_SHIM_H
#define BOOKSHELF_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: it tells SQLite to copy bound
// text before the call returns, which is what every bind here needs.
static inline sqlite3_destructor_type shim_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// Asks the processor to start loading the cache line at `address`: the kept rows of a search
// are read at known places spread through a large copy, and loading several at once hides
// most of each one's wait for memory. Swift has no spelling for the instruction.
static inline void shim_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

#endif
