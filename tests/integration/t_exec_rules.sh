# SPDX-License-Identifier: GPL-2.0
# exec.deny: programs that never run, whatever fs.exec allows, with the rule on the resolved
# file; the ways around it tried from inside a sandbox (ld.so, a symlink, a copy, a hard link);
# exec.deny by arguments in the waiting room. Each program is run once outside any sandbox
# first, so a test cannot pass because the program itself is broken.
WHERE=any
# Landlock ABI 2 on 6.1: the carve and the noexec bind on the oldest supported kernel too
VM_LANDLOCK=yes
BACKENDS="bpf-lsm landlock"

# $T/bin holds two copies of wd-try (allowed, denied) and a directory of programs (dir/inner);
# $T/rw is writable. exec.deny: [$T/bin/denied, $T/bin/dir] plus any given as JSON in $1.
setup_tree() {
	mkdir -p "$T/bin/dir" "$T/rw" "$T/data"
	echo hello > "$T/data/file"
	cp "$BIN/wd-try" "$T/bin/allowed"
	cp "$BIN/wd-try" "$T/bin/denied"
	cp "$BIN/wd-try" "$T/bin/dir/inner"
	exec_policy "$T/p.json" "\"$T/bin/denied\",\"$T/bin/dir\"${1:+,$1}" "$T/bin ${2:-}"
}

# exec_policy FILE DENY-JSON EXEC: the suite's policy (lib.sh) with an exec.deny list; $T is
# readable, $T/rw writable, EXEC (paths) executable besides what every policy may execute.
exec_policy() {
	policy "$1.base" "$T /usr/bin /bin" "$T/rw /dev/null" "/usr/bin $3"
	sed "s|}}\$|},\"exec\":{\"deny\":[$2]}}|" "$1.base" > "$1"
}

# expect_denied_exec AUDIT PATH RULE: exactly one exec record of PATH, verdict deny, naming RULE.
expect_denied_exec() {
	expect_line "$1" '"op":"exec"' "\"target\":\"$2\"" '"verdict":"deny"' "\"rule\":\"$3\""
	expect_eq "deny records of exec $2" \
		"$(grep '"op":"exec"' "$1" | grep "\"target\":\"$2\"" | grep -c '"verdict":"deny"')" 1
}

test_denied_program_fails_and_is_recorded() {
	expect_table exec.deny "$EXPECT_BACKEND" "$( [ "$EXPECT_BACKEND" = bpf-lsm ] && echo yes || echo partly)"
	setup_tree
	expect_eq "control: the denied program outside a sandbox" \
		"$("$T/bin/denied" read "$T/data/file")" ok
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" \
		-- "$T/bin/allowed" read "$T/data/file")
	expect_eq "the allowed copy in the sandbox" "$out" ok
	rc=0
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" \
		-- "$BIN/wd-try" exec "$T/bin/denied" read "$T/data/file") || rc=$?
	expect_eq "exec of the denied program" "$out" "$DENY_ERRNO"
	expect_denied_exec "$T/audit" "$T/bin/denied" /exec/deny/0
	# still readable: exec.deny takes exec only
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" -- "$BIN/wd-try" read "$T/bin/denied")
	expect_eq "read of the denied program" "$out" ok
}

test_denied_directory_covers_what_is_under_it() {
	setup_tree
	expect_eq "control" "$("$T/bin/dir/inner" read "$T/data/file")" ok
	rc=0
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" \
		-- "$BIN/wd-try" exec "$T/bin/dir/inner" read "$T/data/file") || rc=$?
	expect_eq "exec under the denied directory" "$out" "$DENY_ERRNO"
	expect_denied_exec "$T/audit" "$T/bin/dir/inner" /exec/deny/1
}

# The command itself is denied: warden's own exec of it fails as env(1)'s would.
test_denied_command_does_not_start() {
	setup_tree
	rc=0
	wrun --policy "$T/p.json" --audit "$T/audit" -- "$T/bin/denied" read "$T/data/file" \
		> "$T/out" 2> "$T/err" || rc=$?
	[ "$rc" != 0 ] || fail "the denied command ran (output: $(cat "$T/out"))"
	expect_eq "output of the denied command" "$(cat "$T/out")" ""
	expect_line "$T/audit" '"op":"exec"' "\"target\":\"$T/bin/denied\"" '"verdict":"deny"'
}

# A rule naming a symlink is on the file it resolves to, and a symlink to a denied file is no
# way around it (on this merged-/usr host /bin/true is /usr/bin/true).
test_symlinks_resolved() {
	setup_tree
	ln -s denied "$T/bin/alias"
	ln -s allowed "$T/bin/named-by-link"
	exec_policy "$T/p.json" "\"$T/bin/denied\",\"$T/bin/named-by-link\"" "$T/bin"
	expect_eq "control" "$("$T/bin/alias" read "$T/data/file")" ok
	rc=0
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" \
		-- "$BIN/wd-try" exec "$T/bin/alias" read "$T/data/file") || rc=$?
	expect_eq "exec through a symlink to the denied file" "$out" "$DENY_ERRNO"
	expect_line "$T/audit" '"op":"exec"' '"verdict":"deny"' '"rule":"/exec/deny/0"'
	rc=0
	out=$(wrun --policy "$T/p.json" --audit "$T/audit2" \
		-- "$BIN/wd-try" exec "$T/bin/allowed" read "$T/data/file") || rc=$?
	expect_eq "exec of the file a denied symlink names" "$out" "$DENY_ERRNO"
	expect_line "$T/audit2" '"op":"exec"' '"verdict":"deny"' '"rule":"/exec/deny/1"'
	if [ "$(readlink -f /bin/true)" = /usr/bin/true ]; then
		exec_policy "$T/p.json" '"/bin/true"' "$T/bin"
		rc=0
		out=$(wrun --policy "$T/p.json" --audit "$T/audit3" \
			-- "$BIN/wd-try" exec /usr/bin/true) || rc=$?
		expect_eq "exec of /usr/bin/true with /bin/true denied" "$out" "$DENY_ERRNO"
	fi
}

# Attack: the loader maps the denied program itself (its exec right is never asked).
test_ld_so_denied_program_fails() {
	expect_table exec.deny.ld-so "$EXPECT_BACKEND" yes
	setup_tree
	expect_eq "control: ld.so PROGRAM outside a sandbox" \
		"$("$LOADER" "$T/bin/denied" read "$T/data/file")" ok
	rc=0
	wrun --policy "$T/p.json" --audit "$T/audit" \
		-- "$LOADER" "$T/bin/denied" read "$T/data/file" > "$T/out" 2> "$T/err" || rc=$?
	[ "$rc" != 0 ] || fail "ld.so ran the denied program (output: $(cat "$T/out"))"
	expect_eq "payload output" "$(cat "$T/out")" ""
	expect_line "$T/err" "failed to map segment"
	if [ "$EXPECT_BACKEND" = bpf-lsm ]; then
		expect_line "$T/audit" '"op":"exec"' "\"target\":\"$T/bin/denied\"" \
			'"verdict":"deny"' '"rule":"/exec/deny/0"'
	fi
}

# Attack: copy the denied program somewhere writable and run the copy. A copy is another file;
# what refuses it is that no writable tree is executable (noexec on landlock, no fs.exec on
# bpf-lsm), not exec.deny.
test_copy_to_writable_tree_fails() {
	expect_table exec.deny.copy "$EXPECT_BACKEND" partly
	setup_tree
	rc=0
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" -- /bin/sh -c \
		"cp '$T/bin/denied' '$T/rw/copy' && exec '$BIN/wd-try' exec '$T/rw/copy' read '$T/data/file'") ||
		rc=$?
	[ -e "$T/rw/copy" ] || fail "the copy was not made (the attack did not get as far as exec)"
	expect_eq "exec of a copy in a writable tree" "$out" "$DENY_ERRNO"
	expect_line "$T/audit" '"op":"exec"' "\"target\":\"$T/rw/copy\"" '"verdict":"deny"'
}

# The limit, as documented: a tree that is both writable and in fs.exec runs a copy.
test_copy_into_writable_exec_tree_runs() {
	setup_tree
	exec_policy "$T/p.json" "\"$T/bin/denied\"" "$T/bin $T/rw"
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" -- /bin/sh -c \
		"cp '$T/bin/denied' '$T/rw/copy' && exec '$T/rw/copy' read '$T/data/file'")
	expect_eq "a copy where fs.exec allows (exec.deny is by path and inode, not content)" \
		"$out" ok
}

# A hard link made before the run, in another fs.exec tree: bpf-lsm knows the inode; Landlock's
# rules are by path, so there it runs (the guarantee table says partly).
test_hard_link_made_before() {
	setup_tree
	mkdir -p "$T/bin2"
	ln "$T/bin/denied" "$T/bin2/same" 2>/dev/null || skip "no hard links on $T's filesystem"
	exec_policy "$T/p.json" "\"$T/bin/denied\"" "$T/bin $T/bin2"
	rc=0
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" \
		-- "$BIN/wd-try" exec "$T/bin2/same" read "$T/data/file") || rc=$?
	if [ "$EXPECT_BACKEND" = bpf-lsm ]; then
		expect_eq "exec of a hard link to the denied program" "$out" "$DENY_ERRNO"
		expect_line "$T/audit" '"op":"exec"' '"verdict":"deny"' '"rule":"/exec/deny/0"'
	else
		expect_eq "exec of a hard link (by path on landlock: not closed)" "$out" ok
	fi
}

# A denied program that is not there when the run starts is no refusal, and what appears there
# while the sandbox runs does not run (landlock: its directory is carved into its entries).
test_missing_denied_program_stays_denied() {
	setup_tree "\"$T/bin/later\""
	mkfifo "$T/rw/ready" "$T/rw/go"
	wrun --policy "$T/p.json" --audit "$T/audit" -- /bin/sh -c \
		"'$BIN/wd-try' gate '$T/rw/ready' '$T/rw/go' >/dev/null; '$BIN/wd-try' exec '$T/bin/later' read '$T/data/file'" \
		> "$T/out" 2>&1 &
	run=$!
	trap 'kill $run 2>/dev/null || true' EXIT
	cat "$T/rw/ready" > /dev/null
	cp "$BIN/wd-try" "$T/bin/later"
	: > "$T/rw/go"
	wait $run || true
	expect_eq "exec of the denied program that appeared during the run" "$(cat "$T/out")" \
		"$DENY_ERRNO"
	expect_line "$T/audit" '"op":"exec"' "\"target\":\"$T/bin/later\"" '"verdict":"deny"'
}

# exec.deny with argument patterns: the waiting room refuses a match (advisory: argv is in the
# task's memory); the same program with other arguments runs.
test_argv_deny_in_waiting_room() {
	expect_table exec.deny.argv "$EXPECT_BACKEND" partly
	setup_tree "{\"path\":\"$T/bin/allowed\",\"argv\":[\"write\",\"**\"]}"
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" \
		-- "$BIN/wd-try" exec "$T/bin/allowed" read "$T/data/file")
	expect_eq "arguments that match no pattern" "$out" ok
	rc=0
	out=$(wrun --policy "$T/p.json" --audit "$T/audit2" \
		-- "$BIN/wd-try" exec "$T/bin/allowed" write "$T/rw/x") || rc=$?
	expect_eq "arguments that match the deny pattern" "$out" EPERM
	[ ! -e "$T/rw/x" ] || fail "the denied command ran"
	expect_line "$T/audit2" '"type":"decision"' '"op":"exec"' '"verdict":"deny"' \
		'"rule":"/exec/deny/2"'
}

# The worker template's exec section (policy/templates/worker.json) on top of cli, whose other
# parts (limits) are not this test's: it runs, and each entry refuses what it names where the
# program is installed.
test_worker_exec_section_runs() {
	printf '{"schema":"warden.policy/1","extends":"cli","fs":{"read":["%s"]},"exec":{"deny":["/usr/bin/sudo","/usr/bin/su",{"path":"/usr/bin/git","argv":["push","**"]}]}}\n' \
		"$T" > "$T/p.json"
	# cli writes $TMPDIR and $WORKDIR: both in $T, the audit beside it
	mkdir -p "$T/tmp"
	export TMPDIR="$T/tmp"
	cd "$T"
	rc=0
	if [ -e /usr/bin/su ] && [ "$(readlink -f /usr/bin/su)" = "$(readlink -f /bin/sh)" ]; then
		# a multicall binary (busybox, in the VM): the rule is on the file, every applet
		wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- /bin/sh -c 'echo ran' \
			> "$T/out" 2> "$T/err" || rc=$?
		expect_eq "sh, an applet of the denied multicall binary: exit status" "$rc" 126
		expect_eq "its output" "$(cat "$T/out")" ""
		expect_line "$WD_OUT/audit" '"op":"exec"' '"verdict":"deny"' '"rule":"/exec/deny/1"'
		return 0
	fi
	out=$(wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- /bin/sh -c 'echo ran' \
		2> "$T/err") || rc=$?
	[ "$rc" = 0 ] || fail "sh under the worker exec section: exit $rc: $(cat "$T/err")"
	expect_eq "a program the section does not name" "$out" ran
	if [ -x /usr/bin/su ]; then
		out=$(wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- /bin/sh -c \
			'/usr/bin/su -c true root 2>/dev/null; echo $?')
		expect_eq "exit status of sh running su" "$out" 126
		expect_line "$WD_OUT/audit" '"op":"exec"' '"target":"/usr/bin/su"' '"verdict":"deny"' \
			'"rule":"/exec/deny/1"'
	fi
	if [ -x /usr/bin/git ]; then
		out=$(wrun --policy "$T/p.json" --audit "$WD_OUT/audit2" -- /bin/sh -c \
			'/usr/bin/git --version >/dev/null && echo ok; /usr/bin/git push origin 2>/dev/null; echo $?')
		expect_eq "git --version, then git push" "$out" "ok
126"
		expect_line "$WD_OUT/audit2" '"type":"decision"' '"op":"exec"' '"verdict":"deny"' \
			'"rule":"/exec/deny/2"'
	fi
}

# exec.allow: only listed programs are run by execve, fs.exec still covering what is mapped.
# Allowed: wd-try in $BIN (the command) and $T/bin/allowed; $T/bin/other is in fs.exec but not
# in exec.allow. On landlock (whose EXECUTE covers the ELF interpreter too) the policy is refused
# by pointer before anything runs.
allow_policy() {
	mkdir -p "$T/bin" "$T/rw" "$T/data"
	echo hello > "$T/data/file"
	cp "$BIN/wd-try" "$T/bin/allowed"
	cp "$BIN/wd-try" "$T/bin/other"
	printf '#!%s/bin/allowed exit\n' "$T" > "$T/bin/script-by-allowed"
	printf '#!%s/bin/other exit\n' "$T" > "$T/bin/script-by-other"
	chmod +x "$T/bin/script-by-allowed" "$T/bin/script-by-other"
	policy "$T/p.json.base" "$T /usr/bin /bin" "$T/rw /dev/null" "/usr/bin $T/bin"
	sed "s|}}\$|},\"exec\":{\"allow\":[\"$BIN/wd-try\",\"$T/bin/allowed\",\"$T/bin/script-by-allowed\",\"$T/bin/script-by-other\"]}}|" \
		"$T/p.json.base" > "$T/p.json"
}

# exec_allow_refused ARGS...: on landlock the policy is refused (exit 2, by pointer, saying
# why), so the command (ARGS) never runs: nothing it would try gets past an unenforced allow set.
exec_allow_refused() {
	local rc=0
	expect_table exec.allow landlock no
	wrun --policy "$T/p.json" -- "$@" > "$T/out" 2> "$T/err" || rc=$?
	expect_eq "exit" "$rc" 2
	expect_line "$T/err" "/exec/allow/0: exec.allow" "use --backend bpf-lsm" "landlock"
	expect_eq "output of a command that never ran" "$(cat "$T/out")" ""
}

test_exec_allow_runs_only_listed_programs() {
	local rc out
	allow_policy
	if [ "$EXPECT_BACKEND" = landlock ]; then
		exec_allow_refused "$BIN/wd-try" exec "$T/bin/other" read "$T/data/file"
		return 0
	fi
	expect_table exec.allow bpf-lsm yes
	expect_eq "control: the unlisted program outside a sandbox" \
		"$("$T/bin/other" read "$T/data/file")" ok
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" \
		-- "$BIN/wd-try" exec "$T/bin/allowed" read "$T/data/file")
	expect_eq "a listed program" "$out" ok
	rc=0
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" \
		-- "$BIN/wd-try" exec "$T/bin/other" read "$T/data/file") || rc=$?
	expect_eq "a program fs.exec allows but exec.allow does not list" "$out" "$DENY_ERRNO"
	expect_line "$T/audit" '"op":"exec"' "\"target\":\"$T/bin/other\"" '"verdict":"deny"'
	# still readable, and mapped for execution by what runs (the libraries are fs.exec's)
	out=$(wrun --policy "$T/p.json" -- "$BIN/wd-try" read "$T/bin/other")
	expect_eq "read of the unlisted program" "$out" ok
}

# The ways around it, from inside: ld.so running an unlisted program (an execve of ld.so, which
# is not listed), and a listed script whose interpreter is not listed (each stage of an execve is
# decided); a listed script by a listed interpreter runs.
test_exec_allow_holds_for_ld_so_and_script_interpreters() {
	local rc out
	allow_policy
	if [ "$EXPECT_BACKEND" = landlock ]; then
		exec_allow_refused "$BIN/wd-try" exec "$LOADER" "$T/bin/other" read "$T/data/file"
		return 0
	fi
	expect_eq "control: ld.so runs the program outside" \
		"$("$LOADER" "$T/bin/other" read "$T/data/file")" ok
	rc=0
	out=$(wrun --policy "$T/p.json" -- "$BIN/wd-try" exec "$LOADER" "$T/bin/other" read \
		"$T/data/file") || rc=$?
	expect_eq "ld.so running an unlisted program" "$out" "$DENY_ERRNO"
	# (the interpreter runs as "wd-try exit SCRIPT": exit 0, printing nothing)
	rc=0
	out=$(wrun --policy "$T/p.json" -- "$BIN/wd-try" exec "$T/bin/script-by-allowed") || rc=$?
	expect_eq "a listed script run by a listed interpreter" "$rc:$out" "0:"
	rc=0
	out=$(wrun --policy "$T/p.json" -- "$BIN/wd-try" exec "$T/bin/script-by-other") || rc=$?
	expect_eq "a listed script whose interpreter is not listed" "$out" "$DENY_ERRNO"
}
