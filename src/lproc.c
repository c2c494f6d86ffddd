/*
** lproc.c
** Lua binding: clock, directories, child processes, fsync, locks, terminal,
** calls with a memory limit
** See docs/architecture.md for the map of files
*/
#define _GNU_SOURCE /* dladdr: the module's own file */

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#ifdef __linux__
#include <sys/prctl.h>
long syscall(long number, ...); /* <unistd.h> declares it only for _DEFAULT_SOURCE */
#endif
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

#include "lkonane.h"
#include "sandbox.h"

double lk_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int l_clock(lua_State *L) {
  lua_pushnumber(L, lk_now());
  return 1;
}

/*
** core.call_limited(bytes, f, ...) -> true, f's results | false, message.
** Calls f as pcall does, with the state's memory allowed to grow by at most
** 'bytes' during the call (net: what it frees counts back): an allocation past
** that fails, which Lua raises as "not enough memory". For small untrusted
** chunks (weights files): an instruction budget cannot stop one that doubles a
** string thirty times.
*/
typedef struct {
  lua_Alloc f;
  void *ud;
  long long grown, limit;
} MemLimit;

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  MemLimit *m = ud;
  long long old = ptr ? (long long)osize : 0; /* with no block, osize is a type tag */
  void *p;
  if (nsize > 0 && (long long)nsize > old && m->grown + ((long long)nsize - old) > m->limit)
    return NULL;
  p = m->f(m->ud, ptr, osize, nsize);
  if (p != NULL || nsize == 0)
    m->grown += (long long)nsize - old;
  return p;
}

static int l_call_limited(lua_State *L) {
  lua_Integer bytes = luaL_checkinteger(L, 1);
  MemLimit m;
  int status, n;
  luaL_argcheck(L, bytes > 0, 1, "a positive number of bytes expected");
  luaL_checkany(L, 2);
  m.f = lua_getallocf(L, &m.ud);
  m.grown = 0;
  m.limit = (long long)bytes;
  lua_setallocf(L, limited_alloc, &m);
  status = lua_pcall(L, lua_gettop(L) - 2, LUA_MULTRET, 0);
  lua_setallocf(L, m.f, m.ud);
  n = lua_gettop(L) - 1; /* the results (or the message) above 'bytes' */
  lua_pushboolean(L, status == LUA_OK);
  lua_replace(L, 1);
  return n + 1;
}

/* core.listdir(path) -> sorted-by-Lua list of entry names, or nil, message. */
static int l_listdir(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  DIR *d = opendir(path);
  if (!d) {
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: %s", path, strerror(errno));
    return 2;
  }
  lua_newtable(L);
  int i = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    lua_pushstring(L, e->d_name);
    lua_rawseti(L, -2, ++i);
  }
  closedir(d);
  return 1;
}


/*
** Child processes (tournament workers, external engines). Lua has no fork and io.popen
** is one-way and blocking, so this is the smallest POSIX layer that lets a
** script run several games at once and notice whichever ends first:
**   core.spawn(argv [, {pgroup=bool, stdin=bool}]) -> process (stdout and
**     stderr of the child both go to one non-blocking pipe; stdin is a pipe
**     written with p:write when opts.stdin, else /dev/null)
**   core.poll(processes, timeout) -> number of processes with output or EOF
**   p:read() -> available output ("" when none yet), or nil at EOF
**   p:write(s) -> true, or nil and a message (the child is gone)
**   p:close_input() -> the child reads end of file
**   p:wait([block]) -> nil while running, else "exit", code / "signal", n
**   p:kill([signal number]) ; p:pid() ; p:sandboxed() ; p:close() ;
**   core.kill_strays() ; core.sandbox()
**   core.isatty(fd) ; core.term_columns(fd) ; core.exe_path() ;
**   core.fsync(file) ; core.lock(file)
** A process still running when its userdata is collected or closed is
** killed and reaped, so a script that fails never leaves orphans behind.
*/
typedef struct lprocess {
  pid_t pid;    /* 0 once reaped */
  int fd;       /* read end of the output pipe, -1 once closed */
  int wfd;      /* write end of the child's stdin pipe, or -1 */
  int pgroup;   /* the child leads its own process group */
  int nonblock; /* wfd is non-blocking (set by the first write with a timeout) */
  int status;   /* waitpid status once reaped */
  int sfd;      /* sandboxed: read end of the pipe where the namespace's init
                ** writes the player's wait status, -1 otherwise or once read */
  int sandboxed; /* 'pid' is the init of the player's own namespaces */
  pid_t engine;  /* sandboxed: the player's own pid (the init's first child), or 0 */
} lprocess;

#define check_process(L, i) ((lprocess *)luaL_checkudata(L, i, PROCESS_MT))

/* Sets FD_CLOEXEC on 'fd' so no other child inherits it. */
static int process_cloexec(int fd) {
  int flags = fcntl(fd, F_GETFD);
  return flags < 0 ? -1 : fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

/* Closes every descriptor of 'fds' (n entries) that is open, keeping errno. */
static void process_close_fds(int *fds, int n) {
  int err = errno;
  for (int i = 0; i < n; i++)
    if (fds[i] >= 0) {
      close(fds[i]);
      fds[i] = -1;
    }
  errno = err;
}

/* Bytes a child may add to its stderr log; the rest is read and dropped. */
#define SPAWN_LOG_MAX (1 << 20)

typedef struct {
  int in;  /* read end of the child's stderr pipe */
  int out; /* the log, opened for appending */
} logcopy;

/*
** A detached thread per logged child: copies the child's stderr pipe into
** its log until every writer has closed it, at most SPAWN_LOG_MAX bytes,
** then reads and drops the rest, so the child never blocks on a full pipe
** and no limit falls on the other files it writes (a file size limit in
** the child would). Ends with one line saying how much was dropped. A
** failed write to the log (a full disk) drops the rest the same way: the
** log is a courtesy, never a reason to stop a player.
*/
static void *log_copy(void *arg) {
  logcopy c = *(logcopy *)arg;
  free(arg);
  char buf[4096];
  long long room = SPAWN_LOG_MAX, dropped = 0;
  for (;;) {
    ssize_t n = read(c.in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    ssize_t keep = n < room ? n : (ssize_t)room, done = 0;
    while (done < keep) {
      ssize_t w = write(c.out, buf + done, (size_t)(keep - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        room = 0; /* the log cannot take more: drop the rest */
        break;
      }
      done += w;
    }
    room -= done;
    dropped += n - done;
  }
  if (dropped > 0) {
    char line[96];
    int len = snprintf(line, sizeof line, "\n[konane: %lld more bytes of stderr dropped, past the log's 1 MB]\n",
                       dropped);
    if (write(c.out, line, (size_t)len) < 0) { /* a full log: nothing more to say */ }
  }
  close(c.in);
  close(c.out);
  return NULL;
}

/* Starts log_copy from 'in' to 'out'; on success both belong to the
** thread. 0 on success, else an errno value and nothing is closed. */
static int log_copy_start(int in, int out) {
  logcopy *c = malloc(sizeof *c);
  if (!c) return ENOMEM;
  c->in = in;
  c->out = out;
  pthread_attr_t attr;
  pthread_t t;
  int err = pthread_attr_init(&attr);
  if (err == 0) {
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    err = pthread_create(&t, &attr, log_copy, c);
    pthread_attr_destroy(&attr);
  }
  if (err != 0) free(c);
  return err;
}

/* In a child before exec: closes every descriptor from 'lo' up but 'keep'. */
static void spawn_close_from(int lo, int keep) {
#if defined(__linux__) && defined(SYS_close_range)
  if (keep > lo) syscall(SYS_close_range, (unsigned)lo, (unsigned)keep - 1, 0u);
  if (syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0) return;
#endif
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536) max = 65536;
  for (int fd = lo; fd < max; fd++)
    if (fd != keep) close(fd);
}

static void spawned_register(lua_State *L, pid_t pid);

/* The first child of process 'pid' (Linux /proc/PID/task/PID/children: in
** the order they were made), or 0. */
static pid_t first_child(pid_t pid) {
  char path[64], buf[32];
  snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)pid, (long)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  return (pid_t)strtol(buf, NULL, 10);
}

/* Paths for a sandboxed child's mount namespace (spawn's 'writable' or
** 'readonly'), resolved in the parent, each with the flags of the mount it
** is on (kn_sandbox_mount_flags). */
typedef struct {
  const char **path;
  unsigned long *keep;
  int n;
} path_list;

/* What a child needs between fork and exec (read-only there). */
typedef struct {
  const char **argv;
  int *fds;      /* the pipes of l_spawn */
  int with_stdin, err_mode, setsid_, pgroup;
  int network; /* sandboxed: the host's network namespace kept */
  double memory, cpu;
  path_list rw, ro; /* sandboxed: paths kept writable, then made read-only */
  const char *init; /* sandboxed: the init program's path (sandbox_init_path) */
  pid_t parent;     /* the spawning process: gone before PDEATHSIG was set? */
} spawn_plan;

/* Reports a failed step ('stage', errno) through the status pipe and ends
** the child: the parent reads it instead of a dead child. */
static void spawn_fail(int fd, int stage) {
  kn_sandbox_error r = {stage, errno};
  if (write(fd, &r, sizeof r) < 0) { /* nothing more to do */ }
  _exit(127);
}

/* In the child: its session or group, its descriptors, its limits, then
** the program. Async-signal-safe calls only (the parent may have threads).
** Never returns. */
static void spawn_exec(const spawn_plan *sp) {
  const int *fds = sp->fds;
  int in = sp->with_stdin ? fds[4] : open("/dev/null", O_RDONLY);
  int errfd = fds[1];
  if (sp->setsid_) {
    setsid();
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the referee */
    if (getppid() != sp->parent) _exit(127); /* it died before the call */
#endif
  } else if (sp->pgroup) {
    setpgid(0, 0);
#ifdef __linux__
    /* out of the parent's group, no Ctrl-C reaches it: it must not outlive
    ** a parent killed by SIGKILL either (a tournament's worker) */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != sp->parent) _exit(127);
#endif
  }
  signal(SIGINT, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  if (in >= 0 && in != 0) {
    dup2(in, 0);
    close(in);
  }
  if (sp->err_mode == 1) errfd = open("/dev/null", O_WRONLY);
  if (sp->err_mode == 2) errfd = fds[7] >= 0 ? fds[7] : open("/dev/null", O_WRONLY);
  dup2(fds[1], 1);
  if (errfd >= 0) dup2(errfd, 2);
  if (fds[1] > 2) close(fds[1]);
  if (errfd > 2 && errfd != fds[1]) close(errfd);
  if (sp->memory > 0) {
#if defined(__SANITIZE_ADDRESS__)
    /* a sanitizer build reserves terabytes of shadow memory: no RLIMIT_AS
    ** there; its allocator is told the budget instead (test builds only) */
    char opts[160];
    snprintf(opts, sizeof opts,
             "allocator_may_return_null=1:max_allocation_size_mb=%.0f:"
             "soft_rss_limit_mb=%.0f", sp->memory / 1048576.0, sp->memory / 1048576.0);
    setenv("ASAN_OPTIONS", opts, 1);
#else
    struct rlimit as = {(rlim_t)sp->memory, (rlim_t)sp->memory};
    setrlimit(RLIMIT_AS, &as);
#endif
  }
  if (sp->cpu > 0) {
    rlim_t secs = (rlim_t)sp->cpu + ((double)(rlim_t)sp->cpu < sp->cpu); /* rounded up: never 0 */
    struct rlimit c = {secs, secs + 1};
    setrlimit(RLIMIT_CPU, &c);
  }
  spawn_close_from(3, fds[3]); /* nothing inherited but the pipes */
  execvp(sp->argv[0], (char *const *)sp->argv);
  spawn_fail(fds[3], KN_SB_EXEC);
}

/*
** The child of kn_sandbox_clone: PID 1 of the player's own user, PID and
** mount namespaces. It leads a session (so p:kill reaches the player, its
** child, through the group), dies with the referee, makes the namespaces
** (ids, its own /proc), starts the player with every signal blocked here
** and becomes its init: it keeps only the pipe for the player's wait status
** (fds[9]). Async-signal-safe calls only. Never returns.
*/
static void spawn_sandboxed(spawn_plan *sp, unsigned uid, unsigned gid) {
  int *fds = sp->fds;
  setsid();
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGKILL); /* the namespace ends with its init */
#endif
  int stage = kn_sandbox_enter(uid, gid);
  if (stage == KN_SB_OK && !sp->network) stage = kn_sandbox_loopback();
  if (stage != KN_SB_OK) spawn_fail(fds[3], stage);
  for (int i = 0; i < sp->rw.n; i++)
    if (kn_sandbox_bind(sp->rw.path[i], sp->rw.keep[i], 0) != KN_SB_OK) spawn_fail(fds[3], KN_SB_READONLY);
  for (int i = 0; i < sp->ro.n; i++)
    if (kn_sandbox_bind(sp->ro.path[i], sp->ro.keep[i], 1) != KN_SB_OK) spawn_fail(fds[3], KN_SB_READONLY);
  sigset_t all, old;
  sigfillset(&all);
  signal(SIGCHLD, SIG_DFL); /* the init reaps: never auto-reaped */
  sigprocmask(SIG_BLOCK, &all, &old);
  pid_t child = kn_sandbox_fork();
  if (child < 0) spawn_fail(fds[3], KN_SB_FORK);
  if (child == 0) {
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (kn_sandbox_drop() != KN_SB_OK) spawn_fail(fds[3], KN_SB_CAPS);
    sp->setsid_ = sp->pgroup = 0; /* the init's group is the player's */
    spawn_exec(sp);
  }
  /* the init becomes a program of its own, holding none of the referee's
  ** memory: the status pipe as its stdin, the failure pipe (close-on-exec)
  ** as its stdout until the exec */
  char arg[24];
  kn_sandbox_decimal(arg, (unsigned long)child);
  if (dup2(fds[9], 0) < 0 || dup3(fds[3], 1, O_CLOEXEC) < 0) {
    kill(child, SIGKILL);
    spawn_fail(fds[3], KN_SB_INIT);
  }
  spawn_close_from(2, 1);
  char *const args[] = {(char *)KN_SANDBOX_INIT, arg, NULL};
  char *const env[] = {NULL};
  execve(sp->init, args, env);
  kill(child, SIGKILL);
  spawn_fail(1, KN_SB_INIT);
}

/* Registry key of the sandbox's availability in this process: a table
** {ok = boolean, why = string}, made by the first question. */
#define SANDBOX_KEY "konane.sandbox"

/* Pushes nothing; returns whether players can be sandboxed here and sets
** '*why' (a string kept in the registry) when they cannot. The answer is
** found once per Lua state: KONANE_NO_SANDBOX set and not empty forces
** "no"; otherwise a probe makes the namespaces once and says which step
** the system refused. */
static int sandbox_available(lua_State *L, const char **why) {
  int ok;
  if (lua_getfield(L, LUA_REGISTRYINDEX, SANDBOX_KEY) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_createtable(L, 0, 2);
    const char *force = getenv("KONANE_NO_SANDBOX");
    kn_sandbox_error e;
    if (force && *force) {
      ok = 0;
      lua_pushliteral(L, "KONANE_NO_SANDBOX is set");
    } else if (kn_sandbox_probe((unsigned)getuid(), (unsigned)getgid(), &e)) {
      ok = 1;
      lua_pushliteral(L, "");
    } else {
      ok = 0;
      lua_pushfstring(L, "the system refused the namespaces (%s: %s)",
                      kn_sandbox_stage_name(e.stage), strerror(e.err));
    }
    lua_setfield(L, -2, "why");
    lua_pushboolean(L, ok);
    lua_setfield(L, -2, "ok");
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, SANDBOX_KEY);
  }
  lua_getfield(L, -1, "ok");
  ok = lua_toboolean(L, -1);
  lua_getfield(L, -2, "why");
  *why = lua_tostring(L, -1); /* kept alive by the registry's table */
  lua_pop(L, 3);
  return ok;
}

/*
** The path of the sandbox's init program (KN_SANDBOX_INIT) for this
** process, found once per Lua state and kept in the registry: beside the
** shared object this code is in (build/konane.so, an installed core.so)
** or, linked into the host, beside the running program (build/konane,
** PREFIX/bin/konane); make and make install put a copy in each place.
** Pushes nothing; NULL and '*path' the path looked for when it is not
** there or not executable (errno set).
*/
#define SANDBOX_INIT_KEY "konane.sandbox_init"
static const char *sandbox_init_path(lua_State *L, const char **looked) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, SANDBOX_INIT_KEY) != LUA_TSTRING) {
    lua_pop(L, 1);
    Dl_info info;
    const char *self = "/proc/self/exe";
    size_t len = 0;
    if (dladdr((void *)&sandbox_init_path, &info) && info.dli_fname) {
      len = strlen(info.dli_fname);
      if (len > 3 && strcmp(info.dli_fname + len - 3, ".so") == 0) self = info.dli_fname;
    }
    char *real = realpath(self, NULL);
    const char *slash = real ? strrchr(real, '/') : NULL;
    if (slash)
      lua_pushfstring(L, "%s/%s", lua_pushlstring(L, real, (size_t)(slash - real)), KN_SANDBOX_INIT);
    else
      lua_pushfstring(L, "(the directory of %s)/%s", self, KN_SANDBOX_INIT);
    free(real);
    if (slash) lua_remove(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, SANDBOX_INIT_KEY);
  }
  const char *path = lua_tostring(L, -1); /* kept alive by the registry */
  lua_pop(L, 1);
  *looked = path;
  return access(path, X_OK) == 0 ? path : NULL;
}

/* core.sandbox() -> true | false, why: whether core.spawn{sandbox = true}
** gives players namespaces of their own here (see sandbox_available). */
static int l_sandbox(lua_State *L) {
  const char *why;
  if (sandbox_available(L, &why)) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushboolean(L, 0);
  lua_pushstring(L, why);
  return 2;
}

/*
** Reads spawn's option 'name' (a list of paths, argument 2) into 'pl' when
** 'sandboxed' (ignored otherwise): each path resolved here, since the child
** may not allocate, its string kept alive by a table left on the stack until
** the call ends. 0, or 2 with nil and a message pushed when a path does not
** resolve; a malformed list raises.
*/
static int spawn_paths(lua_State *L, const char *name, int sandboxed, path_list *pl) {
  pl->path = NULL;
  pl->keep = NULL;
  pl->n = 0;
  if (!lua_istable(L, 2) || lua_getfield(L, 2, name) == LUA_TNIL) return 0;
  if (!lua_istable(L, -1)) return luaL_error(L, "bad argument #2 to 'spawn' (option '%s' must be a list of paths)", name);
  lua_Integer m = luaL_len(L, -1);
  if (m < 0 || m > 64) return luaL_error(L, "bad argument #2 to 'spawn' (option '%s': at most 64 paths)", name);
  int list = lua_gettop(L);
  lua_createtable(L, (int)m, 0);
  pl->path = lua_newuserdatauv(L, sizeof(char *) * (size_t)(m + 1), 0);
  pl->keep = lua_newuserdatauv(L, sizeof(unsigned long) * (size_t)(m + 1), 0);
  for (lua_Integer i = 1; sandboxed && i <= m; i++) {
    if (lua_geti(L, list, i) != LUA_TSTRING)
      return luaL_error(L, "bad argument #2 to 'spawn' (%s[%d] is not a string)", name, (int)i);
    char *real = kn_sandbox_resolve(lua_tostring(L, -1));
    if (!real) {
      lua_pushnil(L);
      lua_pushfstring(L, "cannot make '%s' %s: %s", lua_tostring(L, -2),
                      name[0] == 'r' ? "read-only" : "writable", strerror(errno));
      return 2;
    }
    lua_pushstring(L, real);
    free(real);
    lua_rawseti(L, list + 1, i);
    lua_pop(L, 1);
    lua_rawgeti(L, list + 1, i);
    pl->path[pl->n] = lua_tostring(L, -1); /* kept alive by the table */
    pl->keep[pl->n] = kn_sandbox_mount_flags(pl->path[pl->n]);
    pl->n++;
    lua_pop(L, 1);
  }
  return 0;
}

/*
** A path bound in the sandbox (read-only, or writable) two or more levels
** inside a writable one (--out W/runs/t1 with W writable) is safe only if
** nothing above it can move: the player could rename W/runs, make a
** W/runs/t1 of its own and plant links where the referee writes (or, for a
** writable path, put a link there that the next player's realpath follows).
** A mount point cannot be renamed or removed, so every directory between the
** two (W/runs) is bound onto itself as well, writable as before. Replaces
** 'rw' with its own paths followed by those directories (bound before any
** read-only path), kept alive on the stack like spawn_paths's.
*/
/* Is 'a' the path 'b' or inside it (both resolved)? */
static int path_within(const char *a, size_t alen, const char *b) {
  size_t blen = strlen(b);
  while (blen > 0 && b[blen - 1] == '/') blen--; /* "/" itself */
  return alen >= blen && strncmp(a, b, blen) == 0 && (alen == blen || a[blen] == '/');
}

static void spawn_pin_parents(lua_State *L, path_list *rw, const path_list *ro) {
  int extra = 0;
  for (int i = 0; i < ro->n + rw->n; i++)
    for (const char *c = i < ro->n ? ro->path[i] : rw->path[i - ro->n]; *c; c++) extra += *c == '/';
  extra *= rw->n; /* at most each directory of each path, a writable path each */
  if (extra == 0) return;
  path_list out;
  out.path = lua_newuserdatauv(L, sizeof(char *) * (size_t)(rw->n + extra), 0);
  out.keep = lua_newuserdatauv(L, sizeof(unsigned long) * (size_t)(rw->n + extra), 0);
  out.n = 0;
  for (int j = 0; j < rw->n; j++) {
    out.path[out.n] = rw->path[j];
    out.keep[out.n] = rw->keep[j];
    out.n++;
  }
  lua_newtable(L);
  int keep = lua_gettop(L);
  for (int i = 0; i < ro->n + rw->n; i++) {
    const char *r = i < ro->n ? ro->path[i] : rw->path[i - ro->n];
    for (int j = 0; j < rw->n; j++) {
      const char *w = rw->path[j];
      size_t len = strlen(w);
      while (len > 0 && w[len - 1] == '/') len--; /* "/" itself */
      if (strncmp(r, w, len) != 0 || r[len] != '/' || r[len + 1] == 0) continue;
      /* each directory strictly between w and r (r is its own mount point),
      ** but none a read-only path already holds: nothing moves there, and a
      ** writable bind would outlast that path's read-only one */
      for (const char *d = strchr(r + len + 1, '/'); d; d = strchr(d + 1, '/')) {
        int held = 0;
        for (int k = 0; k < ro->n && !held; k++) held = path_within(r, (size_t)(d - r), ro->path[k]);
        if (held) continue;
        lua_pushlstring(L, r, (size_t)(d - r));
        out.path[out.n] = lua_tostring(L, -1);
        lua_rawseti(L, keep, out.n + 1); /* the table keeps the string */
        out.keep[out.n] = kn_sandbox_mount_flags(out.path[out.n]);
        out.n++;
      }
    }
  }
  *rw = out;
}

/*
** core.spawn(argv [, opts]): starts argv[1] (searched in PATH when it has
** no slash) with the arguments argv[2..]. Options:
**   pgroup: the child leads a process group of its own, so a Ctrl-C at the
**     terminal reaches only the parent, and p:kill() kills the group; on
**     Linux it is killed when the parent dies;
**   session: a session of its own (setsid: no terminal, its own group), and
**     on Linux it is killed when the parent dies (untrusted players);
**   sandbox: a session as above, and on Linux, where core.sandbox() says
**     so, the child runs in its own user, PID and mount namespaces with its
**     own /proc, its own /dev (harmless nodes only), its own network (a
**     loopback only), System V IPC and host name, and no capabilities:
**     it sees and can signal only its own descendants, and they all die
**     with it (p:pid() is then the pid of the
**     namespace's init, a small process that starts the child, reaps and
**     passes its exit status on, the program konane-sandbox-init found
**     beside this module or the host program (an error when it is
**     missing); p:sandboxed() tells); elsewhere as session;
**   stdin: a pipe as the child's stdin (p:write), else /dev/null;
**   stderr: absent or true: into the output pipe with stdout; false:
**     /dev/null; a path: appended to that file by a thread of this
**     process, 1 MB at most a child (the rest is read and dropped);
**   memory: bytes of address space (RLIMIT_AS); cpu: CPU seconds (RLIMIT_CPU);
**   writable: a list of existing paths the child may write (sandboxed, it
**     sees every other file read-only, see kn_sandbox_enter); readonly: a
**     list of existing paths it sees read-only even inside those (a bind
**     mount of each in its mount namespace). Sandboxed only: ignored without
**     the sandbox; a path that does not resolve is an error;
**   network: sandboxed, the child keeps the machine's network (an engine
**     that plays through a server) instead of a namespace of its own.
** The child inherits no descriptor but its pipes. Returns the process, or
** nil and a message when it cannot be started (exec failures are reported
** through a close-on-exec status pipe, not as a dead child).
*/
static int l_spawn(lua_State *L) {
  static const char *const names[] = {"pgroup", "stdin", "session", "stderr",
                                      "memory", "cpu",   "sandbox", "readonly", "writable", "network", NULL};
  luaL_checktype(L, 1, LUA_TTABLE);
  lk_opts_check(L, 2, names, "spawn");
  int pgroup = 0, with_stdin = 0, session = 0, err_mode = 0, sandboxed = 0, network = 0;
  double memory = 0, cpu = 0;
  const char *log = NULL;
  if (lua_istable(L, 2)) {
    lua_getfield(L, 2, "pgroup");
    pgroup = lua_toboolean(L, -1);
    lua_getfield(L, 2, "stdin");
    with_stdin = lua_toboolean(L, -1);
    lua_getfield(L, 2, "session");
    session = lua_toboolean(L, -1);
    lua_getfield(L, 2, "sandbox");
    sandboxed = lua_toboolean(L, -1);
    lua_getfield(L, 2, "network");
    network = lua_toboolean(L, -1);
    lua_pop(L, 5);
    int t = lua_getfield(L, 2, "stderr");
    if (t == LUA_TSTRING) {
      err_mode = 2;
      log = lua_tostring(L, -1); /* kept alive by the options table */
    } else if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
      err_mode = 1;
    } else if (t != LUA_TNIL && t != LUA_TBOOLEAN) {
      luaL_argerror(L, 2, "option 'stderr' must be a boolean or a path");
    }
    lua_pop(L, 1);
    memory = lk_opt_number(L, 2, "memory", 0, 1e15, 0);
    cpu = lk_opt_number(L, 2, "cpu", 0, 1e9, 0);
  }
  if (sandboxed) {
    const char *why;
    session = 1;
    sandboxed = sandbox_available(L, &why);
  }
  if (session) pgroup = 1;
  lua_Integer n = luaL_len(L, 1);
  luaL_argcheck(L, n >= 1 && n < 4096, 1, "argv must hold 1 to 4095 strings");
  /* the argument vector lives in Lua-managed memory: nothing leaks on error */
  const char **argv = lua_newuserdatauv(L, sizeof(char *) * (size_t)(n + 1), 0);
  for (lua_Integer i = 1; i <= n; i++) {
    /* the strings stay alive in the table (argument 1) until the call ends */
    if (lua_geti(L, 1, i) != LUA_TSTRING)
      return luaL_error(L, "bad argument #1 to 'spawn' (argv[%d] is not a string)", (int)i);
    argv[i - 1] = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  argv[n] = NULL;
  path_list rw, ro;
  const char *init_looked = NULL;
  if (spawn_paths(L, "writable", sandboxed, &rw) || spawn_paths(L, "readonly", sandboxed, &ro))
    return 2;
  spawn_pin_parents(L, &rw, &ro);
  const char *init = NULL;
  if (sandboxed && !(init = sandbox_init_path(L, &init_looked))) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot start '%s' in its sandbox (its init program %s: %s; make builds it "
                       "beside the module and the host program, make install installs it there)",
                    argv[0], init_looked, strerror(errno));
    return 2;
  }
  lprocess *p = lua_newuserdatauv(L, sizeof(lprocess), 0);
  p->pid = 0;
  p->fd = -1;
  p->wfd = -1;
  p->pgroup = pgroup;
  p->nonblock = 0;
  p->status = 0;
  p->sfd = -1;
  p->sandboxed = sandboxed;
  p->engine = 0;
  luaL_setmetatable(L, PROCESS_MT);

  /* fds: output pipe (read, write), status pipe (read, write), stdin pipe
  ** (read, write), stderr pipe to the log's copier (read, write), the
  ** sandboxed player's wait status from its init (read, write) */
  int fds[10] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
  kn_sandbox_error fail;
  pid_t pid;
  unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
  if (pipe(fds) != 0 || pipe(fds + 2) != 0 || (with_stdin && pipe(fds + 4) != 0) ||
      (sandboxed && pipe(fds + 8) != 0)) {
    process_close_fds(fds, 10);
    lua_pushnil(L);
    lua_pushfstring(L, "cannot start '%s': %s", argv[0], strerror(errno));
    return 2;
  }
#ifdef __linux__
  /* orphans of a player (or worker) that left its group come here, not to init */
  if (pgroup) prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
  process_cloexec(fds[0]);
  process_cloexec(fds[2]);
  process_cloexec(fds[3]);
  if (with_stdin) process_cloexec(fds[5]);
  if (sandboxed) {
    process_cloexec(fds[8]);
    process_cloexec(fds[9]);
  }
  if (err_mode == 2) { /* the log or, when it cannot be opened, /dev/null */
    int logfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (logfd >= 0 && pipe(fds + 6) == 0) {
      process_cloexec(fds[6]);
      process_cloexec(fds[7]);
      if (log_copy_start(fds[6], logfd) == 0) {
        fds[6] = -1; /* the copier's now, with logfd */
      } else {
        process_close_fds(fds + 6, 2);
        close(logfd);
      }
    } else if (logfd >= 0) {
      close(logfd);
    }
  }
  spawn_plan plan = {argv, fds, with_stdin, err_mode, session, pgroup, network, memory, cpu, rw, ro, init, getpid()};
  fflush(NULL);
  pid = sandboxed ? kn_sandbox_clone(network) : fork();
  if (pid < 0) {
    process_close_fds(fds, 10);
    lua_pushnil(L);
    lua_pushfstring(L, "cannot start '%s': %s", argv[0], strerror(errno));
    return 2;
  }
  if (pid == 0) { /* child: only async-signal-safe calls until exec */
    if (sandboxed) spawn_sandboxed(&plan, uid, gid);
    spawn_exec(&plan);
  }
  if (pgroup && !session) setpgid(pid, pid); /* also here: no race with an early kill */
  process_close_fds(fds + 1, 1);
  process_close_fds(fds + 3, 1);
  process_close_fds(fds + 7, 1); /* the copier sees end of file when the child's side closes */
  process_close_fds(fds + 9, 1);
  if (with_stdin) process_close_fds(fds + 4, 1);
  ssize_t got;
  do got = read(fds[2], &fail, sizeof fail);
  while (got < 0 && errno == EINTR);
  process_close_fds(fds + 2, 1);
  if (got == (ssize_t)sizeof fail) { /* exec failed, or the sandbox: reap and report */
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    process_close_fds(fds, 10);
    lua_pushnil(L);
    if (fail.stage == KN_SB_EXEC)
      lua_pushfstring(L, "cannot run '%s': %s", argv[0], strerror(fail.err));
    else
      lua_pushfstring(L, "cannot start '%s' in its sandbox (%s: %s)", argv[0],
                      kn_sandbox_stage_name(fail.stage), strerror(fail.err));
    return 2;
  }
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  p->pid = pid;
  p->fd = fds[0];
  p->wfd = with_stdin ? fds[5] : -1;
  p->sfd = fds[8];
  if (p->sfd >= 0) fcntl(p->sfd, F_SETFL, fcntl(p->sfd, F_GETFL) | O_NONBLOCK);
  if (sandboxed) p->engine = first_child(pid);
  spawned_register(L, pid);
  return 1;
}

/* A sandboxed process's init has ended: the player's wait status it wrote
** replaces the init's own (none when the init was killed first: a kill of
** the group, whose status is the player's too). */
static void process_take_status(lprocess *p) {
  if (p->sfd < 0) return;
  int status;
  ssize_t got;
  do got = read(p->sfd, &status, sizeof status);
  while (got < 0 && errno == EINTR);
  if (got == (ssize_t)sizeof status) p->status = status;
  close(p->sfd);
  p->sfd = -1;
}

/* Reaps the child if it has ended ('block': wait for it). 1 when reaped. */
static int process_reap(lprocess *p, int block) {
  if (p->pid <= 0) return 1;
  int status;
  pid_t r;
  do r = waitpid(p->pid, &status, block ? 0 : WNOHANG);
  while (r < 0 && errno == EINTR && block);
  if (r == p->pid) {
    p->status = status;
    p->pid = 0;
    process_take_status(p);
    return 1;
  }
  if (r < 0 && errno == ECHILD) { /* reaped elsewhere: nothing to wait for */
    p->pid = 0;
    return 1;
  }
  return 0;
}

/*
** Processes a player leaves behind. A player runs in a session and process
** group of its own, which p:kill() ends; a descendant that double-forks and
** calls setsid leaves both. On Linux a process that spawns players or
** workers becomes a child subreaper (PR_SET_CHILD_SUBREAPER), so such an
** orphan is re-parented to it instead of init, and core.kill_strays() ends
** it: every child of this process that core.spawn did not start (or started
** and has reaped) and that is outside this process's own session (the
** host's own io.popen and os.execute children are inside it) is killed with
** SIGKILL, with its process group, and reaped. So is a child of a living
** player (a session leader core.spawn started) that left the player's session:
** its parent reaps it. Killing one re-parents its own children here: the sweep
** repeats until a pass finds none. A sandboxed player's descendants stay in
** its namespaces, where orphans go to its init; the sweep kills every child
** of the init but the player and every child of the player outside the
** player's session (the init's), so a player kept from game to game keeps
** nothing it left behind either.
*/
#define SPAWNED_KEY "konane.spawned" /* registry: pid -> process (weak values) */
#define SWEEP_ROUNDS 64

/* Remembers the process at the top of the stack as started by core.spawn. */
static void spawned_register(lua_State *L, pid_t pid) {
  if (!luaL_getsubtable(L, LUA_REGISTRYINDEX, SPAWNED_KEY)) {
    lua_newtable(L); /* weak values: a collected process is forgotten */
    lua_pushliteral(L, "v");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
  }
  lua_pushvalue(L, -2);
  lua_rawseti(L, -2, (lua_Integer)pid);
  lua_pop(L, 1);
}

/* Is 'pid' a process core.spawn started and has not reaped? 1 if so (and
** '*engine' is 0), 2 when it is the init of a sandboxed player ('*engine' is
** the player's pid, or 0 when unknown), else 0. */
static int spawned_owns(lua_State *L, pid_t pid, pid_t *engine) {
  int top = lua_gettop(L), owned = 0;
  *engine = 0;
  if (lua_getfield(L, LUA_REGISTRYINDEX, SPAWNED_KEY) == LUA_TTABLE &&
      lua_rawgeti(L, -1, (lua_Integer)pid) == LUA_TUSERDATA) {
    const lprocess *p = lua_touserdata(L, -1);
    if (p->pid == pid) {
      owned = p->sandboxed ? 2 : 1;
      *engine = p->engine;
    }
  }
  lua_settop(L, top);
  return owned;
}

/* Reads the parent, process group and session of process 'name' (a /proc
** entry); 0 on success. The command name in parentheses may hold anything:
** the fields are read after its last ')'. */
static int proc_stat(const char *name, long *ppid, long *pgrp, long *sid, char *state) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%s/stat", name);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  const char *rp = strrchr(buf, ')');
  if (!rp || sscanf(rp + 1, " %c %ld %ld %ld", state, ppid, pgrp, sid) != 4) return -1;
  return 0;
}

/* Fills 'out' (room for 'max') with the (init, engine) pids of the living
** sandboxed players core.spawn started; returns how many. */
static int sandboxed_players(lua_State *L, pid_t (*out)[2], int max) {
  int n = 0;
  if (lua_getfield(L, LUA_REGISTRYINDEX, SPAWNED_KEY) == LUA_TTABLE) {
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
      const lprocess *p = lua_touserdata(L, -1);
      if (p && p->pid > 0 && p->sandboxed && p->engine > 0 && n < max) {
        out[n][0] = p->pid;
        out[n][1] = p->engine;
        n++;
      }
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  return n;
}

/* Kills process 'pid' with SIGKILL, and its group when it leads one. */
static void strike(pid_t pid, long pgrp) {
  if (pgrp == (long)pid) kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
}

/* core.kill_strays() -> number of processes ended (see above). */
static int l_kill_strays(lua_State *L) {
  long self = (long)getpid(), own_sid = (long)getsid(0);
  int killed = 0;
  pid_t(*boxes)[2] = lua_newuserdatauv(L, sizeof(pid_t[2]) * 1024, 0);
  int nboxes = sandboxed_players(L, boxes, 1024);
  for (int round = 0; round < SWEEP_ROUNDS; round++) {
    DIR *d = opendir("/proc");
    if (!d) break;
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      long ppid, pgrp, sid;
      char state;
      pid_t engine;
      if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
      if (proc_stat(e->d_name, &ppid, &pgrp, &sid, &state) != 0) continue;
      pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);
      if (ppid != self) {
        long psid, pp, pg;
        char name[32], pstate;
        int i;
        if (ppid <= 1 || state == 'Z') continue; /* a zombie's parent reaps it */
        /* in a sandboxed player's namespace: an orphan its init adopted, or a
        ** child of the player that left the player's session (the init's) */
        for (i = 0; i < nboxes; i++)
          if ((long)boxes[i][0] == ppid || (long)boxes[i][1] == ppid) break;
        if (i < nboxes) {
          if ((long)boxes[i][0] == ppid ? pid == boxes[i][1] : sid == (long)boxes[i][0]) continue;
          strike(pid, pgrp); /* the init or the player reaps it */
          found++;
          continue;
        }
        /* a living player's child that left the player's session (fork +
        ** setsid while the player runs on): the player leads its session */
        if (spawned_owns(L, (pid_t)ppid, &engine) != 1) continue;
        snprintf(name, sizeof name, "%ld", ppid);
        if (proc_stat(name, &pp, &pg, &psid, &pstate) != 0 || psid != ppid || sid == psid)
          continue;
        strike(pid, pgrp); /* its parent reaps it; its children come here */
        found++;
        continue;
      }
      if (sid == own_sid || spawned_owns(L, pid, &engine)) continue;
      strike(pid, pgrp);
      int status;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
      found++;
    }
    closedir(d);
    killed += found;
    if (!found) break;
  }
  lua_pushinteger(L, killed);
  return 1;
}

/*
** core.fd_read(fd, timeout): waits at most 'timeout' seconds (negative:
** forever) for input on descriptor 'fd', then returns what one read gives:
** the bytes, "" when nothing came in time, nil at end of input. The UGI
** server reads its commands this way, so it can look for `stop` during a
** search without blocking.
*/
static int l_fd_read(lua_State *L) {
  int fd = (int)luaL_checkinteger(L, 1);
  double timeout = luaL_optnumber(L, 2, -1);
  struct pollfd pfd;
  char buf[65536];
  int ms = timeout < 0 ? -1 : (timeout > 86400.0 ? 86400000 : (int)(timeout * 1000.0 + 0.5));
  int r;
  pfd.fd = fd;
  pfd.events = POLLIN;
  pfd.revents = 0;
  do r = poll(&pfd, 1, ms);
  while (r < 0 && errno == EINTR && ms < 0);
  if (r <= 0) {
    lua_pushliteral(L, "");
    return 1;
  }
  ssize_t got;
  do got = read(fd, buf, sizeof buf);
  while (got < 0 && errno == EINTR);
  if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    lua_pushliteral(L, "");
    return 1;
  }
  if (got <= 0) return 0;
  lua_pushlstring(L, buf, (size_t)got);
  return 1;
}

/* p:read(): the output available now ("" if none yet), nil at end of file. */
static int l_process_read(lua_State *L) {
  lprocess *p = check_process(L, 1);
  if (p->fd < 0) {
    lua_pushnil(L);
    return 1;
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (;;) {
    char *dst = luaL_prepbuffer(&b);
    ssize_t got = read(p->fd, dst, LUAL_BUFFERSIZE);
    if (got > 0) {
      luaL_addsize(&b, (size_t)got);
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
      close(p->fd); /* end of file (or a broken pipe): report it once drained */
      p->fd = -1;
    }
    break;
  }
  luaL_pushresult(&b);
  if (p->fd < 0 && lua_rawlen(L, -1) == 0) lua_pushnil(L);
  return 1;
}

/*
** core.poll(list, timeout): waits at most 'timeout' seconds (nil: forever)
** until one process of 'list' has output or has closed its output. Returns
** how many are ready; 0 on timeout or when a signal interrupted the wait
** (the caller checks its own interrupt state and loops).
*/
static int l_process_poll(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  double timeout = luaL_optnumber(L, 2, -1);
  lua_Integer n = luaL_len(L, 1);
  luaL_argcheck(L, n >= 0 && n <= 1024, 1, "at most 1024 processes");
  struct pollfd *fds = lua_newuserdatauv(L, sizeof(struct pollfd) * (size_t)(n + 1), 0);
  int nfds = 0, ready = 0;
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, 1, i);
    lprocess *p = check_process(L, -1);
    lua_pop(L, 1);
    if (p->fd < 0) {
      ready++; /* already at EOF: ready at once */
      continue;
    }
    fds[nfds].fd = p->fd;
    fds[nfds].events = POLLIN;
    fds[nfds].revents = 0;
    nfds++;
  }
  if (ready > 0) {
    lua_pushinteger(L, ready);
    return 1;
  }
  int ms = timeout < 0 ? -1 : (timeout > 86400.0 ? 86400000 : (int)(timeout * 1000.0 + 0.5));
  int r = poll(fds, (nfds_t)nfds, ms);
  lua_pushinteger(L, r < 0 ? 0 : r);
  return 1;
}

/* p:wait([block]): nil while the child runs, else "exit", code or "signal", number. */
static int l_process_wait(lua_State *L) {
  lprocess *p = check_process(L, 1);
  if (!process_reap(p, lua_toboolean(L, 2))) {
    lua_pushnil(L);
    return 1;
  }
  if (WIFSIGNALED(p->status)) {
    lua_pushliteral(L, "signal");
    lua_pushinteger(L, WTERMSIG(p->status));
  } else {
    lua_pushliteral(L, "exit");
    lua_pushinteger(L, WIFEXITED(p->status) ? WEXITSTATUS(p->status) : 0);
  }
  return 2;
}

/* p:kill([sig]): sends 'sig' (default SIGKILL) to the child, or to its whole group. */
static int l_process_kill(lua_State *L) {
  lprocess *p = check_process(L, 1);
  int sig = (int)luaL_optinteger(L, 2, SIGKILL);
  if (p->pid > 0) kill(p->pgroup ? -p->pid : p->pid, sig);
  return 0;
}

static int l_process_pid(lua_State *L) {
  lprocess *p = check_process(L, 1);
  lua_pushinteger(L, p->pid);
  return 1;
}

/* p:sandboxed(): true when the process runs in namespaces of its own. */
static int l_process_sandboxed(lua_State *L) {
  lprocess *p = check_process(L, 1);
  lua_pushboolean(L, p->sandboxed);
  return 1;
}

/* p:write(s): writes all of 's' to the child's stdin. SIGPIPE is ignored
** during the call, so a child that died gives nil and a message instead of
** killing this process. */
/*
** p:write(text [, timeout]) -> true, or nil and a message. Without 'timeout' the
** write blocks until the child has taken the text; with it (seconds), a child
** that does not read its input (a full pipe) makes the write give up after that
** long with "the process does not read its input": a player that stops reading
** can never hang its referee.
*/
static int l_process_write(lua_State *L) {
  lprocess *p = check_process(L, 1);
  size_t len;
  const char *s = luaL_checklstring(L, 2, &len);
  double timeout = luaL_optnumber(L, 3, -1);
  if (p->wfd < 0) {
    lua_pushnil(L);
    lua_pushliteral(L, "the process has no input pipe (closed)");
    return 2;
  }
  struct sigaction ign, old;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGPIPE, &ign, &old);
  /* the pipe is made non-blocking once, at the first write with a timeout (no
  ** system call per write); a full pipe is then waited for with poll */
  if (timeout >= 0 && !p->nonblock) {
    int flags = fcntl(p->wfd, F_GETFL);
    if (flags >= 0 && fcntl(p->wfd, F_SETFL, flags | O_NONBLOCK) == 0) p->nonblock = 1;
  }
  double deadline = timeout >= 0 ? lk_now() + timeout : 0;
  size_t done = 0;
  int err = 0;
  while (done < len) {
    ssize_t n = write(p->wfd, s + done, len - done);
    if (n > 0) done += (size_t)n;
    else if (n < 0 && errno == EINTR) continue;
    else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      int ms = -1; /* no timeout: wait as a blocking write would */
      if (timeout >= 0) {
        double left = deadline - lk_now();
        if (left <= 0) {
          err = ETIMEDOUT;
          break;
        }
        ms = (int)(left * 1000) + 1;
      }
      struct pollfd pfd = {p->wfd, POLLOUT, 0};
      poll(&pfd, 1, ms);
    } else {
      err = n < 0 ? errno : EIO;
      break;
    }
  }
  sigaction(SIGPIPE, &old, NULL);
  if (err) {
    lua_pushnil(L);
    if (err == ETIMEDOUT)
      lua_pushliteral(L, "the process does not read its input");
    else
      lua_pushstring(L, strerror(err));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* p:close_input(): closes the child's stdin, which then reads end of file. */
static int l_process_close_input(lua_State *L) {
  lprocess *p = check_process(L, 1);
  if (p->wfd >= 0) {
    close(p->wfd);
    p->wfd = -1;
  }
  return 0;
}

/* __gc / __close / p:close(): closes the pipe, kills a child still running
** and reaps it. Idempotent. */
static int l_process_close(lua_State *L) {
  lprocess *p = check_process(L, 1);
  if (p->fd >= 0) {
    close(p->fd);
    p->fd = -1;
  }
  if (p->wfd >= 0) {
    close(p->wfd);
    p->wfd = -1;
  }
  if (p->pid > 0 && !process_reap(p, 0)) {
    kill(p->pgroup ? -p->pid : p->pid, SIGKILL);
    process_reap(p, 1);
  }
  return 0;
}

/* core.isatty(fd): true when file descriptor 'fd' (0, 1, 2) is a terminal. */
static int l_isatty(lua_State *L) {
  lua_pushboolean(L, isatty((int)luaL_checkinteger(L, 1)) == 1);
  return 1;
}

/* core.term_columns(fd): the width of the terminal on 'fd', or nil when it is
** not a terminal (or the system cannot tell). */
static int l_term_columns(lua_State *L) {
  int fd = (int)luaL_checkinteger(L, 1);
#ifdef TIOCGWINSZ
  struct winsize ws;
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    lua_pushinteger(L, ws.ws_col);
    return 1;
  }
#else
  (void)fd;
#endif
  return 0;
}

/* core.exe_path(): the path of the running executable (Linux /proc), or
** nil. When the file was replaced since it started (a rebuild), the kernel
** appends " (deleted)": the path is still the right one to run. */
static int l_exe_path(lua_State *L) {
  char buf[4096];
  static const char deleted[] = " (deleted)";
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return 0;
  size_t len = (size_t)n, dl = sizeof deleted - 1;
  if (len > dl && memcmp(buf + len - dl, deleted, dl) == 0) len -= dl;
  lua_pushlstring(L, buf, len);
  return 1;
}

/* core.fsync(file): flushes a Lua file and asks the kernel to put it on disk,
** so a finished game survives a power cut. true, or nil and a message. */
static int l_fsync(lua_State *L) {
  luaL_Stream *s = (luaL_Stream *)luaL_checkudata(L, 1, LUA_FILEHANDLE);
  luaL_argcheck(L, s->closef != NULL && s->f != NULL, 1, "file is closed");
  if (fflush(s->f) != 0 || fsync(fileno(s->f)) != 0) {
    lua_pushnil(L);
    lua_pushstring(L, strerror(errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* core.lock(file): takes an exclusive POSIX lock on an open Lua file without
** waiting. true, or nil and a message when another process holds it. The
** kernel drops the lock when the process ends, even by kill -9, so a stale
** lock never blocks a resume. */
static int l_lock(lua_State *L) {
  luaL_Stream *s = (luaL_Stream *)luaL_checkudata(L, 1, LUA_FILEHANDLE);
  luaL_argcheck(L, s->closef != NULL && s->f != NULL, 1, "file is closed");
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  if (fcntl(fileno(s->f), F_SETLK, &fl) != 0) {
    lua_pushnil(L);
    lua_pushstring(L, (errno == EACCES || errno == EAGAIN) ? "locked by another process"
                                                          : strerror(errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

static const luaL_Reg process_methods[] = {{"read", l_process_read},
                                           {"write", l_process_write},
                                           {"close_input", l_process_close_input},
                                           {"wait", l_process_wait},
                                           {"kill", l_process_kill},
                                           {"pid", l_process_pid},
                                           {"sandboxed", l_process_sandboxed},
                                           {"close", l_process_close},
                                           {NULL, NULL}};

/* core.spawn, with the process metatable created on first use. */
static int l_spawn_entry(lua_State *L) {
  if (luaL_newmetatable(L, PROCESS_MT)) {
    lua_pushcfunction(L, l_process_close);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, l_process_close);
    lua_setfield(L, -2, "__close");
    luaL_newlib(L, process_methods);
    lua_setfield(L, -2, "__index");
  }
  lua_pop(L, 1);
  return l_spawn(L);
}

const luaL_Reg lk_proc_funcs[] = {{"clock", l_clock},
                                         {"call_limited", l_call_limited},
                                         {"listdir", l_listdir},
                                         {"spawn", l_spawn_entry},
                                         {"sandbox", l_sandbox},
                                         {"fd_read", l_fd_read},
                                         {"poll", l_process_poll},
                                         {"isatty", l_isatty},
                                         {"term_columns", l_term_columns},
                                         {"exe_path", l_exe_path},
                                         {"fsync", l_fsync},
                                         {"lock", l_lock},
                                         {"kill_strays", l_kill_strays},
                                         {NULL, NULL}};
