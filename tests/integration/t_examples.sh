# SPDX-License-Identifier: GPL-2.0
# examples/harness.c (cJSON), the C client example of docs/control.md, run as a harness would run
# it against wardend: it streams a run's output, answers its holds and prints its report (lib.sh's
# harness_approves and harness_denies). t_examples_host.sh runs harness.py the same way.
WHERE=any

test_harness_c_approves_a_hold_and_reports() {
	harness_approves "$BIN/harness"
}

test_harness_c_denies_a_hold() {
	harness_denies "$BIN/harness"
}
