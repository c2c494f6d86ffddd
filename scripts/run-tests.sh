#!/bin/sh
# run-tests.sh BUILD [TEST...]: run every cmocka test binary and the Lua tests
# (or only the named test binaries of BUILD/tests, no Lua), then print one
# line "N passed, N failed" for the whole run. Exit 1 on failure.
BUILD=${1:-build}
[ $# -gt 0 ] && shift
export KONANE_BUILD="$BUILD"
# Sandboxed players see every file read-only (docs/bots.md, Isolation); the test fixtures report
# through files in the tests' own directories (os.tmpname's, under /tmp), so those stay writable.
# tests/lua/test_sandbox.lua checks the read-only tree with explicit spawn options.
export KONANE_SANDBOX_WRITABLE=/tmp
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

count() { # file -> adds cmocka/harness PASSED/FAILED counts
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | awk '{s+=$1} END {print s+0}')
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | awk '{s+=$1} END {print s+0}')
  passed=$((passed + p))
  failed=$((failed + f))
}

# run_one WHAT CMD...: runs CMD, shows its output and counts its results; an
# exit status other than 0 with no FAILED line counts as one failure of WHAT.
run_one() {
  what=$1
  shift
  "$@" >"$log" 2>&1
  rc=$?
  cat "$log"
  count "$log"
  if [ $rc -ne 0 ] && ! grep -q '^\[  FAILED  \]' "$log"; then
    echo "[  FAILED  ] 1 test(s): $what exited with status $rc"
    failed=$((failed + 1))
  fi
}

if [ $# -gt 0 ]; then # the named binaries only (a missing one fails)
  for n in "$@"; do
    run_one "$BUILD/tests/$n" "$BUILD/tests/$n"
  done
else
  for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    run_one "$t" "$t"
  done
  run_one "the Lua test harness" "$BUILD"/konane tests/lua/run.lua
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
