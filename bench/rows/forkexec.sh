#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench row forkexec: fork+exec+wait of /bin/true inside a sandbox against the same outside,
# each round one `spawn_time K /bin/true` in each place, interleaved; the figure of a round is the
# median of its K runs, so warden's own start-up is not in it. Beside it, the same inside
# bubblewrap and firejail (on the host: the VM has neither).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_LIB"
bench_warden_env
k=${BENCH_FORKEXEC_N:-100}
[ "$BENCH_QUICK" != 1 ] || k=50
st=$BENCH_BIN/spawn_time

median_of() { "$@" | awk '{ print $1 }' | bench_stats | awk '{ print $1 }'; }
outside() { median_of "$st" "$k" /bin/true; }
inside() {
	median_of "$BENCH_BIN/warden" run --policy cli --audit /dev/null \
		--allow-read "$BENCH_BIN" --allow-exec "$BENCH_BIN" -- "$st" "$k" /bin/true
}
in_bwrap() { median_of bwrap --unshare-all --ro-bind / / "$st" "$k" /bin/true; }
in_firejail() { median_of firejail --quiet --noprofile "$st" "$k" /bin/true; }

note="median of $k fork+exec+wait of /bin/true per round"
bench_compare forkexec/inside outside wall us "$note, warden --policy cli" inside outside
[ -z "${BENCH_WHERE:-}" ] || exit 0
bench_compare forkexec/bubblewrap outside wall us "$note, bwrap --unshare-all" in_bwrap outside
bench_compare forkexec/firejail outside wall us "$note, firejail --noprofile" in_firejail outside
