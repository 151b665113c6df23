// Every libpq function Bookshelf calls, defined here with libpq's own prototype and
// forwarded to the library loaded on first use (see include/CLibPQ.h for why). Swift code
// calls `bookshelf_libpq_unavailable()` before its first connection and reports the reason
// as an error; the forwarders only stop the process if that check was skipped.

#include "CLibPQ.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static void *library;
static char reason[512];

static void load(void) {
    library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *error = dlerror();
        snprintf(reason, sizeof reason,
                 "the PostgreSQL client library (libpq.so.5) could not be loaded: %s",
                 error ? error : "unknown error");
    }
}

const char *bookshelf_libpq_unavailable(void) {
    pthread_once(&load_once, load);
    return library == NULL ? reason : NULL;
}

static void *symbol(const char *name) {
    const char *unavailable = bookshelf_libpq_unavailable();
    void *found = unavailable == NULL ? dlsym(library, name) : NULL;
    if (found == NULL) {
        fprintf(stderr, "bookshelf: %s\n", unavailable ? unavailable : "libpq.so.5 lacks a function it needs");
        abort();
    }
    return found;
}

// A function pointer is looked up once and kept; the atomic load and store make the first
// calls from two threads at once well-defined (both store the same pointer).
#define LOOKUP(name)                                                                \
    static name##_function function;                                                \
    name##_function found = __atomic_load_n(&function, __ATOMIC_ACQUIRE);           \
    if (found == NULL) {                                                            \
        found = (name##_function)symbol(#name);                                     \
        __atomic_store_n(&function, found, __ATOMIC_RELEASE);                       \
    }

#define FORWARD(result, name, parameters, arguments) \
    typedef result(*name##_function) parameters;     \
    result name parameters {                         \
        LOOKUP(name)                                 \
        return found arguments;                      \
    }

#define FORWARD_VOID(name, parameters, arguments) \
    typedef void(*name##_function) parameters;    \
    void name parameters {                        \
        LOOKUP(name)                              \
        found arguments;                          \
    }

FORWARD(PGconn *, PQconnectdbParams,
        (const char *const *keywords, const char *const *values, int expand_dbname),
        (keywords, values, expand_dbname))
FORWARD(ConnStatusType, PQstatus, (const PGconn *conn), (conn))
FORWARD(char *, PQerrorMessage, (const PGconn *conn), (conn))
FORWARD(int, PQsocket, (const PGconn *conn), (conn))
FORWARD(int, PQbackendPID, (const PGconn *conn), (conn))
FORWARD(char *, PQhost, (const PGconn *conn), (conn))
FORWARD(char *, PQport, (const PGconn *conn), (conn))
FORWARD(int, PQconnectionNeedsPassword, (const PGconn *conn), (conn))
FORWARD(int, PQconnectionUsedPassword, (const PGconn *conn), (conn))
FORWARD(int, PQsetnonblocking, (PGconn *conn, int arg), (conn, arg))
FORWARD(PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *conn, PQnoticeProcessor proc, void *arg),
        (conn, proc, arg))
FORWARD_VOID(PQfinish, (PGconn *conn), (conn))

FORWARD(PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg), (conninfo, errmsg))
FORWARD_VOID(PQconninfoFree, (PQconninfoOption *connOptions), (connOptions))

FORWARD(int, PQsendQuery, (PGconn *conn, const char *query), (conn, query))
FORWARD(int, PQsendQueryParams,
        (PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
         const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat),
        (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat))
FORWARD(int, PQsendPrepare,
        (PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes),
        (conn, stmtName, query, nParams, paramTypes))
FORWARD(int, PQsendQueryPrepared,
        (PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues, const int *paramLengths,
         const int *paramFormats, int resultFormat),
        (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat))
FORWARD(int, PQflush, (PGconn *conn), (conn))
FORWARD(int, PQconsumeInput, (PGconn *conn), (conn))
FORWARD(int, PQisBusy, (PGconn *conn), (conn))
FORWARD(PGresult *, PQgetResult, (PGconn *conn), (conn))
FORWARD(PGnotify *, PQnotifies, (PGconn *conn), (conn))
FORWARD(int, PQputCopyData, (PGconn *conn, const char *buffer, int nbytes), (conn, buffer, nbytes))
FORWARD(int, PQputCopyEnd, (PGconn *conn, const char *errormsg), (conn, errormsg))

FORWARD(ExecStatusType, PQresultStatus, (const PGresult *res), (res))
FORWARD(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode))
FORWARD(int, PQntuples, (const PGresult *res), (res))
FORWARD(int, PQnfields, (const PGresult *res), (res))
FORWARD(char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num))
FORWARD(int, PQgetisnull, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num))
FORWARD_VOID(PQclear, (PGresult *res), (res))
FORWARD_VOID(PQfreemem, (void *ptr), (ptr))

FORWARD(char *, PQescapeLiteral, (PGconn *conn, const char *str, size_t len), (conn, str, len))
FORWARD(char *, PQescapeIdentifier, (PGconn *conn, const char *str, size_t len), (conn, str, len))
FORWARD(char *, PQencryptPasswordConn, (PGconn *conn, const char *passwd, const char *user, const char *algorithm),
        (conn, passwd, user, algorithm))

FORWARD(PGcancel *, PQgetCancel, (PGconn *conn), (conn))
FORWARD(int, PQcancel, (PGcancel *cancel, char *errbuf, int errbufsize), (cancel, errbuf, errbufsize))
FORWARD_VOID(PQfreeCancel, (PGcancel *cancel), (cancel))
