#!/bin/sh
# install-deps.sh: install the system packages konane needs, if missing.
# Debian/Ubuntu: apt-get (as root, or through sudo). Elsewhere: print the list.
# Idempotent: installs nothing when everything is already there.
# --test: also the tools the tests and CI use (headless chromium, xmllint, luacheck,
# cppcheck, luarocks).
set -u

PKGS="lua5.4 liblua5.4-dev libreadline-dev libcmocka-dev pkg-config"
TEST_PKGS="chromium libxml2-utils lua-check cppcheck luarocks python3"
if [ "${1:-}" = "--test" ]; then PKGS="$PKGS $TEST_PKGS"; fi

missing=""
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
      missing="$missing $p"
    fi
  done
else
  command -v lua5.4 >/dev/null 2>&1 || missing="$missing lua5.4"
  pkg-config --exists lua5.4 2>/dev/null || missing="$missing lua5.4-dev"
  pkg-config --exists readline 2>/dev/null || missing="$missing readline-dev"
  pkg-config --exists cmocka 2>/dev/null || missing="$missing cmocka-dev"
  command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
fi

if [ -z "$missing" ]; then
  echo "install-deps: all system packages present ($PKGS)"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: not a Debian/Ubuntu system; please install:$missing"
  echo "  (Lua 5.4 with headers, GNU readline headers, cmocka, pkg-config)"
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "install-deps: need root or sudo to install:$missing"
  exit 1
fi

echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || echo "install-deps: apt-get update failed; trying the install anyway"
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq $missing || { echo "install-deps: apt-get install failed"; exit 1; }
echo "install-deps: done"
