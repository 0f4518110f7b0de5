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

# docs/control.md's socat flow, as written there (its paths the test's): run with holds
# returned, the held result's token, resume with it on a second connection, the rest of the run.
test_the_socat_flow_of_control_md_works() {
	local S line token= got=
	command -v socat > /dev/null || fail "no socat (make deps installs it)"
	start_daemon "$T/d.log"
	harness_policy
	S=$WARDEN_RUN_DIR/control.sock
	coproc RUN { socat - UNIX-CONNECT:$S; }
	echo "{\"op\":\"run\",\"id\":1,\"stream\":true,\"holds\":\"return\",\"policy\":\"$T/p.json\",\"argv\":[\"sh\",\"-c\",\"rm -rf $T/app; echo rm=\$?\"]}" >&"${RUN[1]}"
	while read -r line <&"${RUN[0]}"; do
		case $line in *'"status":"held"'*) token=$(sed 's/.*"token":"\([^"]*\)".*/\1/' <<< "$line"); break ;; esac
	done
	kill "$RUN_PID"
	[ -n "$token" ] || fail "no held result with a token"
	coproc RESUME { socat - UNIX-CONNECT:$S; }
	echo "{\"op\":\"resume\",\"token\":\"$token\",\"resolution\":\"approve\",\"scope\":\"sandbox\",\"subtree\":\"$T/app\"}" >&"${RESUME[1]}"
	while read -r line <&"${RESUME[0]}"; do
		got="$got$line
"
		case $line in *'"event":"exit"'*) break ;; esac
	done
	kill "$RESUME_PID"
	printf '%s' "$got" | grep -q '"event":"stdout".*"data":"rm=0\\n"' || fail "resume: $got"
	printf '%s' "$got" | grep -q '"event":"exit".*"code":0' || fail "no exit: $got"
	[ ! -e "$T/app" ] || fail "the approved rm -rf left $T/app"
	stop_daemon
}
