#ifndef BOOKSHELF_CNCURSES_SHIM_H
#define BOOKSHELF_CNCURSES_SHIM_H

// The wide-character API (get_wch, cchar_t, mvaddnwstr) is only visible when this is
// defined before the header is included.
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <langinfo.h>
#include <wchar.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
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

// Mouse masks are built by function-like macros, which Swift does not import.
static inline mmask_t shim_button1_pressed(void) { return BUTTON1_PRESSED; }
static inline mmask_t shim_button1_clicked(void) { return BUTTON1_CLICKED; }
static inline mmask_t shim_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t shim_button5_pressed(void) { return BUTTON5_PRESSED; }

// `stdin`/`stdout` are mutable globals too. newterm (unlike initscr) returns NULL
// instead of exiting the process when the terminal cannot be set up.
static inline SCREEN *shim_newterm(void) { return newterm(NULL, stdout, stdin); }

// The kernel's idea of the window size (ncurses' LINES/COLS lag behind a SIGWINCH).
static inline int shim_window_size(int *rows, int *columns) {
    struct winsize size;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_row == 0 || size.ws_col == 0)
        return -1;
    *rows = size.ws_row;
    *columns = size.ws_col;
    return 0;
}

// ---------------------------------------------------------------------------------
// Terminal guard: the last line of defence when the process leaves without going
// through the Swift restore path (exit() from anywhere, a trap, a fault).
//
// While armed it holds the terminal's original termios and a precomputed byte string
// that undoes curses mode (leave the alternate screen, show the cursor, reset
// attributes, stop mouse reporting). The fault handler only calls tcsetattr, write,
// sigaction and raise, all async-signal-safe; it never calls into ncurses.
// The atexit handler runs in normal context, so it may call endwin().
// ---------------------------------------------------------------------------------
typedef struct {
    volatile sig_atomic_t armed;
    int installed;
    struct termios original;
    char restore[512];
    size_t restoreLength;
    // Terminal modes the program turned on itself (mouse reporting, bracketed paste),
    // which endwin() does not know to turn off.
    char leaveModes[128];
    size_t leaveModesLength;
    struct sigaction previous[NSIG];
} shim_terminal_guard_state;

static inline shim_terminal_guard_state *shim_terminal_guard(void) {
    static shim_terminal_guard_state state;
    return &state;
}

static inline void shim_terminal_guard_fault(int signo, siginfo_t *info, void *context) {
    (void)context;
    shim_terminal_guard_state *state = shim_terminal_guard();
    if (state->armed) {
        state->armed = 0;
        tcsetattr(STDIN_FILENO, TCSANOW, &state->original);
        ssize_t written = write(STDOUT_FILENO, state->restore, state->restoreLength);
        (void)written;
    }
    // Hand the signal back to whoever had it (the Swift runtime's backtracer or the
    // default action). A hardware fault re-executes the faulting instruction on
    // return and so reaches the previous handler with its original context; a signal
    // sent by kill/raise/abort has to be raised again.
    sigaction(signo, &state->previous[signo], NULL);
    if (info == NULL || info->si_code <= 0) raise(signo);
}

static inline void shim_terminal_guard_exit(void) {
    shim_terminal_guard_state *state = shim_terminal_guard();
    if (state->armed) {
        state->armed = 0;
        endwin();
        ssize_t written = write(STDOUT_FILENO, state->leaveModes, state->leaveModesLength);
        (void)written;
    }
}

/// Saves the current (cooked) termios. Call before curses takes the terminal.
static inline void shim_terminal_guard_save_original(void) {
    tcgetattr(STDIN_FILENO, &shim_terminal_guard()->original);
}

/// `restore` undoes curses mode and `leaveModes` (for the fault handler; the atexit
/// handler calls endwin() and then writes `leaveModes` only).
static inline void shim_terminal_guard_arm(const char *restore, const char *leaveModes) {
    shim_terminal_guard_state *state = shim_terminal_guard();
    size_t length = strlen(restore);
    if (length >= sizeof state->restore) length = sizeof state->restore - 1;
    memcpy(state->restore, restore, length);
    state->restoreLength = length;
    length = strlen(leaveModes);
    if (length >= sizeof state->leaveModes) length = sizeof state->leaveModes - 1;
    memcpy(state->leaveModes, leaveModes, length);
    state->leaveModesLength = length;
    if (!state->installed) {
        state->installed = 1;
        static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT };
        for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
            struct sigaction action;
            memset(&action, 0, sizeof action);
            action.sa_sigaction = shim_terminal_guard_fault;
            action.sa_flags = SA_SIGINFO | SA_ONSTACK;
            sigemptyset(&action.sa_mask);
            sigaction(faults[i], &action, &state->previous[faults[i]]);
        }
        atexit(shim_terminal_guard_exit);
    }
    state->armed = 1;
}

static inline void shim_terminal_guard_disarm(void) { shim_terminal_guard()->armed = 0; }

#endif
