# SPDX-License-Identifier: GPL-2.0
# Exec variants (DESIGN.md threat model): ways to run code that a plain exec rule does not see.
WHERE=any
BACKENDS="bpf-lsm landlock"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

test_memfd_execveat() {
	claims escape.memfd-exec yes yes
	setup
	control "memfd exec" ok "$BIN/wd-try" memfd-exec "$BIN/wd-try" x read "$T/allowed/file"
	out=$(inside "$BIN/wd-try" memfd-exec "$BIN/wd-try" x read "$T/allowed/file")
	expect_denied "memfd exec" "$out"
	if [ "$EXPECT_BACKEND" = landlock ] && [ ! -e /proc/sys/vm/memfd_noexec ]; then
		expect_line "$T/audit" '"target":"memfd_create"' '"rule":"self-protection"'
	else
		expect_line "$T/audit" '"op":"exec"' '"verdict":"deny"'
	fi
}

# ld.so maps a binary that is only readable: no exec of it is ever asked for.
test_ld_so_binary() {
	claims escape.ld-so yes partly
	setup
	cp "$BIN/wd-try" "$T/allowed/payload"
	cp "$BIN/wd-try" "$T/rw/payload"
	control "ld.so BINARY" ok "$LOADER" "$T/allowed/payload" read "$T/allowed/file"
	out=$(inside "$LOADER" "$T/rw/payload" read "$T/allowed/file")
	expect_eq "ld.so of a written payload (output)" "$out" ""
	expect_line "$T/err" "failed to map segment"
	out=$(inside "$LOADER" "$T/allowed/payload" read "$T/allowed/file")
	if on_bpf_lsm; then
		expect_eq "ld.so of a readable binary (output)" "$out" ""
		expect_line "$T/audit" '"op":"exec"' "\"target\":\"$T/allowed/payload\"" \
			'"verdict":"deny"' '"access":["exec"]'
		expect_line "$T/audit" '"op":"exec"' "\"target\":\"$T/rw/payload\"" \
			'"verdict":"deny"'
	else
		# only writable trees are noexec mounts: the table says partly
		expect_eq "ld.so of a readable binary under landlock" "$out" ok
	fi
}

test_mmap_and_mprotect_exec() {
	claims fs.exec.map yes partly
	setup
	control "mmap PROT_EXEC" ok "$E" mmap-exec "$T/allowed/file"
	control "mprotect PROT_EXEC" ok "$E" mprotect-exec "$T/allowed/file"
	echo x > "$T/rw/file"
	expect_denied "mmap PROT_EXEC of a written file" "$(inside "$E" mmap-exec "$T/rw/file")"
	expect_denied "mprotect PROT_EXEC of a written file" \
		"$(inside "$E" mprotect-exec "$T/rw/file")"
	mm=$(inside "$E" mmap-exec "$T/allowed/file")
	mp=$(inside "$E" mprotect-exec "$T/allowed/file")
	if on_bpf_lsm; then
		expect_denied "mmap PROT_EXEC of a readable file" "$mm"
		expect_denied "mprotect PROT_EXEC of a readable file" "$mp"
		expect_line "$T/audit" '"op":"exec"' "\"target\":\"$T/allowed/file\"" \
			'"verdict":"deny"'
		expect_line "$T/audit" '"op":"exec"' "\"target\":\"$T/rw/file\"" '"verdict":"deny"'
	else
		expect_eq "mmap PROT_EXEC of a readable file under landlock" "$mm" ok
		expect_eq "mprotect PROT_EXEC of a readable file under landlock" "$mp" ok
	fi
}

test_shebang_interpreter_outside_exec() {
	claims escape.shebang yes yes
	setup
	cp "$BIN/wd-try" "$T/allowed/interp"
	printf '#!%s\n' "$T/allowed/interp" > "$T/bin/script"
	chmod 755 "$T/bin/script"
	# outside, the interpreter runs (and, given the script as its operation, prints its usage)
	rc=0
	"$T/bin/script" > /dev/null 2> "$T/control" || rc=$?
	expect_eq "control: the interpreter ran" "$rc" 2
	out=$(inside "$BIN/wd-try" exec "$T/bin/script")
	expect_denied "exec of a script whose interpreter is not in fs.exec" "$out"
	on_bpf_lsm || return 0
	expect_line "$T/audit" '"op":"exec"' "\"target\":\"$T/allowed/interp\"" '"verdict":"deny"'
}

# A multicall binary does what its arguments say: rules name binaries, so allowing busybox
# allows every applet (the table says so); a second name for it is judged as busybox.
test_multicall_binary() {
	claims escape.multicall no no
	bb=$(readlink -f /bin/busybox)
	[ -x "$bb" ] || skip "no busybox"
	setup "" "" "$bb"
	ln -s "$bb" "$T/rw/cat"
	control "busybox cat" hello "$T/rw/cat" "$T/allowed/file"
	expect_eq "an applet of an allowed multicall binary" \
		"$(inside "$T/rw/cat" "$T/allowed/file")" hello
	on_bpf_lsm || return 0
	expect_line "$T/audit" '"type":"exec"' "\"target\":\"$bb\"" '"verdict":"allow"'
}

test_setuid_binary() {
	claims escape.setuid yes yes
	setup
	cp "$E" "$T/bin/suid"
	chown 65534 "$T/bin/suid"
	chmod 4755 "$T/bin/suid"
	out=$("$T/bin/suid" euid)
	[ "$out" = 65534 ] || skip "setuid bits do not take effect under $T (nosuid mount?)"
	expect_eq "euid of a setuid binary in the sandbox" "$(inside "$T/bin/suid" euid)" 0
}
