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
