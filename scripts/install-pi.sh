#!/usr/bin/env bash
# Install (or remove) the Game Table Companion appliance on Raspberry Pi OS Trixie or Bookworm
# (desktop or Lite).
#
#   sudo scripts/install-pi.sh                  install, or update after a `git pull`
#   sudo scripts/install-pi.sh --leaderboard    also the meetup's broker and leaderboard (docs/meetup.md)
#   sudo scripts/install-pi.sh --uninstall      remove it; keep games and config
#   sudo scripts/install-pi.sh --uninstall --purge   remove games, config and the user too
#   sudo scripts/install-pi.sh --https          also serve the slate over HTTPS (nginx, a
#                                               self-signed certificate; or --tls-cert/--tls-key)
#   scripts/install-pi.sh --root /tmp/scratch   write every file under /tmp/scratch and only
#                                               print what it would do to the live system
#
# Running it twice is harmless: files are rewritten only when their content changed, and an
# existing config (with its host PIN) is never overwritten. See docs/pi-setup.md.
set -euo pipefail
# The service user and the kiosk user read what root writes here, whatever root's own umask.
umask 022

PREFIX=/opt/game-companion
VENV="$PREFIX/venv"
BIN="$PREFIX/bin"
UNIT_DIR=/etc/systemd/system
USER_UNIT_DIR=/etc/systemd/user
JOURNALD_DROPIN=/etc/systemd/journald.conf.d/60-game-companion.conf
AVAHI_SERVICE=/etc/avahi/services/game-companion.service
NGINX_SITE=/etc/nginx/sites-available/game-companion
NGINX_LINK=/etc/nginx/sites-enabled/game-companion
NGINX_DEFAULT=/etc/nginx/sites-enabled/default
CONF_DIR=/etc/game-companion
CONF="$CONF_DIR/config.toml"
DATA_DIR=/var/lib/game-companion
TLS_DIR="$CONF_DIR/tls"
SERVICE=game-companion.service
SERVICE_USER=game-companion
KIOSK_SCRIPTS=(game-companion-kiosk-session game-companion-kiosk-browser game-companion-wait-for-slate)
DOCS=(pi-setup.md hardware.md wiring.md wiring.svg)
MARK_BEGIN='game-companion kiosk >>>'
MARK_END='<<< game-companion kiosk'

SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="${DESTDIR:-}"
LIVE=1
ACTION=install
PURGE=0
KIOSK=1
KIOSK_USER=""
HTTPS=0
TLS_CERT=""
TLS_KEY=""
LEADERBOARD=0
TABLES=6
LEADERBOARD_SERVICE=game-companion-leaderboard.service
LEADERBOARD_CONF="$CONF_DIR/leaderboard.toml"
MEETUP_CREDENTIALS="$CONF_DIR/meetup-credentials.txt"
MOSQUITTO_CONF=/etc/mosquitto/conf.d/game-companion.conf
MOSQUITTO_PASSWD=/etc/mosquitto/game-companion.passwd
MOSQUITTO_ACL=/etc/mosquitto/game-companion.acl
KIOSK_DROPIN=/etc/systemd/user/game-companion-kiosk.service.d/leaderboard.conf

usage() {
    cat <<EOF
Usage: $(basename "$0") [options]
  --uninstall        remove the appliance (keeps $CONF and $DATA_DIR)
  --purge            with --uninstall: also remove config, games and the $SERVICE_USER user
  --root DIR         install under DIR (same as DESTDIR=DIR); live-system steps are only printed
  --no-system        skip apt, users, pip and systemctl; print them instead
  --kiosk-user NAME  desktop user whose screen shows the slate (default: \$SUDO_USER, else uid 1000)
  --no-kiosk         no kiosk: the slate is only reachable from other devices
  --https            serve phones over HTTPS through nginx with a self-signed certificate
                     made now (phones warn once); plain HTTP then only redirects
  --tls-cert FILE    with --tls-key: use your own certificate (implies --https)
  --tls-key FILE     the certificate's private key
  --leaderboard      also the meetup's broker (Mosquitto, one user per table, an ACL) and
                     leaderboard (port 8080, shown on this Pi's kiosk); docs/meetup.md
  --tables N         with --leaderboard: how many tables get a user (default 6, 1-50)
  --source DIR       checkout to install from (default: $SOURCE)
  -h, --help         this help
EOF
}

die() { echo "install-pi: $*" >&2; exit 1; }
say() { echo "install-pi: $*"; }

parse_args() {
    while [ $# -gt 0 ]; do
        case "$1" in
            --uninstall) ACTION=uninstall ;;
            --purge) PURGE=1 ;;
            --root) [ $# -ge 2 ] || die "--root needs a directory"; ROOT="$2"; shift ;;
            --root=*) ROOT="${1#--root=}" ;;
            --no-system) LIVE=0 ;;
            --kiosk-user) [ $# -ge 2 ] || die "--kiosk-user needs a name"; KIOSK_USER="$2"; shift ;;
            --kiosk-user=*) KIOSK_USER="${1#--kiosk-user=}" ;;
            --no-kiosk) KIOSK=0 ;;
            --https) HTTPS=1 ;;
            --tls-cert) [ $# -ge 2 ] || die "--tls-cert needs a file"; TLS_CERT="$2"; HTTPS=1; shift ;;
            --tls-key) [ $# -ge 2 ] || die "--tls-key needs a file"; TLS_KEY="$2"; HTTPS=1; shift ;;
            --leaderboard) LEADERBOARD=1 ;;
            --tables) [ $# -ge 2 ] || die "--tables needs a number"; TABLES="$2"; shift ;;
            --tables=*) TABLES="${1#--tables=}" ;;
            --source) [ $# -ge 2 ] || die "--source needs a directory"; SOURCE="$2"; shift ;;
            -h|--help) usage; exit 0 ;;
            *) usage >&2; die "unknown option: $1" ;;
        esac
        shift
    done
    [ "$PURGE" = 0 ] || [ "$ACTION" = uninstall ] || die "--purge only goes with --uninstall"
    if [ -n "$TLS_CERT$TLS_KEY" ]; then
        if [ ! -f "$TLS_CERT" ] || [ ! -f "$TLS_KEY" ]; then die "--tls-cert and --tls-key must both name readable files"; fi
        grep -q 'BEGIN CERTIFICATE' "$TLS_CERT" || die "$TLS_CERT is not a PEM certificate"
        grep -q 'PRIVATE KEY' "$TLS_KEY" || die "$TLS_KEY is not a PEM private key"
    fi
    if [ -n "$ROOT" ]; then
        ROOT="$(mkdir -p "$ROOT" && cd "$ROOT" && pwd)"
        [ "$ROOT" != / ] || ROOT=""
    fi
    # A scratch root is never the live system: nothing outside it may change.
    [ -z "$ROOT" ] || LIVE=0
    if [ -z "$ROOT" ] && [ "$(id -u)" != 0 ]; then
        die "run it as root (sudo $0), or try it out with --root DIR"
    fi
    [ -d "$SOURCE/systemd" ] || die "no systemd/ folder in $SOURCE; pass --source CHECKOUT"
}

# A path on the target system, under the scratch root when there is one.
at() { printf '%s%s' "$ROOT" "$1"; }

# A step that changes the live system (packages, users, services): run it, or say it.
system() {
    if [ "$LIVE" = 1 ]; then
        "$@"
    else
        printf 'would run:'
        printf ' %q' "$@"
        printf '\n'
    fi
}

# Copy $1 to $2 with mode $3, only when the content or the mode differs.
put_file() {
    local src="$1" dest
    dest="$(at "$2")"
    mkdir -p "$(dirname "$dest")"
    if [ -f "$dest" ] && cmp -s "$src" "$dest" && [ "$(stat -c %a "$dest")" = "${3#0}" ]; then
        return 0
    fi
    install -m "$3" "$src" "$dest"
    say "wrote $2"
}

# Replace $1's content with $2's when they differ, keeping $1's owner and mode.
replace_content() {
    if [ -f "$1" ] && cmp -s "$2" "$1"; then
        return 1
    fi
    cat "$2" > "$1"
}

# Print file $1 without our marked block (lines from the begin to the end marker).
without_block() {
    [ -f "$1" ] || return 0
    awk -v b="$MARK_BEGIN" -v e="$MARK_END" '
        index($0, b) { skip = 1 }
        !skip { print }
        index($0, e) { skip = 0 }' "$1"
}

# Add (or refresh) the marked block $2 (a file) at the end of the shell script $1.
ensure_script_block() {
    local file="$1" tmp
    tmp="$(mktemp)"
    {
        without_block "$file"
        echo "# $MARK_BEGIN"
        cat "$2"
        echo "# $MARK_END"
    } > "$tmp"
    if replace_content "$file" "$tmp"; then say "added the kiosk to ${file#"$ROOT"}"; fi
    rm -f "$tmp"
}

# Add (or refresh) the marked XML block $2 inside labwc's rc.xml $1. When there is no
# rc.xml (or only ours), write one wholly inside the markers, so --uninstall removes it.
ensure_xml_block() {
    local file="$1" tmp
    tmp="$(mktemp)"
    if ! without_block "$file" | grep -q '[^[:space:]]'; then
        {
            echo "<!-- $MARK_BEGIN -->"
            echo "<labwc_config>"
            cat "$2"
            echo "</labwc_config>"
            echo "<!-- $MARK_END -->"
        } > "$tmp"
    elif without_block "$file" | grep -q '</labwc_config>'; then
        without_block "$file" | awk -v block="$2" -v b="<!-- $MARK_BEGIN -->" -v e="<!-- $MARK_END -->" '
            /<\/labwc_config>/ && !done {
                print b
                while ((getline line < block) > 0) print line
                print e
                done = 1
            }
            { print }' > "$tmp"
    else
        say "warning: ${file#"$ROOT"} has no </labwc_config>; add systemd/labwc-rc.xml by hand to hide the pointer"
        rm -f "$tmp"
        return 0
    fi
    if replace_content "$file" "$tmp"; then say "added the pointer-hiding key to ${file#"$ROOT"}"; fi
    rm -f "$tmp"
}

# Remove our marked block from $1; delete the file when nothing else is left in it.
remove_block() {
    local file="$1" tmp
    [ -f "$file" ] || return 0
    tmp="$(mktemp)"
    without_block "$file" > "$tmp"
    if ! grep -q '[^[:space:]]' "$tmp"; then
        rm -f "$file"
        say "removed ${file#"$ROOT"}"
    elif replace_content "$file" "$tmp"; then
        say "removed the kiosk from ${file#"$ROOT"}"
    fi
    rm -f "$tmp"
}

wayfire_line() { grep -v '^\[' "$SOURCE/systemd/wayfire-autostart.ini"; }

# Add our entry to the [autostart] section of an existing wayfire.ini (older images).
ensure_wayfire_entry() {
    local file="$1" line tmp
    [ -f "$file" ] || return 0
    line="$(wayfire_line)"
    grep -qxF "$line" "$file" && return 0
    tmp="$(mktemp)"
    if grep -qx '\[autostart\]' "$file"; then
        awk -v entry="$line" '{ print } /^\[autostart\]$/ && !done { print entry; done = 1 }' "$file" > "$tmp"
    else
        { cat "$file"; echo; echo "[autostart]"; echo "$line"; } > "$tmp"
    fi
    replace_content "$file" "$tmp" || true
    rm -f "$tmp"
    say "added the kiosk to ${file#"$ROOT"}"
}

remove_wayfire_entry() {
    local file="$1" line tmp
    [ -f "$file" ] || return 0
    line="$(wayfire_line)"
    grep -qxF "$line" "$file" || return 0
    tmp="$(mktemp)"
    # Drop our entry, and the [autostart] header too when ours was all it held at the end
    # of the file (that is how ensure_wayfire_entry adds a missing section).
    grep -vxF "$line" "$file" | awk '
        { lines[NR] = $0 }
        END {
            n = NR
            if (n > 0 && lines[n] == "[autostart]") { n--; if (n > 0 && lines[n] == "") n-- }
            for (i = 1; i <= n; i++) print lines[i]
        }' > "$tmp"
    replace_content "$file" "$tmp" || true
    rm -f "$tmp"
    say "removed the kiosk from ${file#"$ROOT"}"
}

# The kiosk user's passwd entry field $2 (6 = home), from the target system.
passwd_field() {
    local entry=""
    if [ "$LIVE" = 1 ]; then
        entry="$(getent passwd "$1" || true)"
    elif [ -f "$(at /etc/passwd)" ]; then
        entry="$(awk -F: -v u="$1" '$1 == u || $3 == u' "$(at /etc/passwd)" | head -n 1)"
    fi
    [ -n "$entry" ] || return 1
    echo "$entry" | cut -d: -f"$2"
}

# True when the target system has a desktop that boots into a logged-in session: lightdm,
# which raspi-config's "boot to desktop, logged in" (B4) needs. Raspberry Pi OS Lite has none.
has_desktop() {
    [ -d "$(at /etc/lightdm)" ] || [ -e "$(at /etc/init.d/lightdm)" ]
}

# Who sits at the screen: --kiosk-user, else the user who ran sudo, else uid 1000.
# Without a desktop (Lite) there is no screen to fill: install without the kiosk, saying so,
# before any package (Chromium) is fetched for it.
find_kiosk_user() {
    [ "$KIOSK" = 1 ] || return 0
    if ! has_desktop; then
        say "no desktop here (Raspberry Pi OS Lite: no lightdm); installing without the kiosk."
        say "  The slate is opened from tablets and phones. For a screen at the table, install the"
        say "  desktop (sudo apt install rpd-wayland-core lightdm) and run this installer again."
        KIOSK=0
        return 0
    fi
    if [ -z "$KIOSK_USER" ] && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
        KIOSK_USER="$SUDO_USER"
    fi
    if [ -z "$KIOSK_USER" ]; then
        KIOSK_USER="$(passwd_field 1000 1 || true)"
    fi
    if [ -z "$KIOSK_USER" ]; then
        say "no desktop user found; skipping the kiosk (pass --kiosk-user NAME)"
        KIOSK=0
        return 0
    fi
    KIOSK_HOME="$(passwd_field "$KIOSK_USER" 6 || echo "/home/$KIOSK_USER")"
}

pick_package() {  # the first of the named apt packages that the archive has
    local p
    for p in "$@"; do
        if [ "$LIVE" = 0 ] || apt-cache show "$p" >/dev/null 2>&1; then echo "$p"; return 0; fi
    done
}

# True when none of the named commands exists on the live system (always, when not live:
# the plan then lists every package).
lacks() {
    local c
    [ "$LIVE" = 1 ] || return 0
    for c in "$@"; do
        if command -v "$c" >/dev/null 2>&1; then return 1; fi
    done
}

install_packages() {
    # picamera2 and libcamera must come from Raspberry Pi OS (they match its kernel and
    # camera stack); the venv sees them through --system-site-packages. The camera apps
    # (rpicam-hello) are for troubleshooting; the desktop image already has the full set.
    # numpy too: the venv uses the OS's numpy (picamera2's compiled helpers are built
    # against it), and pip is held to that version (see install_venv).
    # avahi-daemon answers for <hostname>.local and advertises the slate (already on the images).
    # python3-systemd sends the service's sd_notify messages (the watchdog has socket code without it).
    local pkgs=(python3-venv python3-numpy python3-picamera2 python3-libcamera python3-lgpio python3-systemd curl avahi-daemon)
    local pkg
    if lacks rpicam-hello libcamera-hello; then
        pkg="$(pick_package rpicam-apps-lite libcamera-apps-lite)"
        if [ -n "$pkg" ]; then pkgs+=("$pkg"); else say "warning: no rpicam-apps in the archive; is this Raspberry Pi OS?"; fi
    fi
    if [ "$HTTPS" = 1 ]; then pkgs+=(nginx openssl); fi
    if [ "$KIOSK" = 1 ]; then
        pkgs+=(wtype)
        if lacks chromium chromium-browser; then
            pkg="$(pick_package chromium chromium-browser)"
            if [ -n "$pkg" ]; then pkgs+=("$pkg"); else say "warning: no chromium in the archive; the kiosk needs it"; fi
        fi
    fi
    if [ "$LEADERBOARD" = 1 ]; then pkgs+=(mosquitto); fi
    system apt-get update
    system env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${pkgs[@]}"
}

create_service_user() {
    local group
    for group in gpio video; do
        if [ "$LIVE" = 0 ] || ! getent group "$group" >/dev/null; then
            system groupadd --system "$group"
        fi
    done
    if [ "$LIVE" = 1 ] && id "$SERVICE_USER" >/dev/null 2>&1; then
        system usermod --append --groups gpio,video "$SERVICE_USER"
    else
        system useradd --system --user-group --groups gpio,video --home-dir "$DATA_DIR" \
            --no-create-home --shell /usr/sbin/nologin "$SERVICE_USER"
    fi
}

install_files() {
    local script doc avahi
    for script in "${KIOSK_SCRIPTS[@]}"; do
        put_file "$SOURCE/systemd/$script" "$BIN/$script" 0755
    done
    put_file "$SOURCE/systemd/$SERVICE" "$UNIT_DIR/$SERVICE" 0644
    put_file "$SOURCE/systemd/game-companion-kiosk.service" "$USER_UNIT_DIR/game-companion-kiosk.service" 0644
    avahi="$(mktemp)"
    if [ "$HTTPS" = 1 ]; then  # phones are sent to nginx's HTTPS port
        sed -e 's|<type>_http._tcp</type>|<type>_https._tcp</type>|' -e 's|<port>8000</port>|<port>443</port>|' \
            "$SOURCE/systemd/avahi-game-companion.xml" > "$avahi"
    else
        cat "$SOURCE/systemd/avahi-game-companion.xml" > "$avahi"
    fi
    put_file "$avahi" "$AVAHI_SERVICE" 0644
    rm -f "$avahi"
    if [ "$LEADERBOARD" = 1 ]; then put_file "$SOURCE/docs/meetup.md" "$PREFIX/docs/meetup.md" 0644; fi
    for doc in "${DOCS[@]}"; do
        if [ -f "$SOURCE/docs/$doc" ]; then put_file "$SOURCE/docs/$doc" "$PREFIX/docs/$doc" 0644; fi
    done
}

# The version of the OS's numpy (python3-numpy) on the target system, from its metadata
# folder: Bookworm ships 1.24.2, Trixie 2.2.4. Empty when there is none (a scratch root).
os_numpy_version() {
    local meta name
    for meta in "$(at /usr/lib/python3/dist-packages)"/numpy-*.dist-info "$(at /usr/lib/python3/dist-packages)"/numpy-*.egg-info; do
        [ -e "$meta" ] || continue
        name="${meta##*/numpy-}"
        name="${name%.*-info}"
        echo "${name%%+*}"
        return 0
    done
    if [ "$LIVE" = 1 ]; then
        /usr/bin/python3 -c 'import numpy; print(numpy.__version__)' 2>/dev/null || true
    fi
}

# pip's constraints: keep the OS's numpy. Replacing it in the venv (numpy<2 built from
# source on Trixie's Python 3.13, or a numpy 2 on Bookworm) would break `import picamera2`;
# held to it, pip picks the OpenCV wheel built for that numpy.
write_constraints() {
    local version file
    file="$(at "$PREFIX/constraints.txt")"
    version="$(os_numpy_version)"
    mkdir -p "$(dirname "$file")"
    if [ -n "$version" ]; then
        printf '# Written by scripts/install-pi.sh: the OS numpy (python3-numpy) stays.\nnumpy==%s\n' "$version" > "$file.new"
    else
        say "warning: no python3-numpy found on the target; pip is not held to the OS's numpy"
        printf '# Written by scripts/install-pi.sh: no python3-numpy found on the target.\n' > "$file.new"
    fi
    if [ -f "$file" ] && cmp -s "$file.new" "$file"; then rm -f "$file.new"; else mv "$file.new" "$file"; chmod 0644 "$file"; say "wrote $PREFIX/constraints.txt${version:+ (numpy==$version)}"; fi
}

install_venv() {
    if [ ! -x "$(at "$VENV/bin/python")" ]; then
        # The OS's own Python: picamera2, libcamera and numpy are installed for it.
        system /usr/bin/python3 -m venv --system-site-packages "$VENV"
    fi
    write_constraints
    say "installing the companion into $VENV (a few minutes on a Pi 4)"
    # Binary wheels only: nothing is compiled on the Pi (a missing wheel fails in seconds,
    # not after an hour of building). The versions are the lock's (requirements.txt: what
    # the test suite passed with, each file checked by its hash), held to the OS numpy; the
    # lock pins that very numpy for Bookworm's and Trixie's Python, so pip finds it in place.
    local numpy
    numpy="$(os_numpy_version)"
    if [ -z "$numpy" ] || grep -q "^numpy==$numpy " "$SOURCE/requirements.txt"; then
        system "$VENV/bin/pip" install --disable-pip-version-check --quiet --only-binary=:all: \
            --constraint "$PREFIX/constraints.txt" --require-hashes -r "$SOURCE/requirements.txt"
    else
        # An OS numpy the lock was not made for (a release after Trixie): the newest
        # versions that fit it, said plainly. Any other failure of the locked install (a
        # file whose hash differs, no network) stops the installer.
        say "warning: the tested versions (requirements.txt) pin no numpy $numpy, this system's; installing the newest versions that fit it"
        system "$VENV/bin/pip" install --disable-pip-version-check --quiet --only-binary=:all: \
            --constraint "$PREFIX/constraints.txt" "${SOURCE}[pi]"
    fi
    system "$VENV/bin/pip" install --disable-pip-version-check --quiet --only-binary=:all: --no-deps "$SOURCE"
}

six_digit_pin() {
    local n
    n="$(od -An -N4 -tu4 /dev/urandom | tr -d ' \n')"
    printf '%06d' $((n % 1000000))
}

# A kept config from before PINs had to be 6 digits stops the service at start: say so
# now, without printing the PIN.
warn_short_pin() {
    local pin
    pin="$(sed -n 's/^[[:space:]]*pin[[:space:]]*=[[:space:]]*"\([0-9]*\)".*/\1/p' "$1" | head -n 1)"
    if [ -n "$pin" ] && [ "${#pin}" -lt 6 ]; then
        say "WARNING: the host PIN in $CONF has ${#pin} digits; the service needs 6 to 12 and will not start."
        say "         Set a longer one there (or delete the pin line to have one generated), then:"
        say "         sudo systemctl restart game-companion"
    fi
}

write_config() {
    local conf pin
    conf="$(at "$CONF")"
    mkdir -p "$(dirname "$conf")"
    chmod 0750 "$(dirname "$conf")"
    system chgrp "$SERVICE_USER" "$CONF_DIR"
    if [ -f "$conf" ]; then
        # Tools run by hand as root (companion calibrate) may have rewritten it: put the
        # owner and mode back, so the service can read it and nobody else can.
        chmod 0640 "$conf"
        system chown "root:$SERVICE_USER" "$CONF"
        if [ -d "$(at "$DATA_DIR")" ]; then system chown -R "$SERVICE_USER:$SERVICE_USER" "$DATA_DIR"; fi
        say "kept the existing $CONF (host PIN unchanged)"
        warn_short_pin "$conf"
        return 0
    fi
    pin="$(six_digit_pin)"
    (
        umask 077
        cat > "$conf" <<EOF
# Game Table Companion configuration, written once by scripts/install-pi.sh.
# Every key and its default: docs/config.md. After editing:
#   sudo systemctl restart game-companion

[host]
# PIN for the host panel (/host). Change it here.
pin = "$pin"

[camera]
source = "picamera"
# mains_hz = 50    # 50 or 60: keep the camera's exposure clear of lamps flickering with the mains

[gpio]
pin_factory = "lgpio"
EOF
    )
    chmod 0640 "$conf"
    system chown "root:$SERVICE_USER" "$CONF"
    say "wrote $CONF"
    echo
    echo "    Host PIN: $pin    (shown only now; it is kept in $CONF)"
    echo
}

setup_kiosk() {
    [ "$KIOSK" = 1 ] || return 0
    local home
    home="$(at "$KIOSK_HOME")"
    mkdir -p "$home/.config/labwc"
    ensure_script_block "$home/.config/labwc/autostart" "$SOURCE/systemd/labwc-autostart"
    ensure_xml_block "$home/.config/labwc/rc.xml" "$SOURCE/systemd/labwc-rc.xml"
    ensure_wayfire_entry "$home/.config/wayfire.ini"
    local path
    for path in .config .config/labwc .config/labwc/autostart .config/labwc/rc.xml; do
        if [ -e "$home/$path" ]; then system chown "$KIOSK_USER:" "$KIOSK_HOME/$path"; fi
    done
    if [ "$LIVE" = 0 ] || command -v raspi-config >/dev/null 2>&1; then
        # Boot to the desktop, logged in, with the screen never blanked. raspi-config
        # applies both to $SUDO_USER: make that the kiosk user.
        system env SUDO_USER="$KIOSK_USER" raspi-config nonint do_boot_behaviour B4 ||
            say "warning: raspi-config could not set boot to desktop (logged in); set it in raspi-config, System Options"
        system env SUDO_USER="$KIOSK_USER" raspi-config nonint do_blanking 1 ||
            say "warning: raspi-config could not turn screen blanking off"
    fi
}

# Logs that survive a power cut: a journald drop-in with persistent, bounded storage.
keep_logs() {
    local dest before=""
    dest="$(at "$JOURNALD_DROPIN")"
    if [ -f "$dest" ]; then before="$(cat "$dest")"; fi
    put_file "$SOURCE/systemd/journald-game-companion.conf" "$JOURNALD_DROPIN" 0644
    if [ "$before" != "$(cat "$dest")" ]; then
        system systemctl restart systemd-journald
        say "the journal is kept across reboots (journalctl -b -1 -u game-companion: the boot before)"
    fi
}

# HTTPS (--https): nginx ends TLS with a certificate in $TLS_DIR and forwards to the
# service, which listens on loopback only ([web] tls_proxy).
setup_https() {
    [ "$HTTPS" = 1 ] || return 0
    local tls site no_ipv6
    tls="$(at "$TLS_DIR")"
    mkdir -p "$tls"
    chmod 0700 "$tls"
    if [ -n "$TLS_CERT" ]; then
        put_file "$TLS_CERT" "$TLS_DIR/cert.pem" 0644
        put_file "$TLS_KEY" "$TLS_DIR/key.pem" 0600
    elif [ -f "$tls/cert.pem" ] && [ -f "$tls/key.pem" ]; then
        say "kept the certificate in $TLS_DIR"
    else
        make_certificate "$tls"
    fi
    site="$(mktemp)"
    # IPv6 switched off (ipv6.disable=1): nginx would refuse to start on its [::] lines.
    no_ipv6=""
    [ -e /proc/net/if_inet6 ] || no_ipv6='/listen \[::\]/d'
    # 8000: the unit's ExecStart passes --port 8000, whatever the config says.
    sed -e "s|@HTTP_PORT@|80|g; s|@HTTPS_PORT@|443|g; s|@HTTPS_SUFFIX@||g; s|@UPSTREAM_PORT@|8000|g" \
        -e "s|@TLS_CERT@|$TLS_DIR/cert.pem|g; s|@TLS_KEY@|$TLS_DIR/key.pem|g" -e "$no_ipv6" \
        "$SOURCE/systemd/nginx-game-companion.conf" > "$site"
    put_file "$site" "$NGINX_SITE" 0644
    rm -f "$site"
    mkdir -p "$(at "$(dirname "$NGINX_LINK")")"
    ln -sfn "$NGINX_SITE" "$(at "$NGINX_LINK")"
    if [ -L "$(at "$NGINX_DEFAULT")" ]; then
        rm -f "$(at "$NGINX_DEFAULT")"  # it also wants port 80 as the default server
        say "disabled nginx's default site (ln -s ../sites-available/default $NGINX_DEFAULT brings it back)"
    fi
    proxy_in_config
    system nginx -t
    system systemctl enable nginx
    system systemctl reload-or-restart nginx
}

# A self-signed certificate for <hostname>.local, made on the Pi (the key never leaves it).
make_certificate() {
    local name
    name="$(hostname)"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
        -keyout "$1/key.pem" -out "$1/cert.pem" -subj "/CN=$name.local" \
        -addext "subjectAltName=DNS:$name.local,DNS:$name" 2>/dev/null \
        || die "openssl could not make a certificate"
    chmod 0600 "$1/key.pem"
    chmod 0644 "$1/cert.pem"
    say "made a self-signed certificate for $name.local in $TLS_DIR (valid 10 years)"
}

# A kept config gets `tls_proxy = true` in its [web] section (added when missing).
proxy_in_config() {
    local conf aside
    conf="$(at "$CONF")"
    if ! grep -Eq '^[[:space:]]*tls_proxy[[:space:]]*=[[:space:]]*true' "$conf"; then
        if grep -Eq '^[[:space:]]*tls_proxy[[:space:]]*=' "$conf"; then
            sed -i -E 's/^[[:space:]]*tls_proxy[[:space:]]*=.*/tls_proxy = true/' "$conf"
        elif grep -Eq '^\[web\]' "$conf"; then
            sed -i '/^\[web\]/a tls_proxy = true' "$conf"
        else
            printf '\n[web]\n# HTTPS through nginx (install-pi.sh --https): loopback only.\ntls_proxy = true\n' >> "$conf"
        fi
        say "set [web] tls_proxy = true in $CONF (the service listens on 127.0.0.1 behind nginx)"
    fi
    # A [web] host on the network would stop the service (the proxy needs loopback): put it aside.
    aside="$(mktemp)"
    awk '/^\[/{web=($0=="[web]")}
         web && /^[[:space:]]*host[[:space:]]*=/ && !/127\.0\.0\.1/ {print "# " $0 "  # off: behind the HTTPS proxy the table listens on 127.0.0.1"; next}
         {print}' "$conf" > "$aside"
    if replace_content "$conf" "$aside"; then
        say "turned off the [web] host line in $CONF: behind nginx the service listens on 127.0.0.1"
    fi
    rm -f "$aside"
}

start_service() {
    system systemctl daemon-reload
    system systemctl enable "$SERVICE"
    system systemctl restart "$SERVICE"
}

# A password of 24 letters and digits.
new_password() {
    local password
    password="$(LC_ALL=C tr -dc 'A-Za-z0-9' < /dev/urandom | head -c 24 || true)"
    [ "${#password}" -eq 24 ] || die "could not read /dev/urandom for a password"
    printf '%s' "$password"
}

# The meetup's broker and leaderboard on this Pi: Mosquitto with one user per table (its
# table name) and the leaderboard, an ACL that keeps each table to its own topics, the
# leaderboard's config and service, and the kiosk showing the leaderboard. The passwords
# are made once, kept in $MEETUP_CREDENTIALS (root only) and shown once; a later run with
# more --tables adds only the users missing (and shows only theirs), never removes one.
setup_leaderboard() {
    [ "$LEADERBOARD" = 1 ] || return 0
    local creds n user password board_password added=""
    put_file "$SOURCE/systemd/mosquitto-game-companion.conf" "$MOSQUITTO_CONF" 0644
    put_file "$SOURCE/systemd/mosquitto-game-companion.acl" "$MOSQUITTO_ACL" 0644
    put_file "$SOURCE/systemd/$LEADERBOARD_SERVICE" "$UNIT_DIR/$LEADERBOARD_SERVICE" 0644
    creds="$(at "$MEETUP_CREDENTIALS")"
    mkdir -p "$(dirname "$creds")"
    if ! grep -q '^leaderboard:' "$creds" 2>/dev/null; then
        (umask 077; echo "leaderboard:$(new_password)" >> "$creds")
        added=" leaderboard"
    fi
    for n in $(seq 1 "$TABLES"); do
        if ! grep -q "^table-$n:" "$creds"; then
            echo "table-$n:$(new_password)" >> "$creds"
            added="$added table-$n"
        fi
    done
    chmod 0600 "$creds"
    if [ -z "$added" ]; then
        say "kept the meetup's passwords in $MEETUP_CREDENTIALS"
    fi
    if [ -n "$added" ] || [ ! -f "$(at "$MOSQUITTO_PASSWD")" ]; then
        # The broker's file anew from the credentials (the passwords stay, new salts):
        # mosquitto_passwd -U hashes the file in place, so no password is on a command line.
        mkdir -p "$(dirname "$(at "$MOSQUITTO_PASSWD")")"
        install -m 0640 "$creds" "$(at "$MOSQUITTO_PASSWD")"
        system mosquitto_passwd -U "$MOSQUITTO_PASSWD"
        system chgrp mosquitto "$MOSQUITTO_PASSWD"
        say "wrote $MOSQUITTO_PASSWD ($(grep -c : "$creds") users)"
    fi
    if [ -n "$added" ]; then
        say "added${added} to $MEETUP_CREDENTIALS"
        echo
        echo "    Each new table's [meetup] section (shown only now; kept in $MEETUP_CREDENTIALS):"
        while IFS=: read -r user password; do
            case " $added " in *" $user "*) [ "$user" != leaderboard ] || continue ;; *) continue ;; esac
            echo "      $user:  enabled = true  table = \"$user\"  password = \"$password\"  broker = \"$(hostname).local\""
        done < "$creds"
        echo
        if [ -f "$(at "$LEADERBOARD_CONF")" ]; then
            say "to show their tiles before they first connect, add them to [leaderboard] tables in $LEADERBOARD_CONF"
        fi
    fi
    board_password="$(grep '^leaderboard:' "$creds" | cut -d: -f2-)"
    if [ ! -f "$(at "$LEADERBOARD_CONF")" ]; then
        (
            umask 077
            cat > "$(at "$LEADERBOARD_CONF")" <<EOF
# The meetup's leaderboard, written once by scripts/install-pi.sh --leaderboard.
# Every key: docs/meetup.md. After editing: sudo systemctl restart $LEADERBOARD_SERVICE

[broker]
host = "127.0.0.1"
username = "leaderboard"
password = "$board_password"

[leaderboard]
title = "Leaderboard"
tables = [$(seq 1 "$TABLES" | sed 's/.*/"table-&"/' | paste -sd, -)]

[scoring]
mode = "wins"      # or "points", with points = { "val-des" = 3, tregald = 2 }
EOF
        )
        chmod 0640 "$(at "$LEADERBOARD_CONF")"
        system chown "root:$SERVICE_USER" "$LEADERBOARD_CONF"
        say "wrote $LEADERBOARD_CONF"
    fi
    if [ "$KIOSK" = 1 ]; then
        mkdir -p "$(dirname "$(at "$KIOSK_DROPIN")")"
        printf '[Service]\nEnvironment=GAME_COMPANION_URL=http://localhost:8080/\n' > "$(at "$KIOSK_DROPIN")"
    fi
    system systemctl restart mosquitto
    system systemctl enable "$LEADERBOARD_SERVICE"
    system systemctl restart "$LEADERBOARD_SERVICE"
}

do_install() {
    if [ "$HTTPS" = 0 ] && [ -f "$(at "$NGINX_SITE")" ]; then
        HTTPS=1
        say "HTTPS stays on (set up by an earlier --https; --uninstall removes it)"
    fi
    find_kiosk_user
    case "$TABLES" in ''|*[!0-9]*) die "--tables needs a number from 1 to 50" ;; esac
    { [ "$TABLES" -ge 1 ] && [ "$TABLES" -le 50 ]; } || die "--tables needs a number from 1 to 50"
    install_packages
    create_service_user
    install_files
    install_venv
    write_config
    setup_kiosk
    keep_logs
    setup_https
    start_service
    setup_leaderboard
    if [ "$HTTPS" = 1 ]; then
        say "done. The slate: https://$(hostname).local/  (host panel: /host)"
    else
        say "done. The slate: http://$(hostname).local:8000/  (host panel: /host)"
    fi
    if [ "$KIOSK" = 1 ]; then say "the screen of $KIOSK_USER shows the slate after a reboot"; fi
}

do_uninstall() {
    local script
    find_kiosk_user
    system systemctl disable --now "$SERVICE" || say "the service was not installed"
    rm -f "$(at "$UNIT_DIR/$SERVICE")" "$(at "$USER_UNIT_DIR/game-companion-kiosk.service")" "$(at "$AVAHI_SERVICE")"
    if [ -f "$(at "$NGINX_SITE")" ]; then
        rm -f "$(at "$NGINX_LINK")" "$(at "$NGINX_SITE")"
        system systemctl reload nginx || true
        if [ -f "$(at "$CONF")" ]; then  # a kept config must not wait behind a proxy that is gone
            sed -i -E 's/^[[:space:]]*tls_proxy[[:space:]]*=.*/tls_proxy = false/' "$(at "$CONF")"
        fi
        say "removed the HTTPS site from nginx (nginx itself stays installed); [web] tls_proxy is off"
    fi
    if [ -f "$(at "$UNIT_DIR/$LEADERBOARD_SERVICE")" ]; then
        system systemctl disable --now "$LEADERBOARD_SERVICE" || true
        rm -f "$(at "$UNIT_DIR/$LEADERBOARD_SERVICE")" "$(at "$MOSQUITTO_CONF")" "$(at "$MOSQUITTO_ACL")" \
            "$(at "$MOSQUITTO_PASSWD")" "$(at "$KIOSK_DROPIN")"
        rmdir "$(at "$(dirname "$KIOSK_DROPIN")")" 2>/dev/null || true
        system systemctl restart mosquitto || true
    fi
    for script in "${KIOSK_SCRIPTS[@]}"; do rm -f "$(at "$BIN/$script")"; done
    rm -rf "$(at "$VENV")" "$(at "$PREFIX/docs")"
    rm -f "$(at "$PREFIX/constraints.txt")"
    if [ -f "$(at "$JOURNALD_DROPIN")" ]; then
        rm -f "$(at "$JOURNALD_DROPIN")"
        rmdir "$(at "$(dirname "$JOURNALD_DROPIN")")" 2>/dev/null || true
        system systemctl restart systemd-journald
    fi
    rmdir "$(at "$BIN")" "$(at "$PREFIX")" 2>/dev/null || true
    if [ "$KIOSK" = 1 ]; then
        remove_block "$(at "$KIOSK_HOME/.config/labwc/autostart")"
        remove_block "$(at "$KIOSK_HOME/.config/labwc/rc.xml")"
        remove_wayfire_entry "$(at "$KIOSK_HOME/.config/wayfire.ini")"
    fi
    system systemctl daemon-reload
    if [ "$PURGE" = 1 ]; then
        rm -rf "$(at "$CONF_DIR")" "$(at "$DATA_DIR")" "$(at "/var/lib/game-companion-leaderboard")"
        if [ "$KIOSK" = 1 ]; then rm -rf "$(at "$KIOSK_HOME/.local/state/game-companion")"; fi
        system userdel "$SERVICE_USER" || true
        say "removed the appliance, its games, config and user"
    else
        say "removed the appliance; kept $CONF and the games in $DATA_DIR (--purge removes them)"
    fi
    say "apt packages (picamera2, chromium, ...) stay installed: other programs may use them"
}

main() {
    parse_args "$@"
    if [ "$LIVE" = 0 ]; then say "not touching the live system; files go under ${ROOT:-/}"; fi
    "do_$ACTION"
}

main "$@"
