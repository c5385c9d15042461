#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks for building and testing attention-calc.
# Idempotent: each step checks first, so a second run takes about a second.
#   tools/bootstrap.sh            system packages, xsimd 13 + xtl, npm packages
#   tools/bootstrap.sh --torch    also NumPy and OpenBLAS (to regenerate the test fixtures, and
#                                 for the benchmark's native PyTorch baseline)
# The system packages include clang 14 with its sanitizer and libFuzzer runtimes (the ASan build
# and the fuzzers of npm test) and python3-torch (npm test runs the copied PyTorch snippets),
# and the other two browser engines of npm test: Firefox ESR, and WebKitGTK's WebDriver and
# MiniBrowser with Xvfb (and xauth, which xvfb-run needs) to give MiniBrowser a display.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DEPS=$ROOT/.deps

want_torch=0
[[ ${1:-} == --torch ]] && want_torch=1

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

log() { printf '[bootstrap] %s\n' "$*"; }

# --- Debian packages -------------------------------------------------------
packages=(emscripten doctest-dev cmake g++ make chromium wabt clang-14 libclang-rt-14-dev python3-torch
          firefox-esr webkit2gtk-driver libwebkit2gtk-4.1-0 xvfb xauth fonts-dejavu-extra)
((want_torch)) && packages+=(python3-numpy libopenblas0-pthread)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
apt_updated=0
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  apt_updated=1
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# --- xsimd 13 and xtl from Debian 13 ---------------------------------------
# Debian 12 ships xsimd 8.1, which has no WebAssembly backend. The trixie packages are
# header-only; they are unpacked into .deps/ and never installed into the system, so
# the machine's own release stays untouched.
if [[ ! -f $DEPS/xsimd/usr/include/xsimd/xsimd.hpp || ! -f $DEPS/xtl/usr/include/xtl/xtl_config.hpp ]]; then
  log "fetching libxsimd-dev and xtl-dev from Debian 13 into .deps/"
  site=$(apt-get indextargets --format '$(SITE)' 'Release: bookworm' 2>/dev/null | head -1 || true)
  if [[ -z $site && $apt_updated -eq 0 ]]; then
    $SUDO apt-get update -qq
    site=$(apt-get indextargets --format '$(SITE)' 'Release: bookworm' | head -1)
  fi
  [[ -n $site ]] || { echo "bootstrap: cannot find the machine's Debian archive (apt-get indextargets)" >&2; exit 1; }
  work=$DEPS/apt
  rm -rf "$work" "$DEPS/xsimd" "$DEPS/xtl"
  mkdir -p "$work/lists/partial" "$work/debs"
  echo "deb $site trixie main" > "$work/sources.list"
  opts=(-o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$work/lists"
        -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
  apt-get "${opts[@]}" update -qq
  (cd "$work/debs" && apt-get "${opts[@]}" download libxsimd-dev/trixie xtl-dev/trixie)
  dpkg-deb -x "$(ls "$work"/debs/libxsimd-dev_*.deb)" "$DEPS/xsimd"
  dpkg-deb -x "$(ls "$work"/debs/xtl-dev_*.deb)" "$DEPS/xtl"
  rm -rf "$work"
fi

# --- npm packages -----------------------------------------------------------
# npm ci only when package-lock.json changed since the last install.
stamp=node_modules/.bootstrap-lock
if [[ ! -f $stamp ]] || ! cmp -s package-lock.json "$stamp"; then
  log "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
