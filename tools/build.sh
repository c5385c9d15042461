#!/usr/bin/env bash
# Builds the native core and tests (build-native/) and the WebAssembly modules and tests
# (build-wasm/), then copies the modules to web/wasm/ for the page.
#   tools/build.sh           both
#   tools/build.sh wasm      only the WebAssembly build, tests included
#   tools/build.sh web       only the two WebAssembly modules the page loads (npm start)
#   tools/build.sh native    only the native build
# Incremental: a second run with nothing changed takes a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=$(nproc 2>/dev/null || echo 2)
# emcc needs Debian's node modules (acorn) for optimized links.
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

# KaTeX for the page, served from this site (no CDN): its ES module, stylesheet and fonts.
if [[ $what == all || $what == wasm || $what == web ]]; then
  src=node_modules/katex/dist
  dst=web/vendor/katex
  if [[ ! -f $dst/katex-fonts.css || $src/katex.mjs -nt $dst/katex.mjs ]]; then
    mkdir -p "$dst/fonts"
    cp "$src/katex.mjs" "$src/katex.min.css" "$dst/"
    cp "$src"/fonts/*.woff2 "$dst/fonts/"
    # The @font-face rules alone, for the document: fonts declared in a shadow root never load.
    node -e 'const fs = require("fs"); const css = fs.readFileSync(process.argv[1], "utf8");
      fs.writeFileSync(process.argv[2], (css.match(/@font-face\{[^}]*\}/g) || []).join("\n") + "\n");' \
      "$dst/katex.min.css" "$dst/katex-fonts.css"
  fi
fi

if [[ $what == all || $what == native ]]; then
  [[ -f build-native/CMakeCache.txt ]] || cmake -S . -B build-native -DCMAKE_BUILD_TYPE=Release
  cmake --build build-native -j"$jobs"
fi
if [[ $what == all || $what == wasm || $what == web ]]; then
  [[ -f build-wasm/CMakeCache.txt ]] || emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release
  targets=()
  [[ $what == web ]] && targets=(--target attention_simd attention_scalar)
  cmake --build build-wasm -j"$jobs" "${targets[@]}"
fi
