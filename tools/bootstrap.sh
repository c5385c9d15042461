#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks for building and testing attention-calc.
# Idempotent: each step checks first, so a second run takes about a second.
#   tools/bootstrap.sh            system packages, xsimd 13 + xtl, npm packages
#   tools/bootstrap.sh --torch    also OpenBLAS (to regenerate the test fixtures, and for the
#                                 benchmark's native PyTorch baseline)
# The system packages include clang 14 with its sanitizer and libFuzzer runtimes (the ASan build
# and the fuzzers of npm test), python3-torch and python3-numpy (npm test runs the copied PyTorch
# and NumPy scripts), python3-onnx (the GPT-2 benchmark writes onnxruntime's fastest graph with it),
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
packages=(emscripten doctest-dev cmake g++ make chromium wabt clang-14 libclang-rt-14-dev python3-torch python3-numpy python3-onnx
          firefox-esr webkit2gtk-driver libwebkit2gtk-4.1-0 xvfb xauth fonts-dejavu-extra)
((want_torch)) && packages+=(libopenblas0-pthread)
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
# the machine's own release stays untouched. The versions are pinned and each .deb's SHA-256
# is checked before it is unpacked: the build and its tests were made on exactly these headers.
# A newer upload is taken only by changing a pin here (`apt-cache show libxsimd-dev xtl-dev`
# under a trixie sources list gives the Version, Filename and SHA256 lines). Both are header-only,
# so the amd64 package serves a machine of any architecture.
#   name           version   file in the archive's pool                                SHA-256
pins=(
  "libxsimd-dev  13.2.0-1  pool/main/x/xsimd/libxsimd-dev_13.2.0-1_amd64.deb  60878acfc02bfca76e8c31d53a1b9fdff490c319e53f620f4327c9786eaf631f  xsimd"
  "xtl-dev       0.7.7-1   pool/main/x/xtl/xtl-dev_0.7.7-1_all.deb           1ac50215055cd36e6dc5efbd1c1873db936cdfa1670e3ea584d2fac8b106c805  xtl"
)
# Each unpacked package carries a stamp with its pin; a matching stamp means nothing to do.
for pin in "${pins[@]}"; do
  read -r name version file sha256 dir <<<"$pin"
  stamp=$DEPS/$dir/.pinned
  [[ -f $stamp && $(<"$stamp") == "$name $version $sha256" ]] && continue
  # The machine's own Debian archive (any mirror serves trixie's pool at the same paths).
  site=${site:-$(apt-get indextargets --format '$(SITE)' 'Release: bookworm' 2>/dev/null | head -1 || true)}
  if [[ -z $site && $apt_updated -eq 0 ]]; then
    $SUDO apt-get update -qq
    apt_updated=1
    site=$(apt-get indextargets --format '$(SITE)' 'Release: bookworm' | head -1)
  fi
  [[ -n $site ]] || { echo "bootstrap: cannot find the machine's Debian archive (apt-get indextargets)" >&2; exit 1; }
  log "fetching $name $version from Debian 13 into .deps/$dir"
  mkdir -p "$DEPS"
  work=$(mktemp -d "$DEPS/.fetch.XXXXXX")
  deb=$work/${file##*/}
  # apt's own downloader: the same proxy and mirror settings as apt-get.
  if ! /usr/lib/apt/apt-helper -o APT::Sandbox::User="$(id -un)" download-file "${site%/}/$file" "$deb" >/dev/null; then
    rm -rf "$work"
    echo "bootstrap: could not download $name $version from ${site%/}/$file. If the archive no longer has this" \
         "version, pin the one it has (version, file and SHA-256) in tools/bootstrap.sh." >&2
    exit 1
  fi
  got=$(sha256sum "$deb" | cut -d' ' -f1)
  if [[ $got != "$sha256" ]]; then
    rm -rf "$work"
    echo "bootstrap: $name $version from ${site%/}/$file has SHA-256 $got, not the pinned $sha256." \
         "Refusing to unpack it." >&2
    exit 1
  fi
  dpkg-deb -x "$deb" "$work/$dir"
  echo "$name $version $sha256" > "$work/$dir/.pinned"
  # Swapped in whole, so a build reading .deps/ never sees a half-unpacked tree.
  rm -rf "$DEPS/$dir.old"
  if [[ -e $DEPS/$dir ]]; then mv "$DEPS/$dir" "$DEPS/$dir.old"; fi
  mv "$work/$dir" "$DEPS/$dir"
  rm -rf "$DEPS/$dir.old" "$work"
done

# --- npm packages -----------------------------------------------------------
# npm ci only when package-lock.json changed since the last install.
stamp=node_modules/.bootstrap-lock
if [[ ! -f $stamp ]] || ! cmp -s package-lock.json "$stamp"; then
  log "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
