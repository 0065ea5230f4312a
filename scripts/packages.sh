# Sourced by the scripts that need system packages cargo cannot install.
#
#   need_packages WHAT...
#
# Each WHAT is one of the names below. Whatever is missing is installed when the script runs as
# root on Debian or Ubuntu (as CI runs it); anywhere else it is named, with the command that
# installs it for apt, dnf and pacman, and the script stops (exit 2) before anything runs: nothing
# is skipped.
#
#   build     cmake, a C++ compiler and libclang (llama.cpp is built from the sources its Rust
#             binding vendors)
#   vulkan    the Vulkan loader and Mesa's software driver (the GUI snapshots render on it)
#   chromium  headless Chromium (reports and handouts are printed with it)
#   pdftotext poppler's pdftotext (the printed pages are read back)
#   pip       Python 3 with pip (models come from the hub or from Python packages)
#   window    Xvfb, xdotool and ImageMagick (screenshots of a real window)

# One line per need, fields split by ^: name ^ how to tell it is here ^ Debian ^ Fedora ^ Arch.
_package_table() {
    cat <<'EOF'
cmake^command -v cmake^cmake^cmake^cmake
c++^command -v c++ || command -v g++ || command -v clang++^g++^gcc-c++^gcc
libclang^ls /usr/lib/llvm-*/lib/libclang.so* /usr/lib/llvm-*/lib/libclang-[0-9]*.so* /usr/lib64/libclang.so* /usr/lib/libclang.so* /usr/lib/x86_64-linux-gnu/libclang-[0-9]*.so* 2>/dev/null | grep -q .^libclang-dev^clang-devel^clang
libvulkan^ls /usr/lib/x86_64-linux-gnu/libvulkan.so.1 /usr/lib64/libvulkan.so.1 /usr/lib/libvulkan.so.1 2>/dev/null | grep -q .^libvulkan1^vulkan-loader^vulkan-icd-loader
lavapipe^ls /usr/share/vulkan/icd.d/lvp_icd*.json 2>/dev/null | grep -q .^mesa-vulkan-drivers^mesa-vulkan-drivers^vulkan-swrast
chromium^command -v chromium || command -v chromium-browser^chromium^chromium^chromium
pdftotext^command -v pdftotext^poppler-utils^poppler-utils^poppler
pip^python3 -m pip --version^python3-pip^python3-pip^python-pip
xvfb^command -v Xvfb^xvfb^xorg-x11-server-Xvfb^xorg-server-xvfb
xdotool^command -v xdotool^xdotool^xdotool^xdotool
imagemagick^command -v import^imagemagick^ImageMagick^imagemagick
EOF
}

_needs_of() {
    case "$1" in
        build) echo cmake c++ libclang ;;
        vulkan) echo libvulkan lavapipe ;;
        chromium) echo chromium ;;
        pdftotext) echo pdftotext ;;
        pip) echo pip ;;
        window) echo xvfb xdotool imagemagick ;;
        *) echo "packages.sh: unknown need $1" >&2; exit 2 ;;
    esac
}

need_packages() {
    local deb=() fed=() arch=() names=() need line name check d f a
    for what in "$@"; do
        for need in $(_needs_of "$what"); do
            line="$(_package_table | grep "^$need\^")"
            IFS='^' read -r name check d f a <<<"$line"
            if ! bash -c "$check" >/dev/null 2>&1; then
                names+=("$name")
                deb+=("$d")
                fed+=("$f")
                arch+=("$a")
            fi
        done
    done
    [ ${#names[@]} -gt 0 ] || return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing ${deb[*]}" >&2
        apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${deb[@]}" >&2
        return
    fi
    {
        echo "missing: ${names[*]}. Install them, then run this again:"
        echo "  Debian, Ubuntu:  sudo apt-get install ${deb[*]}"
        echo "  Fedora:          sudo dnf install ${fed[*]}"
        echo "  Arch:            sudo pacman -S ${arch[*]}"
    } >&2
    exit 2
}
