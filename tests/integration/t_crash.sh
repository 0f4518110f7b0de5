# SPDX-License-Identifier: GPL-2.0
# Crash survival in embedded mode: when warden dies (here by SIGKILL, which it cannot catch) the
# sandbox dies with it and never runs unconfined or unheld. The keeper (supervisor/run/keeper.c)
# holds the rules and the waiting room's listener until it has ended the sandbox.
WHERE=any
BACKENDS="bpf-lsm landlock"

crash_policy() {
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s","%s"],"write":["%s","/dev/null"],"exec":["/usr/bin","/bin","%s","%s","%s","%s"]%s}}\n' \
		"$BIN" "$T" "$T" "$BIN" "$LOADER" $LIBDIRS "${2:+,$2}" > "$1"
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

# expect_report FILE WRITER STATUS: the report the run's warden did not write validates against
# docs/report.schema.json, was written by WRITER and says STATUS.
expect_report() {
	[ -s "$1" ] || fail "no report at $1"
	"$BIN/wd-schemack" "$BIN/report.schema.json" "$1" 2> "$T/schemack" ||
		fail "report $1 fails docs/report.schema.json: $(cat "$T/schemack"; cat "$1")"
	expect_eq "report writer" "$(report_field "$1" writer)" "$2"
	expect_eq "report status" "$(report_field "$1" status)" "$3"
	expect_eq "report sandbox" "$(report_field "$1" sandbox)" "$sb"
}

test_a_run_killed_mid_hold_deletes_nothing_and_its_sandbox_ends() {
	mkdir -p "$T/app/src"
	echo a > "$T/app/src/a"
	crash_policy "$T/p.json" \
		"\"protect\":[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	touch "$WD_OUT/audit"
	"$WARDEN" run --backend "$BACKEND" --policy "$T/p.json" --audit "$WD_OUT/audit" \
		--report "$WD_OUT/report" \
		-- sh -c "rm -rf $T/app; echo rm-returned \$? > $T/rm.rc" > "$T/out" 2> "$T/err" &
	run=$!
	timeout 120 "$BIN/wd-try" wait-line "$WD_OUT/audit" '"type":"hold"' "$run" > /dev/null ||
		fail "rm was never held"
	kill_run "$run"
	# The held unlink neither ran nor failed with ENOSYS: rm was killed where it stood.
	[ -e "$T/app/src/a" ] || fail "a held delete ran after warden died"
	[ ! -e "$T/rm.rc" ] || fail "rm went on after warden died: $(cat "$T/rm.rc")"
	if grep -q 'Function not implemented' "$T/err"; then
		fail "the held call failed with ENOSYS instead of staying held: $(cat "$T/err")"
	fi
	expect_line "$T/err" "keeper: warden ended while sandbox" "killing the sandbox"
	# the audit stream still ends with the run's exit record, written by the keeper
	expect_line "$WD_OUT/audit" '"type":"exit"' '"status":"killed"' '"exit_code":137' '"signal":9'
	# and the report, by the keeper, into the file warden made before the command ran
	sb=$(record_field "$(line_with_all "$WD_OUT/audit" '"type":"start"')" sandbox)
	expect_report "$WD_OUT/report" keeper killed
	expect_eq "report exit_code" "$(report_field "$WD_OUT/report" exit_code)" 137
	expect_eq "report signal" "$(report_field "$WD_OUT/report" signal)" 9
	expect_eq "report reason" "$(report_field "$WD_OUT/report" reason)" \
		"warden ended while the sandbox ran"
	expect_line "$WD_OUT/report" '"holds"' > /dev/null
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

# --survive: the sandbox outlives its warden, held calls held, until `warden adopt` takes it over.

# survive_start ARGV...: a --survive 120 run of ARGV holding deletes under $T/app, its audit in
# $WD_OUT/audit, its report to $WD_OUT/report; sets $run (warden's pid) once the first hold is recorded, and $sb (the sandbox).
survive_start() {
	crash_policy "$T/p.json" \
		"\"protect\":[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	touch "$WD_OUT/audit"
	"$WARDEN" run --backend "$BACKEND" --survive "${SURVIVE:-120}" --policy "$T/p.json" \
		--audit "$WD_OUT/audit" --report "$WD_OUT/report" -- "$@" > "$T/out" 2> "$T/err" &
	run=$!
	timeout 120 "$BIN/wd-try" wait-line "$WD_OUT/audit" '"type":"hold"' "$run" > /dev/null ||
		fail "nothing was held: $(cat "$T/err")"
	sb=$(record_field "$(line_with_all "$WD_OUT/audit" '"type":"start"')" sandbox)
	[ -n "$sb" ] || fail "no start record in $WD_OUT/audit"
}

# adopt_bg AUDIT: `warden adopt $sb` in the background, its records in AUDIT; sets $adopter.
adopt_bg() {
	touch "$1"
	"$WARDEN" adopt --audit "$1" --wait 60 "$sb" > "$1.out" 2>&1 &
	adopter=$!
}

test_a_surviving_run_killed_mid_hold_is_taken_over_and_its_held_call_answered() {
	mkdir -p "$T/app/a/src" "$T/app/b"
	echo a > "$T/app/a/src/f"
	echo b > "$T/app/b/f"
	mkfifo "$T/go"
	# rm of a is held before warden dies; rm of b starts while no supervisor lives.
	survive_start sh -c "(rm -rf $T/app/a; echo \$? > $T/a.rc) &
		read x < $T/go; rm -rf $T/app/b; echo \$? > $T/b.rc; wait"
	keeper=$(keeper_of "$run") || exit 1
	kill -KILL "$run"
	wait "$run" 2>/dev/null || true
	timeout 60 "$BIN/wd-try" wait-line "$T/err" "waits up to 120 s for" > /dev/null ||
		fail "the keeper did not wait for a successor: $(cat "$T/err")"
	echo go > "$T/go"
	[ -e "$T/app/a/src/f" ] || fail "a held delete ran while no supervisor lived"
	[ ! -e "$T/a.rc" ] || fail "rm went on while no supervisor lived: $(cat "$T/a.rc")"
	if grep -q 'Function not implemented' "$T/err"; then
		fail "a held call failed with ENOSYS: $(cat "$T/err")"
	fi
	# A successor that dies too hands the sandbox back to the keeper: a third takes over.
	adopt_bg "$WD_OUT/audit2"
	timeout 120 "$BIN/wd-try" wait-line "$WD_OUT/audit2" "\"target\":\"$T/app/a" "$adopter" \
		> /dev/null || fail "the successor did not hold rm of a again: $(cat "$WD_OUT/audit2.out")"
	kill -KILL "$adopter"
	wait "$adopter" 2>/dev/null || true
	adopt_bg "$WD_OUT/audit3"
	timeout 120 "$BIN/wd-try" wait-line "$WD_OUT/audit3" "\"target\":\"$T/app/a" "$adopter" \
		> /dev/null || fail "the third supervisor did not hold rm of a: $(cat "$WD_OUT/audit3.out")"
	expect_line "$WD_OUT/audit3" '"type":"adopt"' '"kernel_records":true'
	decide approve "$(line_with_all "$WD_OUT/audit3" '"type":"hold"' "\"target\":\"$T/app/a")" \
		--scope sandbox --subtree "$T/app/a" > /dev/null || fail "approve failed"
	# rm of b, made while no supervisor lived, waited in the kernel for this one.
	timeout 120 "$BIN/wd-try" wait-line "$WD_OUT/audit3" "\"target\":\"$T/app/b" "$adopter" \
		> /dev/null || fail "rm of b was not held by the successor"
	decide deny "$(line_with_all "$WD_OUT/audit3" '"type":"hold"' "\"target\":\"$T/app/b")" > /dev/null ||
		fail "deny failed: $(cat "$WD_OUT/audit3")"
	timeout 120 "$BIN/wd-try" wait-exit "$adopter" > /dev/null ||
		fail "the successor did not end with the sandbox"
	wait "$adopter" || fail "warden adopt exited $?: $(cat "$WD_OUT/audit3.out")"
	[ ! -e "$T/app/a" ] || fail "the approved delete of a did not happen: $(ls -R "$T/app/a")"
	expect_eq "rm of a" "$(cat "$T/a.rc")" 0
	[ -e "$T/app/b/f" ] || fail "the denied delete of b happened"
	[ "$(cat "$T/b.rc")" != 0 ] || fail "rm of b reported success after a denial"
	# One numbering across supervisors, and how the command ended where the sandbox says.
	expect_line "$WD_OUT/audit3" '"type":"exit"' "\"sandbox\":\"$sb\""
	timeout 60 "$BIN/wd-try" wait-exit "$keeper" > /dev/null || fail "the keeper stayed"
	[ ! -e "$WARDEN_RUN_DIR/keep-$sb.sock" ] || fail "the keeper's socket stayed"
	[ -z "$(find "$(cgroup2_mount)" -maxdepth 4 -type d -name "$sb")" ] ||
		fail "the sandbox's cgroup stayed"
	# The run's report, by the last successor, into the file the run's warden made.
	expect_report "$WD_OUT/report" adopt completed
	# how the command ended, where the sandbox has an init (a pid namespace) to say it; else
	# the report names what it cannot know
	exit_rec=$(line_with_all "$WD_OUT/audit3" '"type":"exit"')
	if [ "$(record_field "$exit_rec" status)" = ended ]; then
		line_with_all "$WD_OUT/report" '"unknown":' '"status"' '"exit_code"' > /dev/null ||
			fail "the report does not say it cannot know the exit code: $(cat "$WD_OUT/report")"
	else
		expect_eq "report exit_code" "$(report_field "$WD_OUT/report" exit_code)" \
			"$(record_field "$exit_rec" exit_code)"
	fi
	expect_eq "report reason" "$(report_field "$WD_OUT/report" reason)" \
		"taken over by warden adopt"
	# its two held calls were held again by that successor, and counted
	expect_eq "report holds" "$(report_field "$WD_OUT/report" holds)" 2
	expect_line "$WD_OUT/report" '"argv"' > /dev/null
}

test_a_surviving_run_nobody_takes_over_is_killed_when_its_time_is_up() {
	mkdir -p "$T/app/src"
	echo a > "$T/app/src/a"
	SURVIVE=1 survive_start sh -c "rm -rf $T/app; echo rm-returned \$? > $T/rm.rc"
	kill_run "$run"
	[ -e "$T/app/src/a" ] || fail "a held delete ran after warden died"
	[ ! -e "$T/rm.rc" ] || fail "rm went on after warden died: $(cat "$T/rm.rc")"
	expect_line "$T/err" "keeper: warden ended while sandbox $sb ran" "killing the sandbox"
	[ ! -e "$WARDEN_RUN_DIR/keep-$sb.sock" ] || fail "the keeper's socket stayed"
	expect_line "$WD_OUT/audit" '"type":"exit"' "\"sandbox\":\"$sb\"" '"status":"killed"' \
		'"signal":9'
	expect_eq "records" "$(grep -c '"type":"exit"' "$WD_OUT/audit")" 1
	# the keeper's kill, in the report the run asked for
	expect_report "$WD_OUT/report" keeper killed
	expect_eq "report reason" "$(report_field "$WD_OUT/report" reason)" "not adopted within 1 s"
	expect_eq "report exit_code" "$(report_field "$WD_OUT/report" exit_code)" 137
}

test_adopt_refuses_a_sandbox_whose_warden_lives_or_that_does_not_survive() {
	mkdir -p "$T/app/src"
	echo a > "$T/app/src/a"
	survive_start sh -c "rm -rf $T/app; echo rm-returned \$? > $T/rm.rc"
	if "$WARDEN" adopt --wait 0 "$sb" > "$T/adopt.out" 2>&1; then
		fail "adopt took over a sandbox whose warden lives"
	fi
	expect_line "$T/adopt.out" "sandbox $sb has a supervisor"
	if "$WARDEN" adopt --wait 0 sb-00000000 > "$T/adopt2.out" 2>&1; then
		fail "adopt took over a sandbox that does not exist"
	fi
	expect_line "$T/adopt2.out" "no sandbox sb-00000000 waits for a supervisor"
	# The refused successor changed nothing: the run's own warden answers.
	decide deny "$(line_with_all "$WD_OUT/audit" '"type":"hold"')" > /dev/null || fail "deny failed"
	wait "$run" 2>/dev/null || true
	[ -e "$T/app/src/a" ] || fail "a denied delete ran"
}

# A root process inside the sandbox reaches the keeper's socket too: it must not be let in as the
# successor (it would get the waiting room and answer its own held calls).
test_the_keeper_lets_no_process_of_the_sandbox_take_it_over() {
	mkdir -p "$T/app/src"
	echo a > "$T/app/src/a"
	mkfifo "$T/go"
	touch "$T/adopt.rc"
	survive_start sh -c "(rm -rf $T/app; echo \$? > $T/rm.rc) &
		read sb < $T/go
		WARDEN_RUN_DIR=$WARDEN_RUN_DIR $WARDEN adopt --wait 60 \$sb > $T/adopt.out 2>&1
		echo \$? > $T/adopt.rc; wait"
	kill -KILL "$run"
	wait "$run" 2>/dev/null || true
	timeout 60 "$BIN/wd-try" wait-line "$T/err" "waits up to 120 s for" > /dev/null ||
		fail "the keeper did not wait for a successor: $(cat "$T/err")"
	echo "$sb" > "$T/go"
	timeout 120 "$BIN/wd-try" wait-line "$T/adopt.rc" "" > /dev/null ||
		fail "the adopt inside never ended"
	line_with_all "$T/err" "keeper: refused a successor for $sb" "inside a sandbox" > /dev/null ||
		fail "the keeper did not refuse the sandbox's own adopt: $(cat "$T/adopt.out" "$T/err")"
	[ "$(cat "$T/adopt.rc")" != 0 ] || fail "a process of the sandbox took it over"
	[ -e "$T/app/src/a" ] || fail "a held delete ran"
	# the keeper still waits: the real successor is let in, and denies
	adopt_bg "$WD_OUT/audit2"
	line=$(wait_record "$WD_OUT/audit2" '"type":"hold"' "$adopter")
	decide deny "$line" > /dev/null || fail "deny failed"
	timeout 120 "$BIN/wd-try" wait-exit "$adopter" > /dev/null || fail "the successor stayed"
	[ -e "$T/app/src/a" ] || fail "a denied delete ran"
}
