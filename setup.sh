#!/usr/bin/env bash
# Sets up .venv for tablecam. `bash setup.sh` for running it, `bash setup.sh --dev` adds the test tools.
#
# The venv sees the system's packages (--system-site-packages) because on a Raspberry Pi
# picamera2 only comes from apt (python3-picamera2). apt's picamera2 is built against apt's
# numpy; when that numpy is 1.x, pip must not replace it with numpy 2 (picamera2 then fails
# to import), so we pin numpy to the system's version and keep OpenCV to a release built for it.
set -euo pipefail
cd "$(dirname "$0")"
extras=""
[ "${1:-}" = "--dev" ] && extras="[dev]"

python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "tablecam needs Python 3.11 or newer; this is $(python3 --version)." >&2; exit 2; }

[ -x .venv/bin/python ] || python3 -m venv --system-site-packages .venv

constraints=$(mktemp)
trap 'rm -f "$constraints"' EXIT
sys_numpy=$(python3 -c 'import numpy; print(numpy.__version__)' 2>/dev/null || true)
if python3 -c 'import picamera2' 2>/dev/null && [ -n "$sys_numpy" ] && [ "${sys_numpy%%.*}" -lt 2 ]; then
  echo "numpy==$sys_numpy" >> "$constraints"
  echo "opencv-python-headless<4.11" >> "$constraints"
  echo "Raspberry Pi camera stack found: keeping apt's numpy $sys_numpy."
fi

.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -c "$constraints" -e ".$extras"
echo "tablecam is set up in .venv"
