#ifndef BOOKSHELF_CLIBPQ_SHIM_H
#define BOOKSHELF_CLIBPQ_SHIM_H
#include <postgresql/libpq-fe.h>
#endif
