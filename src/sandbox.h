/*
** sandbox.h
** A player process's own user, PID and mount namespaces (Linux)
** See docs/architecture.md for the map of files
*/
#ifndef KN_SANDBOX_H
#define KN_SANDBOX_H

#include <sys/types.h>

/* The step of a sandbox's making that failed (kn_sandbox_error.stage). */
enum {
  KN_SB_OK = 0,
  KN_SB_CLONE,    /* clone3/clone with the namespace flags */
  KN_SB_IDMAP,    /* /proc/self/{setgroups,uid_map,gid_map} */
  KN_SB_PRIVATE,  /* mounts made private (no propagation to the host) */
  KN_SB_PROC,     /* the namespace's own /proc */
  KN_SB_FORK,     /* the init's child */
  KN_SB_CAPS,     /* capabilities dropped, no new privileges */
  KN_SB_EXEC,     /* not the sandbox: the program itself could not run */
  KN_SB_READONLY, /* a path made read-only (a bind mount, remounted) */
  KN_SB_DEV,      /* the namespace's own /dev */
  KN_SB_NET,      /* the namespace's own loopback interface */
  KN_SB_INIT,     /* the init program (konane-sandbox-init) */
  KN_SB_UNSUPPORTED /* not Linux */
};

/* What a child reports through a pipe when a step fails: 'stage' (KN_SB_*)
** and the errno value of the call. */
typedef struct {
  int stage, err;
} kn_sandbox_error;

/* The init program's file name: beside the module (konane.so, core.so) or
** the host program that runs the referee (see docs/architecture.md). */
#define KN_SANDBOX_INIT "konane-sandbox-init"

/* Writes 'v' in decimal and a 0 into 'buf' (room for 21 bytes); the
** digits' count. Async-signal-safe (for a child between fork and exec). */
size_t kn_sandbox_decimal(char *buf, unsigned long v);

/* A few words naming 'stage' ("clone", "mount /proc", ...). */
const char *kn_sandbox_stage_name(int stage);

/* Starts a child as fork() does (no stack of its own, SIGCHLD at its end),
** in new user, PID, mount, IPC (System V objects, POSIX message queues)
** and UTS namespaces, and a network namespace of its own unless 'network'
** is not 0: the child is PID 1 of its PID namespace. Returns the child's pid in the parent, 0 in the child, -1 and
** errno on failure (EPERM, EINVAL, ENOSPC, EUSERS, ENOSYS: namespaces
** refused here). No fork handlers run: until exec the child may make only
** async-signal-safe calls, as after fork in a threaded process. */
pid_t kn_sandbox_clone(int network);

/* In the child of kn_sandbox_clone(0): brings up its network namespace's
** loopback interface (the only one there), so a player's own processes may
** talk over 127.0.0.1; nothing outside is reachable. 0, or KN_SB_NET with
** errno set. Async-signal-safe. */
int kn_sandbox_loopback(void);

/* In the child of kn_sandbox_clone: maps 'uid' and 'gid' (the parent's
** own ids) to themselves, makes every mount private, mounts the PID
** namespace's own /proc over /proc, makes /proc/sys, /proc/sysrq-trigger,
** /proc/irq, /proc/bus and /sys read-only, gives it a /dev of its own
** (a tmpfs with the host's null, zero, full, random, urandom and tty bound
** in, the fd and std* links: no disk, memory or console node), then every
** mount read-only (mount_setattr, Linux 5.12) with a private tmpfs on
** /var/tmp and /dev/shm for scratch files. 0, or a KN_SB_* stage with errno
** set. Async-signal-safe (statvfs is a statfs call on Linux). */
int kn_sandbox_enter(unsigned uid, unsigned gid);

/* In the child of kn_sandbox_clone, after kn_sandbox_enter: makes 'path'
** (absolute, no symbolic link in it) read-only ('readonly' not 0) or
** writable in this mount namespace: a bind mount of it over itself,
** remounted with 'keep' (the MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC and
** atime flags of the mount it is on, which a user namespace may not clear:
** kn_sandbox_mount_flags). Mounts below 'path' are bound with it. 0, or
** KN_SB_READONLY with errno set. Async-signal-safe. */
int kn_sandbox_bind(const char *path, unsigned long keep, int readonly);

/* The absolute path of 'path' without symbolic links (realpath: malloc'd,
** the caller frees it), or NULL with errno set. */
char *kn_sandbox_resolve(const char *path);

/* The flags of the mount 'path' is on that a read-only remount of a bind
** mount of it must keep (see kn_sandbox_bind); 0 when unknown. */
unsigned long kn_sandbox_mount_flags(const char *path);

/* A plain fork without fork handlers (async-signal-safe): for the init,
** which is itself a child of a threaded process. As fork(). */
pid_t kn_sandbox_fork(void);

/* In the process about to exec the player: drops every capability (the
** creator of a user namespace has them all inside it; uid 0 would keep
** them across exec) and sets no-new-privileges, so the player can neither
** unmount its /proc nor gain rights from a set-user-ID or capability file.
** 0, or KN_SB_CAPS with errno set. Async-signal-safe. */
int kn_sandbox_drop(void);

/* The namespace's init (PID 1), run by the child of kn_sandbox_clone after
** it has started the player 'child' with every signal blocked ('mask' is
** the signal mask to wait in: all blocked). Reaps every process that ends
** in the namespace; forwards a signal it receives to the player when the
** player has left the init's process group (a signal to the group reaches
** it otherwise); when the player ends, writes its wait status (an int) to
** 'statusfd' and exits, and the kernel kills whatever is left in the
** namespace. Never returns. */
void kn_sandbox_init(pid_t child, int statusfd);

/* Tries the whole making once (a child in the namespaces, network
** included, its own /proc and loopback, a grandchild that drops its
** capabilities), running nothing. 1 when it
** works; else 0 with 'e' saying which step failed and why. */
int kn_sandbox_probe(unsigned uid, unsigned gid, kn_sandbox_error *e);

#endif
