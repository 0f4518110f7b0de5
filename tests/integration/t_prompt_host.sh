# SPDX-License-Identifier: GPL-2.0
# warden prompt against a stand-in for a run's control socket (python3, so host only), which
# writes what a busy run can: several lines in one send. The prompt must answer each.
WHERE=host

# fake_run SOCKET LOG: serve one run's control socket: answer "holds" with hold 7 and, in the
# same write, publish it as an event too (it was made in between); publish hold 8 once 7 is
# decided; log each decide request (one line each) to LOG and answer it.
fake_run() {
	python3 - "$1" "$2" <<'PY' &
import json, os, socket, sys, threading
path, log = sys.argv[1], sys.argv[2]
hold = {"sandbox": "sb-fake0001", "id": 7, "pid": 1, "comm": "rm", "op": "delete",
        "target": "/srv/app/x", "rule": "/fs/protect/0", "tree": "/srv/app",
        "token": "0123456789abcdef0123456789abcdef", "age_ms": 0, "timeout_ms": 60000}
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
tmp = path + ".tmp"
srv.bind(tmp)
# listening before the name appears, as a run's socket is (supervisor/hold/holds_socket.c): the prompt
# connects as soon as it sees the name, and a refused connect is never tried again
srv.listen(8)
os.rename(tmp, path)
subscriber = []
def serve(c):
    f = c.makefile("rb")
    for line in f:
        req = json.loads(line)
        if req.get("op") == "subscribe":
            c.sendall((json.dumps({"v": 1, "ok": True, "sandbox": hold["sandbox"]}) +
                       "\n").encode())
        elif req.get("op") == "holds":
            # made between subscribe and this list: in the list and as an event, and both
            # lines in one write
            subscriber.append(c)
            c.sendall((json.dumps({"v": 1, "ok": True, "sandbox": hold["sandbox"],
                                   "holds": [hold]}) + "\n" +
                       json.dumps({"event": "hold", "hold": hold}) + "\n").encode())
        elif req.get("op") == "decide":
            with open(log, "a") as out:
                out.write(json.dumps(req) + "\n")
            c.sendall((json.dumps({"v": 1, "ok": True}) + "\n").encode())
            if req.get("id") == 7:
                # the next hold, once the first is decided
                nxt = dict(hold, id=8, target="/srv/app/y")
                subscriber[0].sendall((json.dumps({"event": "hold", "hold": nxt}) +
                                       "\n").encode())
while True:
    threading.Thread(target=serve, args=(srv.accept()[0],), daemon=True).start()
PY
}

test_holds_in_one_write_and_seen_twice_are_each_asked_once() {
	command -v python3 > /dev/null || fail "python3 is needed for the stand-in run"
	mkdir -p "$WARDEN_RUN_DIR" && chmod 700 "$WARDEN_RUN_DIR"
	touch "$T/decided"
	fake_run "$WARDEN_RUN_DIR/run-sb-fake0001.sock" "$T/decided"
	server=$!
	trap 'kill $server 2>/dev/null || true' EXIT
	# the prompt comes first and follows the socket as it appears
	# two answers for two holds: one spent on a hold seen twice would leave the second unasked
	printf 'a\na\n' | "$WARDEN" prompt > "$T/prompt.out" 2>&1 &
	prompt=$!
	trap 'kill $server $prompt 2>/dev/null || true' EXIT
	timeout 30 "$BIN/wd-try" wait-line "$T/decided" '"id": 8' "$prompt" > /dev/null ||
		fail "the prompt did not answer both holds: $(cat "$T/prompt.out")"
	expect_line "$T/decided" '"id": 7' '"allow": true' '"scope": "once"' \
		'"token": "0123456789abcdef0123456789abcdef"'
	expect_eq "decisions sent" "$(wc -l < "$T/decided")" 2
}
