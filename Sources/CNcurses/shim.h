#ifndef BOOKSHELF_CNCURSES_SHIM_H
#define BOOKSHELF_CNCURSES_SHIM_H

// The wide-character API (get_wch, cchar_t, mvaddnwstr) is only visible when this is
// defined before the header is included.
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>

int wcwidth(wchar_t c);

// Swift 6 rejects ncurses' mutable globals and does not import its macros:
// expose what we need as functions.
static inline WINDOW *shim_stdscr(void) { return stdscr; }
static inline int shim_lines(void) { return LINES; }
static inline int shim_cols(void) { return COLS; }
static inline int shim_colors(void) { return COLORS; }
static inline int shim_color_pairs(void) { return COLOR_PAIRS; }
static inline attr_t shim_a_normal(void) { return A_NORMAL; }
static inline attr_t shim_a_bold(void) { return A_BOLD; }
static inline attr_t shim_a_reverse(void) { return A_REVERSE; }
static inline attr_t shim_a_underline(void) { return A_UNDERLINE; }
static inline attr_t shim_a_dim(void) { return A_DIM; }
static inline attr_t shim_color_pair(int n) { return COLOR_PAIR(n); }
static inline int shim_key_f(int n) { return KEY_F(n); }
static inline int shim_getmaxy(WINDOW *w) { return getmaxy(w); }
static inline int shim_getmaxx(WINDOW *w) { return getmaxx(w); }

#endif
