# SPDX-License-Identifier: GPL-2.0
# Holds: a risky call waits in the kernel until an operator decides; then it goes on from where it
# stood (performed by the supervisor on the object that was checked) or fails with EPERM.
WHERE=any
BACKENDS="bpf-lsm landlock"

# hold_policy FILE PROTECT_JSON [HOLD_JSON]: may write $T, execute the usual programs (and map
# their libraries: GNU find is dynamically linked, in the VM too).
hold_policy() {
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s","/dev/null"],"exec":["/usr/bin","/bin","%s","%s","/lib/x86_64-linux-gnu","/usr/lib/x86_64-linux-gnu"],"protect":%s}%s}\n' \
		"$BIN" "$T" "$BIN" "$LOADER" "$2" "${3:+,$3}" > "$1"
}

make_tree() {
	mkdir -p "$T/app/src/deep" "$T/app/build"
	for f in a b c; do echo "$f" > "$T/app/src/$f"; echo "$f" > "$T/app/build/$f.o"; done
	echo deep > "$T/app/src/deep/x"
}

test_rm_rf_held_then_approved_for_the_tree_with_one_prompt() {
	make_tree
	hold_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	printf 's\n' | "$WARDEN" prompt > "$T/prompt.out" 2>&1 &
	prompt=$!
	trap 'kill $prompt 2>/dev/null || true' EXIT
	rc=0
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" --report "$WD_OUT/r.json" \
		-- rm -rf "$T/app" 2> "$T/err" || rc=$?
	kill $prompt 2>/dev/null || true
	expect_eq "rm exit status" "$rc" 0
	[ ! -e "$T/app" ] || fail "the protected tree is still there: $(find "$T/app")"
	expect_eq "hold records (one prompt)" "$(grep -c '"type":"hold"' "$WD_OUT/audit")" 1
	expect_eq holds "$(report_field "$WD_OUT/r.json" holds)" 1
	expect_line "$WD_OUT/audit" '"type":"hold"' '"op":"' "\"rule\":\"/fs/protect/0\"" \
		'"cmdline":"' '"token":"'
	expect_line "$WD_OUT/audit" '"type":"decision"' '"verdict":"allow"' '"by":"uid 0 (root)"' \
		'"result":"ok"'
	# every other delete of the tree was answered by the grant, and each is on record
	# 7 files and 4 directories: 11 deletes
	expect_eq "decisions" "$(grep -c '"type":"decision"' "$WD_OUT/audit")" 11
	expect_eq "by grant" "$(grep -c '"by":"grant"' "$WD_OUT/audit")" 10
}

test_denied_removes_nothing_and_rm_sees_eperm() {
	make_tree
	hold_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	printf 'D\n' | "$WARDEN" prompt > "$T/prompt.out" 2>&1 &
	prompt=$!
	trap 'kill $prompt 2>/dev/null || true' EXIT
	rc=0
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -rf "$T/app" 2> "$T/err" || rc=$?
	kill $prompt 2>/dev/null || true
	[ "$rc" != 0 ] || fail "rm succeeded"
	expect_line "$T/err" "Operation not permitted"
	expect_eq "files left" "$(find "$T/app" -type f | wc -l)" 7
	expect_line "$WD_OUT/audit" '"type":"decision"' '"verdict":"deny"' '"by":"uid 0 (root)"'
}

test_timeout_denies() {
	make_tree
	hold_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]" \
		'"hold":{"timeout":"1s"}'
	rc=0
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -f "$T/app/src/a" 2> "$T/err" || rc=$?
	expect_eq "rm exit status" "$rc" 1
	expect_line "$T/err" "Operation not permitted"
	[ -e "$T/app/src/a" ] || fail "the file was removed"
	expect_line "$WD_OUT/audit" '"type":"decision"' '"verdict":"deny"' '"by":"timeout"'
}

test_approve_from_another_terminal() {
	make_tree
	hold_policy "$T/p.json" \
		"[{\"path\":\"$T/app\",\"ops\":[\"delete\",\"rename\",\"truncate\"],\"action\":\"hold\"}]"
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -f "$T/app/src/b"
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	sb=$(record_field "$line" sandbox)
	id=$(record_field "$line" hold)
	expect_eq "held target" "$(record_field "$line" target)" "$T/app/src/b"
	[ -e "$T/app/src/b" ] || fail "the file went before the decision"
	"$WARDEN" holds > "$T/holds"
	expect_line "$T/holds" "$sb/$id" "delete" "$T/app/src/b"
	"$WARDEN" approve "$sb/$id"
	wait $run
	[ ! -e "$T/app/src/b" ] || fail "the approved delete did not happen"
	# a second decision on the same hold is refused: it is gone
	rc=0
	"$WARDEN" deny "$sb/$id" 2> "$T/err" || rc=$?
	expect_eq "deny of a decided hold" "$rc" 1
	expect_line "$T/err" "no hold $sb/$id"
}

test_mv_over_and_truncate_are_held() {
	make_tree
	echo evil > "$T/evil"
	hold_policy "$T/p.json" \
		"[{\"path\":\"$T/app\",\"ops\":[\"rename\",\"truncate\"],\"action\":\"deny\"}]"
	rc=0
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- mv -f "$T/evil" "$T/app/src/a" \
		2> "$T/err" || rc=$?
	[ "$rc" != 0 ] || fail "mv over a protected file succeeded"
	expect_eq "protected content" "$(cat "$T/app/src/a")" a
	expect_line "$WD_OUT/audit" '"type":"decision"' '"op":"rename"' '"verdict":"deny"' '"by":"rule"'
	rc=0
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- truncate -s 0 "$T/app/src/b" \
		2> "$T/err" || rc=$?
	[ "$rc" != 0 ] || fail "truncate of a protected file succeeded"
	expect_eq "protected content" "$(cat "$T/app/src/b")" b
	expect_line "$WD_OUT/audit" '"op":"truncate"' "\"target\":\"$T/app/src/b\"" '"verdict":"deny"'
	# outside the protected tree the same operations go on without a word
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit2" -- mv -f "$T/evil" "$T/moved"
	[ -e "$T/moved" ] || fail "an unprotected rename did not happen"
	no_decision=$(grep -c '"type":"decision"' "$WD_OUT/audit2" || true)
	expect_eq "decisions outside the tree" "$no_decision" 0
}

test_exec_hold_shows_argv() {
	make_tree
	hold_policy "$T/p.json" "[]" \
		'"exec":{"hold":[{"path":"/usr/bin/rm","argv":["-rf","**"]}]}'
	printf 'a\n' | "$WARDEN" prompt > "$T/prompt.out" 2>&1 &
	prompt=$!
	trap 'kill $prompt 2>/dev/null || true' EXIT
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -rf "$T/app/build"
	kill $prompt 2>/dev/null || true
	[ ! -e "$T/app/build" ] || fail "the approved rm did not run"
	expect_line "$WD_OUT/audit" '"type":"hold"' '"op":"exec"' "-rf $T/app/build\"" \
		'"rule":"/exec/hold/0"'
	expect_line "$T/prompt.out" "runs: " "-rf $T/app/build"
	# the same program with other arguments is not held
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit2" -- rm -f "$T/app/src/c"
	expect_eq "holds for rm -f" "$(grep -c '"type":"hold"' "$WD_OUT/audit2" || true)" 0
}

# The held program run through an open fd (fexecve's two ways) is still that program: held.
exec_through_fd_is_held() {
	make_tree
	hold_policy "$T/p.json" "[]" \
		'"exec":{"hold":[{"path":"/usr/bin/rm","argv":["-rf","**"]}]}'
	cd "$T"
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- "$BIN/wd-try" fexec "$1" /usr/bin/rm \
		rm -rf "$T/app/build"
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	expect_eq "held program" "$(record_field "$line" target)" "$(realpath /usr/bin/rm)"
	expect_eq "rule" "$(record_field "$line" rule)" "/exec/hold/0"
	decide deny "$line"
	wait $run || true
	[ -e "$T/app/build" ] || fail "the denied rm ran"
}

test_exec_by_execveat_of_an_open_file_is_held() {
	exec_through_fd_is_held at
}

test_exec_through_proc_self_fd_is_held() {
	exec_through_fd_is_held proc
}

# a symlink to /proc/self/fd/N: followed as the task's, not warden's
test_exec_through_a_link_to_proc_self_fd_is_held() {
	exec_through_fd_is_held link
}

# Through /proc/self and then "..", a path names another process's files, which warden would
# read in its own /proc: refused, not guessed.
test_exec_through_proc_self_dotdot_is_refused() {
	make_tree
	hold_policy "$T/p.json" "[]" \
		'"exec":{"hold":[{"path":"/usr/bin/rm","argv":["-rf","**"]}]}'
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- "$BIN/wd-try" exec \
		/proc/self/../1/exe -rf "$T/app/build" > "$T/out" 2>&1 || true
	expect_line "$T/out" "EPERM"
	expect_line "$WD_OUT/audit" '"type":"decision"' '"verdict":"deny"' '"rule":"/hold/magic-link"'
	[ -e "$T/app/build" ] || fail "an exec through /proc/self/.. ran"
}

test_sigkill_ends_a_held_process_at_once() {
	make_tree
	hold_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" --report "$WD_OUT/r.json" \
		-- rm -f "$T/app/src/c" > /dev/null 2>&1 &
	run=$!
	trap 'kill $run 2>/dev/null || true' EXIT
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	kill -KILL "$(record_field "$line" pid)"
	wait $run || true
	expect_eq status "$(report_field "$WD_OUT/r.json" status)" killed
	expect_eq signal "$(report_field "$WD_OUT/r.json" signal)" 9
	[ -e "$T/app/src/c" ] || fail "the held delete happened"
}

test_find_delete_is_held() {
	make_tree
	hold_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	printf 's\n' | "$WARDEN" prompt > "$T/prompt.out" 2>&1 &
	prompt=$!
	trap 'kill $prompt 2>/dev/null || true' EXIT
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- find "$T/app/src" -delete
	kill $prompt 2>/dev/null || true
	[ ! -e "$T/app/src" ] || fail "find -delete did not finish after the approval"
	[ -e "$T/app/build/a.o" ] || fail "more than asked for was deleted"
	expect_eq "hold records" "$(grep -c '"type":"hold"' "$WD_OUT/audit")" 1
}

# One question, one prompt: several processes deleting the same protected file at once.
test_same_target_many_callers_one_prompt() {
	make_tree
	hold_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		"rm -f $T/app/src/a & rm -f $T/app/src/a & rm -f $T/app/src/a & wait" &
	run=$!
	trap 'kill $run 2>/dev/null || true' EXIT
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	# the other two calls reach the waiting room as well before the decision
	"$WARDEN" holds --json > "$T/holds.json"
	decide approve "$line"
	wait $run
	[ ! -e "$T/app/src/a" ] || fail "the approved delete did not happen"
	expect_eq "hold records (prompts)" "$(grep -c '"type":"hold"' "$WD_OUT/audit")" 1
	expect_eq "holds listed" "$(grep -c '"id":' "$T/holds.json")" 1
}

# While one call waits, the sandbox's other processes go on.
test_other_processes_keep_running_while_one_is_held() {
	make_tree
	hold_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	touch "$T/progress"
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		"rm -f $T/app/src/a & for i in 1 2 3; do echo step\$i >> $T/progress; done; echo done >> $T/progress; wait" &
	run=$!
	trap 'kill $run 2>/dev/null || true' EXIT
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	timeout 120 "$BIN/wd-try" wait-line "$T/progress" done $run > /dev/null ||
		fail "the sandbox's other process did not finish while the call was held"
	[ -e "$T/app/src/a" ] || fail "the held delete happened before a decision"
	decide deny "$line"
	wait $run
	[ -e "$T/app/src/a" ] || fail "the denied delete happened"
}

# An approval lifts the hold and nothing else: the sandbox's own file rules and its user's rights
# still decide what the supervisor does for it.
test_an_approved_change_outside_fs_write_is_refused() {
	mkdir -p "$T/ro/app" "$T/w"
	echo keep > "$T/ro/app/f"
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s","/dev/null"],"exec":["/usr/bin","/bin","%s","%s"],"protect":[{"path":"%s","ops":["delete"],"action":"hold"}]}}\n' \
		"$T" "$T/w" "$BIN" "$LOADER" "$T/ro/app" > "$T/p.json"
	printf 's\n' | "$WARDEN" prompt > "$T/prompt.out" 2>&1 &
	prompt=$!
	trap 'kill $prompt 2>/dev/null || true' EXIT
	rc=0
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -f "$T/ro/app/f" 2> "$T/err" || rc=$?
	[ -e "$T/ro/app/f" ] || fail "an approval removed a file the sandbox may not write"
	expect_eq "rm exit status" "$rc" 1
	expect_line "$T/err" "$DENY_TEXT"
	expect_line "$WD_OUT/audit" '"type":"decision"' '"verdict":"allow"' "\"result\":\"$DENY_ERRNO\""
}

test_an_approved_delete_runs_with_the_tasks_own_rights() {
	mkdir -p "$T/app"
	echo keep > "$T/app/f"
	chmod 755 "$T" "$T/app"
	chmod 644 "$T/app/f"
	printf '{"schema":"warden.policy/1","user":"nobody","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s","/dev/null"],"exec":["/usr/bin","/bin","%s","%s"],"protect":[{"path":"%s","ops":["delete"],"action":"hold"}]}}\n' \
		"$T" "$T" "$BIN" "$LOADER" "$T/app" > "$T/p.json"
	printf 's\n' | "$WARDEN" prompt > "$T/prompt.out" 2>&1 &
	prompt=$!
	trap 'kill $prompt 2>/dev/null || true' EXIT
	rc=0
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -f "$T/app/f" 2> "$T/err" || rc=$?
	[ -e "$T/app/f" ] || fail "root did for user nobody what nobody may not do"
	expect_eq "rm exit status" "$rc" 1
	expect_line "$T/err" "Permission denied"
	expect_line "$WD_OUT/audit" '"type":"decision"' '"verdict":"allow"' '"result":"EACCES"'
}

# A path through a magic link (/proc/self/fd/N) names what the *resolver* has open: warden cannot
# follow it as the task would, so the call is refused, never let through on a guess. Here the
# protected tree lies inside a writable tree, where on landlock nothing else would stop it.
test_a_path_through_proc_self_fd_is_refused_not_guessed() {
	mkdir -p "$T/app/src"
	echo keep > "$T/app/src/f"
	hold_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]" \
		'"hold":{"timeout":"2s"}'
	# control: outside a sandbox the same call removes the file
	mkdir -p "$T/ctl" && echo x > "$T/ctl/f"
	expect_eq "control" "$("$BIN/wd-escape" via-fd unlink "$T/ctl" f)" ok
	out=$(wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- \
		"$BIN/wd-escape" via-fd unlink "$T/app/src" f 2>&1) || true
	[ -e "$T/app/src/f" ] || fail "a delete through /proc/self/fd reached the protected tree"
	case $out in
	EPERM | ENOENT) ;; # refused as a magic link, or not found where warden looked
	*) fail "the task saw '$out'" ;;
	esac
	expect_eq "hold records" "$(grep -c '"type":"hold"' "$WD_OUT/audit")" 0
}

# Holds that come one right behind another (the first decision and the next hold reach the prompt
# in one read) are each answered by the prompt, none left to the timeout.
test_back_to_back_holds_are_each_answered_by_the_prompt() {
	mkdir -p "$T/app"
	for f in a b c d; do echo "$f" > "$T/app/$f"; done
	hold_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]" \
		'"hold":{"timeout":"20s"}'
	printf 'a\na\na\na\n' | "$WARDEN" prompt > "$T/prompt.out" 2>&1 &
	prompt=$!
	trap 'kill $prompt 2>/dev/null || true' EXIT
	# one process, deletes back to back: each next hold is published as the last is decided
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- \
		rm -f "$T/app/a" "$T/app/b" "$T/app/c" "$T/app/d" ||
		fail "the run failed: $(cat "$T/prompt.out")"
	expect_eq "holds" "$(grep -c '"type":"hold"' "$WD_OUT/audit")" 4
	expect_eq "answered by the prompt" "$(grep -c '"by":"uid 0 (root)"' "$WD_OUT/audit")" 4
	expect_eq "left to the timeout" "$(grep -c '"by":"timeout"' "$WD_OUT/audit")" 0
	expect_eq "files left" "$(ls "$T/app" | wc -l)" 0
}
