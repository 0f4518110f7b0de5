# SPDX-License-Identifier: GPL-2.0
# The development host's kernel lists bpf in lsm= but refuses LSM programs: a run that insists on
# bpf-lsm refuses in one line and runs nothing.
WHERE=host

test_insisting_on_bpf_lsm_refuses_here() {
	policy "$T/p.json" "$T" "$T" ""
	rc=0
	"$WARDEN" run --backend bpf-lsm --policy "$T/p.json" --report "$WD_OUT/r.json" \
		-- "$BIN/wd-try" write "$T/marker" 2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 125
	expect_eq "stderr lines" "$(wc -l < "$T/err")" 1
	expect_line "$T/err" "cannot run a sandbox here: the kernel refuses BPF-LSM programs"
	[ ! -e "$T/marker" ] || fail "the command ran without a sandbox"
	expect_eq status "$(report_field "$WD_OUT/r.json" status)" failed_to_start
}
