#ifndef BOOKSHELF_CLIBPQ_H
#define BOOKSHELF_CLIBPQ_H

// libpq's own declarations (libpq-dev). The functions themselves are defined in
// LazyLibPQ.c, which loads libpq.so.5 the first time one of them is needed: libpq brings
// TLS, Kerberos and LDAP libraries with it (about 4.5 MB resident), and a process that only
// ever opens the SQLite catalog should not pay for them.
#include <postgresql/libpq-fe.h>

/// Loads libpq if it is not loaded yet. Returns NULL when it is available, otherwise the
/// reason it could not be loaded (static text, valid for the life of the process).
const char *bookshelf_libpq_unavailable(void);

#endif
