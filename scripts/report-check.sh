#!/usr/bin/env bash
# Renders a report's charts in headless Chromium and fails if a chart's plot area is blank.
#
#   bash scripts/report-check.sh [REPORT.html] [--images DIR]
#
# Without a report it makes one: a quick run of four scenarios and the quick sweep. With --images it
# also keeps one PNG per chart kind in DIR (docs/images/ holds the ones docs/report.md shows).
# Chromium is the Debian package `chromium`, installed when missing and possible (as root with apt);
# otherwise the script says so and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

report=""
images=""
while [ $# -gt 0 ]; do
    case "$1" in
        --images) images="$2"; shift 2 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) report="$1"; shift ;;
    esac
done

browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
        browser="$(command -v chromium)"
    else
        echo "error: chromium is missing and cannot be installed here" >&2
        exit 1
    fi
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
reports=()
if [ -n "$report" ]; then
    reports+=("$report")
else
    swift build -c release --product frontmail-bench >/dev/null
    bench=.build/release/frontmail-bench
    "$bench" run scenarios/metastable-retry-storm.json scenarios/brownout-503.json \
        scenarios/commit-then-drop-at-scale.json scenarios/cancellation-soak.json \
        --quick --no-progress --out "$work/run" > "$work/run.txt" 2>/dev/null || true
    reports+=("$(sed -n 's/^report: //p' "$work/run.txt")")
    "$bench" tune tune/retry-defaults.json --quick --no-progress --out "$work/tune" > "$work/tune.txt" 2>/dev/null
    reports+=("$(sed -n 's/^report: //p' "$work/tune.txt")")
fi

# Charts stacked on pages of up to 40, each chart in a 720 x 320 cell, one screenshot per page
# (starting Chromium once per chart took 1.6 s a chart).
python3 - "$work/pages" "${reports[@]}" <<'PY'
import os, re, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
charts = []
for path in sys.argv[2:]:
    html = open(path, encoding="utf-8").read()
    style = re.search(r"<style>(.*?)</style>", html, re.S).group(1)
    for svg in re.findall(r"<svg .*?</svg>", html, re.S):
        charts.append((re.search(r"<title>(.*?)</title>", svg).group(1), svg, style))
per_page = 40
for page in range(0, len(charts), per_page):
    chunk = charts[page:page + per_page]
    cells = "".join(f"<div style='width:720px;height:320px;overflow:hidden'>{svg}</div>" for _, svg, _ in chunk)
    body = f"<!DOCTYPE html><html><head><meta charset='utf-8'><style>{chunk[0][2]} body{{margin:0;max-width:none}} svg{{display:block;width:720px;height:320px}}</style></head><body>{cells}</body></html>"
    name = os.path.join(out, f"{page // per_page:03d}")
    with open(name + ".html", "w", encoding="utf-8") as f:
        f.write(body)
    with open(name + ".titles", "w", encoding="utf-8") as f:
        f.write("\n".join(title for title, _, _ in chunk))
print(f"{len(charts)} charts")
PY

start=$(date +%s)
for page in "$work"/pages/*.html; do
    count=$(wc -l < "${page%.html}.titles")
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=720,$(( (count + 1) * 320 )) \
        --screenshot="${page%.html}.png" "file://$page" >/dev/null 2>&1
done
echo "rendered in $(( $(date +%s) - start )) s"

# A chart is blank when its plot area (inside the axes) holds almost nothing but background.
python3 - "$work/pages" "${images:-}" <<'PY'
import os, struct, sys, zlib

def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    offset, idat, width, height, kind = 8, b"", 0, 0, 0
    while offset < len(data):
        length, name = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if name == b"IHDR":
            width, height, depth, kind = struct.unpack(">IIBB", body[:10])
            assert depth == 8, "8-bit PNGs only"
        elif name == b"IDAT":
            idat += body
        offset += 12 + length
    channels = {2: 3, 6: 4}[kind]
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        start = y * (stride + 1)
        kind_of_filter, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind_of_filter == 1: line[x] = (line[x] + left) & 255
            elif kind_of_filter == 2: line[x] = (line[x] + up) & 255
            elif kind_of_filter == 3: line[x] = (line[x] + (left + up) // 2) & 255
            elif kind_of_filter == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows

folder, images = sys.argv[1], sys.argv[2]
kinds = {"latency by percentile": "latency", "backoff jitter": "jitter", "timeline": "timeline",
         "send outcomes": "outcomes", "cancellation latency by phase": "cancellation"}
failed, kept = 0, set()

def crop(rows, channels, top, path):
    """The 720 x 320 cell at `top` as its own PNG (for --images)."""
    raw = b"".join(b"\x00" + rows[y][:720 * channels] for y in range(top, top + 320))
    def chunk(name, body):
        return struct.pack(">I", len(body)) + name + body + struct.pack(">I", zlib.crc32(name + body) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", 720, 320, 8, {3: 2, 4: 6}[channels], 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))

for name in sorted(n for n in os.listdir(folder) if n.endswith(".png")):
    titles = open(os.path.join(folder, name[:-4] + ".titles"), encoding="utf-8").read().split("\n")
    width, height, channels, rows = pixels(os.path.join(folder, name))
    for index, title in enumerate(titles):
        top = index * 320
        # The plot area of SVGCanvas: x 64-704, y 28-272 (inset by 2 px to skip the frame).
        inked = total = 0
        for y in range(top + 30, min(height, top + 270)):
            row = rows[y]
            for x in range(66, min(width, 702)):
                r, g, b = row[x * channels:x * channels + 3]
                total += 1
                # Background and grid are light grays (every channel at least 0xea); ink has a dark channel.
                if min(r, g, b) < 0xd0:
                    inked += 1
        share = inked / max(1, total)
        verdict = "ok" if share >= 0.002 else "BLANK"
        if verdict != "ok": failed += 1
        print(f"{verdict:5} {share * 100:6.2f}% inked  {title}")
        if images:
            kind = next((file for suffix, file in kinds.items() if title.endswith(suffix)), None)
            if kind is None and ": " in title and not title.split(": ")[1].startswith(("jitter after", "latency")):
                kind = "sweep"
            if kind and kind not in kept:
                os.makedirs(images, exist_ok=True)
                crop(rows, channels, top, os.path.join(images, kind + ".png"))
                kept.add(kind)
if failed:
    print(f"error: {failed} blank charts", file=sys.stderr)
    sys.exit(1)
print("every chart has ink in its plot area")
PY
