/*
** sbinit.c
** konane-sandbox-init: a sandboxed player's init, a program of its own
** See docs/architecture.md for the map of files
*/
#include "sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
** Run by core.spawn{sandbox = true} only: the namespace's first process
** execs this after starting the player, so it holds none of the referee's
** memory (a child that never execs keeps a copy-on-write image of it, and
** each page the referee rewrites later is copied). Arguments: the player's
** pid; descriptor 0 is the pipe for its wait status. Every signal is still
** blocked (exec keeps the mask and what is pending), so nothing is lost
** between the player's start and the loop. Run any other way (not PID 1),
** it says so and exits with 2.
*/
int main(int argc, char **argv) {
  char *end = NULL;
  long child = argc == 2 ? strtol(argv[1], &end, 10) : 0;
  if (getpid() != 1 || child <= 1 || !end || *end != 0) {
    fprintf(stderr, "konane-sandbox-init: started by konane's core.spawn{sandbox = true} only\n");
    return 2;
  }
  kn_sandbox_init((pid_t)child, 0);
  return 0; /* not reached */
}
