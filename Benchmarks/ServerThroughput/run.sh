#!/usr/bin/env bash
# Server throughput: wrk against the fake Frontmail API (POST /v1/send, no faults) and against
# nginx serving a static response, side by side in one run. Writes CSV and prints the ratio.
#
#   bash Benchmarks/ServerThroughput/run.sh [--duration 5s] [--connections 100] [--out DIR]
#
# Needs wrk and nginx (Debian: apt-get install wrk nginx-light); installs them when missing and
# allowed (root with apt-get). Everything binds 127.0.0.1 and stops by itself.
set -euo pipefail
cd "$(dirname "$0")/../.."

duration=5s
connections=100
out=results
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) duration="$2"; shift 2 ;;
        --connections) connections="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        *) echo "usage: $0 [--duration 5s] [--connections 100] [--out DIR]" >&2; exit 64 ;;
    esac
done

need=()
command -v wrk >/dev/null || need+=(wrk)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    else
        echo "missing: ${need[*]} (install them, e.g. apt-get install ${need[*]})" >&2
        exit 69
    fi
fi
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"

swift build -c release --product frontmail-bench >/dev/null
bench=".build/release/frontmail-bench"
work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# wrk output -> "requests_per_s p50_ms p99_ms"
parse_wrk() {
    python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def ms(label):
    m = re.search(r"^\s*" + label + r"%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
    if not m: return float("nan")
    value, unit = float(m.group(1)), m.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
print(f"{rps:.0f} {ms('50'):.3f} {ms('99'):.3f} {errors.group(1) if errors else 0}")
PY
}

run_wrk() { # name url script
    local name="$1" url="$2" script="$3" log="$work/$1.txt"
    if [ -n "$script" ]; then
        wrk -t2 -c"$connections" -d"$duration" --latency -s "$script" "$url" >"$log"
    else
        wrk -t2 -c"$connections" -d"$duration" --latency "$url" >"$log"
    fi
    parse_wrk "$log"
}

start_fake() { # loops (not in a subshell: its PID must reach the cleanup trap)
    "$bench" serve --loops "$1" >"$work/fake-$1.out" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do grep -q '^listening on ' "$work/fake-$1.out" && break; sleep 0.05; done
}
fake_url() { sed -n 's/^listening on //p' "$work/fake-$1.out" | head -1; }

port="$(free_port)"
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes auto;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
daemon off;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $work/nginx;
    server {
        listen 127.0.0.1:$port;
        location / { default_type application/json; return 200 '{"message_id":"msg_1","status":"queued","status_token":"stk_1"}'; }
    }
}
CONF
"$nginx_bin" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
pids+=($!)
for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done

start_fake 1
start_fake 2
url1="$(fake_url 1)"
url2="$(fake_url 2)"

read -r nginx_rps nginx_p50 nginx_p99 _ <<<"$(run_wrk nginx "http://127.0.0.1:$port/" "")"
read -r fake1_rps fake1_p50 fake1_p99 fake1_err <<<"$(run_wrk fake1 "$url1" Benchmarks/ServerThroughput/send.lua)"
read -r fake2_rps fake2_p50 fake2_p99 fake2_err <<<"$(run_wrk fake2 "$url2" Benchmarks/ServerThroughput/send.lua)"

mkdir -p "$out"
csv="$out/server-throughput-$(date -u +%Y%m%dT%H%M%SZ).csv"
{
    echo "schema_version,benchmark,subject,metric,statistic,value,unit"
    echo "1,server_throughput,nginx_static,requests,rate,$nginx_rps,req/s"
    echo "1,server_throughput,nginx_static,latency,p50,$nginx_p50,ms"
    echo "1,server_throughput,nginx_static,latency,p99,$nginx_p99,ms"
    for n in 1 2; do
        rps_var="fake${n}_rps"; p50_var="fake${n}_p50"; p99_var="fake${n}_p99"; err_var="fake${n}_err"
        echo "1,server_throughput,fake_send_loops$n,requests,rate,${!rps_var},req/s"
        echo "1,server_throughput,fake_send_loops$n,latency,p50,${!p50_var},ms"
        echo "1,server_throughput,fake_send_loops$n,latency,p99,${!p99_var},ms"
        echo "1,server_throughput,fake_send_loops$n,non_2xx,count,${!err_var},responses"
        echo "1,server_throughput,fake_send_loops$n,requests,ratio_to_nginx,$(python3 -c "print(round(${!rps_var}/$nginx_rps, 3))"),x"
    done
} >"$csv"
cat "$csv"
echo "machine: $(nproc) cores, $(uname -sr); wrk -t2 -c$connections -d$duration"
echo "results: $csv"
