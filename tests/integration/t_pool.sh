# SPDX-License-Identifier: GPL-2.0
# wardend's pool of sandbox cgroups made ahead: a run starts in a fresh one (nothing in it but
# the command, never one a sandbox ran in before), the pool is emptied when wardend stops, what a
# killed wardend left is removed by the next, and a sandboxed root process cannot move itself
# into one. And the command is in its sandbox cgroup from its first instruction on.
WHERE=any
BACKENDS="bpf-lsm landlock"

ctl() {
	"$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" "$1"
}

# pool_start LOG: wardend in the background ($daemon), once its pool is full.
pool_start() {
	touch "$1"
	"$BIN/wardend" -vv > "$1" 2>&1 &
	daemon=$!
	trap 'kill -KILL $daemon 2>/dev/null || true' EXIT
	timeout 60 "$BIN/wd-try" wait-line "$1" "pool: 4 sandbox cgroups made ahead" "$daemon" \
		> /dev/null || fail "wardend's pool did not fill: $(cat "$1")"
}

expect_denied() {
	case $2 in
	EPERM | EACCES) ;;
	*) fail "$1 in the sandbox: got '$2', want a denial (EPERM or EACCES)" ;;
	esac
}

pool_stop() {
	kill -TERM "$daemon"
	wait "$daemon" 2>/dev/null || true
}

# The pool's cgroups (their markers' names), one a line.
pool_names() {
	ls "$WARDEN_RUN_DIR/pool" 2>/dev/null | sort
}

# run_cmd ARGV_JSON: run through wardend with $T/p.json, output in $T/out; waits for its end.
run_cmd() {
	local reply
	: > "$WD_OUT/audit"
	: > "$T/out"
	reply=$(ctl "{\"op\":\"run\",\"backend\":\"$BACKEND\",\"policy\":\"$T/p.json\",\"audit\":\"$WD_OUT/audit\",\"stdout\":\"$T/out\",\"stderr\":\"$T/sup.err\",\"argv\":$1}")
	case $reply in *'"ok":true'*) ;; *) fail "run refused: $reply ($(cat "$T/sup.err"))" ;; esac
	sb=$(record_field "$reply" sandbox)
	wait_record "$WD_OUT/audit" '"type":"exit"' "$daemon" > /dev/null
}

# What the command sees first, with shell builtins only (no second process in the cgroup): its
# own cgroup, its own pid, then every pid in that cgroup's cgroup.procs (the shell's alone: its
# init, where it has one, never joins).
SELF='read -r l < /proc/self/cgroup; while read -r l; do c=$l; done < /proc/self/cgroup; echo "${c#0::}"; echo "pid $$"; while read -r p; do echo "pid $p"; done < "$0${c#0::}/cgroup.procs"'

test_a_run_through_wardend_starts_in_a_fresh_cgroup_of_the_pool() {
	cg2=$(cgroup2_mount)
	policy "$T/p.json" "/proc $cg2" "" "/bin /usr/bin"
	pool_start "$T/d.log"
	before=$(pool_names)
	expect_eq "pool size" "$(printf '%s\n' "$before" | grep -c '^sb-')" 4
	for n in $before; do
		[ -d "$WD_SANDBOX_GROUP/$n" ] || fail "pool cgroup $n is not in the suite's group"
		expect_eq "tasks in pool cgroup $n" "$(cat "$WD_SANDBOX_GROUP/$n/cgroup.procs")" ""
	done
	run_cmd "[\"sh\",\"-c\",$(printf '%s' "$SELF" | sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$/"/'),\"$cg2\"]"
	first=$sb
	case " $(echo $before) " in *" $first "*) ;; *) fail "$first is not one of the pool's: $before" ;; esac
	expect_eq "the command's cgroup" "$(head -n1 "$T/out")" "${WD_SANDBOX_GROUP#"$cg2"}/$first"
	expect_eq "tasks in the sandbox's cgroup" "$(sed -n '3,$p' "$T/out")" "$(sed -n 2p "$T/out")"
	[ ! -e "$WARDEN_RUN_DIR/pool/$first" ] || fail "the taken cgroup is still marked as the pool's"
	[ ! -d "$WD_SANDBOX_GROUP/$first" ] || fail "the sandbox's cgroup outlived its run"
	# the pool grows back to 4, and the next run gets another cgroup, never the first again
	timeout 60 "$BIN/wd-try" wait-line "$T/d.log" "(4 of 4)" "$daemon" > /dev/null ||
		fail "the pool did not refill"
	run_cmd "[\"sh\",\"-c\",$(printf '%s' "$SELF" | sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$/"/'),\"$cg2\"]"
	[ "$sb" != "$first" ] || fail "a pool cgroup was used twice"
	expect_eq "tasks in the second sandbox's cgroup" "$(sed -n '3,$p' "$T/out")" \
		"$(sed -n 2p "$T/out")"
	pool_stop
}

test_wardend_empties_its_pool_when_it_stops() {
	pool_start "$T/d.log"
	names=$(pool_names)
	[ -n "$names" ] || fail "no pool"
	pool_stop
	for n in $names; do
		[ ! -d "$WD_SANDBOX_GROUP/$n" ] || fail "pool cgroup $n outlived wardend's SIGTERM"
	done
	expect_eq "markers left" "$(pool_names)" ""
}

test_a_pool_left_by_a_killed_wardend_is_removed_by_the_next() {
	pool_start "$T/d1.log"
	names=$(pool_names)
	kill -KILL "$daemon"
	wait "$daemon" 2>/dev/null || true
	for n in $names; do
		[ -d "$WD_SANDBOX_GROUP/$n" ] || fail "pool cgroup $n went with a SIGKILLed wardend?"
	done
	pool_start "$T/d2.log"
	expect_line "$T/d2.log" "removed 4 cgroups a wardend before this one left in its pool"
	for n in $names; do
		[ ! -d "$WD_SANDBOX_GROUP/$n" ] || fail "the next wardend left pool cgroup $n"
	done
	pool_stop
}

# The attack: a root process in a sandbox of wardend's writes itself into a pool cgroup's
# cgroup.procs, to go on in a cgroup that looks fresh and unconfined (no map entry keys it).
test_a_sandboxed_process_cannot_move_itself_into_a_pool_cgroup() {
	cg2=$(cgroup2_mount)
	if [ "$EXPECT_BACKEND" = bpf-lsm ]; then
		# refused even where fs.write covers cgroupfs
		policy "$T/p.json" "/proc $cg2" "$cg2" "/bin /usr/bin"
	else
		policy "$T/p.json" "/proc $cg2" "" "/bin /usr/bin"
	fi
	pool_start "$T/d.log"
	# the oldest of the pool: wardend hands out the newest first
	victim=$(cd "$WARDEN_RUN_DIR/pool" && ls -t | tail -n1)
	target="$WD_SANDBOX_GROUP/$victim/cgroup.procs"
	# the attack works outside any sandbox: a throwaway process of ours moves in, then ends
	sleep 60 &
	pid=$!
	echo "$pid" > "$target"
	expect_eq "control: a host process moved into the pool cgroup" "$(cat "$target")" "$pid"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	expect_eq "the pool cgroup after the control" "$(cat "$target")" ""
	run_cmd "[\"$BIN/wd-escape\",\"write-str\",\"$target\",\"0\"]"
	expect_denied "write of a pool cgroup's cgroup.procs" "$(cat "$T/out")"
	expect_eq "tasks in the pool cgroup" "$(cat "$target")" ""
	expect_line "$WD_OUT/audit" '"op":"open"' "\"target\":\"$target\"" '"verdict":"deny"'
	pool_stop
}

# Embedded: the command's first act, a read of /proc/self/cgroup, already sees its sandbox's.
test_the_command_runs_in_its_cgroup_from_its_first_instruction() {
	cg2=$(cgroup2_mount)
	policy "$T/p.json" "/proc $cg2" "" "/bin /usr/bin"
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" --report "$WD_OUT/report" -- \
		sh -c "$SELF" "$cg2" > "$T/out" 2> "$T/err" || fail "run failed: $(cat "$T/err")"
	sb=$(report_field "$WD_OUT/report" sandbox)
	expect_eq "the command's cgroup" "$(head -n1 "$T/out")" "${WD_SANDBOX_GROUP#"$cg2"}/$sb"
	expect_eq "tasks in the sandbox's cgroup" "$(sed -n '3,$p' "$T/out")" "$(sed -n 2p "$T/out")"
}
