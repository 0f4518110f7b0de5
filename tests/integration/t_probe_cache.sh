# SPDX-License-Identifier: GPL-2.0
# The probe's answers kept per boot (supervisor/backend/probe_cache.h): written by the first
# probe, used by the next run with no BTF parsed by warden itself, and never trusted when planted
# by anyone but root or in any shape but its own; no sandbox may write where it lives.
WHERE=any
# its runs find, load or leave out the BTF themselves, with no set held (run.sh --hold-sets)
HOLD_SETS=no

cache() {
	echo "$WARDEN_RUN_DIR/probe.cache"
}

probe_choice() {
	case $WD_WHERE in vm) echo bpf-lsm ;; *) echo landlock ;; esac
}

# warm: doctor probes and writes the file (each test has a run directory of its own).
warm() {
	"$WARDEN" doctor > "$T/doctor.cold"
	expect_line "$T/doctor.cold" "answers       probed now, cached in $(cache)"
	[ -f "$(cache)" ] || fail "no $(cache) after doctor"
}

# doctor_used_cache yes|no: the last doctor took its answers from the file, or probed.
doctor_says() {
	"$WARDEN" doctor > "$T/doctor"
	if [ "$1" = yes ]; then
		expect_line "$T/doctor" "answers       this boot's, from $(cache)"
	else
		expect_line "$T/doctor" "answers       probed now, cached in $(cache)"
	fi
	expect_line "$T/doctor" "backend       $(probe_choice)"
}

test_written_once_then_used() {
	warm
	expect_eq "cache mode" "$(stat -c '%a %u %F' "$(cache)")" "600 0 regular file"
	expect_line "$(cache)" "boot $(cat /proc/sys/kernel/random/boot_id)"
	expect_line "$(cache)" "kernel $(uname -r)"
	if [ "$WD_WHERE" = vm ]; then
		expect_line "$(cache)" "bpf_lsm 1"
	else
		expect_line "$(cache)" "bpf_lsm 0 the kernel refuses BPF-LSM programs"
	fi
	doctor_says yes
	"$WARDEN" doctor --json > "$T/doctor.json"
	expect_line "$T/doctor.json" '"cached":'$'\t''true'
	# --refresh probes again and rewrites it
	"$WARDEN" doctor --refresh > "$T/doctor.refresh"
	expect_line "$T/doctor.refresh" "answers       probed now, cached in $(cache)"
	"$WARDEN" doctor --help | grep -q -- '--refresh' || fail "doctor --help does not name --refresh"
	# a run uses it and picks the same backend
	policy "$T/p.json" "$T" "$T" ""
	"$WARDEN" -vv run --policy "$T/p.json" --report "$WD_OUT/r.json" --audit "$WD_OUT/audit" \
		-- "$BIN/wd-try" exit 0 2> "$T/run.err" || fail "run: $(tail -5 "$T/run.err")"
	expect_line "$T/run.err" "probe: the answers are this boot's, from $(cache)"
	expect_eq backend "$(report_field "$WD_OUT/r.json" backend)" "$(probe_choice)"
}

# With a warm cache warden's own code opens the kernel's BTF not once: every open strace sees
# is one libbpf announces while loading a BPF object (the recorder; on bpf-lsm also the LSM
# object), the loader's business, not the probe's.
test_warm_run_parses_no_btf() {
	command -v strace > /dev/null || skip "no strace"
	warm
	policy "$T/p.json" "$T" "$T" ""
	strace -f -qq -e trace=open,openat -e signal=none -o "$T/strace" \
		"$WARDEN" -vv run --policy "$T/p.json" --audit "$WD_OUT/audit" \
		-- "$BIN/wd-try" exit 0 2> "$T/run.err" || fail "run: $(tail -5 "$T/run.err")"
	opens=$(grep -c '"/sys/kernel/btf/vmlinux"' "$T/strace" || true)
	libbpf=$(grep -c "libbpf: loading kernel BTF '/sys/kernel/btf/vmlinux'" "$T/run.err" || true)
	expect_eq "warden's own BTF loads" \
		"$(grep -c "probe: the kernel's BTF loaded" "$T/run.err" || true)" 0
	expect_eq "opens of the BTF beyond libbpf's object loads" "$opens" "$libbpf"
	echo "    BTF opens in a warm $(probe_choice) run: $opens (libbpf loading objects)" >&2
	grep -q "probe: BPF-LSM programs load and attach\|probe: the kernel refuses" "$T/run.err" &&
		fail "the BPF-LSM probe ran although its answer was kept"
	return 0
}

# plant CONTENT-FILE MODE OWNER: put a cache file there as an attacker would.
plant() {
	rm -f "$(cache)"
	cp "$1" "$(cache)"
	chmod "$2" "$(cache)"
	chown "$3" "$(cache)"
}

# A planted file that claims BPF-LSM works here (the host refuses it) is ignored unless it is
# root's own 0600 file of this boot, kernel and build; every other shape is a miss, probed anew
# and rewritten.
test_planted_cache_ignored() {
	warm
	sed 's/^bpf_lsm .*/bpf_lsm 1/' "$(cache)" > "$T/claims"
	sed 's/^boot .*/boot 00000000-0000-0000-0000-000000000000/' "$T/claims" > "$T/otherboot"
	sed 's/^build .*/build 0000000000000000/' "$T/claims" > "$T/otherbuild"
	grep -v '^end$' "$T/claims" > "$T/truncated"
	head -c 300 /dev/urandom > "$T/garbage"
	for shape in "claims 644 0:0" "claims 600 65534:0" "claims 400 0:0" "otherboot 600 0:0" \
		"otherbuild 600 0:0" "truncated 600 0:0" "garbage 600 0:0"; do
		set -- $shape
		plant "$T/$1" "$2" "$3"
		[ "$WD_WHERE" = vm ] || grep -q '^bpf_lsm 1$' "$T/$1" || [ "$1" = garbage ] ||
			fail "the planted $1 does not claim BPF-LSM"
		doctor_says no
		expect_eq "rewritten after $shape" "$(stat -c '%a %u' "$(cache)")" "600 0"
		grep -q "^boot $(cat /proc/sys/kernel/random/boot_id)\$" "$(cache)" ||
			fail "$shape: the file was not rewritten"
	done
	# a symlink to a good file, and a hard link of one
	cp "$T/claims" "$T/good" && chmod 600 "$T/good"
	rm -f "$(cache)" && ln -s "$T/good" "$(cache)"
	doctor_says no
	[ -L "$(cache)" ] && fail "the symlink stayed"
	cmp -s "$T/good" "$T/claims" || fail "the write went through the symlink"
	rm -f "$(cache)" && ln "$T/good" "$(cache)"
	doctor_says no
	cmp -s "$T/good" "$T/claims" || fail "the write went through the hard link"
}

# A policy that lets the sandbox write the run directory (or a tree above it) is refused even
# with --audit elsewhere and no holds: the probe's answers live there. A private /tmp hides
# the host's, run directory and all.
test_sandbox_cannot_write_the_cache() {
	warm
	cp "$(cache)" "$T/before"
	for dir in "$(dirname "$WARDEN_RUN_DIR")" "$WARDEN_RUN_DIR"; do
		policy "$T/p.json" "$T" "$dir" ""
		rc=0
		"$WARDEN" run --policy "$T/p.json" --audit "$WD_OUT/audit" -- "$BIN/wd-try" \
			write "$(cache)" > "$T/out" 2>&1 || rc=$?
		expect_eq "exit status with write $dir" "$rc" 2
		# (the tree above also holds the audit file, refused first)
		expect_line "$T/out" "is refused: the sandbox may write $dir"
		cmp -s "$(cache)" "$T/before" || fail "write $dir: the cache changed"
	done
	expect_line "$T/out" "run directory: $WARDEN_RUN_DIR is refused"
	printf '{"schema":"warden.policy/1","fs":{"read":["/lib","/lib64","/usr","/etc","%s"],"write":["/tmp"],"exec":["%s","/lib64","/lib/x86_64-linux-gnu","/usr/lib/x86_64-linux-gnu"]},"namespaces":{"tmp":"private"}}\n' \
		"$BIN" "$BIN" > "$T/tmp.json"
	rc=0
	"$WARDEN" run --policy "$T/tmp.json" --audit "$WD_OUT/audit" -- "$BIN/wd-try" \
		write "$(cache)" > "$T/out" 2>&1 || rc=$?
	cmp -s "$(cache)" "$T/before" || fail "the sandbox changed the cache: $(cat "$T/out")"
	doctor_says yes
}

# The exec of /bin/true (/bin a symlink to usr/bin here) under a policy that executes /usr/bin
# names the rule that allowed it, not "default".
test_exec_through_symlinked_bin_names_its_rule() {
	[ -L /bin ] || skip "/bin is not a symlink on this system"
	real=$(readlink -f /bin/true)
	printf '{"schema":"warden.policy/1","fs":{"read":["/lib","/lib64","/usr","/etc"],"exec":["%s","/lib64","/lib/x86_64-linux-gnu","/usr/lib/x86_64-linux-gnu"]}}\n' \
		"$(dirname "$real")" > "$T/p.json"
	"$WARDEN" run --policy "$T/p.json" --audit "$WD_OUT/audit" -- /bin/true ||
		fail "the run of /bin/true failed"
	expect_line "$WD_OUT/audit" '"type":"exec"' "\"target\":\"$real\"" '"verdict":"allow"' \
		'"rule":"/fs/exec/0"'
}
