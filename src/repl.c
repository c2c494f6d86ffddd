/*
** repl.c
** The readline REPL of the konane host: input loop, history, completion glue
** See docs/architecture.md for the map of files
*/
/*
** The Konane commands, the pretty-printer and completion candidates live in
** the Lua module konane.repl; this file reads lines and calls it.
*/

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "lauxlib.h"
#include "lua.h"

#include "host.h"

#define PROMPT1 "> "
#define PROMPT2 ">> "
#define HISTORY_NAME ".konane_history"
#define HISTORY_MAX 1000
#define CHUNKNAME "=stdin"
#define EOFMARK "<eof>"
#define MARKLEN (sizeof(EOFMARK) / sizeof(char) - 1)

static volatile sig_atomic_t resized = 0; /* SIGWINCH seen at the prompt */

static void on_sigwinch(int sig) {
  (void)sig;
  resized = 1;
}

/* Ctrl-Z at the prompt: noted here, acted on by read_tty_line. */
static volatile sig_atomic_t suspended = 0;
static void on_sigtstp(int sig) {
  (void)sig;
  suspended = 1;
}


/* Registry reference to the table returned by konane.repl (or LUA_NOREF). */
static int repl_ref = LUA_NOREF;

/*
** Push field 'name' of the REPL module if it is a function and return 1;
** push nothing and return 0 otherwise.
*/
static int repl_fn(lua_State *L, const char *name) {
  if (repl_ref == LUA_NOREF)
    return 0;
  lua_rawgeti(L, LUA_REGISTRYINDEX, repl_ref);
  lua_getfield(L, -1, name);
  lua_remove(L, -2);
  if (lua_isfunction(L, -1))
    return 1;
  lua_pop(L, 1);
  return 0;
}

/*
** Load lua/konane/repl.lua and call its start(opts) which installs the
** commands and returns the banner (printed only when 'banner' is set). A
** failure leaves a plain Lua REPL, with a warning unless 'quiet'.
*/
void repl_load(lua_State *L, int tty, int color, int banner, int quiet) {
  int status;
  lua_getglobal(L, "require");
  lua_pushliteral(L, "konane.repl");
  status = host_docall(L, 1, 1);
  if (status != LUA_OK || !lua_istable(L, -1)) {
    if (status != LUA_OK && !quiet) {
      const char *msg = lua_tostring(L, -1);
      const char *nl;
      if (msg == NULL)
        msg = "?";
      nl = strchr(msg, '\n');  /* the first line says it; the rest is a search list */
      fprintf(stderr, "%s: the Konane commands are not available (%.*s)\n", host_progname,
              nl ? (int)(nl - msg) : (int)strlen(msg), msg);
    }
    lua_pop(L, 1);
    return;
  }
  repl_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  if (repl_fn(L, "start")) {
    lua_createtable(L, 0, 3);
    lua_pushboolean(L, tty);
    lua_setfield(L, -2, "tty");
    lua_pushboolean(L, color);
    lua_setfield(L, -2, "color");
    lua_pushboolean(L, banner);
    lua_setfield(L, -2, "banner");
    status = host_docall(L, 1, 1);
    if (status != LUA_OK)
      host_report(L, status);
    else {
      if (banner && lua_type(L, -1) == LUA_TSTRING) {
        fputs(lua_tostring(L, -1), stdout);
        fflush(stdout);
      }
      lua_pop(L, 1);
    }
  }
}

/* Prompt from _PROMPT / _PROMPT2 (as lua.c), or the defaults. */
static const char *get_prompt(lua_State *L, int firstline) {
  const char *p;
  if (lua_getglobal(L, firstline ? "_PROMPT" : "_PROMPT2") == LUA_TNIL)
    p = firstline ? PROMPT1 : PROMPT2;
  else
    p = luaL_tolstring(L, -1, NULL);  /* kept alive by the stack below */
  p = lua_pushstring(L, p);
  lua_insert(L, 1);  /* anchor it at the bottom of the stack for the caller */
  lua_settop(L, 1);
  return p;
}

/* A syntax error at the end of the chunk means: read more lines. */
static int incomplete(lua_State *L, int status) {
  if (status == LUA_ERRSYNTAX) {
    size_t lmsg;
    const char *msg = lua_tolstring(L, -1, &lmsg);
    if (lmsg >= MARKLEN && strcmp(msg + lmsg - MARKLEN, EOFMARK) == 0)
      return 1;
  }
  return 0;
}

/*
** The frame 'p' (length 'len') of a traceback as the user sees it: NULL for
** a frame that says nothing (the REPL's own "[C]: in ?", the C 'error'
** call), else the text from where it should start: a frame in the konane
** library starts at "konane/", so no host directory is shown.
*/
static const char *shown_frame(const char *p, size_t len) {
  const char *lib;
  if ((len == 10 && strncmp(p, "\t[C]: in ?", 10) == 0) ||
      (len == 25 && strncmp(p, "\t[C]: in function 'error'", 25) == 0))
    return NULL;
  if (p[0] == '\t' && p[1] == '/') {
    const char *colon = memchr(p, ':', len);
    for (lib = p; colon != NULL && lib < colon; lib++)
      if (strncmp(lib, "/konane/", 8) == 0 && strncmp(colon - 4, ".lua", 4) == 0)
        return lib + 1;
  }
  return p;
}

/*
** Print an error in the REPL: the message and a traceback shortened to the
** frames that mean something to the user (see shown_frame; the traceback of
** an interrupt is dropped).
*/
static void report_repl(lua_State *L) {
  const char *msg = lua_tostring(L, -1);
  const char *tb;
  fflush(stdout);  /* what the command printed comes before its error */
  if (msg == NULL)
    msg = "(error object is not a string)";
  tb = strstr(msg, "\nstack traceback:");
  if (tb != NULL && tb - msg >= 12 && strncmp(tb - 12, "interrupted!", 12) == 0) {
    /* Ctrl-C: no position, no traceback; after the echo of ^C, a new line */
    fprintf(stderr, "%sinterrupted!\n", isatty(STDERR_FILENO) ? "\n" : "");
  } else if (tb != NULL) {
    const char *p = msg;
    int frames = 0;
    fprintf(stderr, "%.*s\n", (int)(tb - msg), msg);
    p = tb + 1;
    while (*p) {
      const char *e = strchr(p, '\n');
      size_t len = e ? (size_t)(e - p) : strlen(p);
      const char *shown = shown_frame(p, len);
      if (shown != NULL && frames < 12) {
        fprintf(stderr, "%s%.*s\n", shown == p ? "" : "\t", (int)(len - (size_t)(shown - p)),
                shown);
        frames++;
      }
      if (e == NULL)
        break;
      p = e + 1;
    }
  } else
    fprintf(stderr, "%s\n", msg);
  fflush(stderr);
  lua_pop(L, 1);
}

/* Tell the REPL module the terminal width (it may change between lines). */
static void publish_width(lua_State *L) {
  int rows = 0, cols = 0;
  if (repl_ref == LUA_NOREF)
    return;
  rl_get_screen_size(&rows, &cols);
  if (cols <= 0)
    return;
  lua_rawgeti(L, LUA_REGISTRYINDEX, repl_ref);
  if (lua_getfield(L, -1, "opts") == LUA_TTABLE) {
    lua_pushinteger(L, cols);
    lua_setfield(L, -2, "width");
  }
  lua_pop(L, 2);
}

/*
** Piped input: the number of lines that failed so far, as repl.opts.failed,
** so that quit() exits with the status the end of the input would give.
*/
static void publish_failed(lua_State *L, int errors) {
  if (repl_ref == LUA_NOREF)
    return;
  lua_rawgeti(L, LUA_REGISTRYINDEX, repl_ref);
  if (lua_getfield(L, -1, "opts") == LUA_TTABLE) {
    lua_pushinteger(L, errors);
    lua_setfield(L, -2, "failed");
  }
  lua_pop(L, 2);
}

/* Show the values a command returned, through repl.show or print. */
static void show_results(lua_State *L, int n) {
  int status;
  if (n <= 0)
    return;
  if (!repl_fn(L, "show"))
    lua_getglobal(L, "print");
  lua_insert(L, -(n + 1));
  status = host_docall(L, n, 0);
  if (status != LUA_OK)
    report_repl(L);
}

/* Run the function on top of the stack and show what it returns. */
static int run_command(lua_State *L) {
  int base = lua_gettop(L) - 1;
  int status = host_docall(L, 0, LUA_MULTRET);
  if (status == LUA_OK)
    show_results(L, lua_gettop(L) - base);
  else
    report_repl(L);
  lua_settop(L, base);
  fflush(stdout);
  return status;
}

/* Statement collected over one or more lines. */
typedef struct Pending {
  char *buf;
  size_t len, cap;
} Pending;

static void pending_add(Pending *p, const char *line) {
  size_t n = strlen(line);
  size_t need = p->len + n + 2;
  if (need > p->cap) {
    size_t cap = p->cap ? p->cap : 256;
    char *nb;
    while (cap < need)
      cap *= 2;
    nb = realloc(p->buf, cap);
    if (nb == NULL) {
      fprintf(stderr, "%s: out of memory\n", host_progname);
      exit(EXIT_FAILURE);
    }
    p->buf = nb;
    p->cap = cap;
  }
  if (p->len > 0)
    p->buf[p->len++] = '\n';
  memcpy(p->buf + p->len, line, n);
  p->len += n;
  p->buf[p->len] = '\0';
}

/*
** Ask repl.rewrite(line) whether the line is a REPL shortcut (a move on the
** current game, a bare command name): on success pushes the compiled chunk
** and returns 1.
*/
static int try_rewrite(lua_State *L, const char *line) {
  const char *code;
  int status;
  if (!repl_fn(L, "rewrite"))
    return 0;
  lua_pushstring(L, line);
  status = lua_pcall(L, 1, 1, 0);
  if (status != LUA_OK || lua_type(L, -1) != LUA_TSTRING) {
    lua_pop(L, 1);
    return 0;
  }
  code = lua_tostring(L, -1);
  status = luaL_loadbuffer(L, code, strlen(code), CHUNKNAME);
  lua_remove(L, -2);
  if (status != LUA_OK) {
    lua_pop(L, 1);
    return 0;
  }
  return 1;
}

/*
** Feed one input line to the REPL: run it when it completes a statement,
** else keep it in 'p' (the caller shows the continuation prompt while
** p->len > 0). 'errors' counts the commands that failed.
*/
static void feed_line(lua_State *L, Pending *p, const char *line, int *errors) {
  int status;
  if (p->len == 0) {
    const char *s = line;
    while (*s == ' ' || *s == '\t' || *s == '\r')
      s++;
    if (*s == '\0')
      return;
    if (try_rewrite(L, line)) {
      if (run_command(L) != LUA_OK)
        (*errors)++;
      return;
    }
    /* An expression: print its values (Lua 5.1's '=expr' is accepted too). */
    lua_pushfstring(L, "return %s;", *s == '=' ? s + 1 : line);
    status = luaL_loadbuffer(L, lua_tostring(L, -1), lua_rawlen(L, -1), CHUNKNAME);
    lua_remove(L, -2);
    if (status == LUA_OK) {
      if (run_command(L) != LUA_OK)
        (*errors)++;
      return;
    }
    lua_pop(L, 1);
  }
  pending_add(p, line);
  status = luaL_loadbuffer(L, p->buf, p->len, CHUNKNAME);
  if (incomplete(L, status)) {
    lua_pop(L, 1);
    return;
  }
  p->len = 0;
  if (status != LUA_OK) {
    report_repl(L);
    (*errors)++;
    return;
  }
  if (run_command(L) != LUA_OK)
    (*errors)++;
}

/* ---- readline: callback mode, so Ctrl-C at the prompt can cancel a line. */

static char *line_got = NULL;
static int line_done = 0;

static void on_line(char *line) {
  line_got = line;
  line_done = 1;
  rl_callback_handler_remove();
}

/*
** Read one line with readline. Returns 1 and the line in *out (malloc'd),
** 0 at end of input, -1 when Ctrl-C cancelled the line.
*/
static int read_tty_line(const char *prompt, char **out) {
  int fd = fileno(rl_instream ? rl_instream : stdin);
  FILE *echo = rl_outstream ? rl_outstream : stdout;
  sigset_t block, orig;
  int result = -2;
  /* SIGINT and SIGWINCH are only delivered inside pselect, so a flag set
     by them is always seen before the next key is read. */
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGWINCH);
  sigaddset(&block, SIGTSTP);
  sigprocmask(SIG_BLOCK, &block, &orig);
  host_set_signal(SIGTSTP, on_sigtstp);
  line_done = 0;
  line_got = NULL;
  host_interrupted = 0;
  rl_callback_handler_install(prompt, on_line);
  while (result == -2) {
    fd_set fds;
    int r;
    if (line_done) {
      result = line_got != NULL;
      break;
    }
    if (resized) {
      resized = 0;
      rl_resize_terminal();
    }
    if (suspended) {  /* Ctrl-Z: give the terminal back, stop, then redraw */
      suspended = 0;
      rl_cleanup_after_signal();
      signal(SIGTSTP, SIG_DFL);
      sigprocmask(SIG_SETMASK, &orig, NULL);
      raise(SIGTSTP);  /* stops here until SIGCONT */
      sigprocmask(SIG_BLOCK, &block, NULL);
      host_set_signal(SIGTSTP, on_sigtstp);
      rl_reset_after_signal();
      rl_forced_update_display();
    }
    if (host_interrupted) {  /* Ctrl-C: forget the line, show a fresh prompt */
      host_interrupted = 0;
      rl_point = rl_end;  /* leave the cancelled text on screen, then "^C" */
      rl_redisplay();
      fputs("^C", echo);
      fflush(echo);
      rl_free_line_state();
      rl_callback_sigcleanup();
      rl_cleanup_after_signal();
      rl_callback_handler_remove();
      fputs("\n", echo);
      fflush(echo);
      result = -1;
      break;
    }
    FD_ZERO(&fds);
    FD_SET(fd, &fds);
    r = pselect(fd + 1, &fds, NULL, NULL, NULL, &orig);
    if (r < 0) {
      if (errno != EINTR) {
        rl_callback_handler_remove();
        result = 0;
      }
      continue;
    }
    rl_callback_read_char();
  }
  signal(SIGTSTP, SIG_DFL);
  sigprocmask(SIG_SETMASK, &orig, NULL);
  *out = line_got;
  return result;
}

/* History file: KONANE_HISTORY (empty disables it) or ~/.konane_history. */
static char *history_path(void) {
  const char *env = getenv("KONANE_HISTORY");
  const char *home;
  char *path;
  size_t n;
  if (env != NULL)
    return env[0] ? strdup(env) : NULL;
  home = getenv("HOME");
  if (home == NULL || home[0] == '\0')
    return NULL;
  n = strlen(home) + sizeof(HISTORY_NAME) + 2;
  path = malloc(n);
  if (path != NULL)
    snprintf(path, n, "%s/%s", home, HISTORY_NAME);
  return path;
}

/* ---- completion: candidates come from repl.complete(word, line, start). */

static char **comp_list = NULL;
static size_t comp_n = 0, comp_i = 0;

static void comp_free(void) {
  size_t i;
  for (i = 0; i < comp_n; i++)
    free(comp_list[i]);
  free(comp_list);
  comp_list = NULL;
  comp_n = comp_i = 0;
}

static char *comp_next(const char *text, int state) {
  (void)text;
  if (state == 0)
    comp_i = 0;
  if (comp_i < comp_n) {
    char *s = comp_list[comp_i];
    comp_list[comp_i++] = NULL;  /* readline frees what we return */
    return s;
  }
  return NULL;
}

/*
** Is position 'point' of 'line' inside a Lua short string ("..." or '...',
** with backslash escapes)? Scanning stops at a comment.
*/
static int in_string(const char *line, int point) {
  char quote = 0;
  int i;
  for (i = 0; i < point && line[i]; i++) {
    char c = line[i];
    if (quote) {
      if (c == '\\' && i + 1 < point)
        i++;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'')
      quote = c;
    else if (c == '-' && line[i + 1] == '-')
      break;
  }
  return quote != 0;
}

/*
** Inside a string the word to complete is a file name: it runs from the
** opening quote (readline finds it through rl_completer_quote_characters)
** across '/', so only the quotes break words there.
*/
static char *word_break_hook(void) {
  static char quotes[] = "\"'";
  return in_string(rl_line_buffer, rl_point) ? quotes : NULL;
}

static char **complete(const char *text, int start, int end) {
  lua_State *L = host_L;
  int top;
  (void)end;
  rl_completion_append_character = '\0';
  rl_attempted_completion_over = 1;
  if (in_string(rl_line_buffer, start)) {
    rl_attempted_completion_over = 0;  /* inside a string: file names */
    return NULL;
  }
  if (L == NULL)
    return NULL;
  top = lua_gettop(L);
  comp_free();
  if (repl_fn(L, "complete")) {
    lua_pushstring(L, text);
    lua_pushstring(L, rl_line_buffer);
    lua_pushinteger(L, start);
    if (lua_pcall(L, 3, 1, 0) == LUA_OK && lua_istable(L, -1)) {
      size_t i, n = (size_t)lua_rawlen(L, -1);
      comp_list = calloc(n + 1, sizeof *comp_list);
      if (comp_list != NULL) {
        for (i = 1; i <= n; i++) {
          lua_rawgeti(L, -1, (lua_Integer)i);
          if (lua_type(L, -1) == LUA_TSTRING)
            comp_list[comp_n++] = strdup(lua_tostring(L, -1));
          lua_pop(L, 1);
        }
      }
    }
  }
  lua_settop(L, top);
  if (comp_n == 0)
    return NULL;
  return rl_completion_matches(text, comp_next);
}

/*
** List ambiguous candidates by the part after the last '.' or ':' (g:moves(
** shows as moves(), as file listings show base names; the line is redrawn.
*/
static void display_matches(char **matches, int num, int max_length) {
  char **shown = malloc(((size_t)num + 2) * sizeof *shown);
  size_t skip = 0;
  int i, longest = 0;
  const char *p;
  if (shown == NULL || num < 1) {
    free(shown);
    rl_display_match_list(matches, num, max_length);
    rl_forced_update_display();
    return;
  }
  for (p = matches[1]; *p; p++)  /* all candidates share the part to skip */
    if (*p == '.' || *p == ':')
      skip = (size_t)(p - matches[1]) + 1;
  shown[0] = matches[0];
  for (i = 1; i <= num; i++) {
    int len;
    shown[i] = strlen(matches[i]) >= skip ? matches[i] + skip : matches[i];
    len = (int)strlen(shown[i]);
    if (len > longest)
      longest = len;
  }
  shown[num + 1] = NULL;
  rl_display_match_list(shown, num, longest);  /* readline has started a new line */
  rl_forced_update_display();
  free(shown);
}

/* Word breaks for completion: '.' and ':' are part of a word (g:mo). */
static const char word_breaks[] = " \t\n\"\\'`@$><=;|&{(,+-*/%^~#[]!?";

static void setup_readline(void) {
  rl_readline_name = PROGNAME;
  /* `konane > log` at a terminal: prompts and line editing go to the terminal on stderr (as
     bash and python do), so the log gets the results and no escape sequences */
  if (!isatty(STDOUT_FILENO) && isatty(STDERR_FILENO))
    rl_outstream = stderr;
  rl_catch_signals = 0;
  rl_catch_sigwinch = 0;
  rl_attempted_completion_function = complete;
  rl_completion_display_matches_hook = display_matches;
  rl_completer_word_break_characters = word_breaks;
  rl_basic_word_break_characters = word_breaks;
  rl_completer_quote_characters = "\"'";
  rl_completion_word_break_hook = word_break_hook;
  /* An ambiguous Tab lists the candidates at once (g:mo -> g:nmoves( g:moves().
     Bound before readline reads ~/.inputrc, so a user's own setting wins. */
  rl_variable_bind("show-all-if-ambiguous", "on");
  host_set_signal(SIGWINCH, on_sigwinch);
}

/*
** The interactive loop. On a terminal: readline with history, completion
** and prompts. Otherwise: plain lines from 'in', no prompts. Returns the number of
** commands that failed.
*/
int repl_loop(lua_State *L, int tty, FILE *in) {
  Pending p = {NULL, 0, 0};
  int errors = 0;
  char *hist = NULL;
  const char *oldprogname = host_progname;
  host_progname = NULL;
  host_L = L;
  host_in_repl = 1;
  if (tty) {
    setup_readline();
    hist = history_path();
    using_history();
    stifle_history(HISTORY_MAX);
    if (hist != NULL)
      read_history(hist);
  }
  host_set_signal(SIGINT, host_on_sigint);
  for (;;) {
    char *line = NULL;
    if (tty) {
      const char *prompt = get_prompt(L, p.len == 0);
      int r = read_tty_line(prompt, &line);
      lua_settop(L, 0);
      if (r < 0) {  /* Ctrl-C: drop the pending statement */
        p.len = 0;
        continue;
      }
      if (r == 0) {
        fputc('\n', rl_outstream ? rl_outstream : stdout);
        break;
      }
      publish_width(L);
      if (line[0] != '\0' && strspn(line, " \t") != strlen(line)) {
        HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
        if (last == NULL || strcmp(last->line, line) != 0) {
          add_history(line);
          if (hist != NULL && append_history(1, hist) != 0)
            write_history(hist);  /* the file did not exist yet */
        }
      }
    } else {
      size_t cap = 0;
      ssize_t n;
      errno = 0;
      n = getline(&line, &cap, in);
      if (n < 0) {
        free(line);
        if (errno == EINTR && host_interrupted) {  /* Ctrl-C while waiting */
          clearerr(in);
          p.len = 0;
          host_interrupted = 0;
          continue;
        }
        break;
      }
      if (n > 0 && line[n - 1] == '\n')
        line[n - 1] = '\0';
    }
    feed_line(L, &p, line, &errors);
    free(line);
    host_set_signal(SIGINT, host_on_sigint);  /* host_docall re-armed it; keep it at the prompt */
    host_clear_interrupt(L);
    lua_settop(L, 0);
    if (!tty)
      publish_failed(L, errors);
  }
  if (p.len > 0) {  /* input ended inside a statement: report it */
    int status = luaL_loadbuffer(L, p.buf, p.len, CHUNKNAME);
    if (status != LUA_OK) {
      report_repl(L);
      errors++;
    }
    lua_settop(L, 0);
  }
  if (tty && hist != NULL)
    history_truncate_file(hist, HISTORY_MAX);
  free(hist);
  free(p.buf);
  host_progname = oldprogname;
  host_in_repl = 0;
  signal(SIGINT, SIG_DFL);
  return errors;
}

