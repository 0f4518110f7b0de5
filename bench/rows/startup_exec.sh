#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench row startup/wardend-exec: an exec of /bin/true into a persistent sandbox of wardend's
# (docs/control.md#persistent-sandboxes; the request on its control socket to the exit event:
# bench/wardend_run --exec) against bubblewrap with every namespace and a bare fork+exec of
# /bin/true, interleaved round by round by bench/spawn_time. The sandbox is made once (policy
# cli), as a harness makes it once for many commands; the wardend is this script's own.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_LIB"
bench_warden_env

rounds=$(($(bench_rounds) * 2 - 1))
sock=$WARDEN_RUN_DIR/control.sock
"$BENCH_BIN/wardend" >"$BENCH_TMP/wardend.log" 2>&1 &
daemon=$!
bench_track "$daemon"
bench_on_exit() {
	kill -TERM "$daemon" 2>/dev/null || true
	wait "$daemon" 2>/dev/null || true
}
"$BENCH_BIN/wd-try" wait-line "$BENCH_TMP/wardend.log" "listening on" "$daemon" >/dev/null ||
	{ cat "$BENCH_TMP/wardend.log" >&2; bench_fail "wardend did not listen on $sock"; }
reply=$("$BENCH_BIN/wd-try" ctl "$sock" '{"op":"create","name":"bench","policy":"cli","idle_timeout_s":0}')
case $reply in *'"ok":true'*) ;; *) cat "$BENCH_TMP/wardend.log" >&2; bench_fail "create: $reply" ;; esac

cmds=("$BENCH_BIN/wardend_run" --exec "$sock" bench /bin/true)
names=()
missing=''
bench_peer bubblewrap "$(command -v bwrap || echo bwrap)" --unshare-all --ro-bind / / /bin/true
bench_peer fork+exec /bin/true
# one exec first: its first request's page faults not in a round
"$BENCH_BIN/wardend_run" --exec "$sock" bench /bin/true >/dev/null 2>"$BENCH_TMP/log" ||
	{ cat "$BENCH_TMP/log" "$BENCH_TMP/wardend.log" >&2; bench_fail "an exec through wardend failed"; }
bench_peer_rows startup/wardend-exec "an exec of /bin/true into a persistent sandbox (policy cli), request to exit event" \
	"$BENCH_TMP/wardend.log"
