# Sourced by scripts/setup, scripts/demo and scripts/test: chooses the JavaScript engine to build
# and says which in one line on stderr. V8 (the default cargo feature, the engine we ship) when its
# static library is at hand; QuickJS (builds offline anywhere) otherwise.
#
#   PASEO_ENGINE=v8|quickjs   forces one (v8 then needs the archive or the download).
#   RUSTY_V8_ARCHIVE=<path>   a librusty_v8.a to link: V8.
#   an archive built here by scripts/build-v8 (~/.cache/paseo/v8/…): V8, linked against it.
#   the `v8` crate's prebuilt download reachable (RUSTY_V8_MIRROR or GitHub; a HEAD request that
#   gives up after a few seconds, at once when offline): V8, downloaded by cargo.
#
# `choose_engine` sets ENGINE (v8 | quickjs), OTHER_ENGINE (the one not chosen, which scripts/test
# checks too) and V8_ARCHIVE (the archive to link, when there is one). `engine_cargo ENGINE SUB
# ARGS…` runs `cargo SUB` for an engine: its features, its archive, and its own target folder
# (target/ for QuickJS, where its artifacts have always been; target/v8 for V8), so that switching
# never rebuilds the other; `engine_bin_dir ENGINE` is where its debug binaries land.

engine_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# The URL the `v8` crate's build script downloads (its static_lib_url()): the crate version from
# Cargo.lock; the `simdutf` feature is the only one deno_core enables (see scripts/build-v8).
v8_prebuilt_url() {
  local version
  version=$(awk '$0 == "name = \"v8\"" { getline; gsub(/^version = "|"$/, ""); print; exit }' "$engine_repo/Cargo.lock")
  local base=${RUSTY_V8_MIRROR:-https://github.com/denoland/rusty_v8/releases/download}
  echo "$base/v$version/librusty_v8_simdutf_release_$(uname -m)-unknown-linux-gnu.a.gz"
}

v8_prebuilt_reachable() {
  command -v curl >/dev/null || return 1
  curl -sfIL --connect-timeout 3 --max-time 8 -o /dev/null "$(v8_prebuilt_url)" 2>/dev/null
}

choose_engine() {
  # Chosen already by the script that runs this one (scripts/demo → scripts/setup): say it once.
  if [ -n "${PASEO_ENGINE_CHOSEN:-}" ]; then
    ENGINE=$PASEO_ENGINE_CHOSEN V8_ARCHIVE=${PASEO_ENGINE_V8_ARCHIVE:-}
    if [ "$ENGINE" = v8 ]; then OTHER_ENGINE=quickjs; else OTHER_ENGINE=v8; fi
    return
  fi
  V8_ARCHIVE=""
  local built why
  built=$("$engine_repo/scripts/build-v8" --print-path)
  case "${PASEO_ENGINE:-}" in
    v8 | quickjs | "") ;;
    *) echo "engine: PASEO_ENGINE must be v8 or quickjs, not '$PASEO_ENGINE'" >&2; exit 2 ;;
  esac
  if [ -n "${RUSTY_V8_ARCHIVE:-}" ] && [ "${PASEO_ENGINE:-}" != quickjs ]; then
    [ -s "$RUSTY_V8_ARCHIVE" ] || { echo "engine: RUSTY_V8_ARCHIVE=$RUSTY_V8_ARCHIVE is not a file" >&2; exit 2; }
    ENGINE=v8 V8_ARCHIVE=$RUSTY_V8_ARCHIVE why="the archive in RUSTY_V8_ARCHIVE ($RUSTY_V8_ARCHIVE)"
  elif [ -s "$built" ] && [ "${PASEO_ENGINE:-}" != quickjs ]; then
    ENGINE=v8 V8_ARCHIVE=$built why="the archive scripts/build-v8 built here ($built)"
  elif [ "${PASEO_ENGINE:-}" = quickjs ]; then
    ENGINE=quickjs why="PASEO_ENGINE=quickjs"
  elif [ "${PASEO_ENGINE:-}" = v8 ] || v8_prebuilt_reachable; then
    ENGINE=v8 why="V8's prebuilt library, which cargo downloads ($(v8_prebuilt_url))"
  else
    ENGINE=quickjs why="no V8 library here and its download is unreachable; scripts/build-v8 builds one offline in about an hour, then these commands use V8"
  fi
  if [ "$ENGINE" = v8 ]; then
    OTHER_ENGINE=quickjs
  else
    OTHER_ENGINE=v8
  fi
  echo "engine: $([ "$ENGINE" = v8 ] && echo V8 || echo QuickJS), from $why" >&2
  export PASEO_ENGINE_CHOSEN=$ENGINE PASEO_ENGINE_V8_ARCHIVE=$V8_ARCHIVE
}

# engine_cargo ENGINE CARGO-ARGS…: cargo with that engine's features, target dir and archive.
# The features go after the subcommand (cargo wants them there).
engine_cargo() {
  local engine=$1 sub=$2
  shift 2
  if [ "$engine" = v8 ]; then
    # No archive: the crate downloads its prebuilt one (an empty RUSTY_V8_ARCHIVE would be read
    # as the path "").
    local archive=(-u RUSTY_V8_ARCHIVE)
    local chosen=${V8_ARCHIVE:-${PASEO_ENGINE_V8_ARCHIVE:-}}
    [ -z "$chosen" ] || archive=("RUSTY_V8_ARCHIVE=$chosen")
    env "${archive[@]}" CARGO_TARGET_DIR="${V8_TARGET_DIR:-$engine_repo/target/v8}" cargo "$sub" "$@"
  else
    CARGO_TARGET_DIR=${QUICKJS_TARGET_DIR:-$engine_repo/target} \
      cargo "$sub" --no-default-features --features quickjs "$@"
  fi
}

# Where engine_cargo puts that engine's binaries (debug profile).
engine_bin_dir() {
  if [ "$1" = v8 ]; then echo "${V8_TARGET_DIR:-$engine_repo/target/v8}/debug"; else echo "${QUICKJS_TARGET_DIR:-$engine_repo/target}/debug"; fi
}
