# SPDX-License-Identifier: GPL-2.0
# The bpf-lsm programs against this host's kernel, where they cannot load: its kernel refuses
# every LSM program at BPF_PROG_LOAD (EPERM, before the verifier runs), so only the VM's 6.1
# loads them for real. wd-lsm-check takes the loader's own choice of programs for this kernel
# (variants by hook argument count, lsm/bpf's ret index), loading and attaching nothing, and
# checks it against the kernel's BTF: every lsm/ hook exists, each program chosen reads the
# previous verdict where the kernel's hook has it, each hook gets exactly one program.
WHERE=host

check() {
	rc=0
	"$BIN/wd-lsm-check" "$@" > "$T/out" 2>&1 || rc=$?
}

test_lsm_programs_fit_this_kernel() {
	check
	[ $rc = 0 ] || fail "wd-lsm-check failed (exit $rc): $(grep -v '^ok' "$T/out")"
	! grep -q '^FAIL' "$T/out" || fail "$(grep '^FAIL' "$T/out")"
	# each hook's line, and one program line per hook at least: the check saw the whole object
	hooks=$(grep -c '^ok lsm/' "$T/out")
	[ "$hooks" -ge 20 ] || fail "only $hooks LSM hooks checked"
	[ "$(grep -c '^ok wd_' "$T/out")" -ge "$hooks" ] || fail "fewer programs than hooks"
	expect_line "$T/out" "ok lsm/inode_setattr: one program of 2 chosen"
}

# The loader's ret index for lsm/bpf is the kernel's argument count of bpf_lsm_bpf, as bpftool
# reads it from the same BTF: 3 on 6.1, 4 (a bool kernel) on 6.18.
test_lsm_bpf_ret_index_is_the_kernels() {
	bpftool=$(command -v bpftool || echo /usr/sbin/bpftool)
	[ -x "$bpftool" ] || skip "no bpftool to read the kernel's BTF with"
	"$bpftool" btf dump file /sys/kernel/btf/vmlinux > "$T/btf"
	proto=$(sed -n "s/^\[[0-9]*\] FUNC 'bpf_lsm_bpf' type_id=\([0-9]*\).*/\1/p" "$T/btf")
	[ -n "$proto" ] || fail "the kernel's BTF has no bpf_lsm_bpf"
	n=$(sed -n "s/^\[$proto\] FUNC_PROTO .* vlen=\([0-9]*\).*/\1/p" "$T/btf")
	check
	expect_eq "exit status" "$rc" 0
	expect_line "$T/out" "# lsm/bpf: the loader reads the verdict at ctx[$n]"
	expect_line "$T/out" "ok wd_bpf lsm/bpf: reads the verdict at ctx[$n]" \
		"the kernel's hook has $n arguments: chosen"
	# a ret index off by one is caught
	check --reads "wd_bpf=$((n - 1))"
	expect_eq "exit status with the verdict read one slot early" "$rc" 1
	expect_line "$T/out" "FAIL wd_bpf lsm/bpf: chosen, but reads the verdict at ctx[$((n - 1))]"
}

# The checks can fail: each wrong choice a variant table or a program could make is caught.
test_lsm_check_catches_a_wrong_variant() {
	# both inode_setattr variants chosen (a table entry claiming the kernel's count)
	check --flip wd_inode_setattr_61 --flip wd_inode_setattr
	expect_eq "exit status with the other variant chosen" "$rc" 1
	expect_line "$T/out" "FAIL wd_inode_setattr_61 lsm/inode_setattr: chosen, but reads the verdict"
	expect_line "$T/out" "FAIL wd_inode_setattr lsm/inode_setattr: left out, though written for"
	check --flip wd_inode_setattr_61
	expect_eq "exit status with both variants chosen" "$rc" 1
	expect_line "$T/out" "FAIL lsm/inode_setattr: 2 programs of 2 chosen, want one"
	# a variant written for other arguments than its table entry says
	check --reads wd_inode_setattr=2
	expect_eq "exit status with a variant written for 2 arguments" "$rc" 1
	expect_line "$T/out" "FAIL wd_inode_setattr lsm/inode_setattr: chosen" "the verdict at ctx[2]"
	# a hook left without its program
	check --flip wd_file_open
	expect_eq "exit status with file_open left out" "$rc" 1
	expect_line "$T/out" "FAIL lsm/file_open: 0 programs of 1 chosen, want one"
}

# Nothing is loaded or attached (LSM programs are global, and this is a shared machine): the
# check makes no bpf() call at all.
test_lsm_check_makes_no_bpf_call() {
	command -v strace > /dev/null || skip "no strace to watch the bpf() calls with"
	strace -f -qq -e trace=bpf -o "$T/trace" "$BIN/wd-lsm-check" > "$T/out" 2>&1 ||
		fail "wd-lsm-check failed: $(grep -v '^ok' "$T/out")"
	[ ! -s "$T/trace" ] || fail "bpf() called: $(head -n3 "$T/trace")"
}
