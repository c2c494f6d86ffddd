/*
** host.h
** Between main.c (the lua(1)-style host) and repl.c (the readline REPL)
** See docs/architecture.md for the map of files
*/
#ifndef KONANE_HOST_H
#define KONANE_HOST_H

#include <signal.h>
#include <stdio.h>

#include "lua.h"

#define PROGNAME "konane"

/* ---- main.c ---- */

/*
** Interrupt state, written by the SIGINT handler. host_interrupted is
** published to the binding under the registry key "konane.interrupt", so
** long C calls stop too; host_L is the state the handler hooks.
*/
extern volatile sig_atomic_t host_interrupted;
extern lua_State *host_L;
extern int host_in_repl;          /* keep the SIGINT handler between commands */
extern const char *host_progname; /* prefix of error messages, or NULL */

/* SIGINT: sets the flag and, while Lua runs, a hook that raises
** "interrupted!"; a third unhonoured press kills the process. */
void host_on_sigint(int sig);

/* Installs 'fn' for 'sig' without SA_RESTART, so select() sees EINTR. */
void host_set_signal(int sig, void (*fn)(int));

/* Forgets any pending interrupt: called before each command. */
void host_clear_interrupt(lua_State *L);

/* Calls the function below 'narg' arguments under a traceback handler,
** with SIGINT armed; leaves the results or the error message. */
int host_docall(lua_State *L, int narg, int nres);

/* Prints the error on top of the stack (when status is not LUA_OK) on
** stderr, prefixed by host_progname, and pops it; returns 'status'. */
int host_report(lua_State *L, int status);

/* ---- repl.c ---- */

/*
** Loads the konane.repl module and calls its start{tty=, color=, banner=},
** printing the banner when 'banner'. 'tty': stdin and stdout are both a
** terminal (live progress is shown). A failure leaves a plain Lua REPL,
** with a warning on stderr unless 'quiet'.
*/
void repl_load(lua_State *L, int tty, int color, int banner, int quiet);

/*
** The interactive loop. On a terminal ('tty'): readline with history,
** completion and prompts; otherwise plain lines from 'in', no prompts.
** Returns the number of commands that failed.
*/
int repl_loop(lua_State *L, int tty, FILE *in);

#endif
