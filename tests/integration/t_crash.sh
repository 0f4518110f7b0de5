# SPDX-License-Identifier: GPL-2.0
# Crash survival in embedded mode: when warden dies (here by SIGKILL, which it cannot catch) the
# sandbox dies with it and never runs unconfined or unheld. The keeper (supervisor/keeper.c)
# holds the rules and the waiting room's listener until it has ended the sandbox.
WHERE=any
BACKENDS="bpf-lsm landlock"

crash_policy() {
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s","%s"],"write":["%s","/dev/null"],"exec":["/usr/bin","/bin","%s","%s"]%s}}\n' \
		"$BIN" "$T" "$T" "$BIN" "$LOADER" "${2:+,$2}" > "$1"
}

# keeper_of WARDEN_PID: the pid of that run's keeper (a child named warden-keeper).
keeper_of() {
	for c in $(cat "/proc/$1/task/$1/children"); do
		[ "$(cat "/proc/$c/comm" 2>/dev/null)" = warden-keeper ] && { echo "$c"; return; }
	done
	fail "run $1 has no keeper"
}

# kill_run WARDEN_PID: SIGKILL the run, then wait (bounded) until its keeper has ended the sandbox.
# (Runs are started with "$WARDEN" itself, not wrun, so that $! is warden.)
kill_run() {
	keeper=$(keeper_of "$1") || exit 1
	kill -KILL "$1"
	wait "$1" 2>/dev/null || true
	timeout 60 "$BIN/wd-try" wait-exit "$keeper" > /dev/null ||
		fail "the keeper ($keeper) did not end within 60 s of warden's death"
}

test_a_run_killed_mid_hold_deletes_nothing_and_its_sandbox_ends() {
	mkdir -p "$T/app/src"
	echo a > "$T/app/src/a"
	crash_policy "$T/p.json" \
		"\"protect\":[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	touch "$T/audit"
	"$WARDEN" run --backend "$BACKEND" --policy "$T/p.json" --audit "$T/audit" \
		-- sh -c "rm -rf $T/app; echo rm-returned \$? > $T/rm.rc" > "$T/out" 2> "$T/err" &
	run=$!
	timeout 120 "$BIN/wd-try" wait-line "$T/audit" '"type":"hold"' "$run" > /dev/null ||
		fail "rm was never held"
	kill_run "$run"
	# The held unlink neither ran nor failed with ENOSYS: rm was killed where it stood.
	[ -e "$T/app/src/a" ] || fail "a held delete ran after warden died"
	[ ! -e "$T/rm.rc" ] || fail "rm went on after warden died: $(cat "$T/rm.rc")"
	if grep -q 'Function not implemented' "$T/err"; then
		fail "the held call failed with ENOSYS instead of staying held: $(cat "$T/err")"
	fi
	expect_line "$T/err" "keeper: warden ended while sandbox" "killing the sandbox"
}

test_a_run_killed_takes_a_daemonized_grandchild_with_it() {
	crash_policy "$T/p.json"
	mkfifo "$T/fifo"
	# The reader sees EOF only when every writer, the grandchild included, has gone.
	cat "$T/fifo" > "$T/fifo.out" &
	reader=$!
	trap 'kill $reader 2>/dev/null || true' EXIT
	touch "$T/started"
	"$WARDEN" run --backend "$BACKEND" --policy "$T/p.json" -- sh -c \
		"(setsid sh -c 'echo held-open; exec sleep 1000' > $T/fifo 2>&1 &); echo up > $T/started; exec sleep 1000" \
		> "$T/out" 2> "$T/err" &
	run=$!
	timeout 120 "$BIN/wd-try" wait-line "$T/fifo.out" held-open "$run" > /dev/null ||
		fail "the grandchild never started"
	kill_run "$run"
	timeout 60 "$BIN/wd-try" wait-exit "$reader" > /dev/null ||
		fail "a process that left the sandbox's session outlived warden by 60 s"
}
