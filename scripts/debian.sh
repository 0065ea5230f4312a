# Sourced by scripts that need Debian packages cargo cannot install.
#   install_debian_packages PKG...
# installs the packages given (none: nothing to do) when run as root, as the test script is in
# CI; otherwise names them and the command that installs them, and exits 2.
install_debian_packages() {
    [ $# -gt 0 ] || return 0
    if [ "$(id -u)" = 0 ]; then
        echo "installing $*" >&2
        apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
    else
        echo "missing Debian packages: $* (run: sudo apt-get install $*)" >&2
        exit 2
    fi
}
