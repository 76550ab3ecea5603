#!/usr/bin/env bash
# Installs what the real certify clients need: curl from Debian when missing, and the Python
# libraries of requirements.txt (pinned) into .build/certify-venv. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v curl >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        (apt-get install -y curl >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y curl >/dev/null; }) ||
            echo "install.sh: curl could not be installed; its client will be skipped" >&2
    fi
fi
venv=.build/certify-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import urllib3, httpx, tenacity, stamina" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r certify/clients/requirements.txt
fi
echo "$venv/bin/python"
