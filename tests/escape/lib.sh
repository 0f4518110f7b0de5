# SPDX-License-Identifier: GPL-2.0
# Helpers of the escape suite (bash), sourced by each tests/escape/t_*.sh after
# tests/integration/lib.sh. Every test: expect_table (what the guarantee table claims for this
# backend), a control run of the attack outside any sandbox (so a pass is never an accident), the
# attack in a real sandbox, and the record it left.

E="$BIN/wd-escape"

# setup [READ [WRITE [EXEC]]]: $T/allowed (read), $T/rw (write), $T/bin (exec), $T/secret
# (nothing), and the policy, with more paths for each set if given.
setup() {
	mkdir -p "$T/allowed" "$T/rw" "$T/bin"
	echo hello > "$T/allowed/file"
	echo secret > "$T/secret"
	# $T/bin is readable too: Landlock asks for read as well as exec of a binary
	policy "$T/p.json" "$T/allowed $T/bin ${1:-}" "$T/rw ${2:-}" "$T/bin ${3:-}"
}

# control WHAT WANT CMD...: the attack works outside any sandbox.
control() {
	local what=$1 want=$2 out
	shift 2
	out=$("$@" 2>&1) || true
	expect_eq "control: $what outside a sandbox" "$out" "$want"
}

# inside CMD...: run CMD in a sandbox with $T/p.json; its output is printed, the audit stream
# goes to $T/audit (appended), its standard error to $T/err.
inside() {
	wrun --policy "$T/p.json" --audit "$T/audit" -- "$@" 2> "$T/err" || true
}

# expect_denied WHAT OUT: OUT is a denial.
expect_denied() {
	case $2 in
	EPERM | EACCES) ;;
	*) fail "$1 in the sandbox: got '$2', want a denial (EPERM or EACCES)" ;;
	esac
}

# pick BPF_LSM LANDLOCK: the word for this run's backend.
pick() {
	if [ "$EXPECT_BACKEND" = bpf-lsm ]; then echo "$1"; else echo "$2"; fi
}

# claims ID BPF_LSM LANDLOCK: the guarantee table claims this for this run's backend; the test
# then proves it.
claims() {
	expect_table "$1" "$EXPECT_BACKEND" "$(pick "$2" "$3")"
}

# on_bpf_lsm: true when the run's backend is bpf-lsm.
on_bpf_lsm() {
	[ "$EXPECT_BACKEND" = bpf-lsm ]
}

# landlock_abi: the Landlock ABI the landlock backend found (from its start record), or 0.
landlock_abi() {
	sed -n 's/.*"backend_detail":"Landlock ABI \([0-9]*\).*/\1/p' "$T/audit" | head -n1
}

# A process outside the sandbox, for the attacks on other processes: its pid in $victim. The
# test's EXIT trap kills it (by that pid only).
start_victim() {
	sleep 60 &
	victim=$!
	trap 'kill $victim 2>/dev/null' EXIT
}
