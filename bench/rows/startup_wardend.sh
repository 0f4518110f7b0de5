#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench row startup/wardend: a run of /bin/true through wardend (request on its control socket
# to the end of the run: command, init and supervisor gone; bench/wardend_run) against
# bubblewrap with every namespace and a bare fork+exec of /bin/true. bench/spawn_time times
# each from C, interleaved round by round. The wardend is this script's own (its run dir and
# cgroup group), started here and stopped at the end however the script ends.
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
	# TERM: it empties its pool of cgroups before it ends
	kill -TERM "$daemon" 2>/dev/null || true
	wait "$daemon" 2>/dev/null || true
}
for _ in $(seq 1 100); do
	[ -S "$sock" ] && break
	kill -0 "$daemon" 2>/dev/null || { cat "$BENCH_TMP/wardend.log" >&2; bench_fail "wardend ended"; }
	sleep 0.1
done
[ -S "$sock" ] || bench_fail "wardend did not listen on $sock"

cmds=("$BENCH_BIN/wardend_run" "$sock" cli /bin/true)
names=()
missing=''
bench_peer bubblewrap "$(command -v bwrap || echo bwrap)" --unshare-all --ro-bind / / /bin/true
bench_peer fork+exec /bin/true
# one run first: wardend's pool filled, its first request's page faults not in a round
"$BENCH_BIN/wardend_run" "$sock" cli /bin/true >/dev/null 2>"$BENCH_TMP/log" ||
	{ cat "$BENCH_TMP/log" "$BENCH_TMP/wardend.log" >&2; bench_fail "a run through wardend failed"; }
bench_peer_rows startup/wardend "a wardend request to run /bin/true under --policy cli, to the run's end" \
	"$BENCH_TMP/wardend.log"
