# SPDX-License-Identifier: GPL-2.0
# The probe's choice, said the same way by doctor, the report and the start record. On the
# development host the kernel lists bpf in lsm= but refuses LSM programs: landlock there, and a
# run that insists on bpf-lsm refuses in one line and runs nothing. In the VM: bpf-lsm.
WHERE=any
# its runs find, load or leave out the BTF themselves, with no set held (run.sh --hold-sets)
HOLD_SETS=no

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

# doctor prints every probe's answer: the seccomp notification flags and the LSM hook arguments
# the loader reads, each "yes", a count, or the reason it is missing.
test_doctor_prints_every_probe() {
	"$WARDEN" doctor > "$T/doctor"
	for label in "user notify   " "wait-killable " "sync wake-up  "; do
		expect_line "$T/doctor" "$label"
		line_with_all "$T/doctor" "$label" | grep -Eq "^$label(yes|no: .+)\$" ||
			fail "doctor's '$label' line is neither yes nor a reason"
	done
	expect_line "$T/doctor" "LSM hook args bpf "
	line_with_all "$T/doctor" "LSM hook args" | grep -Eq ' bpf (3|4),' ||
		fail "doctor does not say how many arguments lsm/bpf has (3 on 6.1, 4 later)"
	"$WARDEN" doctor --json > "$T/doctor.json"
	expect_line "$T/doctor.json" '"seccomp_notify":'
	expect_line "$T/doctor.json" '"lsm_hook_args":'
}

# The kernel's BTF is read by warden once however many hook arguments are asked (libbpf's own
# loads, one per BPF object, are its own and say "libbpf: loading kernel BTF"): doctor asks five
# when it probes (--refresh), none when the answers are this boot's (probe.cache), and a run
# after it asks none on either backend (t_probe_cache counts the opens with strace).
test_btf_loaded_once() {
	"$WARDEN" -vv doctor --refresh > /dev/null 2> "$T/doctor.err"
	expect_eq "warden's BTF loads in doctor --refresh" \
		"$(grep -c "probe: the kernel's BTF loaded" "$T/doctor.err")" 1
	"$WARDEN" -vv doctor > /dev/null 2> "$T/doctor.err"
	expect_eq "warden's BTF loads in a doctor after it" \
		"$(grep -c "probe: the kernel's BTF loaded" "$T/doctor.err" || true)" 0
	policy "$T/p.json" "$T" "$T" ""
	"$WARDEN" -vv run --policy "$T/p.json" -- "$BIN/wd-try" exit 0 > /dev/null 2> "$T/run.err"
	expect_eq "warden's BTF loads in a $(probe_choice) run" \
		"$(grep -c "probe: the kernel's BTF loaded" "$T/run.err" || true)" 0
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
	# a backend that does not exist is a usage error (docs/cli.md#exit-status)
	expect_eq "exit status" "$rc" 2
	expect_line "$T/err" 'unknown backend "selinux"'
	[ ! -e "$T/marker" ] || fail "the command ran"
}
