#ifndef BOOKSHELF_CTEXTWIDTH_H
#define BOOKSHELF_CTEXTWIDTH_H

// The C library's display widths and locale, for TextLayout: measuring text needs no
// terminal, so it must not need ncurses either (only NcursesBackend imports CNcurses).
// Glibc's Swift module does not export wcwidth (it is an XSI extension of wchar.h), so it
// is declared here and wrapped.
#include <locale.h>
#include <langinfo.h>
#include <string.h>
#include <wchar.h>

int wcwidth(wchar_t c);

/// Columns the scalar covers in the current LC_CTYPE: 0, 1, 2, or -1 when it cannot be printed.
static inline int text_width_of_scalar(unsigned int scalar) { return wcwidth((wchar_t)scalar); }

/// Whether LC_CTYPE's codeset is UTF-8 (wcwidth only knows wide characters in one).
static inline int text_width_locale_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    return codeset != NULL && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
}

#endif
