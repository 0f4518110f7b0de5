# SPDX-License-Identifier: GPL-2.0
# What the landlock backend adds to Landlock: noexec writable trees, memfd_noexec in the sandbox's
# pid namespace, the seccomp self-protection filter. Each attack is tried once outside any
# sandbox first, so a test cannot pass because the attack itself is broken.
WHERE=any
VM_LANDLOCK=yes
BACKENDS="landlock"

setup_tree() {
	mkdir -p "$T/allowed" "$T/rw"
	echo hello > "$T/allowed/file"
	cp "$BIN/wd-try" "$T/rw/payload"
	policy "$T/p.json" "$T/allowed" "$T/rw" ""
}

# ld.so BINARY: the loader is executable, the binary is only readable and was written by the
# sandbox: ld.so maps it itself, which Landlock's exec right never sees.
test_ld_so_binary_fails() {
	expect_table escape.ld-so landlock partly
	setup_tree
	expect_eq "control: ld.so BINARY outside a sandbox" \
		"$("$LOADER" "$T/rw/payload" read "$T/allowed/file")" ok
	rc=0
	wrun --policy "$T/p.json" --audit "$T/audit" \
		-- "$LOADER" "$T/rw/payload" read "$T/allowed/file" > "$T/out" 2> "$T/err" || rc=$?
	[ "$rc" != 0 ] || fail "ld.so ran a binary from a writable tree (output: $(cat "$T/out"))"
	expect_eq "payload output" "$(cat "$T/out")" ""
	expect_line "$T/err" "failed to map segment"
}

test_bpf_syscall_fails_and_is_recorded() {
	expect_table escape.bpf landlock yes
	setup_tree
	expect_eq "control: bpf() outside a sandbox" "$("$BIN/wd-try" bpf)" ok
	rc=0
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" -- "$BIN/wd-try" bpf) || rc=$?
	expect_eq "bpf() in the sandbox" "$out" EPERM
	expect_line "$T/audit" '"type":"syscall"' '"target":"bpf"' '"verdict":"deny"' \
		'"rule":"self-protection"' '"errno":"EPERM"'
}

test_sandbox_has_its_own_pid_namespace() {
	setup_tree
	policy "$T/p.json" "$T/allowed /proc" "$T/rw" ""
	# Only the sandbox's own processes are in its /proc: the command is pid 1 there.
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" -- "$BIN/wd-try" read /proc/1/comm)
	expect_eq "read of /proc/1/comm" "$out" ok
	wrun --policy "$T/p.json" --audit "$T/audit" -- "$BIN/wd-try" read /proc/self/stat > /dev/null
	rc=0
	out=$(wrun --policy "$T/p.json" --audit "$T/audit" -- "$BIN/wd-try" read "/proc/$$/comm") || rc=$?
	[ "$$" = 1 ] || expect_eq "the test shell's /proc entry from inside" "$out" ENOENT
}

test_host_memfd_noexec_untouched() {
	[ -e /proc/sys/vm/memfd_noexec ] || skip "this kernel has no vm.memfd_noexec (before 6.3)"
	before=$(cat /proc/sys/vm/memfd_noexec)
	setup_tree
	wrun --policy "$T/p.json" --audit "$T/audit" -- "$BIN/wd-try" read "$T/allowed/file" > /dev/null
	expect_eq "host vm.memfd_noexec after a run" "$(cat /proc/sys/vm/memfd_noexec)" "$before"
	expect_eq "control: memfd exec on the host still works" \
		"$("$BIN/wd-try" memfd-exec "$BIN/wd-try" x read "$T/allowed/file")" ok
}

# Landlock can only allow: a denied path inside an allowed tree is carved out by allowing its
# siblings. One that does not exist could appear after they were listed: refused, by name.
test_deny_that_cannot_be_expressed_is_refused() {
	setup_tree
	echo keep > "$T/allowed/other"
	sed -i "s|\"fs\":{|\"fs\":{\"deny\":[\"$T/allowed/not-there\"],|" "$T/p.json"
	rc=0
	wrun --policy "$T/p.json" --audit "$T/audit" -- "$BIN/wd-try" read "$T/allowed/other" \
		> "$T/out" 2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 125
	expect_line "$T/err" "fs.deny cannot be expressed with Landlock" "$T/allowed/not-there"
	expect_eq "command output" "$(cat "$T/out")" ""
}
