# SPDX-License-Identifier: GPL-2.0
# The bpf-lsm programs against this kernel's BTF. On the development host they cannot load: its
# kernel refuses every LSM program at BPF_PROG_LOAD (EPERM, before the verifier runs), so only
# the VMs' 6.1 and 6.12 load them for real. wd-lsm-check takes the loader's own choice of
# programs for this kernel (variants by hook argument count, lsm/bpf's ret index), loading and
# attaching nothing, and checks it against the kernel's BTF: every lsm/ hook exists, each
# program chosen reads the previous verdict where the kernel's hook has it, each hook gets
# exactly one program. In the VMs the same check runs where the verifier also sees the
# programs: a check that passed there while the programs failed to load (or the reverse) would
# show the check's model of the kernel is wrong.
WHERE=any

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

# btf_dump: the kernel's BTF as bpftool reads it (independently of the loader), in $T/btf
btf_dump() {
	bpftool=$(command -v bpftool || echo /usr/sbin/bpftool)
	[ -x "$bpftool" ] || fail "no bpftool to read the kernel's BTF with (make vmstage stages it)"
	[ -s "$T/btf" ] || "$bpftool" btf dump file /sys/kernel/btf/vmlinux > "$T/btf"
}

# hook_args HOOK: the argument count of bpf_lsm_HOOK in the kernel's BTF, as bpftool reads it
# (independently of the loader's own reading), in $n
hook_args() {
	btf_dump
	proto=$(sed -n "s/^\[[0-9]*\] FUNC 'bpf_lsm_$1' type_id=\([0-9]*\).*/\1/p" "$T/btf")
	[ -n "$proto" ] || fail "the kernel's BTF has no bpf_lsm_$1"
	n=$(sed -n "s/^\[$proto\] FUNC_PROTO .* vlen=\([0-9]*\).*/\1/p" "$T/btf")
	[ -n "$n" ] || fail "no prototype of bpf_lsm_$1 in the kernel's BTF"
}

# The loader's ret index for lsm/bpf is the kernel's argument count of bpf_lsm_bpf, as bpftool
# reads it from the same BTF: 3 on 6.1, 4 (a bool kernel) on 6.12 and 6.18.
test_lsm_bpf_ret_index_is_the_kernels() {
	hook_args bpf
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
# inode_setattr has 2 arguments on 6.1 (wd_inode_setattr_61 fits) and 3 from 6.3 (the idmap:
# wd_inode_setattr fits); which one is right here comes from the kernel's BTF.
test_lsm_check_catches_a_wrong_variant() {
	hook_args inode_setattr
	case $n in
	3) fits=wd_inode_setattr other=wd_inode_setattr_61 ;;
	2) fits=wd_inode_setattr_61 other=wd_inode_setattr ;;
	*) fail "inode_setattr has $n arguments here, which no variant is written for" ;;
	esac
	# the other variant chosen instead (a table entry claiming the kernel's count)
	check --flip $other --flip $fits
	expect_eq "exit status with the other variant chosen" "$rc" 1
	expect_line "$T/out" "FAIL $other lsm/inode_setattr: chosen, but reads the verdict"
	expect_line "$T/out" "FAIL $fits lsm/inode_setattr: left out, though written for"
	check --flip $other
	expect_eq "exit status with both variants chosen" "$rc" 1
	expect_line "$T/out" "FAIL lsm/inode_setattr: 2 programs of 2 chosen, want one"
	# a variant written for other arguments than its table entry says
	check --reads $fits=$((n - 1))
	expect_eq "exit status with a variant written for $((n - 1)) arguments" "$rc" 1
	expect_line "$T/out" "FAIL $fits lsm/inode_setattr: chosen" "the verdict at ctx[$((n - 1))]"
	# a hook left without its program
	check --flip wd_file_open
	expect_eq "exit status with file_open left out" "$rc" 1
	expect_line "$T/out" "FAIL lsm/file_open: 0 programs of 1 chosen, want one"
	# a program chosen for a hook the kernel does not have (6.1 has no file_truncate: ftruncate
	# and O_TRUNC go to path_truncate there), or left out of one it has
	btf_dump
	if grep -q "^\[[0-9]*\] FUNC 'bpf_lsm_file_truncate' " "$T/btf"; then
		check --flip wd_file_truncate
		expect_eq "exit status with file_truncate left out" "$rc" 1
		expect_line "$T/out" "FAIL lsm/file_truncate: 0 programs of 1 chosen, want one"
	else
		check
		expect_line "$T/out" "ok wd_file_truncate lsm/file_truncate: left out, the kernel has no"
		check --flip wd_file_truncate
		expect_eq "exit status with file_truncate chosen" "$rc" 1
		expect_line "$T/out" "FAIL wd_file_truncate lsm/file_truncate: the kernel's BTF has no"
	fi
}

# Nothing is loaded or attached (LSM programs are global, and this is a shared machine): the
# check makes no bpf() call at all.
test_lsm_check_makes_no_bpf_call() {
	command -v strace > /dev/null || fail "no strace to watch the bpf() calls with (make vmstage stages it)"
	strace -f -qq -e trace=bpf -o "$T/trace" "$BIN/wd-lsm-check" > "$T/out" 2>&1 ||
		fail "wd-lsm-check failed: $(grep -v '^ok' "$T/out")"
	[ ! -s "$T/trace" ] || fail "bpf() called: $(head -n3 "$T/trace")"
}
