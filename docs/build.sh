#!/usr/bin/env bash
# Builds the API reference and guides into docs/_build/html with warnings as
# errors, after checking that every example in them runs:
#   - the stub's docstrings are the compiled module's (help() and editors agree),
#   - the guides' and docstrings' >>> examples pass as doctests,
#   - the example programs the guides include run and pass mypy --strict.
# Needs the installed package with the docs and test extras:
#   pip install "opgraph[docs,test,testing]"   (or the wheel, with those extras)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/_build/html}"

python docs/sync_stub_docstrings.py --check
python -m pytest -q -p no:cacheprovider tests/docs
python -m sphinx -W --keep-going -b html -q docs "$out"
echo "docs: $out/index.html"
