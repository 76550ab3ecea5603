#!/usr/bin/env bash
# What virtual time costs and saves (docs/simulation.md, docs/benchmarks.md), as CSV: the quick
# sweep on virtual time against the same sweep on the real clock sped up by the file's timeScale
# (the way runs worked before virtual time), measured in the same run; every in-process scenario of
# the quick suite together; and with --full the full sweep (target: at most 60 s on 2 cores).
#
# usage: scripts/simulation-bench.sh PATH/TO/frontmail-bench OUT.csv [--full]
set -euo pipefail
bench="${1:?usage: $0 PATH/TO/frontmail-bench OUT.csv [--full]}"
out="${2:?usage: $0 PATH/TO/frontmail-bench OUT.csv [--full]}"
full="${3:-}"
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

seconds() { python3 -c 'import time; print(f"{time.monotonic():.3f}")'; }
timed() {
    local start end
    start="$(seconds)"
    "$@" >"$work/last.txt" 2>&1 || {
        cat "$work/last.txt" >&2
        exit 1
    }
    end="$(seconds)"
    python3 -c "print(f'{$end - $start:.3f}')"
}

# The sweep file with its base on the real clock: the scaled run virtual time replaced.
python3 - tune/retry-defaults.json "$work/real.json" <<'EOF'
import json, sys
tune = json.load(open(sys.argv[1]))
tune["base"]["clock"] = "real"
json.dump(tune, open(sys.argv[2], "w"))
EOF

in_process=()
for file in scenarios/*.json; do
    if python3 - "$file" <<'EOF'; then in_process+=("$file"); fi
import json, sys
scenario = json.load(open(sys.argv[1]))
sys.exit(0 if scenario.get("transport", "inProcess") == "inProcess" and "cancellation" not in scenario else 1)
EOF
done

echo "simulation bench: quick sweep, virtual time"
virtual="$(timed "$bench" tune tune/retry-defaults.json --quick --no-progress --out "$work/v")"
echo "simulation bench: quick sweep, real clock × timeScale"
real="$(timed "$bench" tune "$work/real.json" --quick --no-progress --out "$work/r")"
echo "simulation bench: ${#in_process[@]} in-process scenarios (quick, one process)"
suite="$(timed "$bench" run "${in_process[@]}" --quick --same-process --no-progress --out "$work/s")"
simulated="$(awk -F, '$4 == "run" && $5 == "elapsed" {s += $7} END {printf "%.3f", s}' "$work"/s/*-run.csv)"

{
    echo "benchmark,metric,value,unit"
    echo "quick_sweep,virtual_wall,$virtual,s"
    echo "quick_sweep,real_scaled_wall,$real,s"
    python3 -c "print(f'quick_sweep,speedup_vs_real_scaled,{$real / $virtual:.3f},x')"
    echo "quick_suite_in_process,scenarios,${#in_process[@]},scenarios"
    echo "quick_suite_in_process,wall,$suite,s"
    echo "quick_suite_in_process,simulated,$simulated,s"
    if [ "$full" = --full ]; then
        echo "simulation bench: full sweep, virtual time" >&2
        echo "full_sweep,virtual_wall,$(timed "$bench" tune tune/retry-defaults.json --no-progress --out "$work/f"),s"
    fi
} >"$out"
cat "$out"
