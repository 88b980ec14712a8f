# shellcheck shell=bash
# A plugin's which hook (sourced by pyenv-which): a virtual environment
# without the program looks for it in the version it was made from.
version="$(pyenv-version-name)"
if [ -f "${PYENV_ROOT}/versions/${version}/pyvenv.cfg" ]; then
	home="$(cut -b 1-1024 "${PYENV_ROOT}/versions/${version}/pyvenv.cfg" | sed -n '/^ *home *= */s///p')"
	if [ ! -x "$PYENV_COMMAND_PATH" ] && [ -x "$home/${PYENV_COMMAND_PATH##*/}" ]; then
		PYENV_COMMAND_PATH="$home/${PYENV_COMMAND_PATH##*/}"
	fi
fi
