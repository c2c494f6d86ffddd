/*
** sandbox.c
** A player process's own user, PID and mount namespaces (Linux)
** See docs/architecture.md for the map of files
*/
#define _GNU_SOURCE /* the CLONE_NEW* flags, syscall, getpgid */

#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/capability.h>
#include <linux/securebits.h>
#include <net/if.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#endif

char *kn_sandbox_resolve(const char *path) { return realpath(path, NULL); }

size_t kn_sandbox_decimal(char *buf, unsigned long v) {
  char digits[24];
  size_t nd = 0, n = 0;
  do digits[nd++] = (char)('0' + v % 10);
  while ((v /= 10) > 0);
  while (nd > 0) buf[n++] = digits[--nd];
  buf[n] = 0;
  return n;
}

const char *kn_sandbox_stage_name(int stage) {
  switch (stage) {
  case KN_SB_OK: return "no error";
  case KN_SB_CLONE: return "new namespaces (clone)";
  case KN_SB_IDMAP: return "user id map";
  case KN_SB_PRIVATE: return "private mounts";
  case KN_SB_PROC: return "mount of /proc";
  case KN_SB_FORK: return "fork in the namespace";
  case KN_SB_CAPS: return "dropping capabilities";
  case KN_SB_EXEC: return "exec";
  case KN_SB_READONLY: return "read-only mounts";
  case KN_SB_DEV: return "private /dev";
  case KN_SB_NET: return "loopback interface";
  case KN_SB_INIT: return "init program " KN_SANDBOX_INIT;
  default: return "not Linux";
  }
}

#ifdef __linux__

/* A player reaches no socket of the machine (a network namespace: no
** interface but its own loopback, no abstract unix socket of the host) and
** no System V IPC object or POSIX message queue (an IPC namespace); its
** host name is its own (UTS: free). CLONE_NEWNET is left out on request. */
#define SB_FLAGS                                                                                   \
  (CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET)

/* clone3's arguments, the first version's 64 bytes (linux/sched.h has the
** struct, but its CLONE_* macros clash with <sched.h>'s). */
typedef struct {
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
} sb_clone_args;

/* A fork-like clone with 'flags': clone3 where the kernel has it (the same
** on every architecture), else clone with no stack (the child runs on a
** copy of the caller's, as after fork). */
static pid_t sb_clone(unsigned long flags) {
#ifdef SYS_clone3
  sb_clone_args a;
  memset(&a, 0, sizeof a);
  a.flags = flags;
  a.exit_signal = SIGCHLD;
  long r = syscall(SYS_clone3, &a, sizeof a);
  if (r >= 0 || errno != ENOSYS) return (pid_t)r;
#endif
#if defined(__s390__) || defined(__CRIS__)
  return (pid_t)syscall(SYS_clone, 0L, flags | SIGCHLD, 0L, 0L, 0L);
#else
  return (pid_t)syscall(SYS_clone, flags | SIGCHLD, 0L, 0L, 0L, 0L);
#endif
}

pid_t kn_sandbox_clone(int network) { return sb_clone(network ? SB_FLAGS & ~(unsigned long)CLONE_NEWNET : SB_FLAGS); }

int kn_sandbox_loopback(void) {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return KN_SB_NET;
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  memcpy(ifr.ifr_name, "lo", 3);
  int r = ioctl(s, SIOCGIFFLAGS, &ifr);
  if (r == 0) {
    ifr.ifr_flags |= IFF_UP;
    r = ioctl(s, SIOCSIFFLAGS, &ifr);
  }
  int err = errno;
  close(s);
  errno = err;
  return r == 0 ? KN_SB_OK : KN_SB_NET;
}

pid_t kn_sandbox_fork(void) { return sb_clone(0); }

/* Writes 'text' (its 'len' bytes) to the file 'path' at once. 0 or -1. */
static int sb_write_file(const char *path, const char *text, size_t len) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = write(fd, text, len);
  int err = errno;
  close(fd);
  errno = err;
  return n == (ssize_t)len ? 0 : -1;
}

/* Writes the id map line "ID ID 1\n" into 'buf' (32 bytes); its length. */
static size_t sb_map_line(char *buf, unsigned id) {
  size_t len = 0;
  for (int pass = 0; pass < 2; pass++) {
    len += kn_sandbox_decimal(buf + len, id);
    buf[len++] = ' ';
  }
  buf[len++] = '1';
  buf[len++] = '\n';
  return len;
}

/* What a player run by root (whose uid 0 the user namespace maps to itself: no
** capabilities, but the owner of root's files) could otherwise write: the
** kernel's settings, the magic SysRq key (a reboot), sysfs. Read-only, as
** container runtimes have them. */
static const char *const sb_readonly_paths[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq",
                                                "/proc/bus", "/sys", NULL};

/* mount_setattr(2) (Linux 5.12): its argument and flags, declared here because
** <linux/mount.h> clashes with glibc's <sys/mount.h>; the number is the same
** on every architecture that has it. */
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
struct sb_mount_attr {
  uint64_t attr_set, attr_clr, propagation, userns_fd;
};
#define SB_MOUNT_ATTR_RDONLY 0x00000001
#define SB_AT_RECURSIVE 0x8000

/* Scratch space for the player, private to its namespace (a tmpfs of at most
** 'size' in its options), on 'path' when that exists. 0, or -1 with errno set. */
static int sb_scratch(const char *path, const char *size) {
  if (access(path, F_OK) != 0) return 0;
  return mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, size);
}

/*
** Makes every mount of this namespace read-only, at once and recursively
** (mount_setattr on the mounts themselves, so a directory already open, such
** as the working directory taken across the clone, is read-only too), then
** gives the player a private /var/tmp and /dev/shm for scratch files (the
** temporary directories programs look for after /tmp; not /tmp itself,
** where the player's own program or the referee's tree may live). A player
** run by the owner of the files (root, as in CI and containers, owns the
** system's) could otherwise rewrite them: the konane installation, the
** tournament's records, /etc. Writes to devices (/dev/null) still work: a
** read-only mount refuses regular files only. 0, or KN_SB_READONLY with
** errno set.
*/
static int sb_readonly_tree(void) {
  struct sb_mount_attr a;
  memset(&a, 0, sizeof a);
  a.attr_set = SB_MOUNT_ATTR_RDONLY;
  if (syscall(SYS_mount_setattr, AT_FDCWD, "/", SB_AT_RECURSIVE, &a, sizeof a) != 0)
    return KN_SB_READONLY;
  if (sb_scratch("/var/tmp", "size=256m,mode=1777") != 0) return KN_SB_READONLY;
  if (sb_scratch("/dev/shm", "size=64m,mode=1777") != 0) return KN_SB_READONLY;
  return KN_SB_OK;
}

/* Appends 's' to 'buf' at '*len' (room: 'cap' bytes, one for the 0 kept). */
static void sb_append(char *buf, size_t *len, size_t cap, const char *s) {
  while (*s && *len + 1 < cap) buf[(*len)++] = *s++;
  buf[*len] = 0;
}

/* The device nodes a player may have: none reaches the machine's storage,
** memory or consoles (opening /dev/tty, with no terminal, fails: ENXIO). */
static const char *const sb_dev_nodes[] = {"null", "zero", "full", "random", "urandom", "tty", NULL};

/* Links every /dev has, to this process's own descriptors. */
static const char *const sb_dev_links[][2] = {{"fd", "/proc/self/fd"},
                                              {"stdin", "/proc/self/fd/0"},
                                              {"stdout", "/proc/self/fd/1"},
                                              {"stderr", "/proc/self/fd/2"},
                                              {NULL, NULL}};

/*
** Gives the namespace a /dev of its own: a small tmpfs holding the harmless
** nodes of sb_dev_nodes, each a bind mount of the host's (a user namespace
** cannot make nodes: a bind keeps the host's node working), the fd and std*
** links and an empty shm directory (sb_readonly_tree puts the scratch tmpfs
** there). A player run by root owns the host's nodes: a disk's would let it
** read and write the machine's storage under every mount. No pts: a player
** talks through pipes and has no terminal. Nothing when there is no /dev.
** 0, or KN_SB_DEV with errno set. Async-signal-safe.
*/
static int sb_private_dev(void) {
  int old = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (old < 0) return errno == ENOENT ? KN_SB_OK : KN_SB_DEV;
  /* the host's /dev stays reachable through the descriptor once covered */
  char from[64];
  size_t base = 0;
  sb_append(from, &base, sizeof from, "/proc/self/fd/");
  base += kn_sandbox_decimal(from + base, (unsigned long)old);
  from[base++] = '/';
  from[base] = 0;
  int stage = KN_SB_DEV;
  if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,nr_inodes=64,mode=755") != 0)
    goto out;
  for (int i = 0; sb_dev_nodes[i]; i++) {
    char src[64], dst[32];
    size_t ls = base, ld = 0;
    memcpy(src, from, base + 1);
    sb_append(src, &ls, sizeof src, sb_dev_nodes[i]);
    if (access(src, F_OK) != 0) continue; /* not on this machine */
    sb_append(dst, &ld, sizeof dst, "/dev/");
    sb_append(dst, &ld, sizeof dst, sb_dev_nodes[i]);
    int f = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (f < 0) goto out;
    close(f);
    if (mount(src, dst, NULL, MS_BIND, NULL) != 0) goto out;
  }
  for (int i = 0; sb_dev_links[i][0]; i++) {
    char dst[32];
    size_t ld = 0;
    sb_append(dst, &ld, sizeof dst, "/dev/");
    sb_append(dst, &ld, sizeof dst, sb_dev_links[i][0]);
    if (symlink(sb_dev_links[i][1], dst) != 0) goto out;
  }
  if (mkdir("/dev/shm", 01777) != 0) goto out;
  stage = KN_SB_OK;
out:;
  int err = errno;
  close(old);
  errno = err;
  return stage;
}

int kn_sandbox_enter(unsigned uid, unsigned gid) {
  char line[32];
  /* setgroups must be denied before an unprivileged gid map; older kernels have no file */
  if (sb_write_file("/proc/self/setgroups", "deny", 4) != 0 && errno != ENOENT)
    return KN_SB_IDMAP;
  if (sb_write_file("/proc/self/uid_map", line, sb_map_line(line, uid)) != 0) return KN_SB_IDMAP;
  if (sb_write_file("/proc/self/gid_map", line, sb_map_line(line, gid)) != 0) return KN_SB_IDMAP;
  /* nothing mounted here may show on the host, whatever its propagation */
  if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return KN_SB_PRIVATE;
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
    return KN_SB_PROC;
  for (int i = 0; sb_readonly_paths[i]; i++) {
    const char *p = sb_readonly_paths[i];
    if (access(p, F_OK) != 0) continue; /* not on this kernel */
    if (kn_sandbox_bind(p, kn_sandbox_mount_flags(p), 1) != KN_SB_OK) return KN_SB_READONLY;
  }
  if (sb_private_dev() != KN_SB_OK) return KN_SB_DEV;
  return sb_readonly_tree();
}

int kn_sandbox_bind(const char *path, unsigned long keep, int readonly) {
  if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) != 0) return KN_SB_READONLY;
  if (mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | (readonly ? MS_RDONLY : 0) | keep, NULL) != 0)
    return KN_SB_READONLY;
  return KN_SB_OK;
}

unsigned long kn_sandbox_mount_flags(const char *path) {
  struct statvfs v;
  unsigned long keep = 0;
  if (statvfs(path, &v) != 0) return 0;
  if (v.f_flag & ST_RDONLY) keep |= MS_RDONLY; /* read-only on the host stays so */
  if (v.f_flag & ST_NOSUID) keep |= MS_NOSUID;
  if (v.f_flag & ST_NODEV) keep |= MS_NODEV;
  if (v.f_flag & ST_NOEXEC) keep |= MS_NOEXEC;
  if (v.f_flag & ST_NOATIME) keep |= MS_NOATIME;
  if (v.f_flag & ST_NODIRATIME) keep |= MS_NODIRATIME;
  if (v.f_flag & ST_RELATIME) keep |= MS_RELATIME;
  return keep;
}

int kn_sandbox_drop(void) {
  /* uid 0 gains no capabilities at exec, and the lock keeps it so */
  if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                   SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED,
            0, 0, 0) != 0)
    return KN_SB_CAPS;
  for (int cap = 0; cap < 64; cap++)
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
      if (errno == EINVAL) break; /* past the last capability this kernel knows */
      return KN_SB_CAPS;
    }
  struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
  memset(data, 0, sizeof data);
  if (syscall(SYS_capset, &hdr, data) != 0) return KN_SB_CAPS;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return KN_SB_CAPS;
  return KN_SB_OK;
}

void kn_sandbox_init(pid_t child, int statusfd) {
  sigset_t all;
  sigfillset(&all);
  for (;;) {
    siginfo_t si;
    int sig = sigwaitinfo(&all, &si);
    if (sig < 0) continue; /* EINTR: nothing to do */
    if (sig != SIGCHLD) {
      /* a signal to the group reached the player too; one that left the group gets it here */
      pid_t pg = getpgid(child);
      if (pg >= 0 && pg != getpgid(0)) kill(child, sig);
      continue;
    }
    int status;
    pid_t w;
    while ((w = waitpid(-1, &status, WNOHANG)) > 0)
      if (w == child) {
        if (write(statusfd, &status, sizeof status) < 0) { /* the parent reads our own exit */ }
        _exit(0); /* the kernel kills the rest of the namespace */
      }
  }
}

int kn_sandbox_probe(unsigned uid, unsigned gid, kn_sandbox_error *e) {
  int fds[2];
  e->stage = KN_SB_OK;
  e->err = 0;
  if (pipe(fds) != 0) {
    e->stage = KN_SB_CLONE;
    e->err = errno;
    return 0;
  }
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  pid_t pid = kn_sandbox_clone(0);
  if (pid < 0) {
    e->stage = KN_SB_CLONE;
    e->err = errno;
    close(fds[0]);
    close(fds[1]);
    return 0;
  }
  if (pid == 0) { /* the namespace's init: async-signal-safe calls only */
    kn_sandbox_error r = {KN_SB_OK, 0};
    close(fds[0]);
    int stage = kn_sandbox_enter(uid, gid);
    if (stage == KN_SB_OK) stage = kn_sandbox_loopback();
    if (stage != KN_SB_OK) {
      r.stage = stage;
      r.err = errno;
    } else {
      pid_t c = kn_sandbox_fork();
      if (c < 0) {
        r.stage = KN_SB_FORK;
        r.err = errno;
      } else if (c == 0) {
        if (kn_sandbox_drop() != KN_SB_OK) {
          r.stage = KN_SB_CAPS;
          r.err = errno;
          if (write(fds[1], &r, sizeof r) < 0) { /* the status says it failed */ }
          _exit(1);
        }
        _exit(0);
      } else {
        int st;
        while (waitpid(c, &st, 0) < 0 && errno == EINTR) {}
      }
    }
    if (r.stage != KN_SB_OK && write(fds[1], &r, sizeof r) < 0) { /* as above */ }
    _exit(r.stage != KN_SB_OK);
  }
  close(fds[1]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  kn_sandbox_error r;
  ssize_t got;
  do got = read(fds[0], &r, sizeof r);
  while (got < 0 && errno == EINTR);
  close(fds[0]);
  if (got == (ssize_t)sizeof r) {
    *e = r;
    return 0;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    e->stage = KN_SB_FORK;
    e->err = ECHILD;
    return 0;
  }
  return 1;
}

#else /* not Linux: no namespaces */

pid_t kn_sandbox_clone(int network) {
  (void)network;
  errno = ENOSYS;
  return -1;
}

int kn_sandbox_loopback(void) { return KN_SB_OK; }

pid_t kn_sandbox_fork(void) { return fork(); }

int kn_sandbox_enter(unsigned uid, unsigned gid) {
  (void)uid;
  (void)gid;
  errno = ENOSYS;
  return KN_SB_UNSUPPORTED;
}

int kn_sandbox_drop(void) { return KN_SB_OK; }

int kn_sandbox_bind(const char *path, unsigned long keep, int readonly) {
  (void)path;
  (void)keep;
  (void)readonly;
  errno = ENOSYS;
  return KN_SB_READONLY;
}

unsigned long kn_sandbox_mount_flags(const char *path) {
  (void)path;
  return 0;
}

void kn_sandbox_init(pid_t child, int statusfd) {
  (void)child;
  (void)statusfd;
  _exit(127);
}

int kn_sandbox_probe(unsigned uid, unsigned gid, kn_sandbox_error *e) {
  (void)uid;
  (void)gid;
  e->stage = KN_SB_UNSUPPORTED;
  e->err = ENOSYS;
  return 0;
}

#endif
