# SPDX-License-Identifier: GPL-2.0
# The probe's choice, said the same way by doctor, the report and the start record. On the
# development host the kernel lists bpf in lsm= but refuses LSM programs: landlock there, and a
# run that insists on bpf-lsm refuses in one line and runs nothing. In the VM: bpf-lsm.
WHERE=any

probe_choice() {
	case $WD_WHERE in vm) echo bpf-lsm ;; *) echo landlock ;; esac
}

test_doctor_names_the_choice() {
	"$WARDEN" doctor > "$T/doctor"
	expect_line "$T/doctor" "backend       $(probe_choice)"
	"$WARDEN" doctor --json > "$T/doctor.json"
	expect_line "$T/doctor.json" "\"backend\":"$'\t'"\"$(probe_choice)\""
	if [ "$WD_WHERE" = host ]; then
		expect_line "$T/doctor" "BPF-LSM       no: the kernel refuses BPF-LSM programs"
	else
		expect_line "$T/doctor" "BPF-LSM       yes"
	fi
}

test_auto_run_uses_the_choice() {
	policy "$T/p.json" "$T" "$T" ""
	"$WARDEN" run --policy "$T/p.json" --report "$WD_OUT/r.json" --audit "$WD_OUT/audit" \
		-- "$BIN/wd-try" exit 0
	expect_eq backend "$(report_field "$WD_OUT/r.json" backend)" "$(probe_choice)"
	expect_line "$WD_OUT/audit" '"type":"start"' "\"backend\":\"$(probe_choice)\""
}

test_unknown_backend_refused() {
	policy "$T/p.json" "$T" "$T" ""
	rc=0
	"$WARDEN" run --backend selinux --policy "$T/p.json" -- "$BIN/wd-try" write "$T/marker" \
		2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 125
	expect_line "$T/err" 'unknown backend "selinux"'
	[ ! -e "$T/marker" ] || fail "the command ran"
}
