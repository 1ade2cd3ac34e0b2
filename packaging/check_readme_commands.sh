#!/usr/bin/env bash
# README's two set-up commands, exactly as written, on a fresh Debian machine (default: Debian 12,
# bookworm): fresh copies of a debootstrap minbase root (packaging/linux/debian_root.sh), which have no
# apt package lists, no sudo, no compiler and no Python venv module, as a new machine or container has.
#
#   root "root"   as root, without sudo: README's app command (offscreen, OCCUPANCY_GUI_QUIT_AFTER=3000 so
#                 the window opens, runs its event loop and closes), then the test command's apt part
#   root "sudo"   as a user with sudo (sudo installed, NOPASSWD, the package lists removed again): the test
#                 command whole, its pytest limited to a few test files (PYTEST_ADDOPTS: the command's
#                 text is not changed), then the app command
#
# Each command runs in /bin/sh (the README's blocks are `sh`) without DEBIAN_FRONTEND and with no
# standard input, from a copy of the working tree (git's tracked and untracked-but-not-ignored files).
# The working roots are removed however the check ends (the cached pristine root stays).
#
# Needs root (debootstrap, chroot), Debian's mirror and PyPI.  Usage:
#   sudo packaging/check_readme_commands.sh [SUITE...]          (default: bookworm)
# Env:  README_CHECK_TESTS   the test files the test command's pytest runs (default below)
#       README_CHECK_LIMIT   seconds each command may take (default 2400)
#       README_CHECK_KEEP=1  keep the logs (under build/readme-check-logs) after a pass too
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=packaging/linux/debian_root.sh
source packaging/linux/debian_root.sh

SUITES=("$@")
[[ ${#SUITES[@]} -gt 0 ]] || SUITES=(bookworm)
# The suite's first files (the CLI), the reference harness compiled with g++ against the pinned header
# wheel, the window offscreen on the test command's libraries, and a wheel built by the pinned backend.
TESTS="${README_CHECK_TESTS:-tests/cli/test_cli.py tests/engine/test_reference_differential.py tests/ui/test_app.py tests/packaging/test_wheel_data.py}"
LIMIT="${README_CHECK_LIMIT:-2400}"
USER_ID=1000
START=$SECONDS

fail() { echo "check_readme_commands: FAILED${SUITE:+ ($SUITE)}: $*" >&2; exit 1; }
say() { printf '\n== %s\n' "$*"; }

# README.md's block after a marker (the same extraction .ci/run makes for the test command).
readme_block() {  # marker
    awk -v marker="<!-- $1 -->" '$0 == marker {found=1; next} found && /^```sh/ {grab=1; next}
        grab && /^```/ {exit} grab {print}' README.md
}
APP_CMD="$(readme_block app-command)"
TEST_CMD="$(readme_block test-command)"
[[ -n "$APP_CMD" && -n "$TEST_CMD" ]] || fail "README.md lacks the app-command or test-command block"
# The test command's apt part: its leading "&&"-joined steps that call apt-get.
APT_PART="$(awk 'BEGIN {RS = " && "} /apt-get/ && !done {printf "%s%s", sep, $0; sep = " && "; next} {done=1}' \
    <<<"$TEST_CMD" | sed -z 's/\n$//')"
[[ "$APT_PART" == *"apt-get install"* ]] || fail "cannot find the apt-get part of the test command"

need_root_tools || fail "needs root"
mkdir -p "$ROOT/build"
WORKDIR="$(mktemp -d "$ROOT/build/readme-check.XXXXXX")"
LOGS="$ROOT/build/readme-check-logs"
rm -rf "$LOGS" && mkdir -p "$LOGS"
STEP_PID=""

# However the check ends (pass, failure, Ctrl-C, SIGTERM from a test's timeout): stop the command still
# running in a root (its own session: the whole process group), then delete the working roots.  Nothing
# is mounted outside the commands' private mount namespaces, so deleting cannot reach the host.
cleanup() {
    local status=$?
    if [[ -n "$STEP_PID" ]] && kill -0 "$STEP_PID" 2>/dev/null; then
        kill -TERM -- "-$STEP_PID" 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$STEP_PID" 2>/dev/null || break; sleep 1; done
        kill -KILL -- "-$STEP_PID" 2>/dev/null || true
        wait "$STEP_PID" 2>/dev/null || true
    fi
    rm -rf "$WORKDIR"
    [[ $status == 0 && "${README_CHECK_KEEP:-0}" != 1 ]] && rm -rf "$LOGS"
    exit "$status"
}
trap cleanup EXIT
trap 'echo "check_readme_commands: interrupted; removing the working roots" >&2; exit 130' INT
trap 'echo "check_readme_commands: terminated; removing the working roots" >&2; exit 143' TERM

# One command in a root, in a session of its own (so cleanup and the time limit reach every process it
# starts), output to a log; prints how long it took.  NAME=VALUE words before the command set its
# environment (in_root's clean one, without DEBIAN_FRONTEND: a person's shell does not set it).
in_root_step() {  # log root [NAME=VALUE...] command...
    local log="$1" root="$2" t0=$SECONDS status
    shift 2
    setsid timeout -k 15 "$LIMIT" bash -c 'source "$0"; root="$1"; shift; in_root "$root" "$@"' \
        "$ROOT/packaging/linux/debian_root.sh" "$root" "$@" </dev/null >"$log" 2>&1 &
    STEP_PID=$!
    status=0
    wait "$STEP_PID" || status=$?
    STEP_PID=""
    STEP_SECONDS=$((SECONDS - t0))
    if [[ $status != 0 ]]; then
        tail -n 40 "$log" >&2
        [[ $status == 124 ]] && echo "(stopped after ${LIMIT} s)" >&2
        return "$status"
    fi
}

# A root as a fresh machine has it: no sudo, and no apt package lists (debootstrap leaves the one it
# used; Debian's container images ship none, so apt-get install alone cannot find a package there).
fresh_machine_root() {  # name
    local dest="$WORKDIR/root-$SUITE-$1"
    fresh_root "$SUITE" "$dest" >&2 || fail "could not make a $SUITE root"
    rm -rf "$dest"/var/lib/apt/lists/* "$dest"/var/cache/apt/*.bin
    mkdir -p "$dest/var/lib/apt/lists/partial"
    echo "$dest"
}

# The working tree (tracked and untracked-but-not-ignored files, as they are now) copied to root:dest.
copy_checkout() {  # root dest owner
    mkdir -p "$1$2"
    git -C "$ROOT" ls-files -z --cached --others --exclude-standard \
        | while IFS= read -r -d '' f; do [[ -e "$f" || -L "$f" ]] && printf '%s\0' "$f"; done \
        | tar --null -T - -cf - | tar -C "$1$2" -xf -
    chown -R "$3" "$1$2"
}

for SUITE in "${SUITES[@]}"; do
    SUITE_START=$SECONDS

    say "$SUITE, as root without sudo: the app command"
    R="$(fresh_machine_root root)"
    [[ ! -e "$R/usr/bin/sudo" ]] || fail "the fresh root has sudo"
    copy_checkout "$R" /root/occupancy_gui 0:0
    # The control: what the commands did before they ran apt-get update fails on this machine.
    if in_root "$R" apt-get install -y python3-venv >"$LOGS/$SUITE-root-control.log" 2>&1; then
        fail "apt-get install without apt-get update worked: the root is not as fresh as a new machine"
    fi
    echo "readme: control: apt-get install without apt-get update fails here ($(grep -m1 '^E:' "$LOGS/$SUITE-root-control.log"))"
    in_root_step "$LOGS/$SUITE-root-app.log" "$R" QT_QPA_PLATFORM=offscreen OCCUPANCY_GUI_QUIT_AFTER=3000 \
        env -u DEBIAN_FRONTEND sh -c "cd /root/occupancy_gui && $APP_CMD" || fail "the app command failed as root"
    grep -q "Traceback" "$LOGS/$SUITE-root-app.log" && fail "the app command printed a traceback as root"
    [[ -x "$R/root/occupancy_gui/.venv/bin/occupancy-gui" ]] || fail "no .venv/bin/occupancy-gui after the app command"
    # Offscreen loads no display plugin: the X11 one (what the command's libxcb packages are for) must
    # find every library it links, so the same command opens a window on a desktop.
    missing="$(in_root "$R" sh -c 'ldd /root/occupancy_gui/.venv/lib/python3*/site-packages/PySide6/Qt/plugins/platforms/libqxcb.so' \
        | awk '/not found/ {print $1}' | sort -u | paste -sd ' ')"
    [[ -z "$missing" ]] || fail "Qt's xcb platform plugin lacks libraries the app command does not install: $missing"
    echo "readme: app command as root without sudo: exit 0 in $STEP_SECONDS s" \
         "($(grep -c '^Setting up' "$LOGS/$SUITE-root-app.log") apt packages set up)"

    say "$SUITE, as root without sudo: the test command's apt part"
    echo "$APT_PART"
    in_root_step "$LOGS/$SUITE-root-test-apt.log" "$R" env -u DEBIAN_FRONTEND sh -c "$APT_PART" \
        || fail "the test command's apt part failed as root"
    in_root "$R" sh -c 'command -v g++ && python3 -m venv --help >/dev/null' >/dev/null \
        || fail "g++ or python3 -m venv missing after the test command's apt part"
    echo "readme: test command's apt part as root without sudo: exit 0 in $STEP_SECONDS s"
    rm -rf "$R"

    say "$SUITE, as a user with sudo: the test command (pytest on: $TESTS)"
    R="$(fresh_machine_root sudo)"
    # Make the user with sudo, then remove the package lists that installing sudo needed: the machine is
    # again one on which apt-get install alone would fail.
    in_root "$R" sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends sudo \
        && rm -rf /var/lib/apt/lists/* && apt-get clean && useradd -m -u $USER_ID -s /bin/bash dev \
        && echo 'dev ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/dev && chmod 440 /etc/sudoers.d/dev" \
        >"$LOGS/$SUITE-sudo-setup.log" 2>&1 || { tail -n 20 "$LOGS/$SUITE-sudo-setup.log"; fail "making the sudo user failed"; }
    copy_checkout "$R" /home/dev/occupancy_gui "$USER_ID:$USER_ID"
    CHROOT_USERSPEC="$USER_ID:$USER_ID" in_root_step "$LOGS/$SUITE-sudo-test.log" "$R" HOME=/home/dev USER=dev \
        PYTEST_ADDOPTS="-p no:cacheprovider $TESTS" env -u DEBIAN_FRONTEND sh -c "cd ~/occupancy_gui && $TEST_CMD" \
        || fail "the test command failed as a user with sudo"
    # apt's history names the user sudo ran it for: the command went through sudo, not around it.
    grep -q "^Requested-By: dev ($USER_ID)" "$R/var/log/apt/history.log" \
        || fail "apt-get did not run through sudo for the user (no Requested-By: dev in apt's history)"
    summary="$(grep -E '^=+ .*(passed|failed|error).* in [0-9.]+s' "$LOGS/$SUITE-sudo-test.log" | tail -n 1 | tr -d '=')"
    [[ "$summary" == *passed* && "$summary" != *failed* ]] || fail "pytest's summary: $summary"
    echo "readme: test command as a user with sudo: exit 0 in $STEP_SECONDS s; pytest:${summary}"

    say "$SUITE, as a user with sudo: the app command"
    CHROOT_USERSPEC="$USER_ID:$USER_ID" in_root_step "$LOGS/$SUITE-sudo-app.log" "$R" HOME=/home/dev USER=dev \
        QT_QPA_PLATFORM=offscreen OCCUPANCY_GUI_QUIT_AFTER=3000 env -u DEBIAN_FRONTEND \
        sh -c "cd ~/occupancy_gui && $APP_CMD" || fail "the app command failed as a user with sudo"
    grep -q "Traceback" "$LOGS/$SUITE-sudo-app.log" && fail "the app command printed a traceback as a user with sudo"
    echo "readme: app command as a user with sudo: exit 0 in $STEP_SECONDS s" \
         "($(grep -c '^Setting up' "$LOGS/$SUITE-sudo-app.log") more apt packages set up)"
    rm -rf "$R"
    echo "readme: $SUITE passed in $((SECONDS - SUITE_START)) s"
done
SUITE=""
say "check_readme_commands: PASSED (${SUITES[*]}) in $((SECONDS - START)) s"
