# SPDX-License-Identifier: GPL-2.0
# limits (supervisor/sandbox/limits.c, the run loop's timers in supervisor/run/supervise.c) and
# warden's exit statuses (docs/cli.md#exit-status), for real: cgroup v1 controllers on the hybrid
# host, v2 controllers in the VM. Every test also checks that no sandbox cgroup, v1 or v2, is
# left behind. The workloads are tests/helpers/wd-hog.
WHERE=any

H="$BIN/wd-hog"

# lpolicy LIMITS: a policy that runs the test binaries and writes $T/w, with "limits": LIMITS.
lpolicy() {
	mkdir -p "$T/w"
	policy "$T/p.json" "/proc" "$T/w" "/bin /usr/bin"
	sed -i "s|}}\$|},\"limits\":$1}|" "$T/p.json"
}

# expect_valid_report FILE: the report validates against docs/report.schema.json (staged in $BIN).
expect_valid_report() {
	"$BIN/wd-schemack" "$BIN/report.schema.json" "$1" 2> "$T/schemack" ||
		fail "report $1 fails docs/report.schema.json: $(cat "$T/schemack")"
}

# limit_field FILE LIMIT KEY: KEY of the report's entry for LIMIT.
limit_field() {
	sed -n "/\"$2\":[[:space:]]*{/,/}/p" "$1" > "$T/entry"
	report_field "$T/entry" "$3"
}

# The v1 hierarchies warden makes sandboxes in (none in a pure v2 VM).
v1_groups() {
	awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup") print $5; break } }' \
		/proc/self/mountinfo | while read -r m; do
		[ -d "$m/warden/$WARDEN_CGROUP_GROUP" ] && echo "$m/warden/$WARDEN_CGROUP_GROUP"
	done
	return 0
}

# expect_cgroups_gone: no sandbox cgroup of this suite, v2 or v1, is left.
expect_cgroups_gone() {
	local d left
	left=$(find "$WD_SANDBOX_GROUP" -mindepth 1 -maxdepth 1 -name 'sb-*' 2>/dev/null)
	[ -z "$left" ] || fail "v2 sandbox cgroups left: $left"
	for d in $(v1_groups); do
		left=$(find "$d" -mindepth 1 -maxdepth 1 -name 'sb-*')
		[ -z "$left" ] || fail "v1 sandbox cgroups left: $left"
	done
}

# running_pids: the host pids of the one running sandbox of this suite.
running_pids() {
	cat "$WD_SANDBOX_GROUP"/sb-*/cgroup.procs
}

test_limits_fork_bomb_stops_at_pids() {
	lpolicy '{"pids":16}'
	rc=0
	wrun --policy "$T/p.json" --report "$T/r.json" -- "$H" forkbomb > "$T/out" 2> "$T/err" ||
		rc=$?
	expect_eq "exit" "$rc" 0
	# the hog is one of the 16: it made 15 before the kernel said no
	expect_line "$T/out" "forked 15, then: Resource temporarily unavailable"
	expect_eq "pids hit" "$(limit_field "$T/r.json" pids hit)" true
	[ "$(limit_field "$T/r.json" pids figure)" -ge 1 ] || fail "no refused fork counted"
	expect_line "$T/entry" "pids.max"
	expect_valid_report "$T/r.json"
	expect_eq "max pids" "$(report_field "$T/r.json" max_pids)" 16
	# the host's own processes still fork
	expect_eq "host fork" "$(sh -c 'echo alive')" alive
	expect_cgroups_gone
}

test_limits_allocation_bomb_is_oom() {
	lpolicy '{"memory":"32MiB"}'
	rc=0
	wrun --policy "$T/p.json" --report "$T/r.json" -- "$H" alloc 2> "$T/err" || rc=$?
	expect_eq "exit" "$rc" 137
	expect_eq "status" "$(report_field "$T/r.json" status)" oom
	expect_eq "memory hit" "$(limit_field "$T/r.json" memory hit)" true
	[ "$(report_field "$T/r.json" oom_kills)" -ge 1 ] || fail "no OOM kill counted"
	[ "$(report_field "$T/r.json" peak_memory_bytes)" -le $((32 << 20)) ] ||
		fail "peak memory above the limit: $(report_field "$T/r.json" peak_memory_bytes)"
	expect_line "$T/entry" "mechanism" "memory"
	expect_valid_report "$T/r.json"
	expect_cgroups_gone
}

# limits.disk: the private /tmp is a tmpfs of that size; writing past it fails with ENOSPC inside,
# and the report says the tmpfs was full. A policy that writes a host tree is refused, by key.
test_limits_disk_caps_the_private_tmp() {
	expect_table limits.disk "$EXPECT_BACKEND" yes
	# not lib.sh's policy: that names $BIN, which may be under the host's /tmp (a checkout
	# there), and a private /tmp refuses a rule under the host's (the sandbox never sees it)
	printf '{"schema":"warden.policy/1","fs":{"read":["/lib","/lib64","/usr","/etc/ld.so.cache","/dev/zero"],"write":["/tmp","/dev/null"],"exec":["%s","/bin","/usr/bin","%s"]},"namespaces":{"tmp":"private"},"limits":{"disk":"2MiB"}}\n' \
		"$LOADER" "${LIBDIRS// /\",\"}" > "$T/p.json"
	rc=0
	wrun --policy "$T/p.json" --report "$T/r.json" -- sh -c \
		'dd if=/dev/zero of=/tmp/f bs=64k count=64 2>&1; echo dd-rc=$?; ls -l /tmp/f' \
		> "$T/out" 2> "$T/err" || rc=$?
	expect_eq "exit" "$rc" 0
	expect_line "$T/out" "No space left on device"
	expect_line "$T/out" "dd-rc=1"
	# the file stopped at the cap: 2 MiB, not the 4 MiB dd tried
	expect_line "$T/out" " 2097152 "
	expect_valid_report "$T/r.json"
	expect_eq "disk hit" "$(limit_field "$T/r.json" disk hit)" true
	expect_eq "disk figure" "$(limit_field "$T/r.json" disk figure)" 2097152
	expect_eq "disk figure unit" "$(limit_field "$T/r.json" disk figure_unit)" bytes_at_end
	expect_eq "disk value" "$(limit_field "$T/r.json" disk value)" 2097152
	expect_line "$T/entry" "mechanism" "tmpfs size="
	# under the cap: not hit
	wrun --policy "$T/p.json" --report "$T/r2.json" -- sh -c 'echo small > /tmp/f' \
		> "$T/out2" 2> "$T/err2" || fail "a small write failed: $(cat "$T/err2")"
	expect_eq "disk hit" "$(limit_field "$T/r2.json" disk hit)" false
	# a writable host tree: no quota warden could set, so the policy is refused
	mkdir -p "$T/w"
	policy "$T/p2.json" "" "/tmp $T/w" "/bin /usr/bin"
	sed -i 's|}}$|},"limits":{"disk":"2MiB"}}|' "$T/p2.json"
	rc=0
	wrun --policy "$T/p2.json" -- true > /dev/null 2> "$T/err3" || rc=$?
	expect_eq "refused exit" "$rc" 2
	expect_line "$T/err3" "/limits/disk" "private /tmp"
	expect_cgroups_gone
}

test_limits_cpu_spinner_held_to_its_quota() {
	# a quarter of a CPU: well below what a spinner gets even on a loaded 2-CPU machine
	lpolicy '{"cpu":0.25}'
	wrun --policy "$T/p.json" --report "$T/r.json" -- "$H" spin 3000 2> "$T/err" ||
		fail "the spinner failed: $(cat "$T/err")"
	# CPU time the cgroup used over the wall-clock time it ran, measured
	ratio=$(awk -v c="$(report_field "$T/r.json" cpu_time_s)" \
		-v w="$(report_field "$T/r.json" wall_time_s)" 'BEGIN { printf "%.2f", c / w }')
	awk -v r="$ratio" 'BEGIN { exit !(r >= 0.1 && r <= 0.4) }' ||
		fail "cpu time / wall time $ratio, quota 0.25"
	expect_line <(limit_field "$T/r.json" cpu mechanism) "cpu"
	expect_eq "cpu hit" "$(limit_field "$T/r.json" cpu hit)" true
	[ "$(limit_field "$T/r.json" cpu figure)" -ge 1 ] || fail "no throttled period counted"
	expect_valid_report "$T/r.json"
	expect_cgroups_gone
}

test_limits_wall_time_kills_every_descendant() {
	lpolicy '{"wall_time":"2s"}'
	touch "$T/w/pids"
	wrun_bg "$T/out" --policy "$T/p.json" --report "$T/r.json" -- "$H" sleepers 3 "$T/w/pids"
	wait_record "$T/w/pids" ready "$run" > /dev/null
	pids=$(running_pids)
	expect_eq "tasks in the sandbox" "$(echo "$pids" | wc -w)" 4
	rc=0
	wait "$run" || rc=$?
	expect_eq "exit" "$rc" 137
	expect_eq "status" "$(report_field "$T/r.json" status)" timeout
	expect_eq "wall_time hit" "$(limit_field "$T/r.json" wall_time hit)" true
	expect_valid_report "$T/r.json"
	for p in $pids; do
		! kill -0 "$p" 2>/dev/null || fail "pid $p of the sandbox lives on"
	done
	expect_cgroups_gone
}

test_limits_cpu_time_kills_the_spinner() {
	lpolicy '{"cpu_time":"300ms"}'
	rc=0
	wrun --policy "$T/p.json" --report "$T/r.json" -- "$H" spin 600000 2> "$T/err" || rc=$?
	expect_eq "exit" "$rc" 137
	expect_eq "status" "$(report_field "$T/r.json" status)" timeout
	expect_eq "cpu_time hit" "$(limit_field "$T/r.json" cpu_time hit)" true
	[ "$(limit_field "$T/r.json" cpu_time figure)" -ge 300 ] || fail "figure below the limit"
	expect_cgroups_gone
}

# stop_run SIG [stay]: warden runs the trap, gets SIG once it is ready; exit status in $rc.
stop_run() {
	touch "$T/w/m"
	(
		trap - INT
		exec "$WARDEN" run --backend "$BACKEND" --policy "$T/p.json" --report "$T/r.json" \
			-- "$H" trap "$T/w/m" ${2:-} 2> "$T/err"
	) &
	run=$!
	trap 'kill -KILL $run 2>/dev/null || true' EXIT
	wait_record "$T/w/m" ready "$run" > /dev/null
	kill "-$1" "$run"
	rc=0
	wait "$run" || rc=$?
}

test_limits_sigterm_gives_143_after_the_command_saw_it() {
	lpolicy '{"kill_grace":"30s"}'
	stop_run TERM
	expect_eq "exit" "$rc" 143
	expect_eq "marker" "$(tail -n1 "$T/w/m")" "got 15"
	expect_eq "status" "$(report_field "$T/r.json" status)" signal
	expect_eq "signal" "$(report_field "$T/r.json" signal)" 15
	expect_eq "kill_grace hit" "$(limit_field "$T/r.json" kill_grace hit)" false
	expect_cgroups_gone
}

test_limits_sigint_gives_130_after_the_command_saw_it() {
	lpolicy '{"pids":8}'
	stop_run INT
	expect_eq "exit" "$rc" 130
	expect_eq "marker" "$(tail -n1 "$T/w/m")" "got 2"
	expect_eq "status" "$(report_field "$T/r.json" status)" signal
	expect_cgroups_gone
}

test_limits_kill_grace_kills_a_command_that_stays() {
	lpolicy '{"kill_grace":"1s"}'
	stop_run TERM stay
	expect_eq "exit" "$rc" 143
	expect_eq "marker" "$(tail -n1 "$T/w/m")" "got 15"
	expect_eq "kill_grace hit" "$(limit_field "$T/r.json" kill_grace hit)" true
	expect_valid_report "$T/r.json"
	expect_cgroups_gone
}

# Every row of docs/cli.md's exit status table but 130/143 (the tests above).
test_limits_exit_status_table() {
	lpolicy '{"pids":64}'
	rc=0; wrun --policy "$T/p.json" -- sh -c 'exit 0' 2>/dev/null || rc=$?
	expect_eq "completed" "$rc" 0
	rc=0; wrun --policy "$T/p.json" -- sh -c 'exit 3' 2>/dev/null || rc=$?
	expect_eq "the command's own" "$rc" 3
	rc=0; wrun --policy "$T/p.json" --report "$T/r.json" -- sh -c 'kill -USR1 $$' \
		2>/dev/null || rc=$?
	expect_eq "128+N" "$rc" 138
	expect_eq "killed" "$(report_field "$T/r.json" status)" killed
	rc=0; "$WARDEN" run --backend foo --policy "$T/p.json" -- true 2>/dev/null || rc=$?
	expect_eq "--backend foo" "$rc" 2
	rc=0; wrun --policy "$T/p.json" --report /nonexistent/dir/r.json -- true 2>/dev/null ||
		rc=$?
	expect_eq "report cannot be made" "$rc" 125
	printf 'echo hi\n' > "$T/w/noexec"
	chmod 644 "$T/w/noexec"
	policy "$T/p.json" "/proc" "$T/w" "/bin /usr/bin $T/w"
	rc=0; wrun --policy "$T/p.json" --report "$T/r.json" -- "$T/w/noexec" 2>/dev/null || rc=$?
	expect_eq "cannot execute" "$rc" 126
	# Landlock's refusal is EACCES as the file's mode's is, and the recorder counts both as a
	# denial (docs/report.md): only under bpf-lsm (EPERM) can the two be told apart
	[ "$DENY_ERRNO" != EPERM ] ||
		expect_eq "not executable" "$(report_field "$T/r.json" status)" failed_to_start
	rc=0; wrun --policy "$T/p.json" -- "$T/w/nothing-here" 2>/dev/null || rc=$?
	expect_eq "not found" "$rc" 127
	policy "$T/p.json" "/proc" "$T/w" ""
	rc=0; wrun --policy "$T/p.json" --report "$T/r.json" -- /bin/true 2>/dev/null || rc=$?
	expect_eq "exec denied" "$rc" 126
	expect_eq "denied" "$(report_field "$T/r.json" status)" denied_to_start
	expect_valid_report "$T/r.json"
	# and a run warden could not start at all
	rc=0; wrun --policy "$T/p.json" --report "$T/r.json" --backend foo -- true 2>/dev/null ||
		rc=$?
	expect_eq "--backend foo with a report" "$rc" 2
	expect_eq "failed" "$(report_field "$T/r.json" status)" failed_to_start
	expect_valid_report "$T/r.json"
	expect_cgroups_gone
}

# limits.fork_rate: lsm/task_alloc under bpf-lsm; refused by pointer under landlock, which has no
# sound place to count forks (docs/backends.md). Over a bounded number of attempts, no more forks
# succeed than the rate allows over the time the loop took plus the burst (generous slack: the
# loop's own clock starts after the sandbox's first task was made); no assertion on speed.
#
# fork_rate_loop HOW: 200 attempts at new processes by HOW under fork_rate 10/s.
fork_rate_loop() {
	local line ok failed eagain ms most
	lpolicy '{"pids":64,"fork_rate":"10/s"}'
	rm -f "$T/audit"
	rc=0
	wrun --policy "$T/p.json" --report "$T/r.json" --audit "$T/audit" \
		-- "$H" forkloop 200 "$1" > "$T/out" 2> "$T/err" || rc=$?
	expect_eq "exit" "$rc" 0
	line=$(grep '^ok ' "$T/out") || fail "no count from the fork loop: $(cat "$T/out" "$T/err")"
	read -r _ ok _ failed _ eagain _ ms <<< "$line"
	most=$((10 * ms / 1000 + 10 + 5))
	[ "$ok" -ge 1 ] || fail "no fork passed, not even the burst: $line"
	[ "$ok" -le "$most" ] || fail "$ok forks passed in $ms ms, more than $most at 10/s: $line"
	[ "$eagain" -ge 1 ] || fail "no fork refused EAGAIN: $line"
	expect_eq "every failure EAGAIN" "$eagain" "$failed"
	expect_eq "fork_rate hit" "$(limit_field "$T/r.json" fork_rate hit)" true
	[ "$(limit_field "$T/r.json" fork_rate figure)" -ge "$eagain" ] ||
		fail "the report counts fewer refusals than the loop ($eagain): $(cat "$T/r.json")"
	expect_line "$T/entry" "task_alloc"
	expect_valid_report "$T/r.json"
	expect_line "$T/audit" '"op":"fork_rate"'
	# the host's own processes still fork
	expect_eq "host fork" "$(sh -c 'echo alive')" alive
	expect_cgroups_gone
}

# fork_rate_refused HOW: on landlock, which cannot count new tasks, a policy with fork_rate is
# refused before anything runs (exit 2, naming the key), so no way to a new process (HOW) gets
# past an unenforced rate.
fork_rate_refused() {
	lpolicy '{"pids":64,"fork_rate":"10/s"}'
	rc=0
	wrun --policy "$T/p.json" -- "$H" forkloop 5 "$1" > "$T/out" 2> "$T/err" || rc=$?
	expect_eq "exit" "$rc" 2
	expect_line "$T/err" "/limits/fork_rate: limits.fork_rate" "landlock backend"
	expect_eq "output of a command that never ran" "$(cat "$T/out")" ""
}

test_limits_fork_rate_refuses_forks_over_the_rate() {
	if [ "$EXPECT_BACKEND" = landlock ]; then
		fork_rate_refused fork
		return 0
	fi
	fork_rate_loop fork
}

# The attack: the other ways to a new process, posix_spawn (clone with CLONE_VM | CLONE_VFORK,
# as vfork) and a raw clone3 (which glibc's fork does not use), meet the same bucket.
test_limits_fork_rate_holds_for_spawn_and_clone3() {
	if [ "$EXPECT_BACKEND" = landlock ]; then
		fork_rate_refused spawn
		fork_rate_refused clone3
		return 0
	fi
	fork_rate_loop spawn
	fork_rate_loop clone3
}

test_limits_cgroups_gone_after_warden_is_killed() {
	lpolicy '{"pids":8,"memory":"64MiB"}'
	touch "$T/w/pids" "$T/audit"
	# warden itself is $run (exec), not a shell around it
	(exec "$WARDEN" run --backend "$BACKEND" --policy "$T/p.json" --audit "$T/audit" \
		-- "$H" sleepers 2 "$T/w/pids" > "$T/out" 2>&1) &
	run=$!
	trap 'kill -KILL $run 2>/dev/null || true' EXIT
	wait_record "$T/w/pids" ready "$run" > /dev/null
	pids=$(running_pids)
	kill -KILL "$run"
	# the keeper ends the sandbox, removes its cgroups (v1 too), then writes the exit record
	timeout 60 "$BIN/wd-try" wait-line "$T/audit" '"type":"exit"' > /dev/null ||
		fail "no exit record from the keeper"
	for p in $pids; do
		! kill -0 "$p" 2>/dev/null || fail "pid $p of the sandbox lives on"
	done
	expect_cgroups_gone
}

# The attack: a sandbox leaving its limits by moving itself to the cgroup above its own (v2, and
# each v1 hierarchy's), or by raising the limit there. Refused, on both backends, when fs.write
# does not cover cgroupfs (the guarantee table's escape.cgroup-procs).
test_limits_sandbox_cannot_leave_its_limit_cgroups() {
	lpolicy '{"pids":8,"memory":"64MiB"}'
	targets="$WD_SANDBOX_GROUP/cgroup.procs $WD_SANDBOX_GROUP/pids.max"
	# the v1 groups exist once a run with limits made them (this one, on a hybrid host)
	wrun --policy "$T/p.json" -- true 2> /dev/null || fail "a run with limits failed"
	for d in $(v1_groups); do
		targets="$targets $d/cgroup.procs $d/tasks"
		[ -e "$d/pids.max" ] && targets="$targets $d/pids.max"
		[ -e "$d/memory.limit_in_bytes" ] && targets="$targets $d/memory.limit_in_bytes"
	done
	wrun --policy "$T/p.json" -- sh -c 'for t; do "$0" write "$t"; done; true' "$BIN/wd-try" \
		$targets > "$T/out" 2> "$T/err" || fail "the attack did not run: $(cat "$T/err")"
	expect_eq "attempts" "$(wc -l < "$T/out")" "$(echo $targets | wc -w)"
	while read -r got; do
		expect_eq "a write to the cgroups above the sandbox" "$got" "$DENY_ERRNO"
	done < "$T/out"
	expect_cgroups_gone
}
