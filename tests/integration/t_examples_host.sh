# SPDX-License-Identifier: GPL-2.0
# examples/harness.py (Python's standard library only), the client example of docs/control.md,
# run as a harness would run it against wardend: it streams a run's output, answers its holds
# and prints its report (lib.sh's harness_approves and harness_denies). On the host only: the VM
# has no Python (t_examples.sh runs examples/harness.c everywhere).
WHERE=host

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

test_harness_py_approves_a_hold_and_reports() {
	command -v python3 > /dev/null || fail "no python3 (make deps installs it)"
	harness_approves python3 "$SRC/examples/harness.py"
}

test_harness_py_denies_a_hold() {
	harness_denies python3 "$SRC/examples/harness.py"
}

# docs/control.md's socat flow, as written there: run with holds returned, the held result's
# token, resume with it, the rest of the run. Each socat's input stays open until what it waits
# for has come (wd-try wait-line), so nothing here waits on time.
test_the_socat_flow_of_control_md_works() {
	local S out run
	command -v socat > /dev/null || fail "no socat (make deps installs it)"
	start_daemon "$T/d.log"
	harness_policy
	S=$WARDEN_RUN_DIR/control.sock
	run="{\"op\":\"run\",\"id\":1,\"stream\":true,\"holds\":\"return\",\"policy\":\"$T/p.json\",\"argv\":[\"sh\",\"-c\",\"rm -rf $T/app; echo rm=\$?\"]}"
	touch "$T/run.out" "$T/resume.out"
	{ echo "$run"; "$BIN/wd-try" wait-line "$T/run.out" '"status":"held"' > /dev/null; } |
		socat -t 1 - "UNIX-CONNECT:$S" > "$T/run.out"
	token=$(sed -n 's/.*"status":"held".*"token":"\([^"]*\)".*/\1/p' "$T/run.out")
	[ -n "$token" ] || fail "no held result: $(cat "$T/run.out")"
	{ echo "{\"op\":\"resume\",\"id\":\"r\",\"token\":\"$token\",\"resolution\":\"approve\",\"scope\":\"sandbox\",\"subtree\":\"$T/app\"}"
	  "$BIN/wd-try" wait-line "$T/resume.out" '"event":"exit"' > /dev/null; } |
		socat -t 1 - "UNIX-CONNECT:$S" > "$T/resume.out"
	grep -q '"event":"stdout".*"data":"rm=0\\n"' "$T/resume.out" || fail "resume: $(cat "$T/resume.out")"
	grep -q '"event":"exit".*"code":0' "$T/resume.out" || fail "no exit: $(cat "$T/resume.out")"
	[ ! -e "$T/app" ] || fail "the approved rm -rf left $T/app"
	stop_daemon
}
