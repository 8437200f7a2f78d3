#!/usr/bin/env bash
#
# test/demo.sh: see bloomsketch at work (README: `bash test/demo.sh`).
#
# Installs the Debian packages it needs (only those to build the extension and run a server:
# BS_PACKAGES of test/lib.sh), builds and installs the extension, starts a throwaway PostgreSQL
# server (temp dir, unix socket only, run by an unprivileged OS user), runs test/demo.sql with
# psql and stops the server.  Nothing is left running, even on error or Ctrl-C.
# Works as root or as a user with sudo (sudo is used only for apt-get and make install).
# PostgreSQL 15 (Debian 12's) unless BS_PG_VERSION names another that Debian packages here.

set -euo pipefail

# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# shellcheck disable=SC2119  # no packages beyond BS_PACKAGES
bs_install_deps
bs_build_install
bs_cluster_start
psql -X -v ON_ERROR_STOP=1 -f "$BS_ROOT/test/demo.sql"
bs_cluster_stop
