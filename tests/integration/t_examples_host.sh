# SPDX-License-Identifier: GPL-2.0
# The client examples of docs/control.md, run as a harness would run them against wardend:
# examples/harness.py (Python's standard library only) streams a run's output, answers its hold
# and prints its report. On the host only: the VM has no Python.
WHERE=host

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# harness_policy: a policy that holds deletes under $T/app
harness_policy() {
	mkdir -p "$T/app/src"
	echo a > "$T/app/src/a"
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s"],"exec":["/usr/bin","/bin","%s"],"protect":[{"path":"%s/app","ops":["delete"],"action":"hold"}]}}\n' \
		"$T" "$T" "$LOADER" "$T" > "$T/p.json"
}

test_harness_py_approves_a_hold_and_reports() {
	local rc=0
	command -v python3 > /dev/null || fail "no python3 (make deps installs it)"
	start_daemon "$T/d.log"
	harness_policy
	APPROVE=y timeout 120 python3 "$SRC/examples/harness.py" "$WARDEN_RUN_DIR/control.sock" \
		"$T/p.json" -- sh -c "echo before; rm -rf $T/app; echo rm=\$?; exit 3" \
		> "$T/out" 2> "$T/err" || rc=$?
	expect_eq "harness exit (the command's)" "$rc" 3
	expect_eq "the command's output, streamed" "$(cat "$T/out")" "before
rm=0"
	# one hold for each of rm -rf's three deletes (a, src, app): each approved once
	expect_line "$T/err" "harness: completed, exit 3, 0 denied, 3 held"
	[ ! -e "$T/app" ] || fail "the approved rm -rf left $T/app"
	stop_daemon
}

test_harness_py_denies_a_hold() {
	local rc=0
	start_daemon "$T/d.log"
	harness_policy
	APPROVE=n timeout 120 python3 "$SRC/examples/harness.py" "$WARDEN_RUN_DIR/control.sock" \
		"$T/p.json" -- sh -c "rm -rf $T/app; echo rm=\$?" > "$T/out" 2> "$T/err" || rc=$?
	expect_eq "harness exit" "$rc" 0
	case $(cat "$T/out") in rm=0) fail "rm says it deleted a denied tree" ;; esac
	[ -e "$T/app/src/a" ] || fail "a denied delete ran"
	expect_line "$T/err" "harness: completed"
	stop_daemon
}
