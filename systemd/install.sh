#!/usr/bin/env bash
# Installs tablecam as a service on Raspberry Pi OS 64-bit (Bookworm or newer):
#   sudo bash systemd/install.sh
# - apt: python3-picamera2 (the Pi camera; never from pip) and what the venv needs;
# - a system user `tablecam` in the groups video and render (camera and DMA buffers);
# - the code in /opt/tablecam with a venv made by the repo's setup.sh (--system-site-packages,
#   so apt's picamera2 is seen, and numpy kept at apt's version when picamera2 needs it);
# - the unit tablecam.service (Type=notify, watchdog, StateDirectory=/var/lib/tablecam), enabled and started.
# Running it again upgrades the code and keeps the game log, PIN and settings.
set -euo pipefail

PREFIX=/opt/tablecam
SERVICE_USER=tablecam
UNIT=/etc/systemd/system/tablecam.service
SOURCE_DIR=$(cd "$(dirname "$0")/.." && pwd)

if [ "$(id -u)" -ne 0 ]; then
  echo "install.sh must run as root: sudo bash $0" >&2
  exit 2
fi
if [ "$(uname -m)" != "aarch64" ]; then
  echo "warning: this is $(uname -m), not a 64-bit Raspberry Pi OS; carrying on." >&2
fi
if ! grep -qi -e raspbian -e debian /etc/os-release 2>/dev/null; then
  echo "warning: not Raspberry Pi OS or Debian; apt package names may differ." >&2
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq python3 python3-venv python3-pip rsync
# picamera2 only exists for the Pi's camera stack; elsewhere the service runs on a USB camera or the demo.
if apt-cache show python3-picamera2 >/dev/null 2>&1; then
  apt-get install -y -qq --no-install-recommends python3-picamera2
else
  echo "note: python3-picamera2 is not available here: the Pi camera will not be used." >&2
fi

if ! id "$SERVICE_USER" >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/tablecam --no-create-home --shell /usr/sbin/nologin "$SERVICE_USER"
fi
for group in video render; do
  if getent group "$group" >/dev/null; then
    usermod -a -G "$group" "$SERVICE_USER"
  fi
done

mkdir -p "$PREFIX"
if [ "$SOURCE_DIR" != "$PREFIX" ]; then
  rsync -a --delete --exclude .venv --exclude .git --exclude '__pycache__' --exclude '.pytest_cache' \
    "$SOURCE_DIR/" "$PREFIX/"
fi
# setup.sh makes $PREFIX/.venv with --system-site-packages and pins numpy to apt's when picamera2 needs it.
(cd "$PREFIX" && bash setup.sh)
chown -R root:root "$PREFIX"
chmod -R u=rwX,go=rX "$PREFIX"

install -m 0644 "$PREFIX/systemd/tablecam.service" "$UNIT"
systemctl daemon-reload
systemctl enable tablecam.service
systemctl restart tablecam.service

echo "tablecam is running: open http://$(hostname).local:8080/ on the tablet."
echo "The PIN for changes is in the log: journalctl -u tablecam | grep PIN  (and in /var/lib/tablecam/pin)."
