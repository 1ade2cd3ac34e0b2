# Debian roots made with debootstrap, cached between runs: sourced by build_linux.sh and check_deb.sh.
#
# A pristine minbase root per suite is made once (about 2 minutes each, from Debian's mirror) and kept
# under $PKG_CACHE/roots/<suite>; each use works on a copy (a few seconds), so every check starts from
# a root that nothing has touched.  Commands run in the copy through chroot inside a private mount
# namespace (unshare -m), so /proc, /dev and the bind-mounted checkout vanish when the command ends,
# even when it fails, and deleting the copy can never reach through a mount.
#
# Needs root, debootstrap and Debian's archive keyring (apt-get install debootstrap debian-archive-keyring).
# Env:  PKG_CACHE       cache folder                 (default: ~/.cache/occupancy_gui-packaging)
#       DEBIAN_MIRROR   mirror for debootstrap/apt   (default: the host's first deb822/one-line Debian URI)
#       REFRESH_ROOTS=1 make the pristine roots again (point releases, security updates)

PKG_CACHE="${PKG_CACHE:-$HOME/.cache/occupancy_gui-packaging}"

# The host's Debian mirror (the one its apt already trusts), so the roots reach what the host reaches.
host_mirror() {
    local uri
    uri="$(grep -hoE '^URIs:[[:space:]]*\S+' /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | awk '{print $2}' | grep -v -- '-security' | head -n 1)"
    [[ -n "$uri" ]] || uri="$(grep -hoE '^deb[[:space:]]+\S+' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | head -n 1)"
    echo "${uri:-http://deb.debian.org/debian}"
}
DEBIAN_MIRROR="${DEBIAN_MIRROR:-$(host_mirror)}"

need_root_tools() {
    [[ $(id -u) == 0 ]] || { echo "debian_root: needs root (debootstrap, chroot, mount)" >&2; return 1; }
    if ! command -v debootstrap >/dev/null || [[ ! -f /usr/share/keyrings/debian-archive-keyring.gpg ]]; then
        echo "debian_root: installing debootstrap" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap debian-archive-keyring >/dev/null
    fi
}

# apt sources of a suite, deb822 form, with the updates and security suites (bullseye on: /debian-security
# with "<suite>-security").
write_sources() {  # root suite [types]
    local root="$1" suite="$2" types="${3:-deb}"
    local security="${DEBIAN_MIRROR%/debian}/debian-security"
    rm -f "$root/etc/apt/sources.list"
    cat > "$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: $types
URIs: $DEBIAN_MIRROR
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: $types
URIs: $security
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
}

# The pristine root of a suite (made once, then reused).  Prints its path.
# Two checks may want the same root at once (check_deb.sh and check_readme_commands.sh, or two
# sessions sharing the cache): a lock per suite lets one make it while the other waits, then reuses it.
pristine_root() {  # suite
    local suite="$1" dest="$PKG_CACHE/roots/$1" lock
    mkdir -p "$PKG_CACHE/roots"
    exec {lock}>"$PKG_CACHE/roots/.$suite.lock"
    flock "$lock"
    if [[ "${REFRESH_ROOTS:-0}" == 1 || ! -f "$dest/.complete" ]]; then
        rm -rf "$dest" "$dest.partial"
        echo "debian_root: debootstrap --variant=minbase $suite ($DEBIAN_MIRROR)" >&2
        local t0=$SECONDS
        debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
            "$suite" "$dest.partial" "$DEBIAN_MIRROR" >"$PKG_CACHE/roots/$suite.debootstrap.log" 2>&1 \
            || { echo "debian_root: debootstrap $suite failed; see $PKG_CACHE/roots/$suite.debootstrap.log" >&2
                 exec {lock}>&-; return 1; }
        write_sources "$dest.partial" "$suite"
        date -u +%FT%TZ > "$dest.partial/.complete"
        mv "$dest.partial" "$dest"
        echo "debian_root: $suite made in $((SECONDS - t0)) s" >&2
    fi
    exec {lock}>&-
    echo "$dest"
}

# A fresh working copy of a suite's pristine root at dest (replacing whatever was there).
fresh_root() {  # suite dest
    local src
    src="$(pristine_root "$1")" || return 1
    rm -rf "$2"
    mkdir -p "$(dirname "$2")"
    cp -a "$src" "$2"
    cp /etc/resolv.conf "$2/etc/resolv.conf"
    # The host's CA bundle, so pip inside the root trusts what the host's pip trusts.
    mkdir -p "$2/etc/ssl/certs" && cp /etc/ssl/certs/ca-certificates.crt "$2/etc/ssl/certs/host-ca-certificates.crt"
}

# Run a command inside a root, with a clean environment, /proc and /dev mounted, and optional bind
# mounts given as BIND="host_path:root_path[,...]" (made in the root if missing), as CHROOT_USERSPEC
# (user:group) where set.  NAME=VALUE words before the command override the environment.
in_root() {  # root command...
    local root="$1"; shift
    local binds="${BIND:-}" script="mount -t proc proc '$root/proc' && mount --rbind /dev '$root/dev'"
    local pair
    IFS=',' read -ra pairs <<<"$binds"
    for pair in "${pairs[@]}"; do
        [[ -n "$pair" ]] || continue
        mkdir -p "$root/${pair#*:}"
        script+=" && mount --bind '${pair%%:*}' '$root/${pair#*:}'"
    done
    script+=" && exec chroot ${CHROOT_USERSPEC:+--userspec=$CHROOT_USERSPEC}"' "$0" "$@"'
    unshare -m --propagation private -- bash -c "$script" "$root" \
        env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive PIP_CERT=/etc/ssl/certs/host-ca-certificates.crt \
        SSL_CERT_FILE=/etc/ssl/certs/host-ca-certificates.crt PIP_DISABLE_PIP_VERSION_CHECK=1 "$@"
}
