# Sourced by the screenshot and frame-time scripts: a real window of the release binary under Xvfb.
#   start_window DISPLAY [RANKLENS ARGS...]
# starts Xvfb on DISPLAY, runs the app with a fresh state folder (and $WORKSPACE as its workspace,
# or a fresh one), waits for its window and sizes it to 1360×860. Sets $app, $xvfb, $state, $win
# and stops everything when the calling script exits (removing $scratch too, if the caller made
# one). Needs Xvfb, xdotool and ImageMagick (installed as root on Debian; named otherwise).
source "$(dirname "${BASH_SOURCE[0]}")/packages.sh"
need_packages window

start_window() {
    local display="$1"
    shift
    Xvfb "$display" -screen 0 1360x860x24 >/dev/null 2>&1 &
    xvfb=$!
    state="$(mktemp -d)"
    trap 'kill "${app:-}" "$xvfb" 2>/dev/null || true; rm -rf "$state" "${scratch:-}"' EXIT
    sleep 1
    export DISPLAY="$display" XDG_RUNTIME_DIR="$state" XDG_DATA_HOME="$state/data" XDG_CONFIG_HOME="$state/config"
    RANKLENS_WORKSPACE="${WORKSPACE:-$state/ws}" "$bin" "$@" &
    app=$!
    win="$(xdotool search --sync --name RankLens | head -1)"
    xdotool windowmove "$win" 0 0 windowsize "$win" 1360 860
}
