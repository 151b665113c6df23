#ifndef BOOKSHELF_CSQLITE_SHIM_H
#define BOOKSHELF_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: it tells SQLite to copy bound
// text before the call returns, which is what every bind here needs.
static inline sqlite3_destructor_type shim_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
