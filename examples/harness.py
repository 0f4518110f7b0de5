#!/usr/bin/env python3
"""run -> stream -> hold -> approve -> report, through wardend (docs/control.md). Standard library only.
usage: harness.py SOCKET POLICY.json -- COMMAND...   (answers each hold with $APPROVE, else asks)"""
import base64, json, os, socket, sys

def request(sock_path, req):
    s = socket.socket(socket.AF_UNIX); s.connect(sock_path); s.sendall((json.dumps(req) + "\n").encode())
    for line in s.makefile("rb"):
        m = json.loads(line)
        if m.get("ok") is False: sys.exit("wardend: " + m["error"])
        if m.get("event") in ("stdout", "stderr"):
            out = sys.stdout if m["event"] == "stdout" else sys.stderr
            out.buffer.write(base64.b64decode(m["data_b64"]) if "data_b64" in m else m["data"].encode()); out.flush()
        if m.get("status") == "held" or m.get("event") == "exit": return m

sock, policy, argv = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[4:]
m = request(sock, {"op": "run", "stream": True, "holds": "return", "policy": policy, "argv": argv, "cwd": os.getcwd()})
while m.get("status") == "held":
    h = m["hold"]
    answer = os.environ.get("APPROVE") or input(f"allow {h['op']} {h['target']} ({h['rule']})? [y/N] ")
    m = request(sock, {"op": "resume", "token": m["token"], "resolution": "approve" if answer.lower().startswith("y") else "deny"})
report = m["report"]
print(f"harness: {report['status']}, exit {m['code']}, {report['denials']} denied, {report.get('holds', 0)} held", file=sys.stderr)
sys.exit(m["code"])
