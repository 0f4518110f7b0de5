# SPDX-License-Identifier: GPL-2.0
# Templates and derived flags under real enforcement (bpf-lsm): `--policy cli` runs, and each
# command-line addition changes what the kernel allows.
WHERE=vm

# A sandbox started in $T/work with TMPDIR=$T/tmp: the cli template lets it write those two, and
# nothing else of $T.
cli_run() {
	mkdir -p "$T/work" "$T/tmp"
	(cd "$T/work" && TMPDIR="$T/tmp" wrun --policy cli --audit "$T/audit" \
		--allow-exec "$BIN" --allow-read "$BIN" "$@")
}

test_cli_template_runs() {
	echo data > "$T/outside"
	out=$(cli_run -- "$BIN/wd-try" write "$T/work/new")
	expect_eq "write in \$WORKDIR" "$out" ok
	out=$(cli_run -- "$BIN/wd-try" write "$T/tmp/new")
	expect_eq "write in \$TMPDIR" "$out" ok
	out=$(cli_run -- "$BIN/wd-try" read "$T/outside") || true
	expect_eq "read outside" "$out" "$DENY_ERRNO"
	expect_line "$T/audit" "\"target\":\"$T/outside\"" '"verdict":"deny"' '"rule":"default"'
	out=$(cli_run -- "$BIN/wd-try" read /usr/bin/env)
	expect_eq "read under /usr" "$out" ok
}

test_allow_read_and_write_flags() {
	echo data > "$T/outside"
	mkdir -p "$T/out"
	out=$(cli_run --allow-read "$T/outside" -- "$BIN/wd-try" read "$T/outside")
	expect_eq "read with --allow-read" "$out" ok
	out=$(cli_run --allow-read "$T/out" -- "$BIN/wd-try" write "$T/out/x") || true
	expect_eq "write with only --allow-read" "$out" "$DENY_ERRNO"
	out=$(cli_run --allow-write "$T/out" -- "$BIN/wd-try" write "$T/out/x")
	expect_eq "write with --allow-write" "$out" ok
	# the rule that allowed it is named as the effective policy numbers it
	expect_line "$T/audit" '"type":"exec"' "\"target\":\"$BIN/wd-try\"" '"verdict":"allow"' \
		'"rule":"/fs/exec/'
}

test_mode_audit_flag() {
	echo data > "$T/outside"
	if [ "$EXPECT_BACKEND" = landlock ]; then
		# Landlock can only deny: --mode audit is refused there, as audit mode is.
		rc=0
		cli_run --mode audit -- "$BIN/wd-try" read "$T/outside" 2> "$T/err" || rc=$?
		expect_eq "exit status" "$rc" 125
		expect_line "$T/err" "audit mode needs the bpf-lsm backend"
		return 0
	fi
	out=$(cli_run --mode audit -- "$BIN/wd-try" read "$T/outside")
	expect_eq "read in audit mode" "$out" ok
	expect_line "$T/audit" "\"target\":\"$T/outside\"" '"verdict":"audit"'
}

test_allow_exec_flag() {
	mkdir -p "$T/tools"
	cp "$BIN/wd-try" "$T/tools/copy"
	out=$(cli_run -- "$BIN/wd-try" exec "$T/tools/copy" exit 0) || true
	expect_eq "exec outside the exec set" "$out" "$DENY_ERRNO"
	out=$(cli_run --allow-exec "$T/tools" --allow-read "$T/tools" \
		-- "$BIN/wd-try" exec "$T/tools/copy" write "$T/work/y")
	expect_eq "exec with --allow-exec" "$out" ok
}
