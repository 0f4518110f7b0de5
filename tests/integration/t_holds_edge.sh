# SPDX-License-Identifier: GPL-2.0
# Holds at their edges: delete bursts outside any protected tree, approvers other than root,
# signals to a held process, a path swapped while its call waits, and a second name made by a
# hard link. (Python's shutil.rmtree, which this VM cannot run, is in t_holds_edge_host.sh.)
WHERE=any
BACKENDS="bpf-lsm landlock"

# edge_policy FILE PROTECT_JSON [MORE_JSON]: may write $T (and read $WD_OUT, where warden's audit
# is: one helper waits for a record there), execute the usual programs and the
# test helpers (dynamically linked: their libraries are mapped for execution, which bpf-lsm
# checks against fs.exec).
edge_policy() {
	local libs= d
	for d in $LIBDIRS; do libs="$libs,\"$d\""; done
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s","%s"],"write":["%s","/dev/null"],"exec":["/usr/bin","/bin","%s","%s"%s],"protect":%s}%s}\n' \
		"$BIN" "$WD_OUT" "$T" "$BIN" "$LOADER" "$libs" "$2" "${3:+,$3}" > "$1"
}

edge_tree() {
	mkdir -p "$T/app/src" "$T/junk"
	for f in a b c; do echo "$f" > "$T/app/src/$f"; done
	for i in 1 2 3 4 5 6 7 8; do echo "$i" > "$T/junk/f$i"; done
}

count_of() {
	grep -c "$2" "$1" || true
}

junk_args() {
	local i
	for i in 1 2 3 4 5 6 7 8; do printf '%s ' "$T/junk/f$i"; done
}

BURST='"hold":{"delete_burst":{"count":5,"window":"1m"}}'

# ---- delete bursts ------------------------------------------------------------------------

test_delete_burst_within_count_is_not_held() {
	edge_tree
	edge_policy "$T/p.json" "[]" "$BURST"
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- \
		rm -f "$T/junk/f1" "$T/junk/f2" "$T/junk/f3" "$T/junk/f4" "$T/junk/f5"
	expect_eq "files left" "$(ls "$T/junk" | wc -l)" 3
	expect_eq "hold records" "$(count_of "$WD_OUT/audit" '"type":"hold"')" 0
}

test_delete_burst_holds_the_next_delete_once_then_approved() {
	edge_tree
	edge_policy "$T/p.json" "[]" "$BURST"
	# shellcheck disable=SC2046
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -f $(junk_args) 2> "$T/err" &
	run=$!
	trap 'kill $run 2>/dev/null || true' EXIT
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	expect_eq "held target" "$(record_field "$line" target)" "$T/junk/f6"
	expect_eq "rule" "$(record_field "$line" rule)" "/hold/delete_burst"
	[ ! -e "$T/junk/f5" ] || fail "the first five deletes did not go on"
	[ -e "$T/junk/f6" ] && [ -e "$T/junk/f8" ] || fail "a delete past the burst went on unheld"
	decide approve "$line"
	rc=0
	wait $run || rc=$?
	expect_eq "rm exit status" "$rc" 0
	expect_eq "files left" "$(ls "$T/junk" | wc -l)" 0
	# one prompt: the approval restarts the count, so the last two go on unasked
	expect_eq "hold records" "$(count_of "$WD_OUT/audit" '"type":"hold"')" 1
	expect_line "$WD_OUT/audit" '"type":"decision"' '"verdict":"allow"' '"by":"uid 0 (root)"' \
		"\"target\":\"$T/junk/f6\"" '"result":"ok"'
}

test_delete_burst_denied_for_the_sandbox_keeps_the_rest() {
	edge_tree
	edge_policy "$T/p.json" "[]" "$BURST"
	# shellcheck disable=SC2046
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -f $(junk_args) 2> "$T/err" &
	run=$!
	trap 'kill $run 2>/dev/null || true' EXIT
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	decide deny "$line" --all-like-this
	rc=0
	wait $run || rc=$?
	expect_eq "rm exit status" "$rc" 1
	expect_line "$T/err" "$T/junk/f6" "Operation not permitted"
	expect_line "$T/err" "$T/junk/f8" "Operation not permitted"
	expect_eq "files left" "$(ls "$T/junk" | tr '\n' ' ')" "f6 f7 f8 "
	expect_eq "hold records" "$(count_of "$WD_OUT/audit" '"type":"hold"')" 1
	# the rest of the burst is refused by the standing denial, each on record
	expect_eq "denied by grant" "$(count_of "$WD_OUT/audit" '"by":"grant"')" 2
}

# The prompt's "sandbox-wide" answer to a burst is a standing grant for bursts anywhere: with
# a count of 2, eight deletes make two bursts (the approval restarts the count), one prompt.
test_delete_burst_prompt_sandbox_wide_answers_later_bursts() {
	edge_tree
	edge_policy "$T/p.json" "[]" '"hold":{"delete_burst":{"count":2,"window":"1m"}}'
	printf 's\n' | "$WARDEN" prompt > "$T/prompt.out" 2>&1 &
	prompt=$!
	trap 'kill $prompt 2>/dev/null || true' EXIT
	# shellcheck disable=SC2046
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -f $(junk_args)
	kill $prompt 2>/dev/null || true
	expect_eq "files left" "$(ls "$T/junk" | wc -l)" 0
	expect_line "$T/prompt.out" "andbox-wide for delete bursts anywhere"
	expect_eq "hold records" "$(count_of "$WD_OUT/audit" '"type":"hold"')" 1
	expect_line "$WD_OUT/audit" '"type":"decision"' "\"target\":\"$T/junk/f3\"" '"by":"uid 0 (root)"'
	expect_line "$WD_OUT/audit" '"type":"decision"' "\"target\":\"$T/junk/f6\"" '"by":"grant"'
}

# ---- approvers ------------------------------------------------------------------------------

# An approver listed by name, and a group listed by number: uid 65534 (nobody) and members of
# group 4242 may decide; uid 65533, in neither, may not. No account is made (wd-try as).
test_approvers_decide_others_are_refused() {
	edge_tree
	edge_policy "$T/p.json" \
		"[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]" \
		'"hold":{"approvers":["user:nobody","group:4242"]}'
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -f "$T/app/src/a" 2> "$T/err" &
	run=$!
	trap 'kill $run 2>/dev/null || true' EXIT
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	sb=$(record_field "$line" sandbox)
	id=$(record_field "$line" hold)
	tok=$(record_field "$line" token)
	sock="$WARDEN_RUN_DIR/run-$sb.sock"
	# anyone may connect: every request is checked against the peer's credentials
	expect_eq "socket mode" "$(stat -c %a "$sock")" 666
	expect_eq "run directory mode" "$(stat -c %a "$WARDEN_RUN_DIR")" 755
	# uid 65533: refused, even with the hold's token, and nothing is decided
	"$BIN/wd-try" as 65533 65533 - "$BIN/wd-try" ctl "$sock" \
		"{\"op\":\"decide\",\"id\":$id,\"token\":\"$tok\",\"allow\":true}" > "$T/refused"
	expect_line "$T/refused" '"ok":false' "uid 65533" "may not list or decide"
	rc=0
	"$BIN/wd-try" as 65533 65533 - "$WARDEN" approve "$sb/$id" 2> "$T/refused2" || rc=$?
	expect_eq "approve by an unlisted user" "$rc" 1
	expect_line "$T/refused2" "may not list or decide"
	"$WARDEN" holds > "$T/holds"
	expect_line "$T/holds" "$sb/$id" "$T/app/src/a"
	[ -e "$T/app/src/a" ] || fail "the refused approval deleted the file"
	# a member of group 4242 (supplementary) may list
	"$BIN/wd-try" as 65533 65533 4242 "$WARDEN" holds > "$T/holds2"
	expect_line "$T/holds2" "$sb/$id" "$T/app/src/a"
	# nobody, listed by name, approves; the record names who
	"$BIN/wd-try" as 65534 65534 - "$WARDEN" approve "$sb/$id"
	wait $run
	[ ! -e "$T/app/src/a" ] || fail "the approved delete did not happen"
	expect_line "$WD_OUT/audit" '"type":"decision"' '"verdict":"allow"' '"by":"uid 65534 (nobody)"'
}

# An embedded run's holds socket takes control.sock's words for its one sandbox: resume by
# token, approve and deny by hold and token, each with the request's id echoed, unknown keys
# refused by name, errors coded. A forged or spent token, or another sandbox's name, decides
# nothing.
test_an_embedded_run_takes_resume_approve_and_deny_as_control_sock_does() {
	local sock line line2 tok tok2 id2 sb
	edge_tree
	edge_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		"rm -f $T/app/src/a; echo \$? > $T/a.rc; rm -f $T/app/src/b; echo \$? > $T/b.rc" \
		2> "$T/err" &
	run=$!
	trap 'kill $run 2>/dev/null || true' EXIT
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	sb=$(record_field "$line" sandbox)
	tok=$(record_field "$line" token)
	sock="$WARDEN_RUN_DIR/run-$sb.sock"
	expect_eq "a forged token" "$("$BIN/wd-try" ctl "$sock" '{"op":"resume","id":"r0","token":"forged","resolution":"approve"}')" \
		'{"ok":false,"error":"resume: no held operation has this token (decided already, or gone)","code":"not_found","v":1,"id":"r0"}'
	expect_eq "an unknown key" "$("$BIN/wd-try" ctl "$sock" "{\"op\":\"resume\",\"id\":\"r1\",\"token\":\"$tok\",\"resolution\":\"approve\",\"wiat\":1}")" \
		'{"ok":false,"error":"resume: unknown key \"wiat\"","code":"unknown_key","key":"wiat","v":1,"id":"r1"}'
	line=$("$BIN/wd-try" ctl "$sock" "{\"op\":\"approve\",\"sandbox\":\"sb-00000000\",\"hold\":$(record_field "$line" hold),\"token\":\"$tok\"}")
	case $line in
	*'"ok":false'*'"code":"not_found"'*) ;; *) fail "another sandbox's name was taken: $line" ;;
	esac
	[ -e "$T/app/src/a" ] || fail "a refused request decided the hold"
	expect_eq "resume" "$("$BIN/wd-try" ctl "$sock" "{\"op\":\"resume\",\"id\":\"r2\",\"token\":\"$tok\",\"resolution\":\"approve\"}")" \
		"{\"ok\":true,\"sandbox\":\"$sb\",\"v\":1,\"id\":\"r2\"}"
	line2=$(wait_record "$WD_OUT/audit" "\"target\":\"$T/app/src/b\",\"rule\"" $run)
	tok2=$(record_field "$line2" token)
	id2=$(record_field "$line2" hold)
	case $("$BIN/wd-try" ctl "$sock" "{\"op\":\"resume\",\"token\":\"$tok\",\"resolution\":\"approve\"}") in
	*'"ok":false'*'"code":"not_found"'*) ;; *) fail "a spent token was taken again" ;;
	esac
	expect_eq "deny" "$("$BIN/wd-try" ctl "$sock" "{\"op\":\"deny\",\"id\":7,\"hold\":$id2,\"token\":\"$tok2\"}")" \
		"{\"ok\":true,\"sandbox\":\"$sb\",\"v\":1,\"id\":7}"
	wait $run || true
	expect_eq "the resumed delete" "$(cat "$T/a.rc")" 0
	[ ! -e "$T/app/src/a" ] || fail "the resumed delete did not happen"
	[ -e "$T/app/src/b" ] || fail "the denied delete happened"
	[ "$(cat "$T/b.rc")" != 0 ] || fail "the denied rm succeeded"
}

test_unknown_approver_is_refused_at_start() {
	edge_tree
	edge_policy "$T/p.json" \
		"[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]" \
		'"hold":{"approvers":["user:nobody","user:wd-no-such-user"]}'
	rc=0
	wrun --policy "$T/p.json" -- touch "$T/ran" 2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_line "$T/err" "/hold/approvers/1" "no user \"wd-no-such-user\""
	[ ! -e "$T/ran" ] || fail "the command ran"
}

# Without approvers the socket stays root's alone.
test_no_approvers_socket_is_root_only() {
	edge_tree
	edge_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -f "$T/app/src/a" 2> "$T/err" &
	run=$!
	trap 'kill $run 2>/dev/null || true' EXIT
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	sb=$(record_field "$line" sandbox)
	expect_eq "socket mode" "$(stat -c %a "$WARDEN_RUN_DIR/run-$sb.sock")" 600
	rc=0
	"$BIN/wd-try" as 65534 65534 - "$BIN/wd-try" ctl "$WARDEN_RUN_DIR/run-$sb.sock" \
		'{"op":"holds"}' > "$T/out" || rc=$?
	expect_eq "connect as nobody" "$(cat "$T/out")" EACCES
	"$WARDEN" deny "$sb/$(record_field "$line" hold)"
	wait $run || true
	[ -e "$T/app/src/a" ] || fail "the denied delete happened"
}

# ---- signals to a held process --------------------------------------------------------------

# pending PID SIGNO: is the signal pending on the process (queued, not yet delivered)?
pending() {
	local mask
	mask=$(sed -n 's/^ShdPnd:[[:space:]]*//p' "/proc/$1/status")
	[ $(( (16#$mask >> ($2 - 1)) & 1 )) = 1 ]
}

# A process that handles the signal: the held call is not interrupted or asked again; after the
# decision it completes once, and then the handler runs.
test_handled_signal_waits_for_the_decision() {
	edge_tree
	edge_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	for sig in INT TERM; do
		echo x > "$T/app/src/a"
		wrun --policy "$T/p.json" --audit "$WD_OUT/audit.$sig" -- \
			"$BIN/wd-try" unlink-signalled "$T/app/src/a" > "$T/out.$sig" 2>&1 &
		run=$!
		trap 'kill $run 2>/dev/null || true' EXIT
		line=$(wait_record "$WD_OUT/audit.$sig" '"type":"hold"' $run)
		pid=$(record_field "$line" pid)
		kill -"$sig" "$pid"
		# kill queues the signal at once; while the call is held it stays queued
		signo=$(kill -l "$sig")
		pending "$pid" "$signo" || fail "SIG$sig was not pending on the held process"
		[ -e "$T/app/src/a" ] || fail "the file went before the decision"
		decide approve "$line"
		rc=0
		wait $run || rc=$?
		expect_eq "SIG$sig: exit status" "$rc" 0
		expect_eq "SIG$sig: output" "$(tr '\n' ' ' < "$T/out.$sig")" "ok caught SIG$sig "
		[ ! -e "$T/app/src/a" ] || fail "SIG$sig: the approved delete did not happen"
		expect_eq "SIG$sig: hold records" \
			"$(count_of "$WD_OUT/audit.$sig" '"type":"hold"')" 1
		expect_eq "SIG$sig: decisions" "$(count_of "$WD_OUT/audit.$sig" '"type":"decision"')" 1
	done
}

# A process that does not handle it dies of it at once (the signal is fatal, and a held task is
# killable): the held call is not performed, and was asked about once.
test_fatal_signal_ends_the_held_call_unperformed() {
	edge_tree
	edge_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	for sig in INT TERM; do
		wrun --policy "$T/p.json" --audit "$WD_OUT/audit.$sig" --report "$WD_OUT/r.$sig" \
			-- rm -f "$T/app/src/a" > /dev/null 2>&1 &
		run=$!
		trap 'kill $run 2>/dev/null || true' EXIT
		line=$(wait_record "$WD_OUT/audit.$sig" '"type":"hold"' $run)
		kill -"$sig" "$(record_field "$line" pid)"
		wait $run || true
		expect_eq "SIG$sig: status" "$(report_field "$WD_OUT/r.$sig" status)" killed
		expect_eq "SIG$sig: signal" "$(report_field "$WD_OUT/r.$sig" signal)" "$(kill -l "$sig")"
		[ -e "$T/app/src/a" ] || fail "SIG$sig: the held delete happened"
		expect_eq "SIG$sig: hold records" \
			"$(count_of "$WD_OUT/audit.$sig" '"type":"hold"')" 1
	done
}

# ---- a path swapped while held --------------------------------------------------------------

# The call names the protected file through a symlink; while it waits, a second thread points
# the symlink at a decoy. The approved delete is done on the directory the supervisor pinned
# (what the operator was shown), not on what the path names now.
test_path_swapped_while_held_changes_nothing() {
	edge_tree
	mkdir -p "$T/decoy/src"
	echo decoy > "$T/decoy/src/a"
	ln -s "$T/app" "$T/link"
	edge_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- "$BIN/wd-try" swap-unlink \
		"$T/link/src/a" "$T/link" "$T/decoy" "$WD_OUT/audit" '"type":"hold"'
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	expect_eq "held target" "$(record_field "$line" target)" "$T/app/src/a"
	wait_record "$T/out" swapped $run > /dev/null
	expect_eq "the symlink now" "$(readlink "$T/link")" "$T/decoy"
	decide approve "$line"
	rc=0
	wait $run || rc=$?
	expect_eq "exit status" "$rc" 0
	expect_eq "result" "$(tail -n1 "$T/out")" ok
	[ ! -e "$T/app/src/a" ] || fail "the object that was checked and approved is still there"
	expect_eq "decoy" "$(cat "$T/decoy/src/a")" decoy
	expect_line "$WD_OUT/audit" '"type":"decision"' "\"target\":\"$T/app/src/a\"" '"result":"ok"'
}

# ---- link-then-unlink -----------------------------------------------------------------------

# Holds match names (bpf-lsm's (dev, ino) entries are fs.deny's and a protected tree's root): a
# hard link made inside gives a protected file a second name outside the tree. Deleting the
# protected name is still held; deleting the second name is not, and removes only that name.
test_link_then_unlink() {
	edge_tree
	mkdir "$T/free"
	case $EXPECT_BACKEND in
	bpf-lsm) expect_table hold.protect bpf-lsm yes ;;
	*) expect_table hold.protect landlock partly ;;
	esac
	edge_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		"ln $T/app/src/a $T/free/a && rm -f $T/app/src/a; echo rm=\$?; rm -f $T/free/a && echo second=ok"
	deny_held "$WD_OUT/audit" "$T/app/src/a"
	wait $run
	expect_line "$T/out" "rm=1"
	expect_line "$T/out" "second=ok"
	expect_eq "protected content" "$(cat "$T/app/src/a")" a
	[ ! -e "$T/free/a" ] || fail "the second name was not removed"
	expect_eq "hold records" "$(count_of "$WD_OUT/audit" '"type":"hold"')" 1
}

# Truncation through a second name. Made inside the sandbox: link() of a file protected from
# truncation is refused on both backends (bpf-lsm in the kernel, landlock in the waiting room),
# with a record naming the tree's rule.
test_link_then_truncate() {
	edge_tree
	mkdir "$T/free"
	edge_policy "$T/p.json" \
		"[{\"path\":\"$T/app\",\"ops\":[\"delete\",\"truncate\"],\"action\":\"hold\"}]"
	rc=0
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		"ln $T/app/src/b $T/free/b && : > $T/free/b" 2> "$T/err" || rc=$?
	expect_eq "hold records" "$(count_of "$WD_OUT/audit" '"type":"hold"')" 0
	expect_eq "exit status" "$rc" 1
	expect_line "$T/err" "Operation not permitted"
	[ ! -e "$T/free/b" ] || fail "a second name of a protected file was made"
	expect_eq "protected content" "$(cat "$T/app/src/b")" b
	case $EXPECT_BACKEND in
	bpf-lsm) expect_line "$WD_OUT/audit" '"verdict":"deny"' "\"target\":\"$T/app/src/b\"" ;;
	*)
		expect_line "$WD_OUT/audit" '"type":"decision"' '"op":"link"' '"verdict":"deny"' \
			"\"target\":\"$T/app/src/b\"" '"rule":"/fs/protect/0"'
		# the EPERM the syscall-exit recorder sees is the waiting room's, and says so
		expect_line "$WD_OUT/audit" '"source":"syscall-exit"' '"op":"link"' '"verdict":"deny"' \
			'"rule":"/fs/protect/0"'
		;;
	esac
}

# Made before the run, outside the tree: the waiting room knows the file by its inode (a walk
# of the tree at start), so truncating it through that name is held, naming the tree's rule.
test_truncate_through_a_link_made_before_the_run_is_held() {
	edge_tree
	mkdir "$T/free"
	ln "$T/app/src/b" "$T/free/b"
	edge_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"truncate\"],\"action\":\"hold\"}]"
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		"(: > $T/free/b) || echo refused"
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	expect_eq "held target" "$(record_field "$line" target)" "$T/free/b"
	expect_eq "rule" "$(record_field "$line" rule)" "/fs/protect/0"
	decide deny "$line"
	wait $run
	expect_line "$T/out" "refused"
	expect_eq "protected content" "$(cat "$T/app/src/b")" b
}

# ---- a directory replaced by a symlink ------------------------------------------------------

# The supervisor does not walk again a directory it found free of symlinks a moment ago, unless
# a directory was removed or renamed since. So: warm that memory of $T/work/d, take d away, make
# d a symlink into the protected tree, and delete through it, all within a millisecond or so.
# The delete is still held; a stale memory would let it go on (landlock) or fail unheld (bpf-lsm).
replace_dir_and_delete() {
	edge_tree
	mkdir -p "$T/work/d"
	edge_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- "$BIN/wd-try" replace-dir "$T/work/d" \
		"$1" "$T/app/src" a
	deny_held "$WD_OUT/audit" "$T/app/src/a"
	wait $run || true
	expect_line "$T/out" "EPERM"
	expect_eq "protected content" "$(cat "$T/app/src/a")" a
}

# A path through a symlink and then ".." is not where its text says: "work/l/../a", with l a link
# to app/src/deep, is app/src/a. The memory of work (made by the first unlink) must not decide it.
test_dotdot_after_a_symlink_is_walked() {
	edge_tree
	mkdir -p "$T/work" "$T/app/src/deep"
	: > "$T/work/seed"
	ln -s "$T/app/src/deep" "$T/work/l"
	edge_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]"
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- "$BIN/wd-try" unlinks \
		"$T/work/seed" "$T/work/l/../a"
	deny_held "$WD_OUT/audit" "$T/app/src/a"
	wait $run || true
	expect_eq "results" "$(tr '\n' ' ' < "$T/out")" "ok EPERM "
	expect_eq "protected content" "$(cat "$T/app/src/a")" a
}

test_directory_removed_then_symlinked_is_walked_again() {
	replace_dir_and_delete rmdir
}

# renames are not held by this policy: the waiting room sees them for this alone
test_directory_renamed_then_symlinked_is_walked_again() {
	replace_dir_and_delete rename
}

# ---- truncation through a symlink -----------------------------------------------------------

# An O_TRUNC open follows a symlink in its last component, unlike a delete or a rename: a link
# outside the protected tree (here two: a relative one to an absolute one) truncates the file
# it names, so that file is what is held, shown and, once approved, truncated.
test_truncate_through_a_symlink_chain_is_held_then_approved() {
	edge_tree
	mkdir "$T/free"
	ln -s "$T/app/src/b" "$T/free/s"
	ln -s s "$T/free/s2"
	edge_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"truncate\"],\"action\":\"hold\"}]"
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		"cd $T/free && (: > s2); echo rc=\$?"
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	expect_eq "held target" "$(record_field "$line" target)" "$T/app/src/b"
	expect_eq "not yet truncated" "$(cat "$T/app/src/b")" b
	decide approve "$line"
	wait $run
	expect_line "$T/out" "rc=0"
	expect_eq "truncated once approved" "$(wc -c < "$T/app/src/b")" 0
	[ -L "$T/free/s" ] && [ -L "$T/free/s2" ] || fail "a symlink was replaced, not followed"
}

# /dev/stdout is a link to /proc/self/fd/1, a magic link: truncating through it reaches what the
# task's fd 1 is, a pipe here (nothing to hold) or, once fd 1 is a protected file, that file.
test_truncate_through_dev_stdout() {
	edge_tree
	edge_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"truncate\"],\"action\":\"hold\"}]"
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c 'echo hello > /dev/stdout' | cat \
		> "$T/piped" || true
	# the waiting room lets it go on; the kernel's file rules decide (bpf-lsm checks the pipe
	# reopened through /proc against fs.write, and it is not there)
	expect_eq "hold records" "$(count_of "$WD_OUT/audit" '"type":"hold"')" 0
	expect_eq "decision records" "$(count_of "$WD_OUT/audit" '"type":"decision"')" 0
	[ "$EXPECT_BACKEND" = bpf-lsm ] ||
		expect_eq "written through /dev/stdout" "$(cat "$T/piped")" hello
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit2" -- sh -c \
		"exec >> $T/app/src/a; (echo x > /dev/stdout) 2> /dev/null || echo refused >&2"
	deny_held "$WD_OUT/audit2" "$T/app/src/a"
	wait $run
	expect_line "$T/out" "refused"
	expect_eq "protected content" "$(cat "$T/app/src/a")" a
}

test_truncate_through_a_symlink_denied_keeps_the_file() {
	edge_tree
	mkdir "$T/free"
	ln -s "$T/app/src/c" "$T/free/s"
	edge_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"truncate\"],\"action\":\"hold\"}]"
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		"(: > $T/free/s) || echo refused"
	deny_held "$WD_OUT/audit" "$T/app/src/c"
	wait $run
	expect_line "$T/out" "refused"
	expect_line "$T/out" "Operation not permitted"
	expect_eq "protected content" "$(cat "$T/app/src/c")" c
}

# ---- openat2 --------------------------------------------------------------------------------

# The filter sends every openat2 (its flags are behind a pointer): one that truncates is held,
# one that only reads goes on unasked, and one resolved from its dirfd as a root, which warden
# does not walk that way, is refused rather than guessed.
test_openat2_truncation_is_held_and_a_read_is_not() {
	edge_tree
	edge_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"truncate\"],\"action\":\"hold\"}]"
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		"$BIN/wd-try openat2 $T/app/src/a read; $BIN/wd-try openat2 $T/app/src/a trunc"
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	expect_eq "held target" "$(record_field "$line" target)" "$T/app/src/a"
	expect_eq "held once" "$(count_of "$WD_OUT/audit" '"type":"hold"')" 1
	decide deny "$line"
	wait $run || true
	expect_eq "read, then refused" "$(tr '\n' ' ' < "$T/out")" "ok EPERM "
	expect_eq "protected content" "$(cat "$T/app/src/a")" a
}

test_openat2_truncation_in_root_is_refused_not_guessed() {
	edge_tree
	edge_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"truncate\"],\"action\":\"hold\"}]"
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- \
		"$BIN/wd-try" openat2 "$T/app/src/a" trunc in-root > "$T/out" 2>&1 || true
	expect_line "$T/out" "EPERM"
	expect_line "$WD_OUT/audit" '"type":"decision"' '"verdict":"deny"' '"rule":"/hold/openat2-scoped"'
	expect_eq "protected content" "$(cat "$T/app/src/a")" a
}
