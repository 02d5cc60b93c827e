#!/usr/bin/env bash
# Install the random-forest reference's one dependency, Debian's
# python3-sklearn (with python3-numpy). It is the benchmark's business, not
# perfmodel's: nothing in the build or the tests needs it.
set -euo pipefail
if /usr/bin/python3 -c 'import sklearn' 2>/dev/null; then
	exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup-rf: installing python3-sklearn" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-sklearn >/dev/null
