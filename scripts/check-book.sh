#!/usr/bin/env bash
# Build the book (docs/, mdBook) and check its links (scripts/check-links.py, no network):
# every relative link of docs/src and README.md resolves to a file and heading, SUMMARY.md
# lists every page; then every relative href of the built HTML resolves, with its #id.
# mdbook is installed once, with cargo from crates.io, into a cache outside the checkout
# (${XDG_CACHE_HOME:-~/.cache}/capi-render/mdbook; MDBOOK overrides the binary).
# The book is written to docs/book/ (git-ignored); BOOK_DIR moves it.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${XDG_CACHE_HOME:-$HOME/.cache}/capi-render
mdbook_version=0.5.4
mdbook=${MDBOOK:-}
if [ -z "$mdbook" ]; then
  if [ -x "$cache/mdbook/bin/mdbook" ]; then
    mdbook=$cache/mdbook/bin/mdbook
  elif command -v mdbook >/dev/null; then
    mdbook=$(command -v mdbook)
  else
    echo "check-book: installing mdbook $mdbook_version into $cache/mdbook" >&2
    CARGO_TARGET_DIR="$cache/mdbook-target" cargo install mdbook --version "$mdbook_version" \
      --locked --root "$cache/mdbook" >&2
    rm -rf "$cache/mdbook-target"
    mdbook=$cache/mdbook/bin/mdbook
  fi
fi
"$mdbook" --version
python3 scripts/check-links.py
book=${BOOK_DIR:-docs/book}
"$mdbook" build docs --dest-dir "$(realpath -m "$book")"
python3 scripts/check-links.py --html "$book"
echo "check-book: OK"
