#!/usr/bin/env bash
# The hostile user, black-box against a built frontmail-bench: signals at random moments in every
# mode (run, serve, merge, explore, certify, tune) once its handlers are installed, stderr on a
# closed pipe, a killed parent, outputs at hostile paths (an input, a FIFO, a device node, an
# existing run id), stray arguments, a tune objective's edges, a found file edited by hand, an
# interrupted sweep's recommendation, and structure-aware mutants of every input format (scenario,
# tune file, plan, run CSV, .fmshard; scripts/lib/mutate.py). Every case must end in its documented
# exit code with no trap, no hang, no orphan and no destroyed file, and a refused input's message
# names the file.
#
#   scripts/hostile.sh [--rounds N] [--mutants M] [--seed S] [BINARY]
#
# BINARY defaults to .build/release/frontmail-bench. A round runs every signal and output case
# once and M mutants (default 100) spread over the formats: about 10 s on 2 cores. .ci/run runs
# two rounds; `--rounds 100` is the long run (over 10,000 cases). Prints the counts and exits 1 on
# any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

rounds=1
mutants=100
seed=$RANDOM
binary=.build/release/frontmail-bench
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds="$2"; shift 2 ;;
        --mutants) mutants="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
        *) binary="$1"; shift ;;
    esac
done
case "$rounds" in '' | *[!0-9]*) echo "hostile: --rounds must be a whole number" >&2; exit 64 ;; esac
case "$seed" in '' | *[!0-9]*) echo "hostile: --seed must be a whole number" >&2; exit 64 ;; esac
case "$mutants" in '' | *[!0-9]*) echo "hostile: --mutants must be a whole number" >&2; exit 64 ;; esac
[ "$mutants" -le 100000 ] || { echo "hostile: --mutants must be 0-100000" >&2; exit 64; }
[ "$rounds" -ge 1 ] && [ "$rounds" -le 1000 ] || { echo "hostile: --rounds must be 1-1000" >&2; exit 64; }
[ -x "$binary" ] || { echo "hostile: no executable $binary (swift build -c release first)" >&2; exit 64; }
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
RANDOM=$seed

scratch="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
    rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

cases=0 traps=0 hangs=0 orphans=0 destroyed=0 wrong=0
fail() {
    echo "FAIL [$1] $2" >&2
    case "$1" in
        trap) traps=$((traps + 1)) ;;
        hang) hangs=$((hangs + 1)) ;;
        orphan) orphans=$((orphans + 1)) ;;
        destroyed) destroyed=$((destroyed + 1)) ;;
        *) wrong=$((wrong + 1)) ;;
    esac
}

# A trap (SIGILL, SIGTRAP), an abort or a segfault as the exit status, or a Swift fatal error on stderr.
trapped() { # status stderr-file
    case "$1" in 132 | 133 | 134 | 135 | 136 | 139) return 0 ;; esac
    grep -qE "Fatal error|Illegal instruction|Trace/breakpoint" "$2" 2>/dev/null
}

# Waits up to $2 s for our child $1; sets status to its exit status, or to "hang" (and kills it).
# (Not in a command substitution: a subshell cannot wait for its parent's children.) Bash reaps an
# ended child by itself and keeps its status for `wait`, so its pid may meanwhile belong to another
# process: only a process whose parent is this shell is still the child (CI, with builds starting
# processes beside it, once saw this wait out, kill and `wait` for a stranger: "No record of process").
# Whether process $1 exists and is a child of this shell: its parent from /proc/$1/stat, read
# without starting a process (this runs every 50 ms).
child_of_this_shell() {
    local stat fields
    { read -r stat < "/proc/$1/stat"; } 2>/dev/null || return 1
    read -r -a fields <<< "${stat##*) }"
    [ "${fields[1]}" = "$BASHPID" ]
}
wait_for() {
    local pid=$1 limit=$2 waited=0
    while child_of_this_shell "$pid"; do
        if [ "$waited" -ge $((limit * 20)) ]; then
            kill -KILL "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            status=hang
            return
        fi
        sleep 0.05
        waited=$((waited + 1))
    done
    wait "$pid"
    status=$?
}

random_delay() { printf '0.%03d' $((RANDOM % 1000 * $1 / 1)); } # 0 to $1 × 0.999 s (for $1 <= 1)

# Waits (up to 2 s) until process $1 catches SIGHUP, SIGINT and SIGTERM: its first line installs
# the handlers, and a signal before that meets the runtime's default, not the tool (on Linux the
# kernel says which signals a process catches, SigCgt in /proc/PID/status; elsewhere, 50 ms).
handlers_installed() {
    local pid=$1 waited=0 mask
    if [ ! -r "/proc/$pid/status" ]; then
        sleep 0.05
        return
    fi
    while [ $waited -lt 200 ]; do
        mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
        [ -z "$mask" ] && return
        [ $((16#$mask & 16#4003)) = $((16#4003)) ] && return
        sleep 0.01
        waited=$((waited + 1))
    done
}

scenario=scenarios/brownout-503.json
signals=(INT TERM HUP)

# Starts "$@" with its output in $out.*, signals it with $sig at a random moment in its first
# second and waits up to 10 s; sets status, counts the case and says (return 1) a hang or a trap.
signalled() {
    local what=$1
    shift
    "$@" >"$out.stdout" 2>"$out.stderr" &
    local pid=$!
    pids+=("$pid")
    handlers_installed "$pid"
    sleep "$(random_delay 1)"
    kill -"$sig" "$pid" 2>/dev/null
    wait_for "$pid" 10
    cases=$((cases + 1))
    if [ "$status" = hang ]; then fail hang "$what SIG$sig did not end in 10 s"; return 1; fi
    if trapped "$status" "$out.stderr"; then fail trap "$what SIG$sig: status $status"; return 1; fi
}

signal_run() { # a run in process, signalled at a random moment in its first second
    local sig=${signals[RANDOM % 3]} out="$scratch/run-$cases"
    signalled run "$binary" run "$scenario" --quick --out "$out" --no-progress || return 0
    # Ended by the signal (130), finished before it (0 or 1), or 128 + it when it came while the
    # finished run was writing its files: in every case the run CSV is there, whole.
    case "$status" in 0 | 1 | 130 | 129 | 143) ;; *) fail wrong "run SIG$sig: status $status" ;; esac
    local csv
    csv=$(ls "$out"/*-run.csv 2>/dev/null | head -1)
    [ -n "$csv" ] && [ -s "$csv" ] || fail destroyed "run SIG$sig: status $status but no run CSV with rows"
}

signal_serve() { # serve, signalled right after it says where it listens
    local sig=${signals[RANDOM % 3]} out="$scratch/serve-$cases"
    "$binary" serve --ledger "$out.ledger.csv" >"$out.stdout" 2>"$out.stderr" &
    local pid=$! waited=0
    pids+=("$pid")
    while ! grep -q "^listening on" "$out.stdout" 2>/dev/null && [ $waited -lt 200 ]; do
        sleep 0.01
        waited=$((waited + 1))
    done
    kill -"$sig" "$pid" 2>/dev/null
    wait_for "$pid" 10
    cases=$((cases + 1))
    if [ "$status" = hang ]; then fail hang "serve SIG$sig was ignored"; return; fi
    if trapped "$status" "$out.stderr"; then fail trap "serve SIG$sig: status $status"; return; fi
    [ "$status" = 0 ] || fail wrong "serve SIG$sig: status $status (0 expected: it stops and writes its ledger)"
    [ -f "$out.ledger.csv" ] || fail destroyed "serve SIG$sig: no ledger"
}

closed_stderr() { # stderr (and stdout) on a pipe closed after its first line
    local out="$scratch/pipe-$cases"
    "$binary" run "$scenario" --quick --out "$out" 2>&1 | head -1 >/dev/null
    local status=${PIPESTATUS[0]}
    cases=$((cases + 1))
    case "$status" in 141) fail wrong "run 2>&1 | head -1 died of SIGPIPE"; return ;; esac
    if [ "$status" -ge 128 ]; then fail trap "run with a closed stderr: status $status"; return; fi
    local csv
    csv=$(ls "$out"/*-run.csv 2>/dev/null | head -1)
    [ -n "$csv" ] && [ -s "$csv" ] || fail destroyed "run with a closed stderr left no run CSV with rows"
}

signal_explore() { # explore, signalled at a random moment in its first second: what it found so far, whole
    local sig=${signals[RANDOM % 3]} out="$scratch/explore-$cases"
    signalled explore "$binary" explore --runs 1000000 --jobs 2 --seed $RANDOM --out "$out" || return 0
    [ "$status" = 130 ] || fail wrong "explore SIG$sig: status $status (130 expected)"
    local csv
    csv=$(ls "$out"/*-explore/explore.csv 2>/dev/null | head -1)
    [ -n "$csv" ] && [ -s "$csv" ] || fail destroyed "explore SIG$sig: status $status but no explore.csv"
}

# Runs a mode with its output on a pipe closed after its first line ($1: the mode, $2: the exit it
# must give and why, $3: the file it must leave under $out/*-$1/; the rest: its arguments).
closed_pipe() {
    local mode=$1 expected=$2 file=$3 out="$scratch/$1-pipe-$cases"
    shift 3
    "$binary" "$mode" "$@" --out "$out" 2>&1 | head -1 >/dev/null
    local status=${PIPESTATUS[0]}
    cases=$((cases + 1))
    if [ "$status" -ge 128 ]; then fail trap "$mode with a closed pipe: status $status"; return; fi
    [ "$status" = "${expected%% *}" ] || fail wrong "$mode with a closed pipe: status $status ($expected expected)"
    local csv
    csv=$(ls "$out"/*-"$mode"/"$file" 2>/dev/null | head -1)
    [ -n "$csv" ] && [ -s "$csv" ] || fail destroyed "$mode with a closed pipe left no $file"
}

closed_explore() { # the SDK passes: 0
    closed_pipe explore "0 (the SDK passes)" explore.csv --runs 200 --jobs 2 --seed $RANDOM
}

killed_parent() { # run DIR starts a child per scenario; SIGKILL to the parent must end the child
    local out="$scratch/parent-$cases" folder="$scratch/suite-$cases"
    mkdir -p "$folder"
    # The first child runs for about 30 s: it must end within 5 s of its parent.
    cp scenarios/cancellation-soak.json "$folder/1-soak.json"
    cp scenarios/brownout-503.json "$folder/2-brownout.json"
    "$binary" run "$folder" --out "$out" --no-progress >/dev/null 2>"$out.stderr" &
    local pid=$! child="" waited=0
    pids+=("$pid")
    while [ -z "$child" ] && [ $waited -lt 400 ]; do
        child=$(pgrep -P "$pid" | head -1)
        sleep 0.02
        waited=$((waited + 1))
    done
    cases=$((cases + 1))
    if [ -z "$child" ]; then fail wrong "run DIR started no child in 8 s"; kill -KILL "$pid"; return; fi
    pids+=("$child")
    sleep "$(random_delay 1)"
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    [ "$(wait_for_foreign "$child" 5)" = ended ] || fail orphan "the scenario child $child outlived its killed parent by 5 s"
}

wait_for_foreign() { # a process that is not our child: wait until it is gone
    local waited=0
    while kill -0 "$1" 2>/dev/null && [ -z "$(ps -o stat= -p "$1" | grep Z)" ]; do
        if [ $waited -ge $(($2 * 20)) ]; then
            kill -KILL "$1" 2>/dev/null
            echo alive
            return
        fi
        sleep 0.05
        waited=$((waited + 1))
    done
    echo ended
}

# Outputs at hostile paths: each must be refused (64) and leave the path as it was.
hostile_outputs() {
    local base="$scratch/outputs-$cases"
    mkdir -p "$base"
    cp "$scenario" "$base/s.json"
    "$binary" run "$base/s.json" --quick --out "$base/out" --run-id R1 --no-progress >/dev/null 2>&1
    local csv="$base/out/R1-run.csv"
    [ -s "$csv" ] || { fail wrong "hostile outputs: the first run wrote no $csv"; return; }
    mkfifo "$base/fifo"
    local device=""
    if [ "$(id -u)" = 0 ] && mknod "$base/null" c 1 3 2>/dev/null; then device="$base/null"; fi
    local before
    before=$(sha256sum "$base/s.json" "$csv" | sha256sum)
    local attempts=(
        "run $base/s.json --quick --out $base/out --junit $base/s.json --no-progress"
        "run $base/s.json --quick --out $base/out --summary-md $base/s.json --no-progress"
        "run $base/s.json --quick --out $base/out --run-id R1 --no-progress"
        "report $csv --out $csv"
        "report $csv --junit $csv"
        "compare $csv $csv --html $csv"
        "compare $csv $csv --summary-md $csv"
        "baseline $csv $csv $csv --out $csv"
        "report $csv --out $base/fifo"
        "serve --ledger $base/fifo"
        "serve --plan $base/s.json --ledger $base/s.json"
    )
    [ -n "$device" ] && attempts+=("serve --ledger $device" "report $csv --out $device")
    for attempt in "${attempts[@]}"; do
        cases=$((cases + 1))
        # shellcheck disable=SC2086
        timeout 30 "$binary" $attempt >/dev/null 2>"$base/stderr" </dev/null
        local status=$?
        if [ "$status" = 124 ]; then fail hang "$attempt"; continue; fi
        if trapped "$status" "$base/stderr"; then fail trap "$attempt: status $status"; continue; fi
        # 64 refused before any work; 70 refused at the write (a FIFO or device given as --out).
        case "$status" in 64 | 70) ;; *) fail wrong "$attempt: status $status, not refused" ;; esac
    done
    [ "$(sha256sum "$base/s.json" "$csv" | sha256sum)" = "$before" ] || fail destroyed "an input changed"
    [ -p "$base/fifo" ] || fail destroyed "the FIFO was replaced"
    [ -z "$device" ] || [ -c "$device" ] || fail destroyed "the device node was replaced"
}

signal_merge() { # merge of two shards, SIGTERM at a random moment: whole outputs or none
    local base="$scratch/merge-$cases"
    mkdir -p "$base"
    for shard in 0/2 1/2; do
        "$binary" run "$scenario" --quick --shard "$shard" --run-id M --out "$base/parts" --no-progress \
            >/dev/null 2>&1
    done
    "$binary" merge "$base/parts" --out "$base/merged" >/dev/null 2>"$base/stderr" &
    local pid=$!
    pids+=("$pid")
    handlers_installed "$pid"
    sleep "$(random_delay 1)"
    kill -TERM "$pid" 2>/dev/null
    wait_for "$pid" 10
    cases=$((cases + 1))
    if [ "$status" = hang ]; then fail hang "merge SIGTERM did not end in 10 s"; return; fi
    if trapped "$status" "$base/stderr"; then fail trap "merge SIGTERM: status $status"; return; fi
    case "$status" in 0 | 1 | 130) ;; *) fail wrong "merge SIGTERM: status $status (a signal ends merge with 130)" ;; esac
    # No half-written file: only whole files (a temporary file is never left).
    if ls -a "$base/merged" 2>/dev/null | grep -q '\.tmp$'; then fail destroyed "merge left a temporary file"; fi
}

# --- structure-aware mutants of every input format -------------------------------------------

# Runs one mutant; $1: the allowed statuses ("0 65"), the rest: the command. A refusal (65) must
# name the file ($mutant) on stderr.
mutant_case() {
    local allowed="$1"
    shift
    cases=$((cases + 1))
    timeout 20 "$@" >"$scratch/m.stdout" 2>"$scratch/m.stderr" </dev/null
    local status=$?
    if [ "$status" = 124 ]; then fail hang "$* (20 s)"; return; fi
    if trapped "$status" "$scratch/m.stderr"; then fail trap "$*: status $status"; return; fi
    case " $allowed " in *" $status "*) ;; *) fail wrong "$*: status $status, not one of $allowed: $(head -c 300 "$scratch/m.stderr")"; return ;; esac
    if [ "$status" = 65 ] && ! grep -qF "$(basename "$mutant")" "$scratch/m.stderr"; then
        fail wrong "$*: refused without naming the file: $(head -c 300 "$scratch/m.stderr")"
    fi
}

# serve with a mutant plan: refused (65), or it listens and stops on SIGTERM (0).
serve_mutant() {
    cases=$((cases + 1))
    "$binary" serve --port 0 --plan "$mutant" >"$scratch/m.stdout" 2>"$scratch/m.stderr" </dev/null &
    local pid=$! waited=0
    pids+=("$pid")
    while kill -0 "$pid" 2>/dev/null && ! grep -q "^listening on" "$scratch/m.stdout" && [ $waited -lt 200 ]; do
        sleep 0.02
        waited=$((waited + 1))
    done
    kill -TERM "$pid" 2>/dev/null
    wait_for "$pid" 10
    if [ "$status" = hang ]; then fail hang "serve --plan $mutant"; return; fi
    if trapped "$status" "$scratch/m.stderr"; then fail trap "serve --plan $mutant: status $status"; return; fi
    case "$status" in 0 | 64 | 65) ;; *) fail wrong "serve --plan $mutant: status $status: $(head -c 300 "$scratch/m.stderr")" ;; esac
    if [ "$status" = 65 ] && ! grep -qF "$(basename "$mutant")" "$scratch/m.stderr"; then
        fail wrong "serve --plan $mutant: refused without naming the file"
    fi
}

sources="$scratch/sources"
prepare_sources() {
    mkdir -p "$sources/plans" "$sources/runs" "$sources/shards"
    python3 - "$sources/plans" scenarios/*.json <<'PY'
import json, os, sys
for name in sys.argv[2:]:
    plan = json.load(open(name)).get("plan")
    if plan:
        json.dump(plan, open(os.path.join(sys.argv[1], os.path.basename(name)), "w"))
PY
    "$binary" run "$scenario" --quick --out "$sources/run" --run-id H --no-progress >/dev/null 2>&1
    cp "$sources/run/H-run.csv" "$sources/runs/base-run.csv"
    for shard in 0/2 1/2; do
        "$binary" run "$scenario" --quick --shard "$shard" --run-id S --out "$sources/shards" --no-progress \
            >/dev/null 2>&1
    done
    [ -s "$sources/runs/base-run.csv" ] && ls "$sources/shards"/*.fmshard >/dev/null 2>&1 || {
        echo "hostile: could not make the mutation sources (a run and two shards)" >&2
        exit 1
    }
}

mutation_round() { # $1: the round's seed
    local folder="$scratch/mutants" share=$((mutants / 10 + 1))
    rm -rf "$folder"
    python3 scripts/lib/mutate.py json "$1" $((share * 4)) "$folder/scenarios" scenarios/*.json &&
        python3 scripts/lib/mutate.py json "$1" "$share" "$folder/tune" tune/*.json &&
        python3 scripts/lib/mutate.py json "$1" "$share" "$folder/plans" "$sources/plans"/*.json &&
        python3 scripts/lib/mutate.py csv "$1" $((share * 2)) "$folder/runs" "$sources/runs/base-run.csv" &&
        python3 scripts/lib/mutate.py bytes "$1" $((share * 2)) "$folder/shards" "$sources/shards"/*.fmshard ||
        { echo "hostile: the mutator failed (seed $1)" >&2; exit 1; }
    for mutant in "$folder/scenarios"/*; do mutant_case "0 65" "$binary" list "$mutant"; done
    for mutant in "$folder/tune"/*; do mutant_case "0 65" "$binary" tune "$mutant" --check; done
    for mutant in "$folder/plans"/*; do serve_mutant; done
    local index=0
    for mutant in "$folder/runs"/*; do
        index=$((index + 1))
        # The mutant is named RUN.csv's way, so the report's siblings go beside it, in the scratch folder.
        mutant_case "0 65" "$binary" report "$mutant" --out "$scratch/m-report.html"
        mutant_case "0 2 4 65" "$binary" compare "$sources/runs/base-run.csv" "$mutant"
    done
    for mutant in "$folder/shards"/*; do
        rm -rf "$scratch/merged"
        local partner
        partner=$(ls "$sources/shards"/*.fmshard | grep -v "$(basename "$mutant" | sed 's/^[0-9]*-//')" | head -1)
        mutant_case "0 1 65 130" "$binary" merge "$mutant" "$partner" --out "$scratch/merged"
    done
}

signal_certify() { # certify, signalled in its first second: its clients' groups stopped, the cases so far written
    local sig=${signals[RANDOM % 3]} out="$scratch/certify-$cases" marker="300.$cases$RANDOM"
    signalled certify "$binary" certify --client "sleep $marker" --cases '1.*' --jobs 2 --out "$out" --no-progress ||
        return 0
    [ "$status" = 130 ] || fail wrong "certify SIG$sig: status $status (130 expected)"
    sleep 1.5 # a client's group has a second after SIGTERM before SIGKILL
    if pgrep -f "sleep $marker" >/dev/null; then fail orphan "certify SIG$sig left its client running"; fi
    local csv
    csv=$(ls "$out"/*-certify/certify.csv 2>/dev/null | head -1)
    [ -n "$csv" ] && [ -s "$csv" ] || fail destroyed "certify SIG$sig: status $status but no certify.csv"
}

signal_tune() { # the joint quick sweep, signalled in its first second: the cells so far, whole
    local sig=${signals[RANDOM % 3]} out="$scratch/tune-$cases"
    signalled tune "$binary" tune tune/retry-defaults.json tune/retry-storms.json --quick --out "$out" \
        --no-progress || return 0
    case "$status" in 0 | 130) ;; *) fail wrong "tune SIG$sig: status $status (130 expected, 0 if it had ended)" ;; esac
    local csv
    csv=$(ls "$out"/*-tune-retry-defaults/cells.csv 2>/dev/null | head -1)
    [ -n "$csv" ] && [ -s "$csv" ] || fail destroyed "tune SIG$sig: status $status but no cells.csv"
    # A partial sweep recommends nothing: no policy named after "recommended:".
    if [ "$status" = 130 ] && grep -E '^recommended: r[0-9]' "$out.stdout" >/dev/null; then
        fail wrong "tune SIG$sig: an interrupted sweep recommended $(grep -m1 '^recommended:' "$out.stdout")"
    fi
}

edges() { # stray arguments, a tune objective's edges, a found file edited by hand: refused, naming the cause
    local base="$scratch/edges-$cases"
    mkdir -p "$base"
    cp "$scenario" "$base/s.json"
    local attempt status
    # A stray argument is refused (64) before any work: no results folder is made.
    for attempt in "explore --runs 1 --out $base/stray $base/s.json" "certify --client true --out $base/stray $base/s.json" \
        "serve $base/s.json"; do
        cases=$((cases + 1))
        # shellcheck disable=SC2086
        timeout 30 "$binary" $attempt >/dev/null 2>"$base/stderr" </dev/null
        status=$?
        [ "$status" = 64 ] || fail wrong "$attempt: status $status (64 expected: a stray argument)"
        [ ! -e "$base/stray" ] || fail wrong "$attempt: made its results folder before refusing"
    done
    # An objective's edges: a deadline no user feels, or two that print alike, name the file (65).
    local objective
    for objective in '{"deadline": "0.000001s"}' '{"deadline": "0s"}' '{"deadline": "2h"}' \
        '{"compare": ["29.9999999s", "30.0000001s"]}'; do
        python3 - "$base/t.json" "$objective" <<'PY'
import json, sys
tune = json.load(open("tune/retry-defaults.json"))
tune["objective"] = json.loads(sys.argv[2])
json.dump(tune, open(sys.argv[1], "w"))
PY
        mutant="$base/t.json" mutant_case "65" "$binary" tune "$base/t.json" --check
    done
    # A found file edited by hand is a scenario file like any other: a bad edit names it (65).
    "$binary" explore --runs 30 --broken key-changing --stop-on-failure --out "$base/found" --no-progress \
        >/dev/null 2>&1
    local found
    found=$(ls "$base"/found/*-explore/found/*.json 2>/dev/null | head -1)
    if [ -z "$found" ]; then fail wrong "explore --broken key-changing found nothing to edit"; return; fi
    python3 - "$found" "$base/edited.json" <<'PY'
import json, sys
case = json.load(open(sys.argv[1]))
case["load"]["concurrency"] = 0
json.dump(case, open(sys.argv[2], "w"))
PY
    mutant="$base/edited.json" mutant_case "65" "$binary" run "$base/edited.json" --out "$base/replay" --no-progress
}

closed_tune() { # the joint quick sweep on a closed pipe: every cell correct, 0
    local out="$scratch/tune-pipe-$cases"
    "$binary" tune tune/retry-defaults.json tune/retry-storms.json --quick --out "$out" 2>&1 | head -1 >/dev/null
    local status=${PIPESTATUS[0]}
    cases=$((cases + 1))
    if [ "$status" -ge 128 ]; then fail trap "tune with a closed pipe: status $status"; return; fi
    [ "$status" = 0 ] || fail wrong "tune with a closed pipe: status $status (0 expected)"
    ls "$out"/*-tune-retry-storms/metastability.csv >/dev/null 2>&1 || fail destroyed "tune with a closed pipe left no map"
}

closed_certify() { # a client that sends nothing fails: 1
    closed_pipe certify "1 (a silent client fails)" certify.csv --client true --cases 1.1,4.1
}

start=$(date +%s)
[ "$mutants" -gt 0 ] && prepare_sources
for round in $(seq "$rounds"); do
    signal_run
    signal_run
    signal_serve
    signal_serve
    closed_stderr
    killed_parent
    hostile_outputs
    signal_merge
    signal_explore
    closed_explore
    signal_certify
    closed_certify
    signal_tune
    closed_tune
    edges
    [ "$mutants" -gt 0 ] && mutation_round $((seed + round))
    printf 'hostile: round %d/%d, %d cases, %d failures, %d s\n' "$round" "$rounds" "$cases" \
        $((traps + hangs + orphans + destroyed + wrong)) $(($(date +%s) - start)) >&2
done
echo "hostile: $cases cases (seed $seed): $traps traps, $hangs hangs, $orphans orphans, $destroyed destroyed files, $wrong wrong exits"
[ $((traps + hangs + orphans + destroyed + wrong)) = 0 ]
