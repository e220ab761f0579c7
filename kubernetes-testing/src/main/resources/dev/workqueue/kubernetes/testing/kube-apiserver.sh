#!/usr/bin/env bash
# A real Kubernetes API server (v1.20.2) and its etcd for tests, from Debian packages only: no
# download but apt's. Shipped in workqueue-kubernetes-testing, run by RealApiServer; a person
# runs it too:
#
#   kube-apiserver.sh provision
#       Makes sure kube-apiserver and etcd are there: reuses the cached binary, or installs the
#       Debian packages (root), builds kube-apiserver from Debian's kubernetes source package
#       and caches it. Prints the binary's path as its last line. Cold: ~6 min on 2 cores.
#   kube-apiserver.sh etcd DIR CLIENT_PORT PEER_PORT
#       Runs etcd in the foreground (exec), on 127.0.0.1, its data in DIR/etcd.
#   kube-apiserver.sh apiserver DIR PORT ETCD_PORT AUTHORIZATION [FLAG...]
#       Runs kube-apiserver in the foreground (exec), on https://127.0.0.1:PORT, with
#       --authorization-mode=AUTHORIZATION (AlwaysAllow or RBAC) and any further flags. Makes
#       DIR's self-signed certificate, service-account key and token file first if missing; the
#       token of the system:masters user "admin" is in DIR/admin-token.
#   kube-apiserver.sh up DIR [AUTHORIZATION]
#       Both in the background on free ports, waits for /readyz, writes DIR/env (ports, token,
#       pids). `kube-apiserver.sh down DIR` stops them.
#
# Environment:
#   WORKQUEUE_APISERVER_CACHE   where the built binary and the Go build cache live, keyed by the
#                               Debian package version (default ~/.cache/workqueue-toolkit/kube-apiserver)
#   WORKQUEUE_KUBE_APISERVER    a kube-apiserver binary to use as is: no build, no apt
#   WORKQUEUE_DEBIAN_MIRROR     where apt gets the source package (default: the mirror the
#                               machine's own apt sources use for bookworm)
#
# Every failure names its step on stderr ("kube-apiserver.sh: <step>: ...") and exits non-zero.
set -euo pipefail

readonly PACKAGE=kubernetes
readonly PACKAGE_VERSION=1.20.5+really1.20.2-1.1+deb12u1
readonly KUBE_VERSION=v1.20.2
readonly APT_PACKAGES=(golang-go etcd-server golang-github-modern-go-reflect2-dev openssl dpkg-dev curl)
readonly CACHE="${WORKQUEUE_APISERVER_CACHE:-${HOME:-/root}/.cache/workqueue-toolkit/kube-apiserver}"
readonly SELF="${BASH_SOURCE[0]}"

fail() { # step, message
  echo "kube-apiserver.sh: $1: $2" >&2
  exit 1
}

log() { echo "kube-apiserver.sh: $*" >&2; }

binary_path() { echo "$CACHE/$PACKAGE_VERSION/kube-apiserver"; }

works() { [[ -x "$1" ]] && "$1" --version >/dev/null 2>&1; }

provision() {
  if [[ -n "${WORKQUEUE_KUBE_APISERVER:-}" ]]; then
    works "$WORKQUEUE_KUBE_APISERVER" \
      || fail provision "WORKQUEUE_KUBE_APISERVER=$WORKQUEUE_KUBE_APISERVER does not run (--version)"
    command -v etcd >/dev/null || fail provision "etcd is not on the PATH (Debian: apt-get install etcd-server)"
    echo "$WORKQUEUE_KUBE_APISERVER"
    return
  fi
  local bin
  bin="$(binary_path)"
  if works "$bin" && command -v etcd >/dev/null; then
    echo "$bin"
    return
  fi
  mkdir -p "$CACHE" || fail cache "cannot create $CACHE (set WORKQUEUE_APISERVER_CACHE)"
  # One build at a time: two test JVMs may provision at once.
  exec 9>"$CACHE/.lock"
  flock -w 1200 9 || fail cache "another provisioning holds $CACHE/.lock for over 20 min"
  if ! works "$bin"; then
    install_packages
    build "$bin"
  elif ! command -v etcd >/dev/null; then
    install_packages
  fi
  echo "$bin"
}

# The mirror the machine's own apt sources use for bookworm (so a local mirror or proxy serves the
# source packages too), or WORKQUEUE_DEBIAN_MIRROR.
debian_uri() {
  if [[ -n "${WORKQUEUE_DEBIAN_MIRROR:-}" ]]; then
    echo "$WORKQUEUE_DEBIAN_MIRROR"
    return
  fi
  local uri
  uri="$(awk '/^$/ { u = "" } /^URIs:/ { u = $2 }
    /^Suites:/ && / bookworm( |$)/ && u != "" { print u; exit }' \
    /etc/apt/sources.list.d/*.sources 2>/dev/null)"
  if [[ -z "$uri" ]]; then
    uri="$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)"
  fi
  [[ -n "$uri" ]] || fail apt "no Debian bookworm source in /etc/apt/sources.list(.d); set WORKQUEUE_DEBIAN_MIRROR"
  echo "$uri"
}

install_packages() {
  command -v apt-get >/dev/null || fail apt "no apt-get: this machine is not Debian-like; build kube-apiserver $KUBE_VERSION yourself and set WORKQUEUE_KUBE_APISERVER"
  [[ "$(id -u)" == 0 ]] || fail apt "installing ${APT_PACKAGES[*]} needs root; run '$SELF provision' once as root, or set WORKQUEUE_KUBE_APISERVER"
  local sources=/etc/apt/sources.list.d/workqueue-toolkit-src.sources
  if [[ ! -f "$sources" ]]; then
    local uri
    uri="$(debian_uri)"
    log "adding Debian bookworm source packages from $uri ($sources)"
    cat >"$sources" <<EOF
Types: deb-src
URIs: $uri
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  fi
  local apt_log="$CACHE/apt.log"
  log "apt-get update && apt-get install ${APT_PACKAGES[*]} (log: $apt_log)"
  apt-get update >"$apt_log" 2>&1 \
    || fail apt "apt-get update failed (is the Debian mirror reachable? see $apt_log)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}" \
    >>"$apt_log" 2>&1 || fail apt "apt-get install ${APT_PACKAGES[*]} failed (see $apt_log)"
}

build() { # the binary's final path
  local out="$1" work="$CACHE/build"
  local tree="$work/gopath/src/k8s.io/kubernetes"
  log "building kube-apiserver $KUBE_VERSION from Debian's $PACKAGE $PACKAGE_VERSION in $work (~6 min cold)"
  rm -rf "$work" && mkdir -p "$work/gopath/src/k8s.io"
  (cd "$work" && apt-get source --download-only "$PACKAGE=$PACKAGE_VERSION" >"$work/source.log" 2>&1) \
    || fail source "apt-get source $PACKAGE=$PACKAGE_VERSION failed (deb-src for bookworm? see $work/source.log)"
  dpkg-source -x "$work/${PACKAGE}_${PACKAGE_VERSION}.dsc" "$tree" >"$work/unpack.log" 2>&1 \
    || fail source "dpkg-source -x failed (see $work/unpack.log)"
  # The vendored reflect2 1.0.1 reads Go runtime internals that changed in Go 1.18; without
  # Debian's 1.0.2 every JSON encoding of the server panics.
  local reflect2=/usr/share/gocode/src/github.com/modern-go/reflect2
  [[ -d "$reflect2" ]] || fail source "$reflect2 missing (apt-get install golang-github-modern-go-reflect2-dev)"
  rm -rf "$tree/vendor/github.com/modern-go/reflect2"
  mkdir -p "$tree/vendor/github.com/modern-go/reflect2"
  cp "$reflect2"/*.go "$reflect2"/*.s "$tree/vendor/github.com/modern-go/reflect2/"
  # Kubernetes 1.20 builds in GOPATH mode, from its vendor tree, offline.
  export GOPATH="$work/gopath" GOCACHE="$CACHE/gocache" GO111MODULE=off GOFLAGS= GOPROXY=off CGO_ENABLED=0
  cd "$tree"
  generate_openapi "$work"
  local pkg=k8s.io/kubernetes/vendor/k8s.io ldflags="-s -w"
  ldflags+=" -X $pkg/component-base/version.gitVersion=$KUBE_VERSION -X $pkg/component-base/version.gitMajor=1"
  ldflags+=" -X $pkg/component-base/version.gitMinor=20 -X $pkg/component-base/version.gitTreeState=clean"
  ldflags+=" -X $pkg/client-go/pkg/version.gitVersion=$KUBE_VERSION"
  nice -n 10 go build -trimpath -ldflags "$ldflags" -o "$work/kube-apiserver" ./cmd/kube-apiserver \
    >"$work/build.log" 2>&1 || fail build "go build ./cmd/kube-apiserver failed (see $work/build.log)"
  works "$work/kube-apiserver" || fail build "the built kube-apiserver does not run (--version)"
  mkdir -p "$(dirname "$out")"
  mv "$work/kube-apiserver" "$out.tmp" && mv "$out.tmp" "$out"
  cd / && rm -rf "$work"
  log "cached $out"
}

# The OpenAPI definitions (pkg/generated/openapi) are generated, not in the source: build the
# generator from vendor and run it over every package tagged +k8s:openapi-gen=.
generate_openapi() { # work dir
  local work="$1" dirs
  nice -n 10 go build -o "$work/openapi-gen" ./vendor/k8s.io/kube-openapi/cmd/openapi-gen \
    >"$work/openapi.log" 2>&1 || fail openapi "go build openapi-gen failed (see $work/openapi.log)"
  dirs="$(find . \( -path './_*' -o -path './.*' -o -path ./vendor \) -prune -o -type f -name '*.go' -print \
    | grep -v -e '^./staging/src/k8s.io/code-generator/' -e '^./staging/src/k8s.io/sample-apiserver/' \
    | xargs grep -l '+k8s:openapi-gen=' | xargs -n1 dirname \
    | sed -e 's|^./staging/src|vendor|' -e 's|^./||' -e 's|^|k8s.io/kubernetes/|' | LC_ALL=C sort -u | paste -sd, -)"
  [[ -n "$dirs" ]] || fail openapi "no package tagged +k8s:openapi-gen= found"
  nice -n 10 "$work/openapi-gen" -i "$dirs" -p k8s.io/kubernetes/pkg/generated/openapi \
    -O zz_generated.openapi -h hack/boilerplate/boilerplate.generatego.txt -r "$work/openapi-report.txt" \
    >>"$work/openapi.log" 2>&1 || fail openapi "openapi-gen failed (see $work/openapi.log)"
}

run_etcd() { # dir client-port peer-port
  local dir="$1" client="http://127.0.0.1:$2" peer="http://127.0.0.1:$3"
  command -v etcd >/dev/null || fail etcd "etcd is not on the PATH (run '$SELF provision')"
  mkdir -p "$dir"
  exec etcd --name workqueue-test --data-dir "$dir/etcd" \
    --listen-client-urls "$client" --advertise-client-urls "$client" \
    --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
    --initial-cluster "workqueue-test=$peer"
}

make_credentials() { # dir
  local dir="$1"
  [[ -f "$dir/tokens.csv" ]] && return
  mkdir -p "$dir"
  command -v openssl >/dev/null || fail credentials "openssl is not on the PATH (apt-get install openssl)"
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=kube-apiserver \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
    -keyout "$dir/apiserver.key" -out "$dir/apiserver.crt" 2>/dev/null \
    || fail credentials "openssl could not make the serving certificate"
  openssl genrsa -out "$dir/service-account.key" 2048 2>/dev/null \
    || fail credentials "openssl could not make the service-account key"
  local token
  token="$(openssl rand -hex 16)"
  echo "$token" >"$dir/admin-token"
  echo "$token,admin,admin,system:masters" >"$dir/tokens.csv.tmp" && mv "$dir/tokens.csv.tmp" "$dir/tokens.csv"
}

run_apiserver() { # dir port etcd-port authorization [flag...]
  local dir="$1" port="$2" etcd_port="$3" authorization="$4"
  shift 4
  local bin
  bin="$(provision | tail -n 1)"
  make_credentials "$dir"
  exec "$bin" --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
    --secure-port="$port" --insecure-port=0 --etcd-servers="http://127.0.0.1:$etcd_port" \
    --tls-cert-file="$dir/apiserver.crt" --tls-private-key-file="$dir/apiserver.key" \
    --token-auth-file="$dir/tokens.csv" --authorization-mode="$authorization" \
    --service-account-key-file="$dir/service-account.key" \
    --service-account-signing-key-file="$dir/service-account.key" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-cluster-ip-range=10.96.0.0/24 "$@"
}

free_port() { # a port nothing listens on, from the ephemeral-looking range; bounded
  local port
  for _ in $(seq 1 100); do
    port=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  fail ports "no free port found in 100 tries"
}

up() { # dir [authorization]
  local dir="$1" authorization="${2:-AlwaysAllow}" etcd_port peer_port port
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  provision >/dev/null
  etcd_port="$(free_port)" peer_port="$(free_port)" port="$(free_port)"
  "$SELF" etcd "$dir" "$etcd_port" "$peer_port" >"$dir/etcd.log" 2>&1 &
  echo "ETCD_PID=$!" >"$dir/env"
  "$SELF" apiserver "$dir" "$port" "$etcd_port" "$authorization" >"$dir/apiserver.log" 2>&1 &
  echo "APISERVER_PID=$!" >>"$dir/env"
  { echo "ETCD_PORT=$etcd_port"; echo "PORT=$port"; } >>"$dir/env"
  for _ in $(seq 1 300); do
    if [[ -f "$dir/admin-token" ]] && curl -skf -H "Authorization: Bearer $(cat "$dir/admin-token")" \
        "https://127.0.0.1:$port/readyz" >/dev/null 2>&1; then
      echo "TOKEN=$(cat "$dir/admin-token")" >>"$dir/env"
      log "ready: https://127.0.0.1:$port (token in $dir/admin-token; stop with '$SELF down $dir')"
      return
    fi
    sleep 0.2
  done
  down "$dir"
  fail ready "https://127.0.0.1:$port/readyz not ok after 60 s (see $dir/apiserver.log, $dir/etcd.log)"
}

down() { # dir
  local dir="$1"
  [[ -f "$dir/env" ]] || fail down "$dir/env missing: nothing started there"
  # shellcheck disable=SC1091
  source "$dir/env"
  kill "${APISERVER_PID:-}" "${ETCD_PID:-}" 2>/dev/null || true
}

case "${1:-}" in
  provision) provision ;;
  etcd) [[ $# == 4 ]] || fail usage "etcd DIR CLIENT_PORT PEER_PORT"; run_etcd "$2" "$3" "$4" ;;
  apiserver) [[ $# -ge 5 ]] || fail usage "apiserver DIR PORT ETCD_PORT AUTHORIZATION [FLAG...]"; shift; run_apiserver "$@" ;;
  up) [[ $# -ge 2 ]] || fail usage "up DIR [AUTHORIZATION]"; up "$2" "${3:-AlwaysAllow}" ;;
  down) [[ $# == 2 ]] || fail usage "down DIR"; down "$2" ;;
  *) fail usage "$(basename "$SELF") provision | etcd DIR CLIENT_PORT PEER_PORT | apiserver DIR PORT ETCD_PORT AUTHORIZATION [FLAG...] | up DIR [AUTHORIZATION] | down DIR" ;;
esac
