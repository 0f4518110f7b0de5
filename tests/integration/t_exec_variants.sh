# SPDX-License-Identifier: GPL-2.0
# Ways to execute code that a plain exec rule does not see. Each attack is tried once outside any
# sandbox first, so a test cannot pass because the attack itself is broken.
WHERE=any
BACKENDS="bpf-lsm landlock"

setup_tree() {
	mkdir -p "$T/allowed" "$T/rw"
	echo hello > "$T/allowed/file"
	cp "$BIN/wd-try" "$T/rw/payload"
	policy "$T/p.json" "$T/allowed" "$T/rw" ""
}

test_memfd_exec_fails() {
	expect_table escape.memfd-exec "$EXPECT_BACKEND" yes
	setup_tree
	expect_eq "control: memfd exec outside a sandbox" \
		"$("$BIN/wd-try" memfd-exec "$BIN/wd-try" x read "$T/allowed/file")" ok
	rc=0
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" \
		-- "$BIN/wd-try" memfd-exec "$BIN/wd-try" x read "$T/allowed/file") || rc=$?
	expect_eq "exit status" "$rc" 1
	case $out in
	EACCES | EPERM) ;;
	*) fail "memfd exec in the sandbox: got '$out', want a denial" ;;
	esac
	if [ "$EXPECT_BACKEND" = landlock ] && [ ! -e /proc/sys/vm/memfd_noexec ]; then
		# before 6.3 there is no vm.memfd_noexec: the landlock backend refuses memfds whole
		expect_line "$T/audit" '"type":"syscall"' '"target":"memfd_create"' \
			'"verdict":"deny"' '"rule":"self-protection"'
	else
		expect_line "$T/audit" '"op":"exec"' '"verdict":"deny"'
	fi
}
