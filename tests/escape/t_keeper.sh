# SPDX-License-Identifier: GPL-2.0
# The keeper (tools/warden-keeper.c) is warden's own program and out of the sandbox's reach: it is
# exec'd from beside warden's binary (never found through PATH or the environment), with an empty
# environment and only the fds it is documented to get, and the sandbox's command can neither
# read, trace nor signal it, though it holds what confines the sandbox.
WHERE=any
BACKENDS="bpf-lsm landlock"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# start_gated CMD...: warden runs CMD in a sandbox with $T/p.json in the background ($run), the
# test's secret in its environment, a fake warden-keeper first in its PATH and a file of the
# caller's open on fd 7; once CMD has reached its gate ($T/rw/ready), $keeper is the run's keeper.
start_gated() {
	mkdir -p "$T/evil"
	printf '#!/bin/sh\ntouch %s/evil/ran\n' "$T" > "$T/evil/warden-keeper"
	chmod +x "$T/evil/warden-keeper"
	rm -f "$T/rw/ready" "$T/rw/go"
	mkfifo "$T/rw/ready" "$T/rw/go"
	echo caller > "$T/callers-file"
	PATH="$T/evil:$PATH" WD_TEST_SECRET=s3cret-keeper "$WARDEN" run --backend "$BACKEND" \
		--policy "$T/p.json" --audit "$T/audit" -- "$@" > "$T/out" 2> "$T/err" 7< "$T/callers-file" &
	run=$!
	trap 'kill $run 2>/dev/null || true' EXIT
	# opened both ways, so that a run that ends before its gate is no read blocked for ever
	exec 8<> "$T/rw/ready"
	read -r -t 120 line <&8 || line="the command did not reach its gate: $(cat "$T/err")"
	exec 8<&-
	expect_eq gate "$line" ready
	keeper=
	for c in $(cat "/proc/$run/task/$run/children"); do
		[ "$(cat "/proc/$c/comm" 2>/dev/null)" = warden-keeper ] && keeper=$c
	done
	[ -n "$keeper" ] || fail "run $run has no keeper"
}

# open_gate: the command goes on past its gate; wait for the run to end
open_gate() {
	exec 9> "$T/rw/go"
	exec 9>&-
	wait "$run" || fail "the run failed: $(cat "$T/err")"
}

test_the_keeper_is_warden_keeper_from_beside_warden_holding_nothing_of_the_caller() {
	setup
	start_gated "$BIN/wd-try" gate "$T/rw/ready" "$T/rw/go"
	expect_eq "the keeper's program" "$(readlink "/proc/$keeper/exe")" \
		"$(dirname "$(readlink -f "$WARDEN")")/warden-keeper"
	[ ! -e "$T/evil/ran" ] || fail "the warden-keeper first in PATH was run"
	expect_eq "the keeper's environment" "$(tr -d '\0' < "/proc/$keeper/environ" | wc -c)" 0
	# every fd is one it is documented to hold: its streams, the sockets to its supervisor and
	# to the init, the cgroup, the backend's kernel objects, what a successor gets (the audit
	# file, the received calls' page); none of the caller's
	for fd in /proc/"$keeper"/fd/*; do
		what=$(readlink "$fd")
		case $what in
		/dev/null | "$T/err" | socket:* | */warden/*/sb-* | anon_inode:bpf* | \
			"anon_inode:[perf_event]" | "$T/audit" | /memfd:* | anon_inode:\[*) ;;
		*) fail "the keeper holds fd ${fd##*/}: $what" ;;
		esac
	done
	expect_eq "the keeper's fd 2" "$(readlink "/proc/$keeper/fd/2")" "$T/err"
	expect_eq "the keeper's fd 4, the sandbox's cgroup" \
		"$(basename "$(readlink "/proc/$keeper/fd/4")")" \
		"$(record_field "$(line_with_all "$T/audit" '"type":"start"')" sandbox)"
	open_gate
	timeout 60 "$BIN/wd-try" wait-exit "$keeper" > /dev/null ||
		fail "the keeper outlived its run"
}

# The command, root in its sandbox, goes for its own keeper: by its pid as the host names it (in a
# pid namespace of its own there is no such process to name). Without one, what the kernel lets
# any process read of another stays readable: how many fds it has, and its command line, which
# is its sandbox's name, cgroup and keep socket (what the sandbox knows of itself), never
# warden's (the policy's path, which a fork of warden would show).
test_the_command_cannot_read_trace_or_signal_its_keeper() {
	claims escape.ptrace yes yes
	setup /proc "" "/bin /usr/bin"
	start_victim
	# control: each attack works on a process outside any sandbox
	control "reading its memory" ok "$BIN/wd-leak" mem "$victim"
	control "taking its fds" ok "$BIN/wd-leak" getfd "$victim"
	control "tracing it" ok "$E" ptrace "$victim"
	control "signalling it" ok "$E" kill "$victim" 0
	# shellcheck disable=SC2016
	start_gated sh -c '"$0" gate "$1" "$2"; k=$(cat "$3")
		for a in "mem $k" "getfd $k" "fds $k" "grep $k environ s3cret" "grep $k cmdline p.json"; do
			echo "leak $a: $("$4" $a)"
		done
		echo "ptrace: $("$5" ptrace "$k")"
		for s in 0 15 9; do echo "kill $s: $("$5" kill "$k" $s)"; done' \
		"$BIN/wd-try" "$T/rw/ready" "$T/rw/go" "$T/allowed/kpid" "$BIN/wd-leak" "$E"
	echo "$keeper" > "$T/allowed/kpid"
	open_gate
	while IFS= read -r line; do
		out=${line##*: }
		# Without a pid namespace /proc/PID/fd lists (the kernel checks the directory's mode,
		# not ptrace access): how many fds, not one of them (getfd, mem stay refused).
		case $line in "leak fds "*) [[ $out =~ ^[0-9]+$ ]] && continue ;; esac
		case $out in
		EPERM | EACCES | ESRCH | ENOENT | absent) ;;
		*) fail "the command on its keeper (pid $keeper): $line" ;;
		esac
	done < <(grep -vx ok "$T/out")
	expect_eq "attacks tried" "$(grep -cvx ok "$T/out")" 9
	if on_bpf_lsm; then
		# no pid namespace: the keeper could be named, and the LSM refused each attack
		expect_denied "reading the keeper's memory" "$(sed -n 's/^leak mem [0-9]*: //p' "$T/out")"
		expect_denied "signalling the keeper" "$(sed -n 's/^kill 9: //p' "$T/out")"
	fi
}
