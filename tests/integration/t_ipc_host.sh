# SPDX-License-Identifier: GPL-2.0
# The one socket layer (supervisor/ipc/) seen from outside: every byte a peer sends is bounded
# input (a NUL byte refuses its line, never cuts it short; a line over the bound ends the
# connection), and the holds CLI tells a hold's token to no listener but root's. Needs Python
# (the VM has none) to send raw bytes and to listen as another user.
WHERE=host

. "$(dirname "${BASH_SOURCE[0]}")/../escape/lib.sh"

PY=/usr/bin/python3

# raw SOCKET BYTES LINES: send BYTES (a Python bytes expression) to SOCKET, print up to LINES reply
# lines, then "eof" if the daemon ended the connection.
raw() {
	"$PY" - "$1" "$2" "$3" <<-'PYEOF'
	import socket, sys
	s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	s.settimeout(60)
	s.connect(sys.argv[1])
	s.sendall(eval(sys.argv[2], {"__builtins__": {}}))
	f = s.makefile("rb")
	for _ in range(int(sys.argv[3])):
	    try:
	        line = f.readline()
	    except ConnectionResetError:
	        line = b""  # closed with what we sent unread: the end too
	    if not line:
	        print("eof")
	        break
	    print(line.decode().rstrip("\n"))
	PYEOF
}

test_wardend_answers_a_line_with_a_nul_byte_as_garbage_and_goes_on() {
	[ -x "$PY" ] || fail "$PY is needed for this test (the development host has it)"
	claims ipc.peer-input yes yes
	start_daemon "$T/d.log"
	# the control: the same requests without the NUL byte are two that are answered
	out=$(raw "$WARDEN_RUN_DIR/control.sock" 'b"{\"op\":\"status\"}\n{\"op\":\"explode\"}\n"' 2)
	expect_eq "control, first" "$(printf '%s\n' "$out" | sed -n 1p | cut -c1-22)" \
		'{"ok":true,"version":"'
	expect_eq "control, second" "$(printf '%s\n' "$out" | sed -n 2p)" \
		'{"ok":false,"error":"unknown op explode (run, resume, attach, stdin, create, exec, put, get, inspect, destroy, list, kill, status, holds, subscribe, approve, deny)","code":"bad_request","v":1}'
	# a NUL byte: the line is no request (not the status request before the NUL), the next is
	out=$(raw "$WARDEN_RUN_DIR/control.sock" \
		'b"{\"op\":\"status\"}\x00{\"op\":\"explode\"}\n{\"op\":\"status\"}\n"' 2) ||
		fail "no answer to a line with a NUL byte: $out"
	expect_eq "NUL line" "$(printf '%s\n' "$out" | sed -n 1p)" \
		'{"ok":false,"error":"a request is one JSON object a line","code":"bad_request","v":1}'
	expect_eq "next line" "$(printf '%s\n' "$out" | sed -n 2p | cut -c1-22)" \
		'{"ok":true,"version":"'
	# a line over the bound: said so, and the connection ends (never a buffer grown for it)
	out=$(raw "$WARDEN_RUN_DIR/control.sock" 'b"x" * 70000' 2)
	expect_eq "oversize line" "$out" "$(printf '%s\n%s' \
		'{"ok":false,"error":"a request is at most 65535 bytes","code":"bad_request","v":1}' eof)"
	kill -TERM "$daemon"
	wait "$daemon" || true
}

test_holds_cli_sends_no_token_to_a_listener_that_is_not_root() {
	[ -x "$PY" ] || fail "$PY is needed for this test (the development host has it)"
	claims ipc.peer-input yes yes
	mkdir -m 700 "$WARDEN_RUN_DIR"
	touch "$T/fake.log" "$T/fake.ready"
	chmod 666 "$T/fake.log" "$T/fake.ready"
	# a socket named as a run's, bound by root, listened on and served by nobody (the listener's
	# credentials are what a client's SO_PEERCRED says): it offers a hold and logs each request
	"$PY" - "$WARDEN_RUN_DIR/run-sb-fake0001.sock" "$T/fake.log" "$T/fake.ready" <<-'PYEOF' &
	import json, os, socket, sys
	s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	s.bind(sys.argv[1])
	os.chmod(sys.argv[1], 0o666)
	os.setgroups([])
	os.setgid(65534)
	os.setuid(65534)
	s.listen(4)
	open(sys.argv[3], "a").write("ready\n")
	hold = {"id": 7, "sandbox": "sb-fake0001", "pid": 1, "comm": "rm", "op": "delete",
	        "target": "/x", "rule": "/fs/protect/0", "tree": "/x", "token": "t0k3n",
	        "age_ms": 1, "timeout_ms": 0}
	while True:
	    c, _ = s.accept()
	    f = c.makefile("rb")
	    for line in f:
	        open(sys.argv[2], "a").write(line.decode())
	        c.sendall((json.dumps({"v": 1, "ok": True, "sandbox": "sb-fake0001",
	                               "holds": [hold]}) + "\n").encode())
	    c.close()
	PYEOF
	fake=$!
	trap 'kill $fake 2>/dev/null || true' EXIT
	timeout 60 "$BIN/wd-try" wait-line "$T/fake.ready" ready "$fake" > /dev/null ||
		fail "the fake listener did not start"
	# the control: the fake answers whoever connects, root included
	expect_eq "control" "$("$BIN/wd-try" ctl "$WARDEN_RUN_DIR/run-sb-fake0001.sock" \
		'{"op":"holds"}' | cut -c1-20)" '{"v": 1, "ok": true,'
	: > "$T/fake.log"
	expect_eq "holds listed" "$("$WARDEN" holds --json 2> "$T/holds.err")" "[]"
	expect_line "$T/holds.err" "run-sb-fake0001.sock" "not root"
	if "$WARDEN" approve sb-fake0001/7 2> "$T/approve.err"; then
		fail "an approval went to a listener that is not root"
	fi
	expect_eq "requests the fake got" "$(cat "$T/fake.log")" ""
	kill "$fake"
	wait "$fake" 2>/dev/null || true
}
