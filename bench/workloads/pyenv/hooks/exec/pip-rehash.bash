# shellcheck shell=bash
# An exec hook (sourced by pyenv-exec): notes whether the program run is a
# package installer, after which the shims are rewritten.
export PYENV_PIP_REHASH_ROOT
PYENV_PIP_REHASH_ROOT="$(dirname "${BASH_SOURCE[0]}")/pip-rehash"
PYENV_REHASH_COMMAND="$(basename "$PYENV_COMMAND_PATH")"
case "$PYENV_REHASH_COMMAND" in
pip | pip3* | easy_install*) export PYENV_REHASH_AFTER=1 ;;
esac
