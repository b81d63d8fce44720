#!/usr/bin/env bash
# The Python package's rules: ruff's lint rules and the import-linter contracts of its
# layers (pyproject.toml; docs/architecture.md, "The Python package"). Prints what breaks
# them and fails; quiet otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${SKIFF_VENV:-.venv}
"$venv/bin/ruff" check --no-cache --quiet --output-format concise python/skiff
PYTHONPATH=python:scripts/lint "$venv/bin/lint-imports" --no-cache pyproject.toml | tail -n +1 >/tmp/skiff-lint-imports.$$ 2>&1 \
  || { cat /tmp/skiff-lint-imports.$$ >&2; rm -f /tmp/skiff-lint-imports.$$; exit 1; }
rm -f /tmp/skiff-lint-imports.$$
